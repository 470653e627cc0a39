// SPDX-License-Identifier: BSD-2-Clause
/* What mgdump reports: the files' statistics blocks, the status line, the summary. */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "mgcap_time.h"
#include "mgdump.h"
#include "pcapng.h"

/*
 * What the stamps of @r are, for a statistics block.  At the end, with what
 * the conversion of adapter stamps did (its counters belong to the reader
 * thread until then).
 */
static void tstamp_note(struct reader *r, int joined, char *buf, size_t len)
{
	char report[PCAPNG_NOTE_MAX - 48];

	if (!joined || !tstamp_report ||
	    tstamp_report(r->pcap, report, sizeof(report)) < 0)
		report[0] = '\0';
	snprintf(buf, len, "time stamps: %s%s%s", pcap_tstamp_type_val_to_name(r->tstamp_type),
		 report[0] ? ", " : "", report);
}

/* What a statistics block says beside its counters: drops for a full disk, the stamps. */
static void stats_note(struct reader *r, int joined, char *buf, size_t len)
{
	int n = 0;

	if (r->disk_dropped)
		n = snprintf(buf, len, "full disk drops: %" PRIu64 "; ", r->disk_dropped);
	if (n < 0 || (size_t)n >= len)
		n = 0;
	tstamp_note(r, joined, buf + n, len - (size_t)n);
}

/* Statistics for the closing blocks of a file: the counters as of now. */
void mgdump_collect_stats(struct pcapng_if_stats *st, size_t n, const struct mgdump_sample *s)
{
	uint64_t now = mgcap_now_ns(CLOCK_REALTIME);
	size_t i;

	for (i = 0; i < n && i < nreaders; i++) {
		struct reader *r = &readers[i];
		const struct mgdump_counts *c = &s->counts[i];

		st[i].start_ns = start_ns;
		st[i].end_ns = now;
		st[i].received = c->received;
		st[i].if_dropped = c->if_dropped;
		st[i].os_dropped = c->dropped;
		st[i].delivered = r->written;
		st[i].buffer_dropped = __atomic_load_n(&r->ring.dropped, __ATOMIC_RELAXED);
		stats_note(r, s->joined, st[i].note, sizeof(st[i].note));
	}
}

void mgdump_status_line(uint64_t *last_pkts, uint64_t *last_bytes, uint64_t bytes, int final,
			const struct mgdump_sample *s)
{
	uint64_t pkts = 0, received = 0, sent = 0, ring_drops = 0, buf_drops = 0, disk_drops = 0;
	uint64_t fill = 0, hwm = 0, cap = 0;
	size_t i;

	for (i = 0; i < nreaders; i++) {
		if (s->fresh[i]) {
			received += s->counts[i].received;
			ring_drops += s->counts[i].dropped;
		}
		sent += s->sent[i];
		pkts += readers[i].written;
		buf_drops += __atomic_load_n(&readers[i].ring.dropped, __ATOMIC_RELAXED);
		disk_drops += readers[i].disk_dropped;
		fill += blockring_fill(&readers[i].ring);
		hwm += __atomic_load_n(&readers[i].ring.high_water, __ATOMIC_RELAXED);
		cap += readers[i].ring.size;
	}
	if (final) {
		uint64_t read = 0, accounted = pkts + ring_drops + buf_drops + disk_drops;
		char sent_note[64] = "";

		/* (where no source tells, it is not known, not 0) */
		if (s->directions)
			snprintf(sent_note, sizeof(sent_note), " (%" PRIu64 " of them sent)", sent);
		fprintf(stderr, "mgdump: %" PRIu64 " packets written, %" PRIu64 " bytes, of %" PRIu64
			" received%s; dropped: %" PRIu64 " in the rings, %" PRIu64 " in the buffer, %"
			PRIu64 " for a full disk; buffer high-water %" PRIu64 "%%; snaplen %" PRIu32
			"\n", pkts, bytes, received, sent_note, ring_drops, buf_drops, disk_drops,
			cap ? hwm * 100 / cap : 0, cfg.snaplen);
		/*
		 * The readers are gone: every packet they read is in the file
		 * or dropped for a full disk, but -c's surplus.
		 */
		for (i = 0; i < nreaders; i++)
			read += readers[i].captured;
		if (!cfg.count && read != pkts + disk_drops)
			fprintf(stderr, "mgdump: %" PRIu64 " packets read were not written%s\n",
				read - pkts - disk_drops, cfg.rotate_seconds && cfg.keep ?
				" (they came after the last of the -W periods)" : "");
		/* (-c leaves the rest, a filter in user space may reject some) */
		if (!cfg.count && accounted < received)
			fprintf(stderr, "mgdump: %" PRIu64 " packets received were neither written "
				"nor dropped (rejected by the filter, or left in a ring)\n",
				received - accounted);
	} else {
		fprintf(stderr, "\r%" PRIu64 " pkt/s %.1f MB/s drops ring %" PRIu64 " buffer %" PRIu64
			" buffer %" PRIu64 "%% (high %" PRIu64 "%%)   ", pkts - *last_pkts,
			(double)(bytes - *last_bytes) / 1e6, ring_drops, buf_drops,
			cap ? fill * 100 / cap : 0, cap ? hwm * 100 / cap : 0);
	}
	*last_pkts = pkts;
	*last_bytes = bytes;
}
