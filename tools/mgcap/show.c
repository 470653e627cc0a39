// SPDX-License-Identifier: BSD-2-Clause
#include <inttypes.h>
#include <string.h>
#include <linux/mgcap.h>

#include "parse.h"
#include "show.h"

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void json_counters(FILE *f, const struct mgcap_nl_counters *c)
{
	fprintf(f, "\"captured\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"dropped\":%" PRIu64
		",\"fill\":%" PRIu64 ",\"high_water\":%" PRIu64 ",\"coalesced\":%" PRIu64
		",\"sent\":%" PRIu64, c->captured, c->bytes, c->dropped, c->fill, c->high_water,
		c->coalesced, c->sent);
}

/* MGCAP_COALESCING_*, as ethtool -K names them */
static const struct {
	uint32_t bit;
	const char *name;
} coalescing_names[] = {
	{ MGCAP_COALESCING_GRO, "gro" },
	{ MGCAP_COALESCING_LRO, "lro" },
	{ MGCAP_COALESCING_GRO_HW, "rx-gro-hw" },
	{ MGCAP_COALESCING_GRO_LIST, "rx-gro-list" },
	{ MGCAP_COALESCING_GRO_UDP_FWD, "rx-udp-gro-forwarding" },
};

/* @off's names, each after @sep, @quote around each */
static void coalescing_list(FILE *f, uint32_t off, const char *sep, const char *quote)
{
	size_t i;
	int n = 0;

	for (i = 0; i < sizeof(coalescing_names) / sizeof(coalescing_names[0]); i++)
		if (off & coalescing_names[i].bit)
			fprintf(f, "%s%s%s%s", n++ ? sep : "", quote, coalescing_names[i].name,
				quote);
}

/* What the capture did to the device's coalescing, and what came coalesced. */
static void table_coalescing(FILE *f, const struct mgcap_nl_dev *d)
{
	uint64_t coalesced = 0;
	uint32_t q;

	for (q = 0; q < d->num_queues; q++)
		coalesced += d->queues[q].counters.coalesced;
	fputs("  coalescing: ", f);
	if (d->keep_coalescing) {
		fputs("left as it was (coalescing keep)", f);
	} else if (d->coalescing_off) {
		coalescing_list(f, d->coalescing_off, ", ", "");
		fputs(" off while captured", f);
	} else {
		fputs("none turned off by mgcap", f);
	}
	fprintf(f, "; %" PRIu64 " record%s of coalesced frames\n", coalesced,
		coalesced == 1 ? "" : "s");
}

/* Whether the capture holds what the device sends, and how much of it. */
static void table_directions(FILE *f, const struct mgcap_nl_dev *d)
{
	uint64_t sent = 0;
	uint32_t q;

	if (d->received_only) {
		fputs("  directions: received frames only (sent off)\n", f);
		return;
	}
	for (q = 0; q < d->num_queues; q++)
		sent += d->queues[q].counters.sent;
	fprintf(f, "  directions: received and sent; %" PRIu64 " record%s of sent frames\n", sent,
		sent == 1 ? "" : "s");
}

static void json_readers(FILE *f, const struct mgcap_nl_queue *qu)
{
	uint32_t i;

	fputs("\"readers\":[", f);
	for (i = 0; i < qu->num_readers; i++) {
		const struct mgcap_nl_reader *r = &qu->readers[i];

		/* without CAP_NET_ADMIN: the counters alone */
		if (r->hidden) {
			fprintf(f, "%s{", i ? "," : "");
			json_counters(f, &r->counters);
			fprintf(f, ",\"out_of_order\":%" PRIu64 "}", r->out_of_order);
			continue;
		}
		fprintf(f, "%s{\"pid\":%" PRIu32 ",\"comm\":", i ? "," : "", r->pid);
		json_string(f, r->comm);
		fprintf(f, ",\"snaplen\":%" PRIu32 ",", r->snaplen);
		json_counters(f, &r->counters);
		fprintf(f, ",\"filter_len\":%" PRIu32 ",\"filtered\":%" PRIu64
			",\"out_of_order\":%" PRIu64 "}", r->filter_len, r->filtered, r->out_of_order);
	}
	fputc(']', f);
}

static void json_clock(FILE *f, const struct mgcap_phc_status *c)
{
	fputs(",\"clock\":", f);
	if (c->index < 0 && !c->err) {
		fputs("null", f);
		return;
	}
	fprintf(f, "{\"phc\":\"/dev/ptp%d\"", c->index);
	if (c->err) {
		fputs(",\"error\":", f);
		json_string(f, strerror(c->err));
	} else {
		fprintf(f, ",\"method\":\"%s\",\"offset_ns\":%" PRId64 ",\"freq_ppb\":%.1f"
			",\"freq_unc_ppb\":%.1f,\"window_ns\":%" PRId64,
			mgcap_phc_method_name(c->method), c->offset_ns, c->freq_ppb,
			c->freq_unc_ppb, c->window_ns);
	}
	fputc('}', f);
}

/* One line on the device's clock, the source of adapter stamps. */
static void table_clock(FILE *f, const struct mgcap_phc_status *c)
{
	int64_t off = c->offset_ns < 0 ? -c->offset_ns : c->offset_ns;

	if (c->index < 0 && !c->err)
		fputs("  clock: none named by the NIC (no adapter stamps in system time)\n", f);
	else if (c->err)
		fprintf(f, "  clock: /dev/ptp%d cannot be read: %s\n", c->index, strerror(c->err));
	else
		fprintf(f, "  clock: /dev/ptp%d, %c%" PRId64 ".%09" PRId64 " s from system time, "
			"%+.1f ppm (+-%.1f), by %s, window %" PRId64 " ns\n", c->index,
			c->offset_ns < 0 ? '-' : '+', off / 1000000000, off % 1000000000,
			c->freq_ppb / 1000, c->freq_unc_ppb / 1000,
			mgcap_phc_method_name(c->method), c->window_ns);
}

void mgcap_show_json(FILE *f, const struct mgcap_nl_list *l,
		     const struct mgcap_phc_status *clocks)
{
	size_t i, q;

	fputc('[', f);
	for (i = 0; i < l->count; i++) {
		const struct mgcap_nl_dev *d = &l->devs[i];

		fprintf(f, "%s{\"dev\":", i ? "," : "");
		json_string(f, d->ifname);
		fprintf(f, ",\"ifindex\":%" PRIu32 ",\"mode\":\"%s\",\"ring_size\":%" PRIu64
			",\"snaplen\":%" PRIu32 ",\"autostop\":%s,\"keep_coalescing\":%s"
			",\"received_only\":%s,\"coalescing_off\":[", d->ifindex,
			mgcap_mode_name(d->mode), d->ring_size, d->snaplen,
			d->autostop ? "true" : "false", d->keep_coalescing ? "true" : "false",
			d->received_only ? "true" : "false");
		coalescing_list(f, d->coalescing_off, ",", "\"");
		fputs("],\"queues\":[", f);
		for (q = 0; q < d->num_queues; q++) {
			const struct mgcap_nl_queue *qu = &d->queues[q];

			fprintf(f, "%s{\"queue\":%" PRIu32 ",\"devnode\":", q ? "," : "", qu->id);
			json_string(f, qu->devnode);
			fputc(',', f);
			json_counters(f, &qu->counters);
			fputc(',', f);
			json_readers(f, qu);
			fputc('}', f);
		}
		fputc(']', f);
		if (clocks)
			json_clock(f, &clocks[i]);
		fputc('}', f);
	}
	fputs("]\n", f);
}

#define TABLE_ROW "  %5s %14s %18s %12s %12s %12s %7s  %s\n"
#define TABLE_COUNTERS "%14" PRIu64 " %18" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64

void mgcap_show_table(FILE *f, const struct mgcap_nl_list *l,
		      const struct mgcap_phc_status *clocks)
{
	size_t i, q;
	uint32_t r;

	if (!l->count)
		fputs("no captured devices\n", f);
	for (i = 0; i < l->count; i++) {
		const struct mgcap_nl_dev *d = &l->devs[i];

		fprintf(f, "%s: mode %s, %" PRIu32 " queue%s, ring %" PRIu64 " KiB, snaplen %" PRIu32
			"%s\n", d->ifname, mgcap_mode_name(d->mode), d->num_queues,
			d->num_queues == 1 ? "" : "s", d->ring_size >> 10, d->snaplen,
			d->autostop ? ", stops with its last reader" : "");
		if (clocks)
			table_clock(f, &clocks[i]);
		table_coalescing(f, d);
		table_directions(f, d);
		fprintf(f, TABLE_ROW, "queue", "captured", "bytes", "dropped", "fill", "high-water",
			"readers", "node / reader");
		for (q = 0; q < d->num_queues; q++) {
			const struct mgcap_nl_queue *qu = &d->queues[q];
			const struct mgcap_nl_counters *c = &qu->counters;

			fprintf(f, "  %5" PRIu32 " " TABLE_COUNTERS " %7" PRIu32 "  %s\n", qu->id,
				c->captured, c->bytes, c->dropped, c->fill, c->high_water,
				qu->num_readers, qu->devnode);
			/* each reader's own counts, under its queue */
			for (r = 0; r < qu->num_readers; r++) {
				const struct mgcap_nl_reader *rd = &qu->readers[r];

				c = &rd->counters;
				if (rd->hidden) {	/* without CAP_NET_ADMIN */
					fprintf(f, "  %5s " TABLE_COUNTERS " %7s  out of order %"
						PRIu64 "\n", "", c->captured, c->bytes, c->dropped,
						c->fill, c->high_water, "", rd->out_of_order);
					continue;
				}
				fprintf(f, "  %5s " TABLE_COUNTERS " %7s  ", "", c->captured, c->bytes,
					c->dropped, c->fill, c->high_water, "");
				/* pid 0: a process this one's pid namespace cannot see */
				if (rd->pid)
					fprintf(f, "pid %" PRIu32 " %s", rd->pid, rd->comm);
				else
					fprintf(f, "a process outside this pid namespace");
				fprintf(f, ", snaplen %" PRIu32 ", filter %" PRIu32 " insns, filtered out %"
					PRIu64 ", out of order %" PRIu64 "\n", rd->snaplen,
					rd->filter_len, rd->filtered, rd->out_of_order);
			}
		}
	}
}
