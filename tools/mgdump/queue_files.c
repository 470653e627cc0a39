// SPDX-License-Identifier: BSD-2-Clause
/*
 * --per-queue: each queue of each mgcap device to a file of its own, with
 * one copy of each frame.  The kernel writes the frame once, into the
 * queue's ring, as the enhanced packet block the file holds (a pcapng
 * ring: mgcap_pages.h), with the stamp the file records; the queue's
 * thread writes the ring's pages to the file as they lie in the mapping,
 * with O_DIRECT where the file system takes it (the disk reads them from
 * the ring), and gives them back once written.  Nothing in user space
 * touches a frame's bytes.
 *
 * A file: a section header, the queue's interface and a filler up to a
 * page, the ring's pages, then a page with the interface's statistics.  It
 * is written as NAME.part, synced, and renamed to NAME once complete.
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
#include "mgcap_open.h"
#include "mgcap_pages.h"
#include "mgcap_time.h"
#include "mgdump.h"
#include "pcapng.h"
#include "privileges.h"
#include "service.h"

/* A quiet queue's last packets reach its file this long after they came, at most. */
#define QUIET_FLUSH_NS		1000000000ULL
/* How often the clock line is renewed, and how far past its last sample it reaches. */
#define LINE_EVERY_NS		100000000ULL
#define LINE_AHEAD_NS		1000000000ULL

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
	char path[4096], part[4104];
	int fd, direct;
	uint64_t offset;		/* bytes in the file */
	uint8_t *page;			/* an aligned page: the header, the statistics */
	uint64_t dropped;		/* the ring's, at the end */
	int failed;
};

static struct queue_file queues[MAX_READERS];
static size_t nqueues;
static int promisc_fd = -1;

/* FILE.DEV@N: before FILE's extension where its name has one ("x.pcapng": "x.eth0@0.pcapng") */
static int queue_path(char *buf, size_t len, const char *path, const char *name)
{
	const char *base = strrchr(path, '/'), *dot = strrchr(base ? base + 1 : path, '.');
	int n;

	if (dot && dot != (base ? base + 1 : path))
		n = snprintf(buf, len, "%.*s.%s%s", (int)(dot - path), path, name, dot);
	else
		n = snprintf(buf, len, "%s.%s", path, name);
	return n < 0 || (size_t)n >= len - 8 ? -1 : 0;
}

/* The clock the kernel stamps @qf's blocks with, and whether it converts them. */
static int set_tstamp(struct queue_file *qf)
{
	uint32_t source = MGCAP_TSTAMP_HW_OR_SW;
	char err[256];

	qf->tstamp = cfg.tstamp;
	if (qf->tstamp == -1 || qf->tstamp == PCAP_TSTAMP_ADAPTER) {
		if (mgcap_adapter_open(&qf->adapter, qf->ifname, err, sizeof(err)) == 0) {
			qf->tstamp = PCAP_TSTAMP_ADAPTER;
		} else if (qf->tstamp == -1 && errno == ENODEV) {
			qf->tstamp = PCAP_TSTAMP_ADAPTER_UNSYNCED;
		} else {
			fprintf(stderr, "mgdump: %s: adapter time stamps: %s\n", qf->name, err);
			return -1;
		}
	}
	if (qf->tstamp == PCAP_TSTAMP_HOST)
		source = MGCAP_TSTAMP_SW;
	if (ioctl(qf->pg.r.fd, MGCAP_IOC_SET_TSTAMP, &source)) {
		fprintf(stderr, "mgdump: %s: MGCAP_IOC_SET_TSTAMP: %s\n", qf->name, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Adapter stamps: a sample of the NIC's clock, and the kernel's line from
 * the newest interval of the drift model, reaching LINE_AHEAD_NS past it
 * (the frames of the next LINE_EVERY_NS are stamped on it before the next
 * sample).  A stamp it does not cover gets the kernel's (counted).
 */
static void renew_line(struct queue_file *qf, uint64_t now)
{
	const struct mgcap_clock *c = &qf->adapter.clock;
	const struct mgcap_clock_interval *iv;
	struct mgcap_tstamp_line line;

	if (qf->tstamp != PCAP_TSTAMP_ADAPTER || now - qf->line_at < LINE_EVERY_NS)
		return;
	qf->line_at = now;
	if (mgcap_adapter_sample(&qf->adapter, 1, now) || !c->n_iv)
		return;
	iv = &c->iv[c->n_iv - 1];
	line.phc_lo = iv->phc_a > iv->min_phc ? iv->phc_a : iv->min_phc;
	line.sys_lo = iv->sys_a + (int64_t)(((__int128)(line.phc_lo - iv->phc_a) *
					     ((1LL << 32) + iv->slope)) >> 32);
	line.span_ns = (uint64_t)(iv->phc_b - line.phc_lo) + LINE_AHEAD_NS;
	line.rate = (uint64_t)((1LL << 32) + iv->slope);
	if (ioctl(qf->pg.r.fd, MGCAP_IOC_SET_TSTAMP_LINE, &line))
		fprintf(stderr, "mgdump: %s: MGCAP_IOC_SET_TSTAMP_LINE: %s\n", qf->name,
			strerror(errno));
}

/* @qf's node opened, its ring set up for the file: 0, or -1 (it said why). */
static int open_queue(struct queue_file *qf)
{
	uint32_t directions = MGCAP_DIR_RECEIVED | MGCAP_DIR_SENT, mark = MGCAP_PAGE_SIZE;
	struct mgcap_error e;

	if (mgcap_open_queue(&qf->pg.r, qf->devnode, &e)) {
		fprintf(stderr, "mgdump: %s: %s\n", qf->devnode, e.msg);
		return -1;
	}
	qf->snaplen = cfg.snaplen < qf->pg.r.info.snaplen ? cfg.snaplen : qf->pg.r.info.snaplen;
	if (ioctl(qf->pg.r.fd, MGCAP_IOC_SET_SNAPLEN, &qf->snaplen) ||
	    ioctl(qf->pg.r.fd, MGCAP_IOC_SET_DIRECTIONS, &directions) ||
	    ioctl(qf->pg.r.fd, MGCAP_IOC_SET_POLL_MARK, &mark)) {
		fprintf(stderr, "mgdump: %s: %s\n", qf->devnode, strerror(errno));
		return -1;
	}
	if (set_tstamp(qf))
		return -1;
	if (mgcap_pages_start(&qf->pg, 0)) {
		fprintf(stderr, "mgdump: %s: a ring of pcapng blocks: %s%s\n", qf->devnode,
			strerror(errno), errno == ENOTTY ? " (a module from before them)" : "");
		return -1;
	}
	return 0;
}

/* All @len bytes at @p into the file at its end; 0, or -1 (it said why). */
static int write_out(struct queue_file *qf, const uint8_t *p, uint64_t len)
{
	while (len) {
		ssize_t n = pwrite(qf->fd, p, len, (off_t)qf->offset);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "mgdump: %s: %s\n", qf->part, n ? strerror(errno) :
				"nothing written");
			return -1;
		}
		p += n;
		len -= (uint64_t)n;
		qf->offset += (uint64_t)n;
	}
	return 0;
}

/* The blocks at the start of the page buffer (@used bytes), and a filler up to a page. */
static int write_page(struct queue_file *qf, size_t used)
{
	size_t fill = mgcap_pcapng_filler_len(used, MGCAP_PAGE_SIZE), len = used + fill;

	if (len > 2 * MGCAP_PAGE_SIZE || !pcapng_filler(qf->page + used, fill, (uint32_t)fill))
		return -1;
	return write_out(qf, qf->page, len);
}

static int start_file(struct queue_file *qf)
{
	char desc[128];
	size_t n;
	int flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;

	snprintf(qf->part, sizeof(qf->part), "%s.part", qf->path);
	qf->direct = 1;
	qf->fd = open(qf->part, flags | O_DIRECT, 0644);
	if (qf->fd < 0 && errno == EINVAL) {
		/* (a file system without it: the kernel's copy into the page cache, still none of ours) */
		qf->direct = 0;
		qf->fd = open(qf->part, flags, 0644);
	}
	if (qf->fd < 0) {
		fprintf(stderr, "mgdump: %s: %s\n", qf->part, strerror(errno));
		return -1;
	}
	if (!qf->direct)
		fprintf(stderr, "mgdump: %s: no O_DIRECT on its file system: written through "
			"the page cache\n", qf->part);
	snprintf(desc, sizeof(desc), "mgcap:%s, receive queue %s and what is sent through it; "
		 "stamps %s", qf->name, strchr(qf->name, '@') + 1,
		 pcap_tstamp_type_val_to_name(qf->tstamp));
	n = pcapng_shb(qf->page, MGCAP_PAGE_SIZE, "mgdump (mgcap, one copy)");
	n += pcapng_idb(qf->page + n, MGCAP_PAGE_SIZE - n, DLT_EN10MB, qf->snaplen, qf->name,
			desc);
	qf->offset = 0;
	return write_page(qf, n);
}

/*
 * The ring's whole pages up to ring index @end (UINT64_MAX: as far as the
 * kernel wrote them); 0, or -1 (it said why).
 */
static int write_ready(struct queue_file *qf, uint64_t end)
{
	const uint8_t *first;
	uint64_t n;

	while ((n = mgcap_pages_next(&qf->pg, end, &first)) > 0) {
		if (write_out(qf, first, n))
			return -1;
		if (mgcap_pages_done(&qf->pg, n)) {
			fprintf(stderr, "mgdump: %s: a block that does not fit the ring\n", qf->name);
			return -1;
		}
	}
	return 0;
}

/* Everything the ring holds now, its last page filled: 0, or -1 (it said why). */
static int write_all_held(struct queue_file *qf)
{
	uint64_t end;

	for (;;) {
		if (mgcap_pages_fill(&qf->pg, &end) == 0)
			return write_ready(qf, end);
		if (errno != EAGAIN) {
			fprintf(stderr, "mgdump: %s: MGCAP_IOC_FILL_PAGE: %s\n", qf->name,
				strerror(errno));
			return -1;
		}
		/* no room for the filler: the ring is full of whole pages to write first */
		if (write_ready(qf, UINT64_MAX))
			return -1;
	}
}

/* The statistics page, the data on the disk, and the file by its name. */
static int finish_file(struct queue_file *qf)
{
	struct mgcap_queue_stats qs;
	struct pcapng_if_stats st;
	int ret = 0;

	memset(&st, 0, sizeof(st));
	memset(&qs, 0, sizeof(qs));
	if (ioctl(qf->pg.r.fd, MGCAP_IOC_STATS, &qs) == 0) {
		st.received = qs.captured + qs.dropped;
		st.os_dropped = qs.dropped;
		if (qs.unconverted)
			snprintf(st.note, sizeof(st.note), "%" PRIu64 " adapter stamps not "
				 "converted: the kernel's instead", (uint64_t)qs.unconverted);
	}
	qf->dropped = qs.dropped;
	st.start_ns = start_ns;
	st.end_ns = mgcap_now_ns(CLOCK_REALTIME);
	st.delivered = qf->pg.packets;
	if (write_page(qf, pcapng_isb(qf->page, MGCAP_PAGE_SIZE, 0, st.end_ns, &st)))
		ret = -1;
	if (fsync(qf->fd) && !ret) {
		fprintf(stderr, "mgdump: %s: %s\n", qf->part, strerror(errno));
		ret = -1;
	}
	close(qf->fd);
	qf->fd = -1;
	if (rename(qf->part, qf->path) && !ret) {
		fprintf(stderr, "mgdump: %s: %s\n", qf->path, strerror(errno));
		ret = -1;
	}
	return ret;
}

static void *queue_main(void *arg)
{
	struct queue_file *qf = arg;
	struct pollfd pfd = { .fd = qf->pg.r.fd, .events = POLLIN };
	uint64_t last_write = mgcap_now_ns(CLOCK_MONOTONIC);

	if (qf->tstamp == PCAP_TSTAMP_ADAPTER) {
		/* with the next, the first interval: a line from the first frame on */
		mgcap_adapter_sample(&qf->adapter, 1, last_write);
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
	while (!stopping && !qf->failed) {
		uint64_t now = mgcap_now_ns(CLOCK_MONOTONIC), before = qf->offset;

		renew_line(qf, now);
		qf->failed = write_ready(qf, UINT64_MAX);
		if (qf->offset != before)
			last_write = now;
		else if (now - last_write >= QUIET_FLUSH_NS) {
			/* a quiet queue: what it holds goes to the disk all the same */
			if (mgcap_reader_backlog(&qf->pg.r))
				qf->failed = write_all_held(qf);
			last_write = now;
		}
		if (mgcap_reader_detached(&qf->pg.r))
			break;
		poll(&pfd, 1, 100);
	}
	/* the stop: what the ring took before it, every page */
	if (!qf->failed)
		qf->failed = write_all_held(qf);
	if (finish_file(qf))
		qf->failed = 1;
	if (qf->failed)
		mgdump_request_stop(0);
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
		for (i = 0; i < n; i++) {
			struct queue_file *qf = &queues[nqueues];

			if (nqueues == MAX_READERS) {
				fprintf(stderr, "mgdump: more than %d queues to read\n", MAX_READERS);
				free(nodes);
				return -1;
			}
			nqueues++;
			qf->fd = -1;
			qf->pg.r.fd = -1;
			snprintf(qf->ifname, sizeof(qf->ifname), "%s", cfg.devs[d]);
			snprintf(name, sizeof(name), "%.15s@%u", cfg.devs[d], nodes[i].queue);
			snprintf(qf->name, sizeof(qf->name), "%s", name);
			snprintf(qf->devnode, sizeof(qf->devnode), "%s", nodes[i].devnode);
			if (queue_path(qf->path, sizeof(qf->path), cfg.path, name)) {
				fprintf(stderr, "mgdump: %s: too long a name\n", cfg.path);
				free(nodes);
				return -1;
			}
			if (open_queue(qf)) {
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

static void close_queues(void)
{
	size_t i;

	for (i = 0; i < nqueues; i++) {
		if (queues[i].pg.r.fd >= 0)
			mgcap_reader_close(&queues[i].pg.r);
		if (queues[i].tstamp == PCAP_TSTAMP_ADAPTER)
			mgcap_adapter_close(&queues[i].adapter);
		free(queues[i].page);
	}
	if (promisc_fd >= 0)
		close(promisc_fd);
}

int mgdump_per_queue_run(void)
{
	size_t i, started = 0;
	int ret = 0, converting = 0;
	uint64_t end = 0;

	if (open_queues() || promiscuous()) {
		close_queues();
		return 1;
	}
	for (i = 0; i < nqueues; i++)
		converting |= queues[i].tstamp == PCAP_TSTAMP_ADAPTER;
	if (mgdump_drop_privileges(cfg.user, converting)) {
		close_queues();
		return 1;
	}
	start_ns = mgcap_now_ns(CLOCK_REALTIME);
	for (i = 0; i < nqueues && !ret; i++) {
		/* two pages: the header's blocks and their filler */
		if (posix_memalign((void **)&queues[i].page, MGCAP_PAGE_SIZE,
				   2 * MGCAP_PAGE_SIZE)) {
			fprintf(stderr, "mgdump: out of memory\n");
			ret = -1;
		} else if (start_file(&queues[i])) {
			ret = -1;
		}
	}
	if (!ret)
		ret = start_threads(&started);
	if (!ret)
		mgdump_service_notify("READY=1");
	if (cfg.duration_s)
		end = start_ns + (uint64_t)cfg.duration_s * 1000000000ULL;
	while (!ret && !stopping) {
		if (end && mgcap_now_ns(CLOCK_REALTIME) >= end)
			mgdump_request_stop(1);
		nanosleep(&(struct timespec){ 0, 100000000 }, NULL);
	}
	mgdump_service_notify("STOPPING=1");
	mgdump_request_stop(1);
	for (i = 0; i < started; i++) {
		struct queue_file *qf = &queues[i];

		pthread_join(qf->thread, NULL);
		ret |= qf->failed;
		if (!cfg.quiet)
			fprintf(stderr, "mgdump: %s: %" PRIu64 " packets, %" PRIu64 " bytes, to %s; "
				"%" PRIu64 " dropped by the ring\n", qf->name, qf->pg.packets,
				qf->offset, qf->path, qf->dropped);
	}
	/* files started, their threads not: what they have, complete */
	for (i = started; i < nqueues; i++)
		if (queues[i].fd >= 0)
			finish_file(&queues[i]);
	close_queues();
	return ret ? 1 : 0;
}
