// SPDX-License-Identifier: GPL-2.0
/*
 * mgcap-ringcheck: captures from the mgtestnic generators through mgcap's
 * queue devices and checks every record against what was generated: count,
 * order, every byte, the exact time stamp, the queue, the counters.
 *
 *   mgcap-ringcheck --dev mgt0 --count K [--frame-len L|imix] [--vlan TCI]
 *                   [--snaplen S] [--sw] [--both-stamps] [--stall [--expect-drops]]
 *                   [--flows F --unordered] [--nodes DIR] [--nonlinear] [--timeout S]
 *
 * Normal mode reads while the generators run: all K frames of every queue
 * must arrive exactly once, in order, and nothing may be dropped.  The
 * generators are asked for no more than a ring holds beyond what this
 * reader read, topped up as it reads, so they run on while it keeps up:
 * that it keeps up is the scheduler's doing (a preempted reader of a full
 * ring loses frames, by design), not the ring's, so a run checks the ring
 * wrapping under a concurrent reader.
 * --timeout S (60): the longest wait for a frame, not for all of them (a
 * debug kernel's test NIC makes a few hundred a second).
 * --stall reads only after the generators finished: what was kept must be
 * the first frames, unbroken (with --frame-len imix: in order, gaps allowed
 * after the first drop), and generated == captured + dropped.
 * --unordered (with --flows, when RPS spreads one queue over several CPUs)
 * accepts any order but still every frame exactly once.
 * --both-stamps reads with MGCAP_TSTAMP_HW_AND_SW: each record also has the
 * kernel's stamp after the frame, from this run, with zero padding before it
 * (and with --sw, the NIC's stamp is 0).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "mgcap_reader.h"
#include "mgtestnic/mgtestnic_frame.h"

#define MAX_QUEUES 64

struct opts {
	const char *dev;
	unsigned int dev_index;
	uint64_t count;
	__u32 frame_len;	/* or MGT_FRAME_LEN_IMIX */
	unsigned int vlan_tci;
	unsigned int snaplen;
	int software_stamps;
	int both_stamps;
	int stall;
	int expect_drops;
	int timeout_s;
	unsigned int flows;
	int unordered;
	int nonlinear;
	const char *nodes;
};

struct queue_state {
	struct mgcap_reader r;
	uint64_t first_seq;	/* generator's count before this run */
	uint64_t next_seq;
	uint64_t seen;
	uint8_t *seen_map;	/* --unordered: one byte per frame */
	struct mgcap_queue_stats before;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void fail(const char *fmt, ...)
{
	va_list ap;

	fputs("ringcheck: FAIL: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static int read_sysfs_counts(const char *dev, const char *file, uint64_t *v, int max)
{
	char path[256];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "/sys/class/net/%s/mgtestnic/%s", dev, file);
	f = fopen(path, "r");
	if (!f)
		fail("%s: %s", path, strerror(errno));
	while (n < max && fscanf(f, "%" SCNu64, &v[n]) == 1)
		n++;
	fclose(f);
	return n;
}

static void write_sysfs(const char *dev, const char *file, const char *fmt, ...)
{
	char path[256];
	va_list ap;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/mgtestnic/%s", dev, file);
	f = fopen(path, "w");
	if (!f)
		fail("%s: %s", path, strerror(errno));
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	if (fclose(f))
		fail("%s: %s", path, strerror(errno));
}

static void check_record(const struct opts *o, struct queue_state *qs, unsigned int q,
			 const struct mgcap_rec *rec, uint64_t t_start)
{
	uint8_t wire[MGT_FRAME_MAX + 4];
	uint64_t seq = qs->next_seq;
	uint32_t wirelen, caplen;

	/*
	 * The frame's own number: in any order with --unordered; with mixed
	 * sizes in a stalled ring, after a gap (once a large frame was dropped,
	 * a later small one may still fit)
	 */
	if (o->unordered || (o->stall && o->frame_len == MGT_FRAME_LEN_IMIX)) {
		unsigned int off = (o->vlan_tci ? 4 : 0) + MGT_HDR_LEN, i;

		if (rec->caplen < off + 8)
			fail("--unordered and --stall with imix need the sequence number in the snaplen");
		for (seq = 0, i = 0; i < 8; i++)
			seq = seq << 8 | rec->data[off + i];
		if (seq < (o->unordered ? qs->first_seq : qs->next_seq) ||
		    seq >= qs->first_seq + o->count)
			fail("queue %u: frame seq %" PRIu64 " outside this run or before %" PRIu64,
			     q, seq, qs->next_seq);
		if (o->unordered && qs->seen_map[seq - qs->first_seq]++)
			fail("queue %u: frame seq %" PRIu64 " captured twice", q, seq);
	}
	wirelen = mgt_build_wire_frame(wire, mgt_frame_len(o->frame_len, seq), o->dev_index, q,
				       seq, o->flows, (__u16)o->vlan_tci);
	caplen = wirelen < o->snaplen ? wirelen : o->snaplen;

	if (rec->queue != q)
		fail("queue %u seq %" PRIu64 ": record says queue %u", q, seq, rec->queue);
	if (rec->wirelen != wirelen || rec->caplen != caplen)
		fail("queue %u seq %" PRIu64 ": wirelen %u caplen %u, expected %u %u",
		     q, seq, rec->wirelen, rec->caplen, wirelen, caplen);
	if (rec->rec_len != MGCAP_REC_LEN(caplen) + (o->both_stamps ? 8 : 0))
		fail("queue %u seq %" PRIu64 ": rec_len %u", q, seq, rec->rec_len);
	if (o->both_stamps) {
		const uint8_t *pad = rec->data + caplen;
		uint64_t sw = mgcap_rec_swtstamp(rec);

		if (!(rec->flags & MGCAP_REC_F_SWTSTAMP))
			fail("queue %u seq %" PRIu64 ": no kernel stamp flag", q, seq);
		if (sw < t_start || sw > now_ns())
			fail("queue %u seq %" PRIu64 ": kernel stamp %" PRIu64 " outside the run",
			     q, seq, sw);
		for (; pad < (const uint8_t *)rec + MGCAP_REC_SWTSTAMP_OFF(caplen); pad++)
			if (*pad)
				fail("queue %u seq %" PRIu64 ": padding not zero", q, seq);
	} else if (rec->flags & MGCAP_REC_F_SWTSTAMP) {
		fail("queue %u seq %" PRIu64 ": a kernel stamp nobody asked for", q, seq);
	}
	if (memcmp(rec->data, wire, caplen)) {
		uint64_t got = 0;
		unsigned int i, off = o->vlan_tci ? MGT_HDR_LEN + 4 : MGT_HDR_LEN;

		for (i = 0; i < 8 && off + i < caplen; i++)
			got = got << 8 | rec->data[off + i];
		fail("queue %u: frame bytes differ from seq %" PRIu64 " (payload says seq %" PRIu64 ")",
		     q, seq, got);
	}
	if (!!(rec->flags & MGCAP_REC_F_VLAN) != !!o->vlan_tci)
		fail("queue %u seq %" PRIu64 ": VLAN flag %#x", q, seq, rec->flags);
	if (o->software_stamps && o->both_stamps) {
		if (rec->flags & MGCAP_REC_F_HWTSTAMP || rec->tstamp_ns)
			fail("queue %u seq %" PRIu64 ": NIC stamp %" PRIu64 " while stamping is off",
			     q, seq, rec->tstamp_ns);
	} else if (o->software_stamps) {
		if (rec->flags & MGCAP_REC_F_HWTSTAMP)
			fail("queue %u seq %" PRIu64 ": hardware stamp while stamping is off", q, seq);
		if (rec->tstamp_ns < t_start || rec->tstamp_ns > now_ns())
			fail("queue %u seq %" PRIu64 ": software stamp %" PRIu64 " outside the run",
			     q, seq, rec->tstamp_ns);
	} else {
		if (!(rec->flags & MGCAP_REC_F_HWTSTAMP))
			fail("queue %u seq %" PRIu64 ": no hardware stamp flag", q, seq);
		if (rec->tstamp_ns != mgt_hwtstamp(q, seq))
			fail("queue %u seq %" PRIu64 ": stamp %" PRIu64 ", expected %" PRIu64,
			     q, seq, rec->tstamp_ns, mgt_hwtstamp(q, seq));
	}
	qs->next_seq = o->unordered ? qs->next_seq + 1 : seq + 1;
	qs->seen++;
}

static uint64_t drain(const struct opts *o, struct queue_state *qs, unsigned int q,
		      uint64_t t_start)
{
	const struct mgcap_rec *rec;
	uint64_t n = 0;

	while ((rec = mgcap_reader_next(&qs->r)) != NULL) {
		check_record(o, qs, q, rec, t_start);
		n++;
	}
	mgcap_reader_release(&qs->r);
	return n;
}

/* Frames of the run that surely fit in @r's empty ring (at least one). */
static uint64_t ring_worth(const struct opts *o, const struct mgcap_reader *r)
{
	uint64_t largest = MGCAP_REC_LEN(MGT_FRAME_MAX + 4) + (o->both_stamps ? 8 : 0);

	return r->info.data_size / largest ? r->info.data_size / largest : 1;
}

/*
 * Asks every generator for more, up to @worth beyond @seen (what the
 * slowest queue's reader read) and the run's count, once a quarter of
 * @worth is to be had: *@asked is what they were asked for in all.
 * Whether it asked.
 */
static int top_up(const struct opts *o, uint64_t *asked, uint64_t seen, uint64_t worth)
{
	uint64_t upto = seen + worth < o->count ? seen + worth : o->count;

	if (upto <= *asked || (upto - *asked < worth / 4 && upto < o->count))
		return 0;
	write_sysfs(o->dev, "generate", "all %" PRIu64, upto - *asked);
	*asked = upto;
	return 1;
}

static void get_stats(struct queue_state *qs, struct mgcap_queue_stats *st)
{
	if (ioctl(qs->r.fd, MGCAP_IOC_STATS, st) < 0)
		fail("MGCAP_IOC_STATS: %s", strerror(errno));
}

static void usage(void)
{
	fprintf(stderr, "usage: mgcap-ringcheck --dev DEV --count K [--dev-index I] [--frame-len L|imix]\n"
		"       [--vlan TCI] [--snaplen S] [--sw] [--both-stamps] [--stall [--expect-drops]]\n"
		"       [--timeout S]\n"
		"       [--flows F --unordered] [--nonlinear] [--nodes DIR]\n");
	exit(2);
}

static void parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "dev-index", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "frame-len", required_argument, NULL, 'l' },
		{ "vlan", required_argument, NULL, 'v' },
		{ "snaplen", required_argument, NULL, 's' },
		{ "sw", no_argument, NULL, 'S' },
		{ "both-stamps", no_argument, NULL, 'B' },
		{ "stall", no_argument, NULL, 'T' },
		{ "expect-drops", no_argument, NULL, 'E' },
		{ "timeout", required_argument, NULL, 't' },
		{ "flows", required_argument, NULL, 'f' },
		{ "unordered", no_argument, NULL, 'U' },
		{ "nonlinear", no_argument, NULL, 'N' },
		{ "nodes", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->frame_len = 128;
	o->snaplen = MGCAP_SNAPLEN_MAX;
	o->timeout_s = 60;
	o->flows = 1;
	o->nodes = MGCAP_DEVNODE_DIR;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'd': o->dev = optarg; break;
		case 'i': o->dev_index = strtoul(optarg, NULL, 0); break;
		case 'c': o->count = strtoull(optarg, NULL, 0); break;
		case 'l':
			if (!mgt_parse_frame_len(optarg, &o->frame_len))
				fail("--frame-len %s: neither imix nor %u to %u bytes", optarg,
				     MGT_FRAME_MIN, MGT_FRAME_MAX);
			break;
		case 'v': o->vlan_tci = strtoul(optarg, NULL, 0); break;
		case 's': o->snaplen = strtoul(optarg, NULL, 0); break;
		case 'S': o->software_stamps = 1; break;
		case 'B': o->both_stamps = 1; break;
		case 'T': o->stall = 1; break;
		case 'E': o->expect_drops = 1; break;
		case 't': o->timeout_s = atoi(optarg); break;
		case 'f': o->flows = strtoul(optarg, NULL, 0); break;
		case 'U': o->unordered = 1; break;
		case 'N': o->nonlinear = 1; break;
		case 'n': o->nodes = optarg; break;
		default: usage();
		}
	}
	if (!o->dev || !o->count || o->flows < 1 || o->flows > 64 || (o->unordered && o->stall))
		usage();
}

int main(int argc, char **argv)
{
	static struct queue_state qs[MAX_QUEUES];
	struct pollfd pfd[MAX_QUEUES];
	uint64_t gen[MAX_QUEUES], pend[MAX_QUEUES];
	struct opts o;
	unsigned int nq, q;
	uint64_t t_start, deadline, asked, worth, seen_before = 0;
	char err[256], path[256];

	parse(argc, argv, &o);
	nq = read_sysfs_counts(o.dev, "generated", gen, MAX_QUEUES);
	if (o.frame_len == MGT_FRAME_LEN_IMIX)
		write_sysfs(o.dev, "frame_len", "imix");
	else
		write_sysfs(o.dev, "frame_len", "%u", o.frame_len);
	write_sysfs(o.dev, "vlan_tci", "%u", o.vlan_tci);
	write_sysfs(o.dev, "flows", "%u", o.flows);
	write_sysfs(o.dev, "nonlinear", "%d", o.nonlinear);

	for (q = 0; q < nq; q++) {
		snprintf(path, sizeof(path), "%s/%s@%u", o.nodes, o.dev, q);
		if (mgcap_reader_open(&qs[q].r, path, err, sizeof(err)) < 0)
			fail("%s", err);
		if (qs[q].r.info.num_queues != nq || qs[q].r.info.queue != q)
			fail("%s: queue %u of %u, expected %u of %u", path, qs[q].r.info.queue,
			     qs[q].r.info.num_queues, q, nq);
		if (o.snaplen != MGCAP_SNAPLEN_MAX &&
		    ioctl(qs[q].r.fd, MGCAP_IOC_SET_SNAPLEN, &o.snaplen) < 0)
			fail("MGCAP_IOC_SET_SNAPLEN %u: %s", o.snaplen, strerror(errno));
		if (o.both_stamps && ioctl(qs[q].r.fd, MGCAP_IOC_SET_TSTAMP,
					   &(uint32_t){ MGCAP_TSTAMP_HW_AND_SW }) < 0)
			fail("MGCAP_IOC_SET_TSTAMP: %s", strerror(errno));
		/* frames from earlier runs still in the ring are not ours */
		while (mgcap_reader_next(&qs[q].r))
			;
		mgcap_reader_release(&qs[q].r);
		qs[q].first_seq = qs[q].next_seq = gen[q];
		if (o.unordered) {
			qs[q].seen_map = calloc(o.count, 1);
			if (!qs[q].seen_map)
				fail("out of memory");
		}
		get_stats(&qs[q], &qs[q].before);
		pfd[q].fd = qs[q].r.fd;
		pfd[q].events = POLLIN;
	}

	t_start = now_ns();
	deadline = t_start + (uint64_t)o.timeout_s * 1000000000ULL;
	worth = o.stall ? o.count : ring_worth(&o, &qs[0].r);
	asked = 0;
	top_up(&o, &asked, 0, worth);

	if (o.stall) {
		int busy;

		do {
			if (now_ns() > deadline)
				fail("generators did not finish in %d s", o.timeout_s);
			usleep(10000);
			read_sysfs_counts(o.dev, "pending", pend, MAX_QUEUES);
			busy = 0;
			for (q = 0; q < nq; q++)
				busy |= pend[q] != 0;
		} while (busy);
	}

	for (;;) {
		uint64_t least_seen = o.count, all_seen = 0;

		for (q = 0; q < nq; q++) {
			drain(&o, &qs[q], q, t_start);
			if (qs[q].seen < least_seen)
				least_seen = qs[q].seen;
			all_seen += qs[q].seen;
		}
		/* the timeout is a wait for a frame: a slow kernel's stream goes on */
		if (all_seen > seen_before) {
			seen_before = all_seen;
			deadline = now_ns() + (uint64_t)o.timeout_s * 1000000000ULL;
		}
		if (o.stall || least_seen >= o.count)
			break;
		if (top_up(&o, &asked, least_seen, worth))
			continue;
		if (now_ns() > deadline) {
			for (q = 0; q < nq; q++)
				fprintf(stderr, "queue %u: %" PRIu64 " of %" PRIu64 "\n", q,
					qs[q].seen, o.count);
			fail("no frame for %d s", o.timeout_s);
		}
		if (poll(pfd, nq, 1000) < 0 && errno != EINTR)
			fail("poll: %s", strerror(errno));
		for (q = 0; q < nq; q++)
			if (pfd[q].revents & (POLLERR | POLLHUP))
				fail("queue %u: poll revents %#x", q, pfd[q].revents);
	}

	/* nothing extra may follow */
	usleep(200000);
	for (q = 0; q < nq; q++) {
		struct mgcap_queue_stats st;
		uint64_t captured, dropped, generated;

		drain(&o, &qs[q], q, t_start);
		get_stats(&qs[q], &st);
		captured = st.captured - qs[q].before.captured;
		dropped = st.dropped - qs[q].before.dropped;
		read_sysfs_counts(o.dev, "generated", gen, MAX_QUEUES);
		generated = gen[q] - qs[q].first_seq;
		printf("queue %u: generated %" PRIu64 " captured %" PRIu64 " dropped %" PRIu64
		       " read %" PRIu64 " high-water %" PRIu64 " bytes\n", q,
		       generated, captured, dropped, qs[q].seen, (uint64_t)st.high_water);
		if (generated != o.count)
			fail("queue %u: generator made %" PRIu64 " frames, asked %" PRIu64,
			     q, generated, o.count);
		/* every record read was checked in sequence from the first frame */
		if (qs[q].seen != captured)
			fail("queue %u: read %" PRIu64 " records, kernel captured %" PRIu64,
			     q, qs[q].seen, captured);
		if (captured + dropped != generated)
			fail("queue %u: captured %" PRIu64 " + dropped %" PRIu64 " != generated %" PRIu64,
			     q, captured, dropped, generated);
		if (o.stall && o.expect_drops && !dropped)
			fail("queue %u: expected the ring to overflow", q);
		if (!o.stall && dropped)
			fail("queue %u: %" PRIu64 " dropped", q, dropped);
		mgcap_reader_close(&qs[q].r);
		free(qs[q].seen_map);
	}
	printf("ringcheck: OK (%u queues x %" PRIu64 " frames)\n", nq, o.count);
	return 0;
}
