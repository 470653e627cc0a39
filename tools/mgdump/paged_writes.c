// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "paged_writes.h"

int paged_writes_init(struct paged_writes *w)
{
	int ret;

	memset(w, 0, sizeof(*w));
	ret = io_uring_queue_init(PAGED_WRITES_DEPTH, &w->ring, 0);
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	w->async = 1;
	return 0;
}

void paged_writes_free(struct paged_writes *w)
{
	if (w->async)
		io_uring_queue_exit(&w->ring);
	w->async = 0;
}

/* Without io_uring: the whole write now, as the ring would complete it. */
static int32_t write_now(int fd, const uint8_t *p, uint32_t len, uint64_t offset)
{
	uint32_t done = 0;

	while (done < len) {
		ssize_t n = pwrite(fd, p + done, len - done, (off_t)(offset + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		done += (uint32_t)n;
	}
	return (int32_t)done;
}

int paged_writes_submit(struct paged_writes *w, int fd, const void *p, uint32_t len,
			uint64_t offset)
{
	struct paged_write *s = &w->slot[w->asked % PAGED_WRITES_DEPTH];
	struct io_uring_sqe *sqe;
	int ret;

	if (paged_writes_in_flight(w) == PAGED_WRITES_DEPTH || len > INT32_MAX) {
		errno = EBUSY;
		return -1;
	}
	*s = (struct paged_write){ .offset = offset, .len = len };
	if (!w->async) {
		s->res = write_now(fd, p, len, offset);
		s->done = 1;
		w->asked++;
		return 0;
	}
	sqe = io_uring_get_sqe(&w->ring);
	if (!sqe) {
		errno = EBUSY;
		return -1;
	}
	io_uring_prep_write(sqe, fd, p, len, offset);
	io_uring_sqe_set_data64(sqe, w->asked % PAGED_WRITES_DEPTH);
	ret = io_uring_submit(&w->ring);
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	w->asked++;
	return 0;
}

/*
 * The completions there (with @wait, one at least), each marked in its
 * slot.  Waiting fails only for a ring gone wrong: the writes in flight
 * are then given up, failed (EIO, where none failed before), so that no
 * caller waits for them for ever.
 */
static void collect(struct paged_writes *w, int wait)
{
	struct io_uring_cqe *cqe;

	for (;;) {
		int ret = wait ? io_uring_wait_cqe(&w->ring, &cqe) : io_uring_peek_cqe(&w->ring, &cqe);

		if (ret == -EINTR)
			continue;
		if (ret < 0 && wait) {
			unsigned int n;

			for (n = w->oldest; n != w->asked; n++) {
				w->slot[n % PAGED_WRITES_DEPTH].res = -EIO;
				w->slot[n % PAGED_WRITES_DEPTH].done = 1;
			}
		}
		if (ret < 0)
			return;
		w->slot[io_uring_cqe_get_data64(cqe) % PAGED_WRITES_DEPTH].res = cqe->res;
		w->slot[io_uring_cqe_get_data64(cqe) % PAGED_WRITES_DEPTH].done = 1;
		io_uring_cqe_seen(&w->ring, cqe);
		wait = 0;
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
			w->err = s->res < 0 ? -s->res : ENOSPC;
			w->failed_at = s->offset;
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
		collect(w, wait && paged_writes_in_flight(w) &&
			   !w->slot[w->oldest % PAGED_WRITES_DEPTH].done);
		take_back(w);
		/* (a failure: the writes after it are not the file's, nor in flight any more) */
		while (w->err && paged_writes_in_flight(w)) {
			collect(w, 1);
			take_back(w);
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
