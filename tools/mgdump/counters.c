// SPDX-License-Identifier: BSD-2-Clause
/*
 * --stats FILE and --prometheus FILE: mgdump's counters for a monitoring
 * system, every few seconds and at the end, each file replaced whole
 * (written beside it, then renamed), so a reader never sees half of one.
 * The same counters in both: per interface (a queue, or a device with
 * --merged) received, of those read the frames its device sent, written,
 * dropped in its ring, in the buffer and for a full disk, and records of
 * coalesced frames; the files; the disk.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>

#include "mgcap_time.h"
#include "mgdump.h"


/* A string as JSON has it (interface and file names: quotes and backslashes escaped). */
static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void write_json(FILE *f, const struct iface_counters *c, size_t n,
		       const struct disk_counters *d, const char *current)
{
	size_t i;

	fprintf(f, "{\"time_ns\":%" PRIu64 ",\"snaplen\":%" PRIu32 ",\"interfaces\":[",
		mgcap_now_ns(CLOCK_REALTIME), cfg.snaplen);
	for (i = 0; i < n; i++) {
		fprintf(f, "%s{\"name\":", i ? "," : "");
		json_string(f, c[i].name);
		fprintf(f, ",\"received\":%" PRIu64 ",\"sent\":%" PRIu64 ",\"written\":%" PRIu64
			",\"dropped_ring\":%" PRIu64 ",\"dropped_buffer\":%" PRIu64
			",\"dropped_disk_full\":%" PRIu64 ",\"coalesced\":%" PRIu64 ",\"tstamp\":",
			c[i].received, c[i].sent, c[i].written, c[i].ring_drops, c[i].buffer_drops,
			c[i].disk_drops, c[i].coalesced);
		json_string(f, c[i].tstamp);
		fputc('}', f);
	}
	fprintf(f, "],\"files\":%" PRIu64 ",\"file\":", d->files);
	json_string(f, current);
	fprintf(f, ",\"bytes_written\":%" PRIu64, d->bytes_written);
	if (d->kept_known)
		fprintf(f, ",\"disk_kept_bytes\":%" PRIu64, d->kept_bytes);
	if (d->free_known)
		fprintf(f, ",\"disk_free_bytes\":%" PRIu64, d->free_bytes);
	fputs("}\n", f);
}

/* A label's value as the text format has it: backslash, quote and newline escaped. */
static void prom_label(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

/* One metric: its help and type, then a sample per interface. */
static void prom_iface(FILE *f, const char *metric, const char *help,
		       const struct iface_counters *c, size_t n, size_t field)
{
	size_t i;

	fprintf(f, "# HELP mgdump_%s %s\n# TYPE mgdump_%s counter\n", metric, help, metric);
	for (i = 0; i < n; i++) {
		fprintf(f, "mgdump_%s{interface=\"", metric);
		prom_label(f, c[i].name);
		fprintf(f, "\"} %" PRIu64 "\n", *(const uint64_t *)((const char *)&c[i] + field));
	}
}

static void prom_one(FILE *f, const char *metric, const char *type, const char *help,
		     uint64_t v)
{
	fprintf(f, "# HELP mgdump_%s %s\n# TYPE mgdump_%s %s\nmgdump_%s %" PRIu64 "\n", metric,
		help, metric, type, metric, v);
}

static void write_prometheus(FILE *f, const struct iface_counters *c, size_t n,
			     const struct disk_counters *d)
{
	prom_iface(f, "received_packets_total", "Packets the ring received (kept or dropped).",
		   c, n, offsetof(struct iface_counters, received));
	prom_iface(f, "sent_packets_total",
		   "Packets read from the ring that the device sent (counted in received too; 0 "
		   "where the source does not tell).", c, n, offsetof(struct iface_counters, sent));
	prom_iface(f, "written_packets_total", "Packets written to the files.", c, n,
		   offsetof(struct iface_counters, written));
	prom_iface(f, "ring_dropped_packets_total", "Packets the kernel ring had no room for.",
		   c, n, offsetof(struct iface_counters, ring_drops));
	prom_iface(f, "buffer_dropped_packets_total", "Packets mgdump's buffer had no room for.",
		   c, n, offsetof(struct iface_counters, buffer_drops));
	prom_iface(f, "disk_full_dropped_packets_total",
		   "Packets dropped while the files' disk was full.", c, n,
		   offsetof(struct iface_counters, disk_drops));
	prom_iface(f, "coalesced_packets_total",
		   "Packets that held several wire frames merged (GRO or LRO on).", c, n,
		   offsetof(struct iface_counters, coalesced));
	prom_one(f, "files_total", "counter", "Files finished.", d->files);
	prom_one(f, "written_bytes_total", "counter", "Bytes written to the files.",
		 d->bytes_written);
	if (d->kept_known)
		prom_one(f, "kept_bytes", "gauge", "Bytes of mgdump's files kept (--max-disk).",
			 d->kept_bytes);
	if (d->free_known)
		prom_one(f, "disk_free_bytes", "gauge", "Free bytes of the files' file system.",
			 d->free_bytes);
}

/* @path replaced whole by what @write puts in it. */
static void replace(const char *path, const struct iface_counters *c, size_t n,
		    const struct disk_counters *d, const char *current, int json)
{
	char tmp[4200];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.new", path);
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "mgdump: %s: %s\n", tmp, strerror(errno));
		return;
	}
	if (json)
		write_json(f, c, n, d, current);
	else
		write_prometheus(f, c, n, d);
	if (fclose(f) || rename(tmp, path))
		fprintf(stderr, "mgdump: %s: %s\n", path, strerror(errno));
}

void mgdump_publish_counters(const struct iface_counters *c, size_t n, struct disk_counters *d,
			     const struct retention *kept, const char *current)
{
	char dir[4200], *slash;
	struct statvfs fs;

	if (kept->list[0]) {
		d->kept_bytes = retention_bytes(kept);
		d->kept_known = 1;
	}
	snprintf(dir, sizeof(dir), "%s", strcmp(cfg.path, "-") ? cfg.path : ".");
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	if (statvfs(slash ? (*dir ? dir : "/") : ".", &fs) == 0) {
		d->free_bytes = (uint64_t)fs.f_bavail * fs.f_frsize;
		d->free_known = 1;
	}
	if (cfg.stats_path)
		replace(cfg.stats_path, c, n, d, current, 1);
	if (cfg.prometheus_path)
		replace(cfg.prometheus_path, c, n, d, current, 0);
}

void mgdump_write_counters(const struct dump_output *out, const struct retention *kept,
			   const struct mgdump_sample *s)
{
	struct iface_counters c[MAX_READERS];
	struct disk_counters d = { .files = out->files_done, .bytes_written = out->bytes_total };
	size_t i;

	if (!cfg.stats_path && !cfg.prometheus_path)
		return;
	for (i = 0; i < nreaders; i++) {
		struct reader *r = &readers[i];

		c[i] = (struct iface_counters){
			.name = ifs[i].name, .received = s->counts[i].received, .sent = s->sent[i],
			.written = r->written,
			.ring_drops = s->counts[i].dropped,
			.buffer_drops = __atomic_load_n(&r->ring.dropped, __ATOMIC_RELAXED),
			.disk_drops = r->disk_dropped, .coalesced = s->counts[i].coalesced,
			.tstamp = pcap_tstamp_type_val_to_name(r->tstamp_type),
		};
	}
	mgdump_publish_counters(c, nreaders, &d, kept, out->current);
}
