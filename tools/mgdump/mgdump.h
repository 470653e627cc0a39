/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mgdump's parts and the state they share.  One reader thread per source
 * (readers.c; sources.c opens them) formats enhanced packet blocks into its
 * own part of a large buffer; the writer (writer.c, the main thread) writes
 * them out, and hands stats.c and counters.c a sample of the readers'
 * counters to report.  The configuration comes from the option table
 * (options.c).  Below them all, run.c: the stop, and the writer's wake-up.
 */
#ifndef MGDUMP_H
#define MGDUMP_H

#include <pcap/pcap.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "blockring.h"
#include "dump_output.h"
#include "mgcap_source.h"
#include "postrotate.h"
#include "retention.h"
#include "run.h"

#define MAX_READERS 64
/* whole frames by default, as tcpdump and dumpcap record them (libpcap's MAXIMUM_SNAPLEN) */
#define MGDUMP_SNAPLEN_MAX 262144

struct mgdump_config {
	const char *devs[MGCAP_MAX_DEVICES], *path, *filter;
	size_t ndevs;
	int mgcap_only[MGCAP_MAX_DEVICES];	/* -i mgcap:DEV */
	const char *postrotate;		/* -z */
	const char *user;		/* -Z: NULL, stay who it is */
	const char *stats_path, *prometheus_path;	/* --stats, --prometheus */
	uint64_t max_disk_bytes, max_age_s;	/* --max-disk (or its percent), --max-age */
	uint32_t max_disk_percent;
	uint64_t rotate_bytes, buffer_bytes, count;
	uint32_t keep, rotate_seconds, duration_s, snaplen;
	int merged, writer_cpu, quiet, decap, index, no_promisc, numeric;
	int per_queue;		/* --per-queue: one copy, a file a queue (queue_files.c) */
	int tstamp;		/* PCAP_TSTAMP_*; -1: adapter where the NIC has a clock */
	int cpus[MAX_READERS], ncpus;
};
extern struct mgdump_config cfg;

struct reader {
	pthread_t thread;
	pcap_t *pcap;
	struct blockring ring;
	uint32_t ifid;
	int cpu;		/* -1: not pinned */
	int mgcap;		/* an mgcap source: its ring is drained at a stop */
	int directions;		/* packet_direction() tells its packets' */
	uint64_t seen;		/* packets libpcap handed over */
	/*
	 * of those, frames the device sent (pcap_mgcap_direction()): the
	 * reader thread's, read with an atomic load (mgdump_sample_counts())
	 */
	uint64_t sent;
	/*
	 * A filtered source whose stamps are host time: those stamped before
	 * this came before its filter (see sources.c), and are not written
	 */
	uint64_t from_ns;
	uint64_t captured;	/* blocks put in the buffer */
	uint64_t written;	/* by the writer */
	uint64_t disk_dropped;	/* by the writer, for a full disk */
	/*
	 * libpcap's counters (32 bits, which wrap in minutes at line rate)
	 * carried on in 64, under the lock: mgdump_sample_counts() samples
	 * them, the writer every few seconds at least
	 */
	pthread_mutex_t counts_lock;
	struct mgdump_counts {
		uint64_t received, dropped, if_dropped;
		uint64_t coalesced;	/* records of coalesced frames (an mgcap source's) */
	} counts, at_stop;	/* at_stop: when it stopped, set if it drained */
	struct pcap_stat raw;
	int drained;
	int tstamp_type;	/* PCAP_TSTAMP_*: what its stamps are */
	uint32_t ns_per_frac;	/* ns in a unit of ts.tv_usec: 1, or 1000 from a source without ns */
};

extern struct reader readers[MAX_READERS];
extern struct dump_interface ifs[MAX_READERS];
extern size_t nreaders;
extern struct postrotate postrotate;		/* -z; its command NULL without */
extern struct retention retention;		/* --max-disk, --max-age; list[0] '\0' without */
/* the mgcap libpcap's report on a handle's stamps, if that is the libpcap in use */
extern int (*tstamp_report)(pcap_t *p, char *buf, size_t len);
extern int64_t (*coalesced_count)(pcap_t *p);
/* the mgcap libpcap's direction of the packet a handle last handed over */
extern int (*packet_direction)(pcap_t *p);

/* options.c: the command line into cfg; 0, or -1 (it said why) */
int mgdump_parse_args(int argc, char **argv);

/* sources.c: every source opened, a reader and an interface each; 0, or -1 */
int mgdump_open_readers(void);
/* the readers' buffers given back, once no reader runs */
void mgdump_free_buffer(void);

/* readers.c */
int mgdump_start_readers(size_t *started);
/*
 * Stops the readers; with @drain, each first reads what its ring took
 * before the stop (for a signal, -a, a source that failed), unless another
 * stop comes.  Without (-c reached, the writer failed), the writer writes
 * nothing more.  Safe in a signal handler.
 */
void mgdump_request_stop(int drain);
void mgdump_stop_readers(size_t started);	/* without a drain, and joins them */
int mgdump_readers_running(void);
int mgdump_pin_writer(void);

/* Every reader's counters at one time, for the reports (stats.c, counters.c). */
struct mgdump_sample {
	struct mgdump_counts counts[MAX_READERS];	/* as of its stop if it drained */
	int fresh[MAX_READERS];	/* 0: libpcap did not answer, the counts are the last known */
	uint64_t sent[MAX_READERS];	/* struct reader's: no more than the received counted */
	int directions;		/* a reader tells sent from received (else sent is 0) */
	int joined;		/* the readers are gone: their handles may be asked anything */
};
void mgdump_sample_counts(struct mgdump_sample *s);

/*
 * queue_files.c, --per-queue: each queue to a file of its own, from the
 * kernel's ring as it is.  Open: every queue set up, and the privileges
 * dropped (0, or -1: it said why); then run until stopped, each finished
 * file handed to @file_done (mgdump's exit status), or close unrun.
 */
int mgdump_per_queue_open(void);
int mgdump_per_queue_run(void (*file_done)(const char *path, void *arg));
void mgdump_per_queue_close(void);

/* writer.c: drains the readers' buffers into @out until stopped; 0, or -1 */
int mgdump_write_loop(struct dump_output *out);
/* dump_output's collect_stats: a file's statistics blocks, from a sample taken now */
void mgdump_file_stats(struct pcapng_if_stats *st, size_t n, void *arg);
/* a sample taken now, written to --stats and --prometheus */
void mgdump_report_counters(const struct dump_output *out);

/* counters.c: what --stats and --prometheus say of an interface, and of the files */
struct iface_counters {
	const char *name;
	uint64_t received, sent, written, ring_drops, buffer_drops, disk_drops, coalesced;
	const char *tstamp;
};

struct disk_counters {
	uint64_t files, bytes_written, kept_bytes, free_bytes;
	int kept_known, free_known;
};

/*
 * counters.c: --stats and --prometheus written from @c (@n interfaces) and
 * @d (the files kept and the disk's room added), @current the file being
 * written
 */
void mgdump_publish_counters(const struct iface_counters *c, size_t n, struct disk_counters *d,
			     const struct retention *kept, const char *current);

/*
 * counters.c: --stats and --prometheus written from @s (the writer: every
 * few seconds, and at the end), @kept the files retention keeps
 */
void mgdump_write_counters(const struct dump_output *out, const struct retention *kept,
			   const struct mgdump_sample *s);

/* stats.c: the statistics blocks, the status line and the summary, from @s */
void mgdump_collect_stats(struct pcapng_if_stats *st, size_t n, const struct mgdump_sample *s);
void mgdump_status_line(uint64_t *last_pkts, uint64_t *last_bytes, uint64_t bytes, int final,
			const struct mgdump_sample *s);

#endif /* MGDUMP_H */
