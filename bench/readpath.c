// SPDX-License-Identifier: BSD-2-Clause
/*
 * The libpcap module's read path without a kernel: its read op over a
 * synthetic ring in mgcap's format, against libpcap's savefile reader over
 * the same packets held in memory.  Both hand every packet to the same
 * callback through pcap_dispatch().
 *
 *   readpath SIZE...               CSV on stdout: reader,size,pass,packets,ns_per_packet
 *   readpath --once READER SIZE N  one pass of N packets, for callgrind; READER
 *                                  mgcap (adapter_unsynced stamps), mgcap-adapter
 *                                  (converted to system time) or savefile
 *   readpath --merge QUEUES N [SHAPE [one-at-a-time]]
 *                                  N 64-byte records spread over QUEUES rings
 *                                  (round-robin, one-busy or zipf), read
 *                                  through the merge, for callgrind; a read
 *                                  of 4096, or of one (as pcap_next_ex())
 *
 * The module is the one in the patched libpcap's static archive; its
 * private state (pcap-mgcap-int.h) is pointed at the synthetic ring, as
 * activate() would point it at the kernel's, and its read op chosen as
 * activate() chooses it (mgcap_read_setup()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcap-mgcap-int.h"
#include "pcap-mgcap.h"

#include "bench.h"
#include "mgcap_time.h"
#include "synthetic_ring.h"

/*
 * Live, the reader takes records the kernel wrote moments before, from the
 * cache: the ring here is small enough for them to stay there, and the
 * savefile the same size, both read over and over.
 */
#define RING_BYTES	(4ULL << 20)
#define PASSES		31

struct sink {
	uint64_t packets;
	uint64_t bytes;
};

static void count_packet(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	struct sink *s = (struct sink *)user;

	(void)bytes;
	s->packets++;
	s->bytes += h->caplen;
}

static void die(const char *what)
{
	fprintf(stderr, "readpath: %s\n", what);
	exit(1);
}

/* @size: the frame on the wire with its FCS, as the VM benchmarks count it */
static void build_frame(uint8_t *frame, uint32_t size, uint64_t seq)
{
	mgt_build_frame(frame, size - 4, 0, 0, seq, 1);
}

/* How many frames of @size the ring holds, as the read op sees them. */
static uint64_t ring_packets(uint32_t size)
{
	/* one record's worth is lost to padding where the ring wraps */
	return RING_BYTES / MGCAP_REC_LEN(size - 4) - 1;
}

static void fill_ring(struct synthetic_ring *s, uint32_t size, uint64_t n)
{
	uint8_t frame[MGT_FRAME_MAX];
	uint64_t i;

	for (i = 0; i < n; i++) {
		build_frame(frame, size, i);
		if (synthetic_ring_put(s, frame, size - 4, size - 4, 0, MGCAP_REC_F_HWTSTAMP,
				       mgt_hwtstamp(0, i)))
			die("the synthetic ring is full");
	}
}

/* A pcap_t of the module, reading @s as its only queue, as activate() opens it. */
static pcap_t *open_module(struct synthetic_ring *s)
{
	char ebuf[PCAP_ERRBUF_SIZE], err[160];
	struct pcap_mgcap *pm;
	int ours;
	pcap_t *p = pcap_mgcap_create("mgcap:bench0@0", ebuf, &ours);

	if (!p)
		die(ebuf);
	pm = p->priv;
	pm->queues = calloc(1, sizeof(*pm->queues));
	if (!pm->queues)
		die("out of memory");
	if (mgcap_reader_attach(&pm->queues[0].r, s->map, s->map_size, err, sizeof(err)))
		die(err);
	pm->queues[0].r.fd = -1;
	pm->nqueues = 1;
	pm->nano = 1;
	pm->nonblock = 1;
	p->snapshot = MAXIMUM_SNAPLEN;
	p->cleanup_op = pcap_mgcap_cleanup;
	p->activated = 1;
	return p;
}

/* The read op, chosen as activate() chooses it, for what @p was set up to read. */
static void choose_read_op(pcap_t *p)
{
	if (mgcap_read_setup(p, MGCAP_MERGE_HOLD_NS))
		die(pcap_geterr(p));
}

/*
 * Adapter stamps (PCAP_TSTAMP_ADAPTER) for @n records: the estimator holds
 * samples every ADAPTER_SAMPLE_NS around their stamps, 37 s behind and
 * 10 ppm slower, as sampling at each read leaves it.  The PHC itself is not
 * there: each read's sample is refused (and counted), and the kernel's part
 * of one, an ioctl a read, is not in callgrind's count either.
 */
#define ADAPTER_SAMPLE_NS	1000000
static void use_adapter_stamps(pcap_t *p, uint64_t n)
{
	struct pcap_mgcap *pm = p->priv;
	int64_t first = (int64_t)mgt_hwtstamp(0, 0), last = (int64_t)mgt_hwtstamp(0, n), t;

	memset(&pm->devs[0].conv, 0, sizeof(pm->devs[0].conv));
	pm->devs[0].conv.phc.fd = -1;
	pm->devs[0].conv.line = MGCAP_CLOCK_LINE_NONE;
	mgcap_clock_init(&pm->devs[0].conv.clock);
	for (t = first - ADAPTER_SAMPLE_NS; t < last + 2 * ADAPTER_SAMPLE_NS; t += ADAPTER_SAMPLE_NS) {
		int64_t sys = t - 37000000000LL - (t - first) / 100000;
		/* (CLOCK_MONOTONIC from 0 at the first sample: the estimator refuses one below) */
		struct mgcap_clock_sample s = { sys - 400, t, sys + 400,
						t - first + ADAPTER_SAMPLE_NS };

		if (mgcap_clock_add_sample(&pm->devs[0].conv.clock, &s))
			die("the estimator took the synthetic clock for a stepping one");
	}
	pm->ts.adapter = 1;
}

static void close_module(pcap_t *p)
{
	struct pcap_mgcap *pm = p->priv;

	pm->queues[0].r.map = NULL;	/* the synthetic ring is not the module's to unmap */
	pcap_close(p);
}

/* The same frames as a nanosecond savefile, in memory. */
static char *build_savefile(uint32_t size, uint64_t n, size_t *len)
{
	pcap_t *dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, MAXIMUM_SNAPLEN,
							    PCAP_TSTAMP_PRECISION_NANO);
	uint8_t frame[MGT_FRAME_MAX];
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	pcap_dumper_t *d;
	uint64_t i;

	if (!dead || !f)
		die("cannot set up the savefile");
	d = pcap_dump_fopen(dead, f);
	if (!d)
		die(pcap_geterr(dead));
	for (i = 0; i < n; i++) {
		struct pcap_pkthdr h = bench_pkthdr(i, size - 4);

		build_frame(frame, size, i);
		pcap_dump((u_char *)d, &h, frame);
	}
	pcap_dump_close(d);
	pcap_close(dead);
	return buf;
}

/* Reads every packet through @p; the nanoseconds it took. */
static uint64_t drain(pcap_t *p, uint64_t n, struct sink *sink)
{
	uint64_t start = mgcap_now_ns(CLOCK_MONOTONIC), end;

	while (sink->packets < n)
		if (pcap_dispatch(p, -1, count_packet, (u_char *)sink) <= 0)
			break;
	end = mgcap_now_ns(CLOCK_MONOTONIC);
	if (sink->packets != n) {
		fprintf(stderr, "readpath: read %llu of %llu packets: %s\n",
			(unsigned long long)sink->packets, (unsigned long long)n, pcap_geterr(p));
		exit(1);
	}
	return end - start;
}

static uint64_t pass_module(struct synthetic_ring *s, uint32_t size, uint64_t n, int adapter)
{
	struct sink sink = { 0 };
	pcap_t *p;
	uint64_t ns;

	fill_ring(s, size, n);
	p = open_module(s);
	if (adapter)
		use_adapter_stamps(p, n);
	choose_read_op(p);
	ns = drain(p, n, &sink);
	if (adapter && ((struct pcap_mgcap *)p->priv)->devs[0].conv.fallbacks)
		die("adapter stamps fell back");
	/* the next call gives the batch's space back, as the next read would */
	pcap_dispatch(p, -1, count_packet, (u_char *)&sink);
	close_module(p);
	return ns;
}

static uint64_t pass_savefile(const char *file, size_t len, uint64_t n)
{
	char ebuf[PCAP_ERRBUF_SIZE];
	struct sink sink = { 0 };
	FILE *f = fmemopen((void *)file, len, "r");
	pcap_t *p;
	uint64_t ns;

	if (!f)
		die("fmemopen failed");
	p = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, ebuf);
	if (!p)
		die(ebuf);
	ns = drain(p, n, &sink);
	pcap_close(p);
	return ns;
}

/* Which queue each record of a merged read's stream goes to. */
enum merge_shape {
	ROUND_ROBIN,	/* every record from another queue than the last: the most matches */
	ONE_BUSY,	/* one queue busy, the others quiet: the skewed stream */
	ZIPF,		/* queues by Zipf's law (s = 1), as flows hashed onto them */
};

static const char *const merge_shape_names[] = { "round-robin", "one-busy", "zipf" };

/* Which queue each record goes to: deterministic, the same in every run. */
struct merge_spread {
	enum merge_shape shape;
	size_t queues;
	uint32_t seed;
	double *cdf;		/* ZIPF: the share of queues 0 to i, summed */
};

static void merge_spread_init(struct merge_spread *sp, enum merge_shape shape, size_t queues)
{
	double h = 0, sum = 0;
	size_t q;

	sp->shape = shape;
	sp->queues = queues;
	sp->seed = 2463534242u;
	sp->cdf = calloc(queues, sizeof(*sp->cdf));
	if (!sp->cdf)
		die("out of memory");
	for (q = 0; q < queues; q++)
		h += 1.0 / (double)(q + 1);
	for (q = 0; q < queues; q++) {
		sum += 1.0 / (double)(q + 1);
		sp->cdf[q] = sum / h;
	}
}

static size_t merge_queue_of(struct merge_spread *sp, uint64_t k)
{
	size_t lo = 0, hi;
	double u;

	switch (sp->shape) {
	case ROUND_ROBIN:
		return (size_t)(k % sp->queues);
	case ONE_BUSY:
		return 0;
	case ZIPF:
		break;
	}
	/* xorshift32, then the first queue whose summed share passes it */
	sp->seed ^= sp->seed << 13;
	sp->seed ^= sp->seed >> 17;
	sp->seed ^= sp->seed << 5;
	u = (double)sp->seed / 4294967296.0;
	for (hi = sp->queues - 1; lo < hi;) {
		size_t mid = (lo + hi) / 2;

		if (u < sp->cdf[mid])
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* the merge's callback: counts, and dies at a record older than the last */
static void count_in_order(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	static struct timeval last;

	if (h->ts.tv_sec < last.tv_sec ||
	    (h->ts.tv_sec == last.tv_sec && h->ts.tv_usec < last.tv_usec))
		die("the merge delivered a record older than the last");
	last = h->ts;
	count_packet(user, h, bytes);
}

/*
 * The merge (the read op over several queues, as mgcap:DEV reads them),
 * over @queues rings holding @n records in stamp order, spread by @shape.
 * Every queue but a quiet one of ONE_BUSY gets one record more, after the
 * others, so that none goes empty and holds the rest back.  The quiet
 * queues of ONE_BUSY hold the first record for an idle queue's lag (real
 * time, which costs no instructions): the read is tried again meanwhile.
 */
static void pass_merge(size_t queues, uint64_t n, enum merge_shape shape, int one_at_a_time)
{
	struct synthetic_ring *rings = calloc(queues, sizeof(*rings));
	uint64_t *per_queue = calloc(queues, sizeof(*per_queue)), ring_bytes = 1 << 16, k, most = 0;
	char ebuf[PCAP_ERRBUF_SIZE], err[160];
	uint8_t frame[MGT_FRAME_MAX];
	struct sink sink = { 0 };
	struct pcap_mgcap *pm;
	struct merge_spread spread;
	int ours, tries = 0;
	size_t q;
	pcap_t *p = pcap_mgcap_create("mgcap:bench0", ebuf, &ours);

	if (!p || !rings || !per_queue)
		die("cannot set up the merge");
	pm = p->priv;
	pm->queues = calloc(queues, sizeof(*pm->queues));
	if (!pm->queues)
		die("out of memory");
	merge_spread_init(&spread, shape, queues);
	for (k = 0; k < n; k++)
		per_queue[merge_queue_of(&spread, k)]++;
	for (q = 0; q < queues; q++)
		most = per_queue[q] > most ? per_queue[q] : most;
	while (ring_bytes < (most + 1) * MGCAP_REC_LEN(60) + 4096)
		ring_bytes *= 2;
	for (q = 0; q < queues; q++)
		if (synthetic_ring_init(&rings[q], ring_bytes, (uint32_t)q))
			die("cannot allocate a synthetic ring");
	free(spread.cdf);
	merge_spread_init(&spread, shape, queues);	/* the same queues again */
	for (k = 0; k < n + queues; k++) {
		q = k < n ? merge_queue_of(&spread, k) : k - n;
		if (k >= n && shape == ONE_BUSY && q != 0)
			break;
		build_frame(frame, 64, k);
		if (synthetic_ring_put(&rings[q], frame, 60, 60, (uint16_t)q,
				       MGCAP_REC_F_HWTSTAMP, mgt_hwtstamp(0, k)))
			die("the synthetic ring is full");
	}
	for (q = 0; q < queues; q++) {
		if (mgcap_reader_attach(&pm->queues[q].r, rings[q].map, rings[q].map_size, err,
					sizeof(err)))
			die(err);
		pm->queues[q].r.fd = -1;
	}
	pm->nqueues = queues;
	pm->nano = 1;
	pm->nonblock = 1;
	p->snapshot = MAXIMUM_SNAPLEN;
	p->cleanup_op = pcap_mgcap_cleanup;
	p->activated = 1;
	choose_read_op(p);
	while (sink.packets < n) {
		uint64_t left = n - sink.packets;
		struct timespec ms = { 0, 1000000 };

		/* (a read of one record is what pcap_next_ex() asks of the read op) */
		if (pcap_dispatch(p, one_at_a_time ? 1 : (int)(left < 4096 ? left : 4096),
				  count_in_order, (u_char *)&sink) > 0)
			continue;
		/* a record held back: no more than an idle queue's lag, at the start */
		if (++tries > 1000)
			die("the merge held a record back for more than a second");
		nanosleep(&ms, NULL);
	}
	for (q = 0; q < queues; q++) {
		pm->queues[q].r.map = NULL;	/* not the module's to unmap */
		synthetic_ring_free(&rings[q]);
	}
	free(rings);
	free(per_queue);
	free(spread.cdf);
	pcap_close(p);
}

int main(int argc, char **argv)
{
	struct synthetic_ring ring;
	int i, pass;

	if (argc >= 4 && argc <= 6 && !strcmp(argv[1], "--merge")) {
		unsigned long queues = strtoul(argv[2], NULL, 10);
		uint64_t n = strtoull(argv[3], NULL, 10);
		int shape = ROUND_ROBIN, one_at_a_time = argc == 6 && !strcmp(argv[5], "one-at-a-time");

		if (argc >= 5)
			for (shape = 0; shape < 3 && strcmp(argv[4], merge_shape_names[shape]); shape++)
				;
		if (queues < 1 || queues > 1024 || n < 1 || n > 10000000 || shape == 3 ||
		    (argc == 6 && !one_at_a_time))
			die("--merge QUEUES (1 to 1024) N (1 to 10000000)"
			    " [round-robin|one-busy|zipf [one-at-a-time]]");
		pass_merge(queues, n, (enum merge_shape)shape, one_at_a_time);
		return 0;
	}
	if (synthetic_ring_init(&ring, RING_BYTES, 0))
		die("cannot allocate the synthetic ring");
	if (argc == 5 && !strcmp(argv[1], "--once")) {
		uint32_t size = bench_frame_size("readpath", argv[3]);
		uint64_t n = strtoull(argv[4], NULL, 10);
		size_t len;
		char *file;

		if (n == 0 || n > ring_packets(size))
			die("bad packet count");
		if (!strcmp(argv[2], "mgcap") || !strcmp(argv[2], "mgcap-adapter")) {
			pass_module(&ring, size, n, !strcmp(argv[2], "mgcap-adapter"));
		} else if (!strcmp(argv[2], "savefile")) {
			file = build_savefile(size, n, &len);
			pass_savefile(file, len, n);
			free(file);
		} else {
			die("reader: mgcap, mgcap-adapter or savefile");
		}
		synthetic_ring_free(&ring);
		return 0;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: readpath SIZE... | readpath --once mgcap|mgcap-adapter|savefile SIZE N"
			" | readpath --merge QUEUES N [round-robin|one-busy|zipf [one-at-a-time]]\n");
		return 2;
	}
	printf("reader,size,pass,packets,ns_per_packet\n");
	for (i = 1; i < argc; i++) {
		uint32_t size = bench_frame_size("readpath", argv[i]);
		uint64_t n = ring_packets(size);
		size_t len;
		char *file = build_savefile(size, n, &len);

		/* alternate, so that drifts of a noisy machine hit both alike */
		for (pass = 1; pass <= PASSES; pass++) {
			double m = (double)pass_module(&ring, size, n, 0) / (double)n;
			double f = (double)pass_savefile(file, len, n) / (double)n;

			printf("mgcap,%u,%d,%llu,%.3f\n", size, pass, (unsigned long long)n, m);
			printf("savefile,%u,%d,%llu,%.3f\n", size, pass, (unsigned long long)n, f);
			fflush(stdout);
		}
		free(file);
	}
	synthetic_ring_free(&ring);
	return 0;
}
