// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/mgcap.h>

#include "mgcap_pages.h"
#include "paged_writes.h"

/* Whether the module behind @ring_fd writes its pages: it knows the ioctl (a write to no file) */
static int module_writes(int ring_fd)
{
	struct mgcap_write_pages none = { .fd = -1 };

	return ring_fd >= 0 && ioctl(ring_fd, MGCAP_IOC_WRITE_PAGES, &none) < 0 &&
	       errno == EBADF;
}

int paged_writes_init(struct paged_writes *w, int ring_fd, const void *ring_data,
		      uint64_t ring_size)
{
	int ret;

	memset(w, 0, sizeof(*w));
	w->by_module = module_writes(ring_fd);
	w->ring_fd = ring_fd;
	w->ring_data = ring_data;
	w->ring_size = ring_size;
	/* (a module's write needs a 128-byte entry; a kernel without them: from the mapping) */
	ret = io_uring_queue_init(PAGED_WRITES_DEPTH, &w->ring,
				  paged_writes_by_module(w) ? IORING_SETUP_SQE128 : 0);
	if (ret == -EINVAL && paged_writes_by_module(w))
		ret = io_uring_queue_init(PAGED_WRITES_DEPTH, &w->ring, 0);
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	w->sqe128 = paged_writes_by_module(w) && (w->ring.flags & IORING_SETUP_SQE128);
	w->async = 1;
	return 0;
}

void paged_writes_free(struct paged_writes *w)
{
	if (w->async)
		io_uring_queue_exit(&w->ring);
	w->async = 0;
}

/*
 * Whether the module can make @len bytes at @p (what is left of a write):
 * whole pages of the ring -> *@req, else 0.
 */
static int module_write(const struct paged_writes *w, int fd, const uint8_t *p, uint32_t len,
			uint64_t offset, struct mgcap_write_pages *req)
{
	const long page = MGCAP_PAGE_SIZE;

	if (!paged_writes_by_module(w) || p < w->ring_data ||
	    len > w->ring_size - (uint64_t)(p - w->ring_data) ||
	    (p - w->ring_data) % page || len % page || offset > INT64_MAX)
		return 0;
	*req = (struct mgcap_write_pages){ .fd = fd, .at = (uint64_t)(p - w->ring_data),
					   .len = len, .pos = (int64_t)offset };
	return 1;
}

/* Without io_uring: the whole write now, as the ring would complete it. */
static int32_t write_now(const struct paged_writes *w, int fd, const uint8_t *p, uint32_t len,
			 uint64_t offset)
{
	struct mgcap_write_pages req;
	uint32_t done = 0;

	if (module_write(w, fd, p, len, offset, &req)) {
		int n;

		while ((n = ioctl(w->ring_fd, MGCAP_IOC_WRITE_PAGES, &req)) < 0 && errno == EINTR)
			;
		if (n <= 0 || (uint32_t)n == len)
			return n < 0 ? -errno : n;
		/* (cut short: the rest from the mapping, as a full disk takes it) */
		done = (uint32_t)n;
	}

	while (done < len) {
		ssize_t n = pwrite(fd, p + done, len - done, (off_t)(offset + done));

		if (n < 0 && errno == EINTR)
			continue;
		/* (what went before a failure is written: short, as the ring says it) */
		if (n < 0)
			return done ? (int32_t)done : -errno;
		if (n == 0)
			break;
		done += (uint32_t)n;
	}
	return (int32_t)done;
}

/* A write, or what is left of it, to the ring: 0, or -errno (EBUSY: no room). */
static int queue_write(struct paged_writes *w, unsigned int n)
{
	struct paged_write *s = &w->slot[n % PAGED_WRITES_DEPTH];
	struct io_uring_sqe *sqe = io_uring_get_sqe(&w->ring);
	struct mgcap_write_pages req;
	int ret;

	if (!sqe)
		return -EBUSY;
	s->by_module = w->sqe128 && module_write(w, s->fd, s->p + s->written,
						 s->len - s->written, s->offset + s->written, &req);
	if (s->by_module) {
		io_uring_prep_rw(IORING_OP_URING_CMD, sqe, w->ring_fd, NULL, 0, 0);
		sqe->cmd_op = MGCAP_URING_CMD_WRITE_PAGES;
		/* (a reused entry holds what the last one left after the command) */
		memset(sqe->cmd, 0, MGCAP_URING_CMD_ROOM);
		memcpy(sqe->cmd, &req, sizeof(req));
		/*
		 * Straight to io_uring's worker, the entry copied at submission:
		 * the write blocks, and 6.10 to 6.13 let a worker read a command
		 * from the ring's entry, which the next submissions reuse
		 */
		io_uring_sqe_set_flags(sqe, IOSQE_ASYNC);
	} else {
		io_uring_prep_write(sqe, s->fd, s->p + s->written, s->len - s->written,
				    s->offset + s->written);
	}
	/* (the write's own number: a completion is known by it whatever slot it had) */
	io_uring_sqe_set_data64(sqe, n);
	ret = io_uring_submit(&w->ring);
	/* (a refused submission leaves the entry queued: the next one takes it along) */
	return ret < 0 ? ret : 0;
}

int paged_writes_submit(struct paged_writes *w, int fd, const void *p, size_t len,
			uint64_t offset)
{
	struct paged_write *s = &w->slot[w->asked % PAGED_WRITES_DEPTH];
	int ret;

	if (paged_writes_in_flight(w) == PAGED_WRITES_DEPTH || len > INT32_MAX || w->broken) {
		errno = w->broken ? -w->broken : len > INT32_MAX ? EINVAL : EBUSY;
		return -1;
	}
	*s = (struct paged_write){ .fd = fd, .p = p, .offset = offset, .len = (uint32_t)len };
	if (!w->async) {
		s->res = write_now(w, fd, p, s->len, offset);
		s->written = s->res > 0 ? (uint32_t)s->res : 0;
		s->done = 1;
		w->asked++;
		return 0;
	}
	ret = queue_write(w, w->asked);
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	w->asked++;
	return 0;
}

/* How often a write the kernel asks to make again, or cuts short, goes on */
#define RETRIES_MAX	8U

/* Write @n's completion, @res: its end, or (asked to make again, cut short) what is left asked for. */
static void completed(struct paged_writes *w, unsigned int n, int32_t res)
{
	struct paged_write *s = &w->slot[n % PAGED_WRITES_DEPTH];
	int again = res == -EAGAIN || res == -EINTR;

	/* a module's write io_uring would not take (a security module's no): from the mapping */
	if (s->by_module && (res == -EACCES || res == -EPERM || res == -EOPNOTSUPP)) {
		w->sqe128 = 0;
		again = 1;
	}

	if (res > 0 && (uint32_t)res < s->len - s->written) {
		s->written += (uint32_t)res;
		again = 1;
	} else if (res > 0) {
		s->written = s->len;
	}
	if (again && s->retries++ < RETRIES_MAX && queue_write(w, n) == 0)
		return;
	s->res = res < 0 ? res : (int32_t)s->written;
	s->done = 1;
}

/*
 * The completions there (with @wait, until the oldest in flight is done),
 * each marked in its slot.  Waiting fails only for a ring gone wrong: it is
 * then broken, its writes the kernel's still.
 */
static void collect(struct paged_writes *w, int wait)
{
	struct io_uring_cqe *cqe;

	for (;;) {
		int ret;

		wait = wait && !w->broken && paged_writes_in_flight(w) &&
		       !w->slot[w->oldest % PAGED_WRITES_DEPTH].done;
		ret = wait ? io_uring_wait_cqe(&w->ring, &cqe) : io_uring_peek_cqe(&w->ring, &cqe);
		if (ret == -EINTR)
			continue;
		if (ret < 0 && wait)
			w->broken = ret;
		if (ret < 0)
			return;
		/* (one of those in flight: a number outside them is not a write of ours) */
		if ((unsigned int)io_uring_cqe_get_data64(cqe) - w->oldest < paged_writes_in_flight(w))
			completed(w, (unsigned int)io_uring_cqe_get_data64(cqe), cqe->res);
		io_uring_cqe_seen(&w->ring, cqe);
	}
}

/* The oldest writes completed, taken back in order, up to one not completed. */
static void take_back(struct paged_writes *w)
{
	while (paged_writes_in_flight(w)) {
		struct paged_write *s = &w->slot[w->oldest % PAGED_WRITES_DEPTH];

		if (!s->done)
			return;
		if (!w->err && s->res != (int32_t)s->len) {
			/* what it wrote before it failed is the file's (a full disk's last room) */
			w->err = s->res < 0 ? -s->res : ENOSPC;
			w->failed_at = s->offset + s->written;
			w->written += s->written;
		}
		if (!w->err)
			w->written += s->len;
		s->done = 0;
		w->oldest++;
	}
}

uint64_t paged_writes_reap(struct paged_writes *w, int wait)
{
	uint64_t written;

	if (w->async) {
		collect(w, wait);
		take_back(w);
		/* (a failure: the writes after it are not the file's, nor in flight any more) */
		while (w->err && paged_writes_in_flight(w) && !w->broken) {
			collect(w, 1);
			take_back(w);
		}
		if (w->broken && !w->err) {
			w->err = -w->broken;
			w->failed_at = w->slot[w->oldest % PAGED_WRITES_DEPTH].offset;
		}
	} else {
		take_back(w);
	}
	written = w->written;
	w->written = 0;
	return written;
}

int paged_writes_fd(const struct paged_writes *w)
{
	return w->async ? w->ring.ring_fd : -1;
}
