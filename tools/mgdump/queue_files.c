// SPDX-License-Identifier: BSD-2-Clause
/*
 * --per-queue: each queue of each mgcap device to a file of its own, with
 * one copy of each frame.  The kernel writes the frame once, into the
 * queue's ring, as the enhanced packet block the file holds (a pcapng
 * ring: mgcap_pages.h), with the stamp the file records; the queue's
 * thread has the module write the ring's pages to the file as they lie
 * (MGCAP_URING_CMD_WRITE_PAGES: from the ring's own memory, none pinned),
 * with O_DIRECT where the file system takes it (the disk reads them from
 * the ring), several writes in flight (paged_writes.h), and gives them
 * back once written.  Nothing in user space copies a frame's bytes (with
 * --index, the thread reads each frame's headers for its flow).
 *
 * A file: a section header, the queue's interface and a filler up to a
 * page, the ring's pages, then a page with the interface's statistics
 * (dump_output's paged output, which names, rotates, syncs and renames
 * it).  A file ends at a block's end: where the ring was asked to fill its
 * page, or, where the ring was too full for that, its last whole block
 * (the rest of its page begins the next file).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_packet.h>
#include <net/if.h>

#include "mgcap_adapter.h"
#include "mgcap_hwtstamp.h"
#include "mgcap_open.h"
#include "mgcap_pages.h"
#include "mgcap_time.h"
#include "mgdump.h"
#include "pcapng.h"
#include "privileges.h"
#include "service.h"

/* --stats and --prometheus are written this often, and at the end */
#define COUNTERS_EVERY_NS	5000000000ULL
/* A quiet queue's last packets reach its file this long after they came, at most. */
#define QUIET_FLUSH_NS		1000000000ULL
/* A full disk is tried again this long after it filled (and each time after). */
#define FULL_RETRY_NS		1000000000ULL
/*
 * A write's bytes at most: several writes of a ring in flight at once
 * (PAGED_WRITES_DEPTH), each given back to the ring as it is done.  Each
 * write costs the same whatever it carries (a switch to io_uring's worker
 * and back, the file system's journal handle, the inode's update, a
 * request), and the module's write of the ring's pages costs next to
 * nothing a page: so writes are large, and the frames' bytes do not make
 * more of them than their count does.
 */
#define WRITE_MAX		(4U << 20)
/*
 * The thread is woken once an eighth of its ring is unwritten, up to a
 * write's most, not at every page: each wakeup costs the same whatever it
 * carries, so few large ones cost a packet less, most of all for small
 * frames.  The rest of the ring takes the frames that come while they are
 * written.  Pages below the mark still go at the poll's timeout (100 ms),
 * and a quiet queue's last page within QUIET_FLUSH_NS.
 */
#define WAKE_MARK_MAX		WRITE_MAX
/* How often the clock line is renewed, and how far past its last sample it reaches. */
#define LINE_EVERY_NS		100000000ULL
#define LINE_AHEAD_NS		300000000ULL

struct queue_file {
	pthread_t thread;
	char ifname[IF_NAMESIZE];
	char name[32];			/* "eth0@2", its interface's */
	char devnode[128];
	struct mgcap_pages pg;
	int tstamp;			/* PCAP_TSTAMP_*: what its file's stamps are */
	struct mgcap_adapter adapter;	/* adapter stamps: the samples the line comes from */
	uint64_t line_at;		/* CLOCK_MONOTONIC of the last line set */
	uint32_t snaplen;
	uint64_t write_max;		/* bytes of a write: WRITE_MAX, or a quarter of the ring */
	uint32_t wake_mark;		/* what wakes the thread past the pages in flight */
	uint32_t poll_mark;		/* the ring's (MGCAP_IOC_SET_POLL_MARK): bytes it wakes at */
	char path[4096];		/* FILE.DEV@N, for dump_output */
	struct dump_interface iface;
	struct dump_output out;
	unsigned long hangups;		/* SIGHUPs it has rotated for */
	uint64_t dropped;		/* the ring's, at the end */
	/*
	 * A full disk: CLOCK_MONOTONIC of the next try (0: the disk has room);
	 * the packets dropped for it, since it filled and in all
	 */
	uint64_t full_until, full_dropped, disk_dropped;
	int failed;
	int ended;			/* -G with -W: its last period is written */
	int done;			/* its thread has finished its last file */
	uint64_t alive_at;		/* CLOCK_MONOTONIC of its thread's last round (atomic) */
	struct mgcap_queue_stats base;	/* the ring's counters when it began its blocks */
	/*
	 * --index: the ring index of the next block to index, one that begins
	 * in its current file (or after it)
	 */
	uint64_t index_at;
	/* what its thread has done, for --stats and --prometheus, under the lock */
	pthread_mutex_t shown_lock;
	struct {
		uint64_t written, disk_dropped, files, bytes;
		char current[4096];
	} shown;
};

static struct queue_file queues[MAX_READERS];
static size_t nqueues;
static int promisc_fd = -1;
/* SIGHUPs seen by the main thread: each queue's thread rotates once for each */
static unsigned long hangups;
/*
 * The files the threads completed, for file_done (its -z command, its place
 * among the files kept), which the main thread calls: a thread only lists
 * it, and goes on with its ring (a removal of old files, or a sync of the
 * list, would hold the ring up, which is the thread's only buffer)
 */
static pthread_mutex_t finished_lock = PTHREAD_MUTEX_INITIALIZER;
static char **finished;
static size_t nfinished, finished_room;
static void (*file_done)(const char *path, void *arg);
/* each -i device's stamping (PCAP_TSTAMP_*), and the NIC's, taken for its readers */
static int device_tstamp[MGCAP_MAX_DEVICES];
static struct mgcap_hwts_claim device_hwts[MGCAP_MAX_DEVICES];

/* The ring index up to which the kernel wrote @qf's ring (its blocks whole there). */
static uint64_t produced(const struct queue_file *qf)
{
	/* pairs with the kernel's release store of producer */
	return __atomic_load_n(&qf->pg.r.ctrl->producer, __ATOMIC_ACQUIRE);
}

/* The end of the last page the kernel wrote whole in @qf's ring. */
static uint64_t produced_pages(const struct queue_file *qf)
{
	return produced(qf) & ~(uint64_t)(MGCAP_PAGE_SIZE - 1);
}

/* A 1/@parts share of @qf's ring in whole pages, @most at most, a page at least. */
static uint64_t ring_share(const struct queue_file *qf, unsigned int parts, uint64_t most)
{
	uint64_t share = qf->pg.r.data_size / parts < most ? qf->pg.r.data_size / parts : most;

	share &= ~(uint64_t)(MGCAP_PAGE_SIZE - 1);
	return share ? share : MGCAP_PAGE_SIZE;
}

/*
 * FILE.DEV@N.EXT: before FILE's extension, or with ".pcapng" where its name
 * has none ("x.pcapng", "x": "x.eth0@1.pcapng"), so that -C's numbers, put
 * at the end, never run into the queue's ("x.eth0@1.pcapng1", not
 * "x.eth0@11", queue 11's first file)
 */
static int queue_path(char *buf, size_t len, const char *path, const char *name)
{
	const char *base = strrchr(path, '/'), *dot = strrchr(base ? base + 1 : path, '.');
	int n;

	if (dot && dot != (base ? base + 1 : path))
		n = snprintf(buf, len, "%.*s.%s%s", (int)(dot - path), path, name, dot);
	else
		n = snprintf(buf, len, "%s.%s.pcapng", path, name);
	return n < 0 || (size_t)n >= len - 8 ? -1 : 0;
}

/*
 * Device @d's stamps: --tstamp, or by default adapter where the NIC stamps
 * every frame and has a clock (PHC), adapter_unsynced where it has none,
 * host where it cannot stamp.  The NIC's stamping taken for its readers,
 * as libpcap takes it (mgcap_hwtstamp.h).  0, or -1 (it said why).
 */
static int choose_tstamp(size_t d)
{
	const char *dev = cfg.devs[d];
	struct ethtool_ts_info info;
	int want = cfg.tstamp;

	device_tstamp[d] = PCAP_TSTAMP_HOST;
	if (want == PCAP_TSTAMP_HOST)
		return 0;
	if (mgcap_hwts_info(dev, &info) < 0 || !mgcap_hwts_rx_capable(&info)) {
		if (want < 0)
			return 0;
		fprintf(stderr, "mgdump: %s: its NIC does not stamp every frame: --tstamp %s\n",
			dev, pcap_tstamp_type_val_to_name(want));
		return -1;
	}
	if (mgcap_hwts_take(dev, MGCAP_HWTS_READERS, &device_hwts[d]) < 0 ||
	    device_hwts[d].made.rx_filter != HWTSTAMP_FILTER_ALL) {
		fprintf(stderr, "mgdump: %s: hardware time stamping: %s\n", dev,
			errno == EPERM || errno == EACCES ? "not permitted" :
			"not every frame stamped");
		return -1;
	}
	device_tstamp[d] = want >= 0 ? want : info.phc_index >= 0 ? PCAP_TSTAMP_ADAPTER :
		PCAP_TSTAMP_ADAPTER_UNSYNCED;
	return 0;
}

/* A line that covers no stamp: each gets the kernel's, counted (the kernel's "unconverted"). */
static const struct mgcap_tstamp_line no_line = { .span_ns = 1, .rate = 1ULL << 32 };

/*
 * Adapter stamps: a sample of the NIC's clock, and the kernel's line from
 * the newest interval of the drift model, reaching LINE_AHEAD_NS past it
 * (the frames of the next LINE_EVERY_NS are stamped on it before the next
 * sample), where its bound is within MGCAP_ADAPTER_MAX_BOUND_NS, as
 * libpcap's conversion holds it.  Else (no interval yet, none since a step
 * of either clock, one too uncertain) a line that covers nothing: the
 * kernel's stamps, counted.  A step is seen at the next sample: the frames
 * before it are stamped on the line from before the step.
 */
static void renew_line(struct queue_file *qf, uint64_t now)
{
	const struct mgcap_clock *c = &qf->adapter.clock;
	struct mgcap_tstamp_line line = no_line;
	struct mgcap_clock_line newest;

	if (qf->tstamp != PCAP_TSTAMP_ADAPTER || now - qf->line_at < LINE_EVERY_NS)
		return;
	qf->line_at = now;
	if (mgcap_adapter_sample(&qf->adapter, 1, now))
		return;		/* (counted; the line holds until it runs out) */
	/* the newest interval's line, as libpcap's conversion takes it */
	if (c->n_iv && mgcap_clock_line_for(c, c->iv[c->n_iv - 1].phc_b,
					    MGCAP_ADAPTER_MAX_BOUND_NS, &newest) == 0) {
		line.phc_lo = newest.lo;
		line.span_ns = newest.span + LINE_AHEAD_NS;
		line.sys_lo = newest.sys_lo;
		line.rate = newest.rate;
	}
	/* (a rate the kernel refuses, beyond 1000 ppm: no line either) */
	if (ioctl(qf->pg.r.fd, MGCAP_IOC_SET_TSTAMP_LINE, &line) &&
	    ioctl(qf->pg.r.fd, MGCAP_IOC_SET_TSTAMP_LINE, &no_line))
		fprintf(stderr, "mgdump: %s: MGCAP_IOC_SET_TSTAMP_LINE: %s\n", qf->name,
			strerror(errno));
}

/* The clock the kernel stamps @qf's blocks with (its device's, @tstamp), and its conversion. */
static int set_tstamp(struct queue_file *qf, int tstamp)
{
	uint32_t source = tstamp == PCAP_TSTAMP_HOST ? MGCAP_TSTAMP_SW : MGCAP_TSTAMP_HW_OR_SW;
	char err[256];

	qf->tstamp = tstamp;
	if (tstamp == PCAP_TSTAMP_ADAPTER &&
	    mgcap_adapter_open(&qf->adapter, qf->ifname, err, sizeof(err))) {
		fprintf(stderr, "mgdump: %s: adapter time stamps: %s\n", qf->name, err);
		qf->tstamp = -1;	/* (nothing to close) */
		return -1;
	}
	if (ioctl(qf->pg.r.fd, MGCAP_IOC_SET_TSTAMP, &source)) {
		fprintf(stderr, "mgdump: %s: MGCAP_IOC_SET_TSTAMP: %s\n", qf->name, strerror(errno));
		return -1;
	}
	if (tstamp == PCAP_TSTAMP_ADAPTER) {
		/* two samples 10 ms apart: a line before the first block (never the raw clock) */
		mgcap_adapter_sample(&qf->adapter, 1, mgcap_now_ns(CLOCK_MONOTONIC));
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
		renew_line(qf, mgcap_now_ns(CLOCK_MONOTONIC));
	}
	return 0;
}


/* @qf's node opened, its ring set up for the file, stamped @tstamp: 0, or -1 (it said why). */
static int open_queue(struct queue_file *qf, int tstamp)
{
	uint32_t directions = MGCAP_DIR_RECEIVED | MGCAP_DIR_SENT;
	struct mgcap_error e;

	if (mgcap_open_queue(&qf->pg.r, qf->devnode, &e)) {
		fprintf(stderr, "mgdump: %s: %s\n", qf->devnode, e.msg);
		return -1;
	}
	qf->wake_mark = (uint32_t)ring_share(qf, 8, WAKE_MARK_MAX);
	qf->poll_mark = qf->wake_mark;
	qf->snaplen = cfg.snaplen < qf->pg.r.info.snaplen ? cfg.snaplen : qf->pg.r.info.snaplen;
	if (ioctl(qf->pg.r.fd, MGCAP_IOC_SET_SNAPLEN, &qf->snaplen) ||
	    ioctl(qf->pg.r.fd, MGCAP_IOC_SET_DIRECTIONS, &directions) ||
	    ioctl(qf->pg.r.fd, MGCAP_IOC_SET_POLL_MARK, &qf->poll_mark)) {
		fprintf(stderr, "mgdump: %s: %s\n", qf->devnode, strerror(errno));
		return -1;
	}
	if (set_tstamp(qf, tstamp))
		return -1;
	if (mgcap_pages_start(&qf->pg, 0)) {
		fprintf(stderr, "mgdump: %s: a ring of pcapng blocks: %s%s\n", qf->devnode,
			strerror(errno), errno == ENOTTY ? " (a module from before them)" : "");
		return -1;
	}
	qf->index_at = qf->pg.r.tail;
	/* (a quarter of a small ring: the others go on while one is written) */
	qf->write_max = ring_share(qf, 4, WRITE_MAX);
	/* (the first reader's ring counts from the capture's start: ours from here) */
	if (ioctl(qf->pg.r.fd, MGCAP_IOC_STATS, &qf->base)) {
		fprintf(stderr, "mgdump: %s: MGCAP_IOC_STATS: %s\n", qf->devnode, strerror(errno));
		return -1;
	}
	return 0;
}

static int disk_full(struct queue_file *qf);

/* The output's error, said: -1. */
static int report(struct queue_file *qf)
{
	fprintf(stderr, "mgdump: %s\n", qf->out.error);
	return -1;
}

/*
 * --index: the blocks that begin before ring index @before into the
 * current file's index, its end now where ring index @file_end is (a file
 * holds the ring's bytes as they lie, from its first block on).  Each is
 * whole in the ring, held still: a block is indexed when its first page is
 * written, and a file ends with whole blocks (or, cut short by a full
 * disk, without its index).  0, or -1 (it said why).
 */
static int index_to(struct queue_file *qf, uint64_t before, uint64_t file_end)
{
	const uint8_t *first;
	uint64_t len;

	if (!qf->out.capindex)
		return 0;
	/* (after packets dropped for a full disk, the file's blocks begin where the ring's did) */
	if (qf->index_at < qf->pg.block_at)
		qf->index_at = qf->pg.block_at;
	while (before - qf->index_at - 1 < qf->pg.r.data_size) {
		if (mgcap_pages_blocks(&qf->pg, qf->index_at, before, &first, &len)) {
			fprintf(stderr, "mgdump: %s: a block that does not fit the ring\n", qf->name);
			return -1;
		}
		capindex_blocks(qf->out.capindex, qf->out.file_bytes - (file_end - qf->index_at),
				first, len);
		qf->index_at += len;
	}
	return 0;
}

/*
 * @len bytes of the ring's pages into the current file: 0, 1 for a full
 * disk (disk_full() took it over), or -1 (it said why).
 */
static int write_out(struct queue_file *qf, const uint8_t *p, uint64_t len)
{
	if (dump_output_write(&qf->out, p, len) == 0) {
		if (!qf->out.ended)
			return 0;
		/* -G with -W: the last period is over, these pages are after it */
		qf->ended = 1;
		return 1;
	}
	if (qf->out.full)
		return disk_full(qf) ? -1 : 1;
	fprintf(stderr, "mgdump: %s\n", qf->out.error);
	return -1;
}

/*
 * The writes done taken back (with @wait, once the oldest is), their
 * pages given back to the ring: 0, 1 for a full disk (disk_full() took it
 * over), or -1 (it said why).
 */
static int reap(struct queue_file *qf, int wait)
{
	uint64_t written;
	int ret = dump_output_reap(&qf->out, wait, &written);

	if (written && mgcap_pages_done(&qf->pg, written)) {
		fprintf(stderr, "mgdump: %s: a block that does not fit the ring\n", qf->name);
		return -1;
	}
	if (ret == 0)
		return 0;
	if (qf->out.full)
		return disk_full(qf) ? -1 : 1;
	return report(qf);
}

/* Every write in flight done, as reap() */
static int drain(struct queue_file *qf)
{
	int ret = 0;

	while (!ret && paged_writes_in_flight(&qf->out.writes))
		ret = reap(qf, 1);
	return ret;
}

/* Bytes of whole pages the kernel wrote past those handed out, up to ring index @end. */
static uint64_t pages_ready(const struct queue_file *qf, uint64_t end)
{
	uint64_t head = produced_pages(qf);

	if (end - qf->pg.handed < head - qf->pg.handed)
		head = end;
	return head - qf->pg.handed;
}

/*
 * The ring's whole pages up to ring index @end (UINT64_MAX: as far as the
 * kernel wrote them), asked to be written while writes may be in flight
 * (those done taken back), or until the disk is full; 0, or -1 (it said
 * why).  The file ends past them now (a full disk is seen when they are
 * taken back).  With @whole, a write shorter than write_max waits while
 * another is in flight: each completion would otherwise send the few pages
 * that came meanwhile, at a write's whole cost (make bench-record: 1514-byte
 * frames cost 380 instructions a packet more through io_uring so).
 */
static int write_ready(struct queue_file *qf, uint64_t end, int whole)
{
	const uint8_t *first;
	uint64_t n;

	while (!qf->full_until && !qf->ended &&
	       paged_writes_in_flight(&qf->out.writes) < PAGED_WRITES_DEPTH &&
	       (!whole || !paged_writes_in_flight(&qf->out.writes) ||
		pages_ready(qf, end) >= qf->write_max) &&
	       (n = mgcap_pages_next(&qf->pg, end - qf->pg.handed > qf->write_max ?
				     qf->pg.handed + qf->write_max : end, &first)) > 0) {
		int ret = write_out(qf, first, n);

		if (ret)
			return ret < 0 ? -1 : 0;	/* (a full disk, dropping now; the output's end) */
		if (index_to(qf, qf->pg.handed, qf->pg.handed))
			return -1;
	}
	return reap(qf, 0) < 0 ? -1 : 0;
}

/*
 * The ring's whole pages up to ring index @end (not UINT64_MAX) written,
 * every write done and its pages given back, or the disk full: 0, or -1
 */
static int write_through(struct queue_file *qf, uint64_t end)
{
	uint64_t handed;
	int ret;

	do {
		handed = qf->pg.handed;
		if (write_ready(qf, end, 0))
			return -1;
		ret = drain(qf);
	} while (!ret && !qf->full_until && !qf->ended && qf->pg.handed != handed);
	return ret < 0 ? -1 : 0;
}

static uint64_t file_limit(const struct queue_file *qf);
static int end_file_at(struct queue_file *qf, uint64_t end);
static int end_full_files(struct queue_file *qf, uint64_t end);

/*
 * What the ring holds, in whole pages up to *@end: the kernel fills the
 * page it writes in (MGCAP_IOC_FILL_PAGE), and *@end is a block's end.  A
 * ring too full for the filler (the disk slower than the wire: it would
 * be full again by the time its pages were written) is not waited for:
 * *@end is its last whole page's end then, which a block may cross (a file
 * ends at the last block's end before it).  0, or -1 (it said why).
 */
static int fill_page(struct queue_file *qf, uint64_t *end)
{
	if (mgcap_pages_fill(&qf->pg, end) == 0)
		return 0;
	if (errno != EAGAIN) {
		fprintf(stderr, "mgdump: %s: MGCAP_IOC_FILL_PAGE: %s\n", qf->name, strerror(errno));
		return -1;
	}
	*end = produced_pages(qf);
	return 0;
}

/* The ring's pages the current file takes now: with -C, its room's (UINT64_MAX: all). */
static uint64_t file_limit(const struct queue_file *qf)
{
	if (!qf->out.rotate_bytes)
		return UINT64_MAX;
	return qf->pg.handed + (dump_output_room(&qf->out) & ~(uint64_t)(MGCAP_PAGE_SIZE - 1));
}

/*
 * Everything the ring holds now, its last page filled (fill_page()), in
 * files within -C, every write done: 0, or -1 (it said why).  A file the
 * stop then ends, ends at its last whole block (end_whole()).
 */
static int write_all_held(struct queue_file *qf)
{
	uint64_t end;

	if (fill_page(qf, &end) || end_full_files(qf, end))
		return -1;
	return qf->ended || qf->full_until ? 0 : write_through(qf, end);
}

/*
 * The current file ends at its last whole block, every write done (after
 * a failure, or at a stop whose ring was too full for a filler: the pages
 * after it cut off, its index gone); 0, or -1 (it said why).
 */
static int end_whole(struct queue_file *qf)
{
	uint64_t whole = qf->out.file_bytes - (qf->pg.r.tail - qf->pg.block_at);

	if (paged_writes_in_flight(&qf->out.writes) || qf->pg.block_at == qf->pg.r.tail)
		return 0;
	return dump_output_cut_back(&qf->out, whole) ? report(qf) : 0;
}

/*
 * The ring's counters since @qf began its blocks (the first reader's ring
 * counts from the capture's start); all 0 where the kernel does not answer.
 */
static struct mgcap_queue_stats ring_counts(const struct queue_file *qf)
{
	struct mgcap_queue_stats now = qf->base, since;

	(void)ioctl(qf->pg.r.fd, MGCAP_IOC_STATS, &now);
	since = (struct mgcap_queue_stats){
		.captured = now.captured - qf->base.captured,
		.dropped = now.dropped - qf->base.dropped,
		.coalesced = now.coalesced - qf->base.coalesced,
		.sent = now.sent - qf->base.sent,
		.unconverted = now.unconverted - qf->base.unconverted,
	};
	return since;
}

/* dump_output's collect_stats: the queue's file's statistics, from its ring's counters */
static void queue_stats(struct pcapng_if_stats *st, size_t n, void *arg)
{
	struct queue_file *qf = arg;
	struct mgcap_queue_stats qs = ring_counts(qf);

	memset(st, 0, n * sizeof(*st));
	st->received = qs.captured + qs.dropped;
	st->os_dropped = qs.dropped;
	qf->dropped = qs.dropped;
	st->start_ns = start_ns;
	st->end_ns = mgcap_now_ns(CLOCK_REALTIME);
	st->delivered = qf->pg.packets;
	/* (no buffer of mgdump's between the ring and the file: no drops of its own) */
	snprintf(st->note, sizeof(st->note), "one copy; %" PRIu64 " dropped for a full disk; %"
		 PRIu64 " adapter stamps not converted (the kernel's instead)",
		 qf->disk_dropped + qf->full_dropped, (uint64_t)qs.unconverted);
}

/* dump_output's file_done: @path listed for the main thread (hand_finished()) */
static void list_finished(const char *path, void *arg)
{
	char *copy = strdup(path), **more;
	int listed = 0;

	(void)arg;
	pthread_mutex_lock(&finished_lock);
	if (copy && nfinished == finished_room) {
		more = realloc(finished, (2 * finished_room + 16) * sizeof(*finished));
		if (more) {
			finished = more;
			finished_room = 2 * finished_room + 16;
		}
	}
	if (copy && nfinished < finished_room) {
		finished[nfinished++] = copy;
		listed = 1;
	}
	pthread_mutex_unlock(&finished_lock);
	if (!listed) {
		free(copy);
		fprintf(stderr, "mgdump: %s: out of memory: no -z, not among the files kept\n", path);
	}
}

/* The files the threads completed since, each to file_done. */
static void hand_finished(void)
{
	char **list;
	size_t i, n;

	pthread_mutex_lock(&finished_lock);
	list = finished;
	n = nfinished;
	finished = NULL;
	nfinished = finished_room = 0;
	pthread_mutex_unlock(&finished_lock);
	for (i = 0; i < n; i++) {
		file_done(list[i], NULL);
		free(list[i]);
	}
	free(list);
}

/*
 * The file ends (a SIGHUP, -C, -G), and the next begins: it takes what the
 * ring holds up to @end (fill_page()'s) as far as the last block's end
 * there, and with -C no further than keeps it within its size.  Where that
 * is inside a page, the page's blocks before it end the file, before its
 * statistics, and the rest of the page begins the next, after its header
 * (dump_output_end_page(), dump_output_lead()): every other page goes as it
 * lies in the ring.  0, or -1 (it said why).
 */
static int end_file_at(struct queue_file *qf, uint64_t end)
{
	uint64_t cut = end, below, after;
	const uint8_t *page = NULL;
	int ret;

	/* (the file's end where the ring's pages given back end) */
	ret = drain(qf);
	if (ret)
		return ret < 0 ? -1 : 0;
	if (mgcap_pages_cut(&qf->pg, end, qf->out.rotate_bytes ? dump_output_room(&qf->out) :
				     UINT64_MAX, &cut)) {
		fprintf(stderr, "mgdump: %s: a block that does not fit the ring\n", qf->name);
		return -1;
	}
	if (cut < qf->pg.r.tail) {
		/* (never: @end is a page the ring filled, or most of a full ring's pages) */
		fprintf(stderr, "mgdump: %s: no block ends where the file may end (the ring's pages "
			"given back to %" PRIu64 ", its blocks counted to %" PRIu64 ", the file to end "
			"by %" PRIu64 " within %" PRIu64 " bytes)\n", qf->name, qf->pg.r.tail,
			qf->pg.block_at, end, dump_output_room(&qf->out));
		return -1;
	}
	below = cut & ~(uint64_t)(MGCAP_PAGE_SIZE - 1);
	if (write_through(qf, below))
		return -1;
	if (qf->full_until || qf->ended)
		return 0;	/* the file ended where the disk filled, or the output did */
	if (cut != below) {
		if (mgcap_pages_next(&qf->pg, below + MGCAP_PAGE_SIZE, &page) != MGCAP_PAGE_SIZE) {
			fprintf(stderr, "mgdump: %s: the ring's page at a file's end is gone\n",
				qf->name);
			return -1;
		}
		/* the page's blocks before the cut end the file (cut back where the disk is full) */
		if (index_to(qf, cut, below))
			return -1;
		if (dump_output_end_page(&qf->out, page, cut - below))
			return qf->out.full ? disk_full(qf) : report(qf);
		dump_output_lead(&qf->out, page + (cut - below), MGCAP_PAGE_SIZE - (cut - below));
	}
	/* (the file's statistics count the packets up to its end) */
	if (mgcap_pages_count(&qf->pg, cut)) {
		fprintf(stderr, "mgdump: %s: a block that does not fit the ring\n", qf->name);
		return -1;
	}
	ret = dump_output_rotate(&qf->out);
	qf->ended = qf->out.ended;
	if (ret)
		/* the next file could not begin: what follows the cut is dropped */
		return qf->out.full ? disk_full(qf) : report(qf);
	qf->index_at = cut;
	if (!page)
		return 0;
	/* the page is in the files: the ring may have it back */
	if (qf->ended) {
		/* (-W's last period: what follows the cut is after the output's end) */
		dump_output_lead(&qf->out, NULL, 0);
		return mgcap_pages_drop(&qf->pg, below + MGCAP_PAGE_SIZE, &after) ? -1 : 0;
	}
	/* (the next file holds the page's blocks after the cut: its end is the page's) */
	if (index_to(qf, below + MGCAP_PAGE_SIZE, below + MGCAP_PAGE_SIZE))
		return -1;
	return mgcap_pages_done(&qf->pg, MGCAP_PAGE_SIZE) ? -1 : 0;
}

/* drop_held()'s rounds of whole pages at most, where the ring refills as fast as they go */
#define DROP_ROUNDS	8

/*
 * While the disk is full: everything the ring holds given back unwritten,
 * its packets counted, up to a page it filled, where writing goes on once
 * there is room.  0, 1 where the ring refilled faster than it was given
 * back (not at a page it filled yet: the next call goes on), or -1 (it
 * said why).
 */
static int drop_held(struct queue_file *qf)
{
	uint64_t end, packets;
	int round;

	for (round = 0;; round++) {
		if (mgcap_pages_fill(&qf->pg, &end) == 0)
			break;
		if (errno != EAGAIN) {
			fprintf(stderr, "mgdump: %s: MGCAP_IOC_FILL_PAGE: %s\n", qf->name,
				strerror(errno));
			return -1;
		}
		if (round == DROP_ROUNDS)
			return 1;
		/* no room for the filler: the whole pages go first */
		end = produced_pages(qf);
		if (mgcap_pages_drop(&qf->pg, end, &packets))
			goto bad;
		qf->full_dropped += packets;
	}
	if (mgcap_pages_drop(&qf->pg, end, &packets))
		goto bad;
	qf->full_dropped += packets;
	return 0;
bad:
	fprintf(stderr, "mgdump: %s: a block that does not fit the ring\n", qf->name);
	return -1;
}

/*
 * A write failed for a full disk: the file ends at its last whole block (a
 * block the write left torn goes), and what comes is dropped and counted
 * until the next try, a second later (FULL_RETRY_NS), when the next file
 * begins where there is room.  0, or -1 (it said why).
 */
static int disk_full(struct queue_file *qf)
{
	uint64_t whole = qf->out.file_bytes - (qf->pg.r.tail - qf->pg.block_at);

	if (!qf->full_until)
		fprintf(stderr, "mgdump: %s: dropping packets until there is room, trying again "
			"each second\n", qf->out.error);
	qf->full_until = mgcap_now_ns(CLOCK_MONOTONIC) + FULL_RETRY_NS;
	/* (the next file begins where the ring's blocks begin again: not with a lead) */
	dump_output_lead(&qf->out, NULL, 0);
	if (dump_output_end_torn(&qf->out, whole) && !qf->out.full)
		return report(qf);
	qf->ended = qf->out.ended;
	return drop_held(qf) < 0 ? -1 : 0;
}

/* Whether the disk is full, what the ring holds dropped meanwhile; at the try, what came since. */
static int still_full(struct queue_file *qf, uint64_t now)
{
	int held;

	if (!qf->full_until)
		return 0;
	held = drop_held(qf);
	qf->failed = held < 0;
	/* (writing goes on at a page the ring filled, never inside a block) */
	if (now < qf->full_until || held)
		return 1;
	/* the next write tries: a file begins where the ring's filled page ended */
	qf->full_until = 0;
	return 0;
}

/* A write went after the disk was full: said once, with what it cost. */
static void room_again(struct queue_file *qf)
{
	if (!qf->full_dropped)
		return;
	fprintf(stderr, "mgdump: %s: writing again; %" PRIu64 " packets dropped while the disk "
		"was full\n", qf->out.current, qf->full_dropped);
	qf->disk_dropped += qf->full_dropped;
	qf->full_dropped = 0;
}

/*
 * -C: the files that take what the ring holds up to @end, each as full as
 * its size lets it be, until the current one has room for the rest (the
 * thread may be a wakeup behind the ring): 0, or -1 (it said why).
 */
static int end_full_files(struct queue_file *qf, uint64_t end)
{
	while (qf->out.rotate_bytes && !qf->ended && !qf->full_until &&
	       end - qf->pg.handed > dump_output_room(&qf->out))
		if (end_file_at(qf, end))
			return -1;
	return 0;
}

/*
 * The file ends: with -C where it is full, or (@at_end: a SIGHUP, -G's
 * period) where the ring's blocks end now, after the full files before
 * that.  0, or -1 (it said why).
 */
static int next_file(struct queue_file *qf, int at_end)
{
	uint64_t end;

	if (fill_page(qf, &end) || end_full_files(qf, end))
		return -1;
	return !at_end || qf->ended || qf->full_until ? 0 : end_file_at(qf, end);
}

/*
 * The stop's (after a failure too): the writes in flight done, one that
 * fails ending the file where it began (never a next file: disk_full()'s),
 * the packets of the pages not written then counted, for a full disk.
 */
static void finish_writes(struct queue_file *qf)
{
	uint64_t written, packets;

	while (paged_writes_in_flight(&qf->out.writes)) {
		int ret = dump_output_reap(&qf->out, 1, &written);

		if (written && mgcap_pages_done(&qf->pg, written))
			qf->failed = 1;
		if (!ret)
			continue;
		fprintf(stderr, "mgdump: %s\n", qf->out.error);
		if (!qf->out.full || mgcap_pages_drop(&qf->pg, qf->pg.handed, &packets))
			qf->failed = 1;
		else
			qf->full_dropped += packets;
		return;
	}
}

/*
 * The thread sleeps until a write is done, or the wake mark's pages come
 * past those in flight (the ring's poll mark moved past them: its
 * readiness counts them); 0.1 s at most.
 */
static void sleep_on(struct queue_file *qf, struct pollfd pfd[2])
{
	unsigned int flying = paged_writes_in_flight(&qf->out.writes);
	uint64_t mark = qf->pg.handed - qf->pg.r.tail + qf->wake_mark;
	uint32_t want = mark < qf->pg.r.data_size ? (uint32_t)mark : (uint32_t)qf->pg.r.data_size;

	if (flying == PAGED_WRITES_DEPTH) {
		/* (no write may start: only one done helps) */
		poll(&pfd[1], 1, 100);
		return;
	}
	if (want != qf->poll_mark &&
	    ioctl(qf->pg.r.fd, MGCAP_IOC_SET_POLL_MARK, &want) == 0)
		qf->poll_mark = want;
	if (want != qf->poll_mark)
		poll(&pfd[1], 1, 100);	/* (the mark stayed: the ring would not let it sleep) */
	else
		poll(pfd, flying ? 2 : 1, 100);
}

/* What the thread has done, for the main thread's reports. */
static void show(struct queue_file *qf)
{
	pthread_mutex_lock(&qf->shown_lock);
	qf->shown.written = qf->pg.packets;
	qf->shown.disk_dropped = qf->disk_dropped + qf->full_dropped;
	qf->shown.files = qf->out.files_done;
	qf->shown.bytes = qf->out.bytes_total;
	memcpy(qf->shown.current, qf->out.current, sizeof(qf->shown.current));
	pthread_mutex_unlock(&qf->shown_lock);
}

static void *queue_main(void *arg)
{
	struct queue_file *qf = arg;
	/* its ring's pages, or its writes done */
	struct pollfd pfd[2] = {
		{ .fd = qf->pg.r.fd, .events = POLLIN },
		{ .fd = paged_writes_fd(&qf->out.writes), .events = POLLIN },
	};
	uint64_t last_write = mgcap_now_ns(CLOCK_MONOTONIC);

	while (!stopping && !qf->failed && !qf->ended) {
		uint64_t now = mgcap_now_ns(CLOCK_MONOTONIC), before = qf->out.bytes_total;
		unsigned long hups = __atomic_load_n(&hangups, __ATOMIC_RELAXED);

		__atomic_store_n(&qf->alive_at, now, __ATOMIC_RELAXED);
		renew_line(qf, now);
		if (still_full(qf, now)) {
			show(qf);
			poll(pfd, 1, 100);
			continue;
		}
		if (hups != qf->hangups ||
		    dump_output_due(&qf->out, produced(qf) - qf->pg.handed)) {
			/* (due with nothing pending: -G's period is over) */
			int at_end = hups != qf->hangups || dump_output_due(&qf->out, 0);

			qf->hangups = hups;
			qf->failed = next_file(qf, at_end);
			continue;
		}
		qf->failed = write_ready(qf, file_limit(qf), 1);
		if (qf->out.bytes_total != before) {
			last_write = now;
			if (!qf->full_until)
				room_again(qf);
		}
		else if (now - last_write >= QUIET_FLUSH_NS) {
			/* a quiet queue: what it holds goes to the disk all the same */
			if (produced(qf) != qf->pg.handed)
				qf->failed = write_all_held(qf);
			last_write = now;
		}
		show(qf);
		if (mgcap_reader_detached(&qf->pg.r))
			break;
		sleep_on(qf, pfd);
	}
	/*
	 * the stop: what the ring took before it, every page (not after -W's
	 * last period), or on a full disk every packet counted
	 */
	if (!qf->failed && !qf->ended)
		qf->failed = qf->full_until ? drop_held(qf) < 0 : write_all_held(qf);
	finish_writes(qf);
	if (end_whole(qf))
		qf->failed = 1;
	if (dump_output_close(&qf->out)) {
		fprintf(stderr, "mgdump: %s\n", qf->out.error);
		qf->failed = 1;
	}
	if (qf->failed)
		mgdump_request_stop(0);
	show(qf);
	__atomic_store_n(&qf->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * The devices promiscuous while mgdump runs (without -p), as libpcap makes
 * them: a packet socket's membership, which goes with the socket.
 */
static int promiscuous(void)
{
	size_t d;

	if (cfg.no_promisc)
		return 0;
	promisc_fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	for (d = 0; d < cfg.ndevs && promisc_fd >= 0; d++) {
		struct packet_mreq mr = { .mr_type = PACKET_MR_PROMISC };

		mr.mr_ifindex = (int)if_nametoindex(cfg.devs[d]);
		if (setsockopt(promisc_fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr))) {
			fprintf(stderr, "mgdump: %s: promiscuous mode: %s\n", cfg.devs[d],
				strerror(errno));
			return -1;
		}
	}
	if (promisc_fd < 0) {
		fprintf(stderr, "mgdump: promiscuous mode: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* Every queue of every -i device, planned, opened and set up: 0, or -1 (it said why). */
static int open_queues(void)
{
	char name[sizeof(queues[0].name)];
	size_t d;
	int i;

	for (d = 0; d < cfg.ndevs; d++) {
		struct mgcap_queue_node *nodes;
		struct mgcap_error e;
		int n = mgcap_device_queues(cfg.devs[d], cfg.mgcap_only[d], 0, &nodes, NULL, &e);

		if (n <= 0) {
			fprintf(stderr, "mgdump: %s: %s\n", cfg.devs[d],
				n < 0 ? e.msg : "not captured by mgcap (--per-queue writes "
				"mgcap's queues)");
			return -1;
		}
		if (choose_tstamp(d)) {
			free(nodes);
			return -1;
		}
		for (i = 0; i < n; i++) {
			struct queue_file *qf = &queues[nqueues];

			if (nqueues == MAX_READERS) {
				fprintf(stderr, "mgdump: more than %d queues to read\n", MAX_READERS);
				free(nodes);
				return -1;
			}
			nqueues++;
			qf->pg.r.fd = -1;
			qf->out.fd = -1;	/* (no file yet: nothing to close) */
			pthread_mutex_init(&qf->shown_lock, NULL);
			snprintf(qf->ifname, sizeof(qf->ifname), "%s", cfg.devs[d]);
			snprintf(name, sizeof(name), "%.15s@%u", cfg.devs[d], nodes[i].queue);
			snprintf(qf->name, sizeof(qf->name), "%s", name);
			snprintf(qf->devnode, sizeof(qf->devnode), "%s", nodes[i].devnode);
			snprintf(qf->iface.name, sizeof(qf->iface.name), "%s", name);
			if (queue_path(qf->path, sizeof(qf->path), cfg.path, name)) {
				fprintf(stderr, "mgdump: %s: too long a name\n", cfg.path);
				free(nodes);
				return -1;
			}
			if (open_queue(qf, device_tstamp[d])) {
				free(nodes);
				return -1;
			}
		}
		free(nodes);
	}
	return 0;
}

static int start_threads(size_t *started)
{
	for (*started = 0; *started < nqueues; (*started)++) {
		struct queue_file *qf = &queues[*started];
		pthread_attr_t attr;
		int err = pthread_attr_init(&attr);

		if (!err && cfg.ncpus) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(cfg.cpus[*started % (size_t)cfg.ncpus], &set);
			err = pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		}
		if (!err)
			err = pthread_create(&qf->thread, &attr, queue_main, qf);
		pthread_attr_destroy(&attr);
		if (err) {
			fprintf(stderr, "mgdump: cannot start the writer of %s: %s\n", qf->name,
				strerror(err));
			return -1;
		}
	}
	return 0;
}

/* @qf's output (its interface from its ring's settings), its first file begun: 0, or -1 */
static int open_output(struct queue_file *qf)
{
	struct dump_output *o = &qf->out;

	qf->iface.linktype = DLT_EN10MB;
	qf->iface.snaplen = qf->snaplen;
	snprintf(qf->iface.description, sizeof(qf->iface.description),
		 "mgcap:%s, receive queue %s and what is sent through it; time stamps: %s",
		 qf->name, strchr(qf->name, '@') + 1, pcap_tstamp_type_val_to_name(qf->tstamp));
	memset(o, 0, sizeof(*o));
	o->paged = 1;
	o->ring_fd = qf->pg.r.fd;
	o->ring_data = qf->pg.r.data;
	o->ring_size = qf->pg.r.data_size;
	o->path = qf->path;
	o->rotate_bytes = cfg.rotate_bytes;
	o->rotate_seconds = cfg.rotate_seconds;
	o->keep = cfg.keep;
	o->ifs = &qf->iface;
	o->nifs = 1;
	o->collect_stats = queue_stats;
	o->collect_arg = qf;
	o->file_done = file_done ? list_finished : NULL;
	if (cfg.index && !(o->capindex = capindex_writer_new((const uint8_t[]){ 1 }, 1))) {
		fprintf(stderr, "mgdump: out of memory\n");
		return -1;
	}
	if (dump_output_open(o)) {
		fprintf(stderr, "mgdump: %s\n", o->error);
		return -1;
	}
	if (!o->direct)
		fprintf(stderr, "mgdump: %s: no O_DIRECT on its file system: written through "
			"the page cache\n", o->current);
	/* (said once: every queue's output finds the same) */
	if (o->uring_errno && qf == &queues[0])
		fprintf(stderr, "mgdump: no io_uring (%s): one write at a time\n",
			strerror(o->uring_errno));
	return 0;
}

static void close_queues(void)
{
	size_t i;

	for (i = 0; i < nqueues; i++) {
		if (queues[i].pg.r.fd >= 0)
			mgcap_reader_close(&queues[i].pg.r);
		if (queues[i].tstamp == PCAP_TSTAMP_ADAPTER)
			mgcap_adapter_close(&queues[i].adapter);
	}
	/* the NICs' stamping back, where this was their last reader */
	for (i = 0; i < cfg.ndevs; i++)
		if (device_hwts[i].taken)
			(void)mgcap_hwts_readers_gone(cfg.devs[i], &device_hwts[i]);
	if (promisc_fd >= 0)
		close(promisc_fd);
}

/* --stats and --prometheus: each queue's counters, its ring's and its thread's */
static void report_counters(void)
{
	static char current[sizeof(queues[0].shown.current)];
	struct iface_counters c[MAX_READERS];
	struct disk_counters d = { 0 };
	size_t i;

	if (!cfg.stats_path && !cfg.prometheus_path)
		return;
	for (i = 0; i < nqueues; i++) {
		struct queue_file *qf = &queues[i];
		struct mgcap_queue_stats qs = ring_counts(qf);

		pthread_mutex_lock(&qf->shown_lock);
		c[i] = (struct iface_counters){
			.name = qf->name, .received = qs.captured + qs.dropped, .sent = qs.sent,
			.written = qf->shown.written, .ring_drops = qs.dropped,
			.disk_drops = qf->shown.disk_dropped, .coalesced = qs.coalesced,
			.tstamp = pcap_tstamp_type_val_to_name(qf->tstamp),
		};
		d.files += qf->shown.files;
		d.bytes_written += qf->shown.bytes;
		if (i == 0)
			memcpy(current, qf->shown.current, sizeof(current));
		pthread_mutex_unlock(&qf->shown_lock);
	}
	mgdump_publish_counters(c, nqueues, &d, &retention, current);
}

/*
 * Whether every queue's thread still going came round since @since (for
 * the watchdog: a thread stuck in a write, or in a loop, stops it).
 */
static int all_alive(size_t started, uint64_t since)
{
	size_t i;

	for (i = 0; i < started; i++)
		if (!__atomic_load_n(&queues[i].done, __ATOMIC_ACQUIRE) &&
		    __atomic_load_n(&queues[i].alive_at, __ATOMIC_RELAXED) < since)
			return 0;
	return 1;
}

/* Whether every queue's thread is done (-G with -W: each after its last period). */
static int all_done(size_t started)
{
	size_t i;

	for (i = 0; i < started; i++)
		if (!__atomic_load_n(&queues[i].done, __ATOMIC_ACQUIRE))
			return 0;
	return started > 0;
}

/*
 * Every queue opened and set up, the devices promiscuous, the privileges
 * dropped: 0, or -1 (it said why, and closed what it opened).
 */
int mgdump_per_queue_open(void)
{
	int converting = 0;
	size_t i;

	if (open_queues() || promiscuous()) {
		close_queues();
		return -1;
	}
	/* (a NIC's stamping taken is given back at the end: that keeps CAP_NET_ADMIN) */
	for (i = 0; i < nqueues; i++)
		converting |= queues[i].tstamp == PCAP_TSTAMP_ADAPTER;
	for (i = 0; i < cfg.ndevs; i++)
		converting |= device_hwts[i].taken;
	if (mgdump_drop_privileges(cfg.user, converting)) {
		close_queues();
		return -1;
	}
	return 0;
}

void mgdump_per_queue_close(void)
{
	close_queues();
}

int mgdump_per_queue_run(void (*on_file_done)(const char *path, void *arg))
{
	size_t i, started = 0;
	int ret = 0;
	uint64_t end = 0, next_counters = 0, next_expiry = 0, next_alive = 0;
	uint64_t watchdog_ns = mgdump_service_watchdog_ns();

	file_done = on_file_done;
	start_ns = mgcap_now_ns(CLOCK_REALTIME);
	for (i = 0; i < nqueues && !ret; i++)
		ret = open_output(&queues[i]);
	if (!ret)
		ret = start_threads(&started);
	if (!ret)
		mgdump_service_notify("READY=1");
	if (cfg.duration_s)
		end = start_ns + (uint64_t)cfg.duration_s * 1000000000ULL;
	while (!ret && !stopping && !all_done(started)) {
		uint64_t mono = mgcap_now_ns(CLOCK_MONOTONIC);

		if (end && mgcap_now_ns(CLOCK_REALTIME) >= end)
			mgdump_request_stop(1);
		if (mono >= next_counters) {
			report_counters();
			next_counters = mono + COUNTERS_EVERY_NS;
		}
		/* (a thread stuck for half the period stops it: the manager acts within 1.5) */
		if (watchdog_ns && mono >= next_alive &&
		    all_alive(started, mono - watchdog_ns / 2)) {
			mgdump_service_notify("WATCHDOG=1");
			next_alive = mono + watchdog_ns / 2;
		}
		if (rotate_requested) {
			rotate_requested = 0;
			__atomic_add_fetch(&hangups, 1, __ATOMIC_RELAXED);
		}
		if (file_done)
			hand_finished();
		if (postrotate.command)
			postrotate_poll(&postrotate);
		if (retention.max_age_s && mono >= next_expiry) {
			retention_expire(&retention);
			next_expiry = mono + 1000000000ULL;
		}
		nanosleep(&(struct timespec){ 0, 100000000 }, NULL);
	}
	mgdump_service_notify("STOPPING=1");
	mgdump_request_stop(1);
	for (i = 0; i < started; i++) {
		struct queue_file *qf = &queues[i];

		pthread_join(qf->thread, NULL);
		ret |= qf->failed;
		if (!cfg.quiet)
			fprintf(stderr, "mgdump: %s: %" PRIu64 " packets, %" PRIu64 " bytes, in %"
				PRIu64 " files; %" PRIu64 " dropped by the ring, %" PRIu64
				" for a full disk\n", qf->name, qf->pg.packets, qf->out.bytes_total,
				qf->out.files_done, qf->dropped, qf->disk_dropped + qf->full_dropped);
	}
	/* files begun, their threads not: what they have, complete */
	for (i = started; i < nqueues; i++)
		dump_output_close(&queues[i].out);
	for (i = 0; i < nqueues; i++)
		capindex_writer_free(queues[i].out.capindex);
	if (file_done)
		hand_finished();
	report_counters();
	if (postrotate.command)
		postrotate_finish(&postrotate);
	close_queues();
	return ret ? 1 : 0;
}
