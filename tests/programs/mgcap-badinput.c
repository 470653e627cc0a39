// SPDX-License-Identifier: GPL-2.0
/*
 * mgcap-badinput: user space lying to mgcap.  Each case must get an error
 * (and, over netlink, the kernel's explanation); the VM harness then checks
 * dmesg stays clean.
 *
 *   mgcap-badinput chardev DEV   queue 0 of DEV (an mgtestnic, captured)
 *   mgcap-badinput netlink DEV   DEV captured, lo present
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/filter.h>
#include <liburing.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include "mgcap_nl.h"
#include "mgcap_pages.h"
#include "mgcap_reader.h"

static int failures, passes;

static void check(int ok, const char *name, const char *detail)
{
	if (ok) {
		passes++;
		printf("ok - %s\n", name);
	} else {
		failures++;
		printf("FAIL - %s%s%s\n", name, detail ? ": " : "", detail ? detail : "");
	}
}

static void check_errno(int ret, int want, const char *name)
{
	char detail[128];

	snprintf(detail, sizeof(detail), "returned %d, errno %s (want %s)", ret,
		 strerror(errno), strerror(want));
	check(ret < 0 && errno == want, name, detail);
}

static void generate(const char *dev, unsigned int n)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/mgtestnic/generate", dev);
	f = fopen(path, "w");
	if (!f || fprintf(f, "0 %u", n) < 0 || fclose(f)) {
		perror(path);
		exit(1);
	}
	usleep(300000);
}

/* Readers up to max_readers open a queue at once; one more is refused. */
static void readers_limit(const char *node)
{
	struct mgcap_reader extra[MGCAP_READERS_MAX + 1];
	unsigned int max = 0, opened = 1, i;	/* the caller holds one */
	char err[256];
	FILE *f = fopen("/sys/module/mgcap/parameters/max_readers", "r");

	if (!f || fscanf(f, "%u", &max) != 1 || max < 1 || max > MGCAP_READERS_MAX) {
		check(0, "max_readers is readable and in range", NULL);
		if (f)
			fclose(f);
		return;
	}
	fclose(f);
	while (opened < max && mgcap_reader_open(&extra[opened], node, err, sizeof(err)) == 0)
		opened++;
	check(opened == max, "as many readers as max_readers open at once", err);
	check_errno(mgcap_reader_open(&extra[0], node, err, sizeof(err)), EBUSY,
		    "one reader more is refused");
	check(strstr(err, "max_readers") != NULL, "and the error names the limit", err);
	if (opened > 1) {
		mgcap_reader_close(&extra[opened - 1]);
		check(mgcap_reader_open(&extra[opened - 1], node, err, sizeof(err)) == 0,
		      "a reader that left makes room", err);
	}
	for (i = 1; i < opened; i++)
		mgcap_reader_close(&extra[i]);
}

/* What the kernel counted as rejected by the filter of this process's reader of queue 0. */
static uint64_t filtered_by_me(const char *dev)
{
	struct mgcap_nl_list l = { 0 };
	struct mgcap_nl_error e;
	uint64_t n = UINT64_MAX;
	uint32_t i;

	if (mgcap_nl_get(dev, &l, &e) == 0 && l.count == 1) {
		const struct mgcap_nl_queue *q = &l.devs[0].queues[0];

		for (i = 0; i < q->num_readers; i++)
			if (q->readers[i].pid == (uint32_t)getpid())
				n = q->readers[i].filtered;
	}
	mgcap_nl_free_list(&l);
	return n;
}

static int set_filter(int fd, const struct sock_filter *insns, uint32_t len)
{
	struct mgcap_filter f = { .len = len, .insns = (uint64_t)(uintptr_t)insns };

	return ioctl(fd, MGCAP_IOC_SET_FILTER, &f);
}

/* 10 frames on queue 0: how many the reader got, and how many its filter took away */
static void expect_filter(struct mgcap_reader *r, const char *dev, uint64_t captured,
			  uint64_t filtered, const char *name)
{
	struct mgcap_queue_stats st0, st1;
	uint64_t f0 = filtered_by_me(dev), f1;
	char detail[128];

	ioctl(r->fd, MGCAP_IOC_STATS, &st0);
	generate(dev, 10);
	ioctl(r->fd, MGCAP_IOC_STATS, &st1);
	f1 = filtered_by_me(dev);
	snprintf(detail, sizeof(detail), "captured %" PRIu64 ", dropped %" PRIu64
		 ", filtered %" PRIu64, (uint64_t)(st1.captured - st0.captured),
		 (uint64_t)(st1.dropped - st0.dropped), f1 - f0);
	check(st1.captured - st0.captured == captured && st1.dropped == st0.dropped &&
	      f1 - f0 == filtered, name, detail);
	mgcap_reader_discard(r);
}

/* Filters from a lying caller are refused; good ones decide from the MAC header on. */
static void filter_cases(const char *dev, const char *node)
{
	/* udp src port (at 14 + 20 + 0 from the MAC header) == K ? whole frame : nothing */
	struct sock_filter port[] = {
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 34),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 10000, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0xffff),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_filter none[] = { BPF_STMT(BPF_RET | BPF_K, 0) };
	struct sock_filter bad_opcode[] = { { 0xffff, 0, 0, 0 }, BPF_STMT(BPF_RET | BPF_K, 0) };
	struct sock_filter jump_out[] = {
		BPF_JUMP(BPF_JMP | BPF_JA, 5, 0, 0), BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_filter no_return[] = { BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0) };
	static struct sock_filter too_long[MGCAP_FILTER_LEN_MAX + 1];
	struct mgcap_filter reserved = { .len = 1, .reserved = 1,
					 .insns = (uint64_t)(uintptr_t)none };
	struct mgcap_reader r;
	char err[256];

	if (mgcap_reader_open(&r, node, err, sizeof(err)) < 0) {
		check(0, "open for the filter cases", err);
		return;
	}
	check_errno(ioctl(r.fd, MGCAP_IOC_SET_FILTER, NULL), EFAULT, "filter from NULL");
	check_errno(ioctl(r.fd, MGCAP_IOC_SET_FILTER, &reserved), EINVAL, "filter with reserved set");
	check_errno(set_filter(r.fd, (const void *)8, 1), EFAULT, "filter at a bad pointer");
	check_errno(set_filter(r.fd, bad_opcode, 2), EINVAL, "filter with a bad opcode");
	check_errno(set_filter(r.fd, jump_out, 2), EINVAL, "filter jumping out of range");
	check_errno(set_filter(r.fd, no_return, 1), EINVAL, "filter without a return");
	too_long[MGCAP_FILTER_LEN_MAX] = none[0];
	check_errno(set_filter(r.fd, too_long, MGCAP_FILTER_LEN_MAX + 1), EINVAL, "filter too long");
	expect_filter(&r, dev, 10, 0, "refused filters left none behind");

	check(set_filter(r.fd, none, 1) == 0, "a filter rejecting everything", strerror(errno));
	expect_filter(&r, dev, 0, 10, "it takes no ring space, drops nothing, counts 10");
	check(set_filter(r.fd, port, 4) == 0, "a filter on the UDP source port", strerror(errno));
	expect_filter(&r, dev, 10, 0, "queue 0's frames (port 10000) pass it");
	port[1].k = 10001;
	check(set_filter(r.fd, port, 4) == 0, "changed during the capture", strerror(errno));
	expect_filter(&r, dev, 0, 10, "now they do not");
	check(set_filter(r.fd, NULL, 0) == 0, "removed", strerror(errno));
	expect_filter(&r, dev, 10, 0, "then every frame again");
	check(set_filter(r.fd, none, 1) == 0, "a filter left at close", strerror(errno));
	mgcap_reader_close(&r);
	if (mgcap_reader_open(&r, node, err, sizeof(err)) == 0) {
		expect_filter(&r, dev, 10, 0, "is gone for the next reader");
		mgcap_reader_close(&r);
	}
}

/*
 * What the last reader of the capture's ring left for the next one: an
 * index into a frame's bytes, a producer index of its own, a record it
 * rewrote, its error flags.  The next first reader must start where the
 * kernel vouches, at what arrived after the close, every record whole.
 */
static void next_reader_cases(const char *dev, const char *node)
{
	struct mgcap_reader r;
	const struct mgcap_rec *rec;
	struct mgcap_rec *unread;
	char err[256];
	unsigned int got = 0, bad = 0;
	uint64_t at;

	if (mgcap_reader_open(&r, node, err, sizeof(err)) < 0) {
		check(0, "open for the next reader's cases", err);
		return;
	}
	mgcap_reader_discard(&r);
	generate(dev, 10);
	rec = mgcap_reader_next(&r);
	check(rec != NULL, "a frame to lie about", NULL);
	if (!rec) {
		mgcap_reader_close(&r);
		return;
	}
	/* the next record left unread: a length past the ring, a frame of 200,000 bytes */
	unread = (struct mgcap_rec *)(r.data + (r.tail & (r.data_size - 1)));
	unread->rec_len = (uint32_t)r.data_size * 4;
	unread->caplen = 200000;
	/* the consumer index into the first frame's bytes, the producer far ahead */
	__atomic_store_n(&r.ctrl->consumer, r.tail - rec->rec_len + sizeof(*rec), __ATOMIC_RELEASE);
	r.ctrl->producer += 1ULL << 40;
	r.ctrl->flags = MGCAP_RING_F_DETACHED | MGCAP_RING_F_BAD_CONSUMER;
	r.ctrl->data_size = 8;
	r.ctrl->out_of_order = 77;
	mgcap_reader_close(&r);

	generate(dev, 10);
	if (mgcap_reader_open(&r, node, err, sizeof(err)) < 0) {
		check(0, "the next reader opens", err);
		return;
	}
	check(r.ctrl->flags == 0 && r.ctrl->out_of_order == 0 && r.ctrl->data_size == r.data_size,
	      "the next reader finds the control page as the kernel keeps it", NULL);
	while ((rec = mgcap_reader_next(&r)) != NULL) {
		bad += rec->rec_len != mgcap_rec_len(rec->caplen, rec->flags) ||
		       rec->caplen != rec->wirelen || rec->queue != 0;
		got++;
	}
	check(!mgcap_reader_corrupt(&r, &at), "the next reader reads no record the last one wrote",
	      NULL);
	check(got == 10 && bad == 0, "the next reader starts at what arrived after the close, whole",
	      NULL);
	if (got != 10 || bad)
		fprintf(stderr, "  read %u records (%u not whole), want the 10 after the close\n",
			got, bad);
	mgcap_reader_close(&r);
}

/*
 * A reader that keeps the ring's pages past its close (a vmsplice() into a
 * pipe here; an O_DIRECT or FUSE read into the mapping still in flight could
 * write them): the next reader's ring is memory that reader cannot reach.
 */
static void held_pages_case(const char *dev, const char *node)
{
	struct mgcap_reader r;
	const struct mgcap_rec *rec;
	struct iovec iov;
	uint8_t *old;
	char err[256];
	unsigned int got = 0, same = 0;
	int pfd[2];
	ssize_t n;

	if (mgcap_reader_open(&r, node, err, sizeof(err)) < 0) {
		check(0, "open for the held pages' case", err);
		return;
	}
	mgcap_reader_discard(&r);
	old = malloc(r.data_size);
	if (!old || pipe(pfd) < 0 || fcntl(pfd[1], F_SETPIPE_SZ, (int)r.data_size) < 0) {
		check(0, "a pipe of the ring's size", strerror(errno));
		mgcap_reader_close(&r);
		free(old);
		return;
	}
	iov.iov_base = (void *)r.data;
	iov.iov_len = r.data_size;
	n = vmsplice(pfd[1], &iov, 1, 0);
	check(n == (ssize_t)r.data_size, "the ring's pages held in a pipe", strerror(errno));
	mgcap_reader_close(&r);

	if (mgcap_reader_open(&r, node, err, sizeof(err)) < 0) {
		check(0, "the next reader opens", err);
		goto out;
	}
	generate(dev, 10);
	n = read(pfd[0], old, r.data_size);
	while ((rec = mgcap_reader_next(&r)) != NULL) {
		size_t off = (size_t)((const uint8_t *)rec - r.data);

		same += n == (ssize_t)r.data_size && !memcmp(old + off, rec, rec->rec_len);
		got++;
	}
	check(got == 10 && same == 0,
	      "the next reader's records are in memory the last one's held pages are not", NULL);
	if (got != 10 || same)
		fprintf(stderr, "  read %u records, %u of them in the held pages too\n", got, same);
	mgcap_reader_close(&r);
out:
	close(pfd[0]);
	close(pfd[1]);
	free(old);
}

static void chardev_cases(const char *dev)
{
	struct mgcap_queue_info v1;
	struct stat ns;
	struct mgcap_reader r;
	struct mgcap_queue_stats st0, st1;
	struct mgcap_wakeup wk;
	char node[128], err[256];
	size_t len;
	uint32_t snap;
	uint64_t producer;
	void *p;
	struct mgcap_reader other;
	int ro;
	struct pollfd pfd;

	snprintf(node, sizeof(node), MGCAP_DEVNODE_DIR "/%s@0", dev);
	if (mgcap_reader_open(&r, node, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		exit(1);
	}
	len = r.info.mmap_size;

	readers_limit(node);

	p = mmap(NULL, len - 4096, PROT_READ | PROT_WRITE, MAP_SHARED, r.fd, 0);
	check_errno(p == MAP_FAILED ? -1 : 0, EINVAL, "mmap too short");
	p = mmap(NULL, len + 4096, PROT_READ | PROT_WRITE, MAP_SHARED, r.fd, 0);
	check_errno(p == MAP_FAILED ? -1 : 0, EINVAL, "mmap too long");
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, r.fd, 4096);
	check_errno(p == MAP_FAILED ? -1 : 0, EINVAL, "mmap at an offset");
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, r.fd, 0);
	check_errno(p == MAP_FAILED ? -1 : 0, EINVAL, "private mmap");
	p = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_SHARED, r.fd, 0);
	check_errno(p == MAP_FAILED ? -1 : 0, EPERM, "executable mmap");
	check_errno(mprotect(r.map, 4096, PROT_READ | PROT_EXEC), EACCES,
		    "mprotect to executable");

	check_errno(ioctl(r.fd, _IO(MGCAP_IOC_MAGIC, 99)), ENOTTY, "unknown ioctl");
	check_errno(ioctl(r.fd, 0x5401 /* TCGETS */), ENOTTY, "foreign ioctl");
	check_errno(ioctl(r.fd, MGCAP_IOC_INFO, NULL), EFAULT, "INFO to NULL");
	check(stat("/proc/self/ns/net", &ns) == 0 && r.info.netns == (uint32_t)ns.st_ino &&
	      r.info.reserved == 0, "INFO names the device's namespace", NULL);
	/* the INFO of programs built before it had the namespace: its 56 bytes, no more */
	memset(&v1, 0xa5, sizeof(v1));
	check(ioctl(r.fd, MGCAP_IOC_INFO_V1, &v1) == 0 && !memcmp(&v1, &r.info, 56) &&
	      v1.netns == 0xa5a5a5a5 && v1.reserved == 0xa5a5a5a5,
	      "the first INFO's number answers its 56 bytes", strerror(errno));
	check_errno(ioctl(r.fd, MGCAP_IOC_STATS, (void *)1), EFAULT, "STATS to a bad pointer");
	check_errno(ioctl(r.fd, MGCAP_IOC_SET_SNAPLEN, NULL), EFAULT, "SET_SNAPLEN from NULL");
	snap = 0;
	check_errno(ioctl(r.fd, MGCAP_IOC_SET_SNAPLEN, &snap), EINVAL, "snaplen 0");
	snap = r.info.snaplen + 1;
	check_errno(ioctl(r.fd, MGCAP_IOC_SET_SNAPLEN, &snap), EINVAL, "snaplen above the capture's");
	wk.bytes = 0;
	wk.usecs = 10;
	check_errno(ioctl(r.fd, MGCAP_IOC_SET_WAKEUP, &wk), EINVAL, "wakeup after 0 bytes");
	wk.bytes = (uint32_t)r.info.data_size + 1;
	check_errno(ioctl(r.fd, MGCAP_IOC_SET_WAKEUP, &wk), EINVAL, "wakeup beyond the ring");
	wk.bytes = 1;
	wk.usecs = MGCAP_WAKEUP_USECS_MAX + 1;
	check_errno(ioctl(r.fd, MGCAP_IOC_SET_WAKEUP, &wk), EINVAL, "wakeup timeout too long");
	snap = 0;
	check_errno(ioctl(r.fd, MGCAP_IOC_SET_POLL_MARK, &snap), EINVAL, "poll mark 0");
	snap = (uint32_t)r.info.data_size + 1;
	check_errno(ioctl(r.fd, MGCAP_IOC_SET_POLL_MARK, &snap), EINVAL, "poll mark beyond the ring");
	check_errno(ioctl(r.fd, MGCAP_IOC_SET_POLL_MARK, NULL), EFAULT, "SET_POLL_MARK from NULL");
	snap = 0;
	check_errno(ioctl(r.fd, MGCAP_IOC_SET_DIRECTIONS, &snap), EINVAL, "no direction");
	snap = MGCAP_DIR_SENT << 1;
	check_errno(ioctl(r.fd, MGCAP_IOC_SET_DIRECTIONS, &snap), EINVAL, "an unknown direction");
	check_errno(ioctl(r.fd, MGCAP_IOC_SET_DIRECTIONS, NULL), EFAULT, "SET_DIRECTIONS from NULL");

	/* flags written by the reader: the kernel keeps its own and ignores them */
	r.ctrl->flags = MGCAP_RING_F_DETACHED | MGCAP_RING_F_BAD_CONSUMER;
	pfd.fd = r.fd;
	pfd.events = POLLIN;
	check(poll(&pfd, 1, 0) == 0, "poll ignores flags the reader wrote", NULL);
	snap = r.info.snaplen;
	check(ioctl(r.fd, MGCAP_IOC_SET_SNAPLEN, &snap) == 0,
	      "a forged DETACHED does not end the capture", strerror(errno));

	/* a second reader, honest: the first one's lies must not cost it a frame */
	if (mgcap_reader_open(&other, node, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		exit(1);
	}

	/* a consumer index ahead of the producer: nothing may be written */
	ioctl(r.fd, MGCAP_IOC_STATS, &st0);
	producer = __atomic_load_n(&r.ctrl->producer, __ATOMIC_ACQUIRE);
	__atomic_store_n(&r.ctrl->consumer, producer + 123456, __ATOMIC_RELEASE);
	r.ctrl->producer = 0xdeadbeef;	/* the kernel keeps its own copy */
	generate(dev, 10);
	ioctl(r.fd, MGCAP_IOC_STATS, &st1);
	check(st1.captured == st0.captured && st1.dropped == st0.dropped + 10,
	      "consumer ahead of producer: frames dropped, ring untouched", NULL);
	check(r.ctrl->producer == 0xdeadbeef, "kernel did not publish past a bad consumer", NULL);
	check(r.ctrl->flags & MGCAP_RING_F_BAD_CONSUMER, "BAD_CONSUMER flag set", NULL);
	pfd.fd = r.fd;
	pfd.events = POLLIN;
	check(poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLERR), "poll reports POLLERR", NULL);

	/* a consumer claiming more unread bytes than the ring holds */
	__atomic_store_n(&r.ctrl->consumer, producer - r.data_size - 8, __ATOMIC_RELEASE);
	generate(dev, 10);
	ioctl(r.fd, MGCAP_IOC_STATS, &st1);
	check(st1.captured == st0.captured && st1.dropped == st0.dropped + 20,
	      "consumer behind by more than the ring: frames dropped", NULL);

	/* an honest consumer again: capture resumes */
	__atomic_store_n(&r.ctrl->consumer, producer, __ATOMIC_RELEASE);
	generate(dev, 10);
	ioctl(r.fd, MGCAP_IOC_STATS, &st1);
	check(st1.captured == st0.captured + 10, "capture resumes with a valid consumer", NULL);
	ioctl(other.fd, MGCAP_IOC_STATS, &st1);
	check(st1.captured == 30 && st1.dropped == 0 &&
	      !(other.ctrl->flags & MGCAP_RING_F_BAD_CONSUMER),
	      "the other reader got every frame while the first one lied", NULL);
	mgcap_reader_close(&other);
	mgcap_reader_close(&r);

	/* the next reader starts without the error */
	if (mgcap_reader_open(&r, node, err, sizeof(err)) == 0) {
		check(!(r.ctrl->flags & MGCAP_RING_F_BAD_CONSUMER), "reopen clears BAD_CONSUMER", NULL);
		mgcap_reader_close(&r);
	} else {
		check(0, "reopen after close", err);
	}

	filter_cases(dev, node);
	next_reader_cases(dev, node);
	held_pages_case(dev, node);

	ro = open(node, O_RDONLY);
	if (ro >= 0) {
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, ro, 0);
		check_errno(p == MAP_FAILED ? -1 : 0, EACCES, "writable mmap of a read-only open");
		close(ro);
	}
}

/* --- pcapng rings ------------------------------------------------------------ */

/*
 * The whole blocks at the start of the @len bytes at @p, of the two kinds a
 * pcapng ring writes, each with its trailing length, the enhanced packet
 * blocks of interface 7, whole frames: their bytes (*@epbs counted), or -1.
 */
static long pcapng_blocks(const uint8_t *p, uint64_t len, long *epbs)
{
	uint64_t at = 0;

	while (len - at >= 8) {
		struct mgcap_pcapng_epb epb;
		uint32_t trailer;

		memcpy(&epb, p + at, 8);
		if (epb.total_len < MGCAP_PCAPNG_BLOCK_MIN || epb.total_len % 4)
			return -1;
		if (epb.total_len > len - at)
			break;	/* its end comes with the next pages */
		memcpy(&trailer, p + at + epb.total_len - 4, 4);
		if (trailer != epb.total_len)
			return -1;
		if (epb.type == MGCAP_PCAPNG_EPB) {
			memcpy(&epb, p + at, sizeof(epb));
			if (epb.interface_id != 7 || epb.caplen != epb.wirelen ||
			    epb.total_len != mgcap_pcapng_epb_len(epb.caplen, 1))
				return -1;
			(*epbs)++;
		} else if (epb.type != MGCAP_PCAPNG_FILLER) {
			return -1;
		}
		at += epb.total_len;
	}
	return (long)at;
}

/*
 * The pages the ring handed out since the last look, given back, their
 * blocks checked as a file would hold them (pages after pages, a block's
 * end in the next ones): the enhanced packet blocks' count, or -1.
 */
static long pcapng_take(struct mgcap_pages *pg, uint64_t end)
{
	static uint8_t file[1 << 18];
	static size_t held;	/* the start of a block that ends in pages still to come */
	const uint8_t *first;
	uint64_t n;
	long epbs = 0, whole;

	while ((n = mgcap_pages_next(pg, end, &first)) > 0) {
		if (n > sizeof(file) - held)
			return -1;
		memcpy(file + held, first, n);
		held += n;
		whole = pcapng_blocks(file, held, &epbs);
		if (whole < 0 || mgcap_pages_done(pg, n))
			return -1;
		memmove(file, file + whole, held - (size_t)whole);
		held -= (size_t)whole;
	}
	return epbs;
}

/*
 * A ring of pcapng blocks (MGCAP_IOC_SET_FORMAT): what it refuses, the
 * blocks it writes as the ring wraps (a 64 KiB ring), the page it fills on
 * request, and the records format again for the next reader.  The first
 * reader of the queue (nobody else has it open).
 */
static void pcapng_ring_cases(const char *dev)
{
	struct mgcap_format_req bad = { .format = __MGCAP_FORMAT_MAX },
				req = { .format = MGCAP_FORMAT_PCAPNG, .interface_id = 7 };
	struct mgcap_tstamp_line line = { 1000, 1000000, 2000, 1ULL << 32 };
	uint32_t source = MGCAP_TSTAMP_HW_AND_SW;
	struct mgcap_pages pg;
	const struct mgcap_rec *rec;
	uint64_t end, producer, start;
	char node[128], err[256];
	long blocks = 0, got;
	int round, records = 0;
	__u64 at;

	snprintf(node, sizeof(node), MGCAP_DEVNODE_DIR "/%s@0", dev);
	memset(&pg, 0, sizeof(pg));
	if (mgcap_reader_open(&pg.r, node, err, sizeof(err)) < 0) {
		check(0, "open for the pcapng cases", err);
		return;
	}
	check_errno(ioctl(pg.r.fd, MGCAP_IOC_SET_FORMAT, &bad), EINVAL, "a format it does not know");
	bad.format = MGCAP_FORMAT_RECORDS;
	bad.interface_id = 7;
	check_errno(ioctl(pg.r.fd, MGCAP_IOC_SET_FORMAT, &bad), EINVAL, "records of an interface");
	bad = req;
	bad.flags = 1;
	check_errno(ioctl(pg.r.fd, MGCAP_IOC_SET_FORMAT, &bad), EINVAL, "a format's flag");
	check_errno(ioctl(pg.r.fd, MGCAP_IOC_FILL_PAGE, &at), EINVAL, "a page filled in a ring of records");
	ioctl(pg.r.fd, MGCAP_IOC_SET_TSTAMP, &source);
	check_errno(ioctl(pg.r.fd, MGCAP_IOC_SET_FORMAT, &req), EINVAL,
		    "pcapng blocks for a reader of two stamps");
	source = MGCAP_TSTAMP_HW_OR_SW;
	ioctl(pg.r.fd, MGCAP_IOC_SET_TSTAMP, &source);

	/* what was unread is dropped; the blocks start at a page */
	generate(dev, 10);
	producer = __atomic_load_n(&pg.r.ctrl->producer, __ATOMIC_ACQUIRE);
	check(mgcap_pages_start(&pg, 7) == 0, "a ring of pcapng blocks", strerror(errno));
	start = __atomic_load_n(&pg.r.ctrl->producer, __ATOMIC_ACQUIRE);
	check(start % 4096 == 0 && start >= producer && start - producer < 4096 &&
	      pg.r.ctrl->consumer == start, "it starts empty, at the next page", NULL);
	source = MGCAP_TSTAMP_HW_AND_SW;
	check_errno(ioctl(pg.r.fd, MGCAP_IOC_SET_TSTAMP, &source), EINVAL,
		    "two stamps for a ring of pcapng blocks");

	/* lines the producer must not convert on */
	line.rate = 1ULL << 33;
	check_errno(ioctl(pg.r.fd, MGCAP_IOC_SET_TSTAMP_LINE, &line), EINVAL, "a line's rate of 2");
	line.rate = 1ULL << 32;
	line.span_ns = MGCAP_TSTAMP_LINE_SPAN_MAX + 1;
	check_errno(ioctl(pg.r.fd, MGCAP_IOC_SET_TSTAMP_LINE, &line), EINVAL, "a line too long");
	line.span_ns = 1000;
	line.phc_lo = -1;
	check_errno(ioctl(pg.r.fd, MGCAP_IOC_SET_TSTAMP_LINE, &line), EINVAL,
		    "a line from before the epoch");
	line.span_ns = 0;
	check_errno(ioctl(pg.r.fd, MGCAP_IOC_SET_TSTAMP_LINE, &line), EINVAL,
		    "no line, with the fields of one");
	memset(&line, 0, sizeof(line));
	check(ioctl(pg.r.fd, MGCAP_IOC_SET_TSTAMP_LINE, &line) == 0, "no line", strerror(errno));

	/*
	 * 2,000 frames in blocks of 172 bytes through 64 KiB: the data
	 * area's end comes at a block's every length left, each filled; every
	 * third round a page filled on request, with less than a block before
	 * its end or not
	 */
	for (round = 0; round < 20 && blocks >= 0; round++) {
		generate(dev, 100);
		if (round % 3 == 2) {
			producer = __atomic_load_n(&pg.r.ctrl->producer, __ATOMIC_ACQUIRE);
			if (ioctl(pg.r.fd, MGCAP_IOC_FILL_PAGE, &at)) {
				check(0, "a page filled", strerror(errno));
				break;
			}
			if (at % 4096 || at < producer || at - producer > 4096 + 8 ||
			    (at - producer && at - producer < MGCAP_PCAPNG_BLOCK_MIN)) {
				check(0, "the page filled to its end", NULL);
				break;
			}
			end = at;
		} else {
			end = UINT64_MAX;
		}
		got = pcapng_take(&pg, end);
		blocks = got < 0 ? -1 : blocks + got;
	}
	if (blocks >= 0 && !ioctl(pg.r.fd, MGCAP_IOC_FILL_PAGE, &at)) {
		got = pcapng_take(&pg, at);
		blocks = got < 0 ? -1 : blocks + got;
	}
	check(blocks == 2000 && pg.packets == 2000 && pg.r.ctrl->consumer == at,
	      "2,000 frames in whole blocks, the data area's end and each page filled", NULL);
	if (blocks != 2000 || pg.packets != 2000)
		fprintf(stderr, "  %ld blocks checked, %" PRIu64 " counted\n", blocks, pg.packets);

	/* a page the filler has no room for: the ring's free bytes fewer than it needs */
	generate(dev, 1);
	producer = __atomic_load_n(&pg.r.ctrl->producer, __ATOMIC_ACQUIRE);
	__atomic_store_n(&pg.r.ctrl->consumer,
			 producer - pg.r.data_size + mgcap_pcapng_filler_len(producer, 4096) - 4,
			 __ATOMIC_RELEASE);
	check_errno(ioctl(pg.r.fd, MGCAP_IOC_FILL_PAGE, &at), EAGAIN, "a filler without room");
	__atomic_store_n(&pg.r.ctrl->consumer, producer + 4096, __ATOMIC_RELEASE);
	check_errno(ioctl(pg.r.fd, MGCAP_IOC_FILL_PAGE, &at), EIO, "a page filled past a lying reader");
	mgcap_reader_close(&pg.r);

	/* the next reader reads records again, whole */
	if (mgcap_reader_open(&pg.r, node, err, sizeof(err)) < 0) {
		check(0, "the next reader opens", err);
		return;
	}
	generate(dev, 10);
	while ((rec = mgcap_reader_next(&pg.r)) != NULL)
		records += rec->caplen == rec->wirelen &&
			   rec->rec_len == mgcap_rec_len(rec->caplen, rec->flags);
	check(records == 10 && !mgcap_reader_corrupt(&pg.r, NULL),
	      "the next reader reads records, from where the blocks ended", NULL);
	mgcap_reader_close(&pg.r);
}

/* --- the module writing a ring's pages to a file ---------------------------- */

static int write_pages(int ring_fd, int fd, uint64_t at, uint64_t len, int64_t pos)
{
	struct mgcap_write_pages req = { .fd = fd, .at = at, .len = len, .pos = pos };

	return ioctl(ring_fd, MGCAP_IOC_WRITE_PAGES, &req);
}

/* Whether the @len bytes of @fd at @pos are @r's data from ring index @at on */
static int file_holds_ring(const struct mgcap_reader *r, int fd, uint64_t at, uint64_t len,
			   off_t pos)
{
	uint8_t *buf = malloc(len);
	int same = buf && pread(fd, buf, len, pos) == (ssize_t)len;
	uint64_t i;

	for (i = 0; same && i < len; i += 4096)
		same = !memcmp(buf + i, r->data + ((at + i) & (r->data_size - 1)), 4096);
	free(buf);
	return same;
}

/*
 * MGCAP_URING_CMD_WRITE_PAGES (@cmd_op) of @req, in a ring set up with
 * @setup_flags, byte @at of the entry's cmd after the command 1 (none: 0):
 * its result, or the ring's -errno
 */
static int uring_write_pages_at(int ring_fd, const struct mgcap_write_pages *req,
				uint32_t cmd_op, unsigned int setup_flags, size_t at)
{
	struct io_uring uring;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	int ret = io_uring_queue_init(2, &uring, setup_flags);

	if (ret < 0)
		return ret;
	sqe = io_uring_get_sqe(&uring);
	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, ring_fd, NULL, 0, 0);
	sqe->cmd_op = cmd_op;
	/* (a 64-byte entry has room for 16 bytes of command: the kernel must not read on) */
	if (setup_flags & IORING_SETUP_SQE128) {
		memcpy(sqe->cmd, req, sizeof(*req));
		if (at)
			sqe->cmd[at] = 1;
	}
	ret = io_uring_submit_and_wait(&uring, 1);
	if (ret >= 0)
		ret = io_uring_wait_cqe(&uring, &cqe);
	if (ret == 0) {
		ret = cqe->res;
		io_uring_cqe_seen(&uring, cqe);
	}
	io_uring_queue_exit(&uring);
	return ret;
}

static int uring_write_pages(int ring_fd, const struct mgcap_write_pages *req, uint32_t cmd_op,
			     unsigned int setup_flags)
{
	return uring_write_pages_at(ring_fd, req, cmd_op, setup_flags, 0);
}

static void check_uring(int res, int want, const char *name)
{
	char detail[128];

	snprintf(detail, sizeof(detail), "result %d (want %d)", res, want);
	check(res == want, name, detail);
}

/*
 * MGCAP_IOC_WRITE_PAGES and its io_uring command: the files, ranges and
 * fields it refuses, and writes that wrap at the data area's end holding
 * what the mapping holds.  Queue 0 of @dev, with frames in its ring.
 */
static void write_pages_cases(const char *dev)
{
	struct mgcap_write_pages req;
	struct mgcap_reader r;
	char node[128], err[256], path[64];
	uint64_t size;
	int file, other, pipefd[2];
	const int64_t page = 4096;

	snprintf(node, sizeof(node), MGCAP_DEVNODE_DIR "/%s@0", dev);
	if (mgcap_reader_open(&r, node, err, sizeof(err)) < 0) {
		check(0, "open for the write cases", err);
		return;
	}
	size = r.data_size;
	/* (a regular file of tmpfs, wherever the tests' directory is) */
	file = memfd_create("mgcap-badinput", 0);
	if (file < 0 || pipe(pipefd)) {
		check(0, "a file and a pipe to write to", strerror(errno));
		exit(1);
	}
	generate(dev, 500);

	check_errno(write_pages(r.fd, -1, 0, page, 0), EBADF, "a write to no file");
	req = (struct mgcap_write_pages){ .fd = file, .reserved = 1, .len = page };
	check_errno(ioctl(r.fd, MGCAP_IOC_WRITE_PAGES, &req), EINVAL, "a write's reserved field");
	check_errno(ioctl(r.fd, MGCAP_IOC_WRITE_PAGES, NULL), EFAULT, "WRITE_PAGES from NULL");
	check_errno(write_pages(r.fd, file, 0, page, -page), EINVAL, "a write before the file");
	check_errno(write_pages(r.fd, file, 100, page, 0), EINVAL, "a write from within a page");
	check_errno(write_pages(r.fd, file, 0, 0, 0), EINVAL, "a write of nothing");
	check_errno(write_pages(r.fd, file, 0, 100, 0), EINVAL, "a write of part of a page");
	check_errno(write_pages(r.fd, file, 0, size + page, 0), EINVAL, "a write of more than the ring");
	check_errno(write_pages(r.fd, file, 0, page, INT64_MAX & ~(page - 1)), EINVAL,
		    "a write past the largest position");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", file);
	other = open(path, O_RDONLY);
	check_errno(write_pages(r.fd, other, 0, page, 0), EBADF, "a write to a file open for reading");
	close(other);
	other = open(path, O_PATH);
	check_errno(write_pages(r.fd, other, 0, page, 0), EBADF, "a write to an O_PATH descriptor");
	close(other);
	other = open("/", O_RDONLY | O_DIRECTORY);
	check_errno(write_pages(r.fd, other, 0, page, 0), EINVAL, "a write to a directory");
	close(other);
	check_errno(write_pages(r.fd, pipefd[1], 0, page, 0), EINVAL, "a write to a pipe");
	check_errno(write_pages(r.fd, r.fd, 0, page, 0), EINVAL, "a write to the ring's own node");
	check(lseek(file, 0, SEEK_END) == 0, "nothing refused was written", NULL);

	/* (the index is the ring's, any u64: the last page and on, wrapping) */
	check(write_pages(r.fd, file, size - page, size, page) == (int)size &&
	      file_holds_ring(&r, file, size - page, size, page),
	      "the whole ring from its last page on, wrapping, as its mapping holds it",
	      strerror(errno));
	check(write_pages(r.fd, file, UINT64_MAX & ~(uint64_t)(page - 1), 2 * page, 0) == 2 * page &&
	      file_holds_ring(&r, file, size - page, 2 * page, 0),
	      "a write from an index far on, as the ring wraps it", strerror(errno));

	req = (struct mgcap_write_pages){ .fd = file, .at = 3 * page, .len = size,
					  .pos = 1 << 20 };
	check_uring(uring_write_pages(r.fd, &req, MGCAP_URING_CMD_WRITE_PAGES, IORING_SETUP_SQE128),
		    (int)size, "the whole ring through io_uring");
	check(file_holds_ring(&r, file, 3 * page, size, 1 << 20),
	      "... as its mapping holds it", NULL);
	check_uring(uring_write_pages(r.fd, &req, MGCAP_URING_CMD_WRITE_PAGES, 0), -EINVAL,
		    "an io_uring command in a 64-byte entry");
	check_uring(uring_write_pages_at(r.fd, &req, MGCAP_URING_CMD_WRITE_PAGES,
					 IORING_SETUP_SQE128, sizeof(req)), -EINVAL,
		    "an io_uring command with the byte right after it not 0");
	check_uring(uring_write_pages_at(r.fd, &req, MGCAP_URING_CMD_WRITE_PAGES,
					 IORING_SETUP_SQE128, MGCAP_URING_CMD_ROOM - 1), -EINVAL,
		    "an io_uring command with the entry's last byte not 0");
	/* (a polled ring completes a command by the file's poll, which the module has not) */
	check_uring(uring_write_pages(r.fd, &req, MGCAP_URING_CMD_WRITE_PAGES,
				      IORING_SETUP_SQE128 | IORING_SETUP_IOPOLL), -EOPNOTSUPP,
		    "an io_uring command in a polled ring");
	check_uring(uring_write_pages(r.fd, &req, MGCAP_URING_CMD_WRITE_PAGES + 1,
				      IORING_SETUP_SQE128), -ENOTTY,
		    "an io_uring command it does not know");
	req.fd = pipefd[1];
	check_uring(uring_write_pages(r.fd, &req, MGCAP_URING_CMD_WRITE_PAGES, IORING_SETUP_SQE128),
		    -EINVAL, "an io_uring write to a pipe");
	req.fd = file;
	req.len = page + 1;
	check_uring(uring_write_pages(r.fd, &req, MGCAP_URING_CMD_WRITE_PAGES, IORING_SETUP_SQE128),
		    -EINVAL, "an io_uring write of part of a page");

	close(pipefd[0]);
	close(pipefd[1]);
	close(file);
	mgcap_reader_close(&r);
}

/* --- netlink ----------------------------------------------------------------- */

struct nl_case {
	const char *name;
	uint8_t cmd;
	int (*fill)(struct nl_msg *msg, const void *arg);
	const void *arg;
	int want_errno;		/* 0: any error */
	int want_msg;		/* the kernel must explain */
};

static int fill_nothing(struct nl_msg *msg, const void *arg)
{
	(void)msg;
	(void)arg;
	return 0;
}

static int fill_ifindex(struct nl_msg *msg, const void *arg)
{
	return nla_put_u32(msg, MGCAP_ATTR_IFINDEX, *(const uint32_t *)arg);
}

static int fill_ifname(struct nl_msg *msg, const void *arg)
{
	return nla_put_string(msg, MGCAP_ATTR_IFNAME, arg);
}

struct dev_u64 {
	const char *dev;
	int attr;
	uint64_t v;
	int width;	/* bytes to send: wrong widths are a case too */
};

static int fill_dev_attr(struct nl_msg *msg, const void *arg)
{
	const struct dev_u64 *a = arg;

	if (nla_put_string(msg, MGCAP_ATTR_IFNAME, a->dev))
		return -1;
	return nla_put(msg, a->attr, a->width, &a->v);
}

static int fill_unterminated_name(struct nl_msg *msg, const void *arg)
{
	return nla_put(msg, MGCAP_ATTR_IFNAME, (int)strlen(arg), arg);
}

static void netlink_cases(const char *dev)
{
	static const uint32_t zero = 0, missing = 999999;
	const struct dev_u64 small_ring = { dev, MGCAP_ATTR_RING_SIZE, 1000, 8 };
	const struct dev_u64 huge_ring = { dev, MGCAP_ATTR_RING_SIZE, 1ULL << 40, 8 };
	const struct dev_u64 snap0 = { dev, MGCAP_ATTR_SNAPLEN, 0, 4 };
	const struct dev_u64 snap_big = { dev, MGCAP_ATTR_SNAPLEN, MGCAP_SNAPLEN_MAX + 1, 4 };
	const struct dev_u64 mode7 = { dev, MGCAP_ATTR_MODE, 7, 4 };
	const struct dev_u64 short_mode = { dev, MGCAP_ATTR_MODE, 1, 2 };
	const struct dev_u64 reply_only = { dev, MGCAP_ATTR_NUM_QUEUES, 4, 4 };
	const struct dev_u64 queues_attr = { dev, MGCAP_ATTR_QUEUES, 0, 4 };
	const struct dev_u64 lo_snap = { "lo", MGCAP_ATTR_SNAPLEN, 64, 4 };
	const struct dev_u64 autostop_value = { dev, MGCAP_ATTR_AUTOSTOP, 1, 4 };
	const struct nl_case cases[] = {
		{ "start without a device", MGCAP_CMD_START, fill_nothing, NULL, EINVAL, 1 },
		{ "start ifindex 0", MGCAP_CMD_START, fill_ifindex, &zero, 0, 1 },
		{ "start a missing ifindex", MGCAP_CMD_START, fill_ifindex, &missing, ENODEV, 1 },
		{ "start a missing name", MGCAP_CMD_START, fill_ifname, "nosuchdev0", ENODEV, 1 },
		{ "start a name too long", MGCAP_CMD_START, fill_ifname, "abcdefghijklmnopq", 0, 1 },
		{ "start an unterminated name", MGCAP_CMD_START, fill_unterminated_name, "lo", 0, 1 },
		{ "start a ring too small", MGCAP_CMD_START, fill_dev_attr, &small_ring, 0, 1 },
		{ "start a ring too large", MGCAP_CMD_START, fill_dev_attr, &huge_ring, 0, 1 },
		{ "start snaplen 0", MGCAP_CMD_START, fill_dev_attr, &snap0, 0, 1 },
		{ "start snaplen too large", MGCAP_CMD_START, fill_dev_attr, &snap_big, 0, 1 },
		{ "start mode 7", MGCAP_CMD_START, fill_dev_attr, &mode7, 0, 1 },
		{ "start a 2-byte mode", MGCAP_CMD_START, fill_dev_attr, &short_mode, 0, 0 },
		{ "start with a reply-only attribute", MGCAP_CMD_START, fill_dev_attr, &reply_only, 0, 1 },
		{ "start with QUEUES", MGCAP_CMD_START, fill_dev_attr, &queues_attr, 0, 1 },
		{ "start with a valued AUTOSTOP", MGCAP_CMD_START, fill_dev_attr, &autostop_value, 0, 1 },
		{ "start a captured device", MGCAP_CMD_START, fill_ifname, dev, EEXIST, 1 },
		{ "start loopback", MGCAP_CMD_START, fill_dev_attr, &lo_snap, EOPNOTSUPP, 1 },
		{ "stop a device not captured", MGCAP_CMD_STOP, fill_ifname, "lo", ENOENT, 1 },
		{ "set without a mode", MGCAP_CMD_SET, fill_ifname, dev, EINVAL, 1 },
		{ "set mode 7", MGCAP_CMD_SET, fill_dev_attr, &mode7, 0, 1 },
		{ "get a device not captured", MGCAP_CMD_GET, fill_ifname, "lo", ENOENT, 1 },
		{ "unknown command", 77, fill_nothing, NULL, EOPNOTSUPP, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct nl_case *c = &cases[i];
		struct mgcap_nl_error e;
		char detail[320];
		int ret = mgcap_nl_request(c->cmd, 0, c->fill, c->arg, NULL, &e);

		snprintf(detail, sizeof(detail), "ret %d, errno %d (%s), message '%s'", ret, e.err,
			 strerror(e.err), e.msg);
		check(ret < 0 && e.err && (!c->want_errno || e.err == c->want_errno) &&
		      (!c->want_msg || e.msg[0]), c->name, detail);
		if (ret == 0 && c->cmd == MGCAP_CMD_START)	/* undo a wrong success */
			mgcap_nl_stop(dev, &e);
	}
}

int main(int argc, char **argv)
{
	if (argc != 3)
		goto usage;
	if (!strcmp(argv[1], "chardev")) {
		chardev_cases(argv[2]);
		pcapng_ring_cases(argv[2]);
		write_pages_cases(argv[2]);
	}
	else if (!strcmp(argv[1], "netlink"))
		netlink_cases(argv[2]);
	else
		goto usage;
	printf("badinput %s: %d passed, %d failed\n", argv[1], passes, failures);
	return failures ? 1 : 0;
usage:
	fprintf(stderr, "usage: mgcap-badinput chardev|netlink DEV\n");
	return 2;
}
