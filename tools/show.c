// SPDX-License-Identifier: BSD-2-Clause
#include <inttypes.h>

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

void mgcap_show_json(FILE *f, const struct mgcap_nl_list *l)
{
	size_t i, q;

	fputc('[', f);
	for (i = 0; i < l->count; i++) {
		const struct mgcap_nl_dev *d = &l->devs[i];

		fprintf(f, "%s{\"dev\":", i ? "," : "");
		json_string(f, d->ifname);
		fprintf(f, ",\"ifindex\":%" PRIu32 ",\"mode\":\"%s\",\"ring_size\":%" PRIu64
			",\"snaplen\":%" PRIu32 ",\"queues\":[",
			d->ifindex, mgcap_mode_name(d->mode), d->ring_size, d->snaplen);
		for (q = 0; q < d->num_queues; q++) {
			const struct mgcap_nl_queue *qu = &d->queues[q];

			fprintf(f, "%s{\"queue\":%" PRIu32 ",\"devnode\":", q ? "," : "", qu->id);
			json_string(f, qu->devnode);
			fprintf(f, ",\"captured\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"dropped\":%" PRIu64
				",\"fill\":%" PRIu64 ",\"high_water\":%" PRIu64 ",\"reader\":%s}",
				qu->captured, qu->bytes, qu->dropped, qu->fill, qu->high_water,
				qu->reader ? "true" : "false");
		}
		fputs("]}", f);
	}
	fputs("]\n", f);
}

void mgcap_show_table(FILE *f, const struct mgcap_nl_list *l)
{
	size_t i, q;

	if (!l->count)
		fputs("no captured devices\n", f);
	for (i = 0; i < l->count; i++) {
		const struct mgcap_nl_dev *d = &l->devs[i];

		fprintf(f, "%s: mode %s, %" PRIu32 " queue%s, ring %" PRIu64 " KiB, snaplen %" PRIu32 "\n",
			d->ifname, mgcap_mode_name(d->mode), d->num_queues,
			d->num_queues == 1 ? "" : "s", d->ring_size >> 10, d->snaplen);
		fprintf(f, "  %5s %14s %18s %12s %12s %12s %6s  %s\n", "queue", "captured", "bytes",
			"dropped", "fill", "high-water", "reader", "node");
		for (q = 0; q < d->num_queues; q++) {
			const struct mgcap_nl_queue *qu = &d->queues[q];

			fprintf(f, "  %5" PRIu32 " %14" PRIu64 " %18" PRIu64 " %12" PRIu64 " %12" PRIu64
				" %12" PRIu64 " %6s  %s\n", qu->id, qu->captured, qu->bytes,
				qu->dropped, qu->fill, qu->high_water, qu->reader ? "yes" : "no",
				qu->devnode);
		}
	}
}
