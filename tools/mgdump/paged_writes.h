/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The writes of paged output (mgdump --per-queue) in flight: up to
 * PAGED_WRITES_DEPTH at once through io_uring, each at its own place in the
 * file, taken back in the order they were asked for, which is the order a
 * ring's pages are given back in.  The thread goes on with the next pages
 * while the disk writes.  (Writes that make a file longer are made one
 * after another by ext4 and XFS, in io_uring's workers: a file's writes
 * overlap the thread, several queues' files overlap each other.)  Where
 * io_uring cannot be had (a kernel without it, a sandbox that forbids it),
 * each write is made at once, as pwrite(2) makes it.
 *
 * A write of whole pages of the ring is made by the module from the ring's
 * own pages where it can (MGCAP_URING_CMD_WRITE_PAGES, or the ioctl one at
 * a time): nothing is pinned, and a run of pages that lie one after another
 * is one vector.  Other writes (a page copied at a -C cut, what is left of
 * a write cut short) are made from the mapping.
 */
#ifndef MGDUMP_PAGED_WRITES_H
#define MGDUMP_PAGED_WRITES_H

#include <liburing.h>
#include <stddef.h>
#include <stdint.h>

#define PAGED_WRITES_DEPTH	8U

struct paged_writes {
	struct io_uring ring;
	int async;			/* the ring is set up: writes go through it */
	/* ... with the entries a module's write takes (0 once io_uring refused one) */
	int sqe128;
	unsigned int asked, oldest;	/* writes asked for; the oldest not taken back */
	struct paged_write {
		int fd;
		const uint8_t *p;
		uint64_t offset;
		uint32_t len, written;	/* asked for, and written so far */
		int32_t res;		/* its end: bytes, or -errno (0: a write that made none) */
		int done;
		int by_module;		/* asked of the module (its io_uring command) */
		unsigned int retries;	/* of a write the kernel asked to make again, or cut short */
	} slot[PAGED_WRITES_DEPTH];	/* write n in slot n % PAGED_WRITES_DEPTH */
	uint64_t written;		/* bytes of writes completed whole, in order, not yet taken */
	/*
	 * The first write that failed or fell short (its errno, ENOSPC for a
	 * short one; 0: none) and where it stopped: what it wrote before is
	 * taken as written, nothing after, the writes after it waited for
	 */
	int err;
	uint64_t failed_at;
	/*
	 * Waiting for completions failed (-errno; 0: never): the writes in
	 * flight are the kernel's still, and never taken back
	 */
	int broken;
	/* the ring whose pages the module writes (by_module: it can) */
	int by_module;
	int ring_fd;
	const uint8_t *ring_data;
	uint64_t ring_size;
};

/*
 * 0: writes through io_uring; -1 with errno: each made at once (still
 * usable).  @ring_fd: the queue node whose mapping @ring_data is, of
 * @ring_size bytes of data (-1: none): its pages are written by the module
 * where it can.
 */
int paged_writes_init(struct paged_writes *w, int ring_fd, const void *ring_data,
		      uint64_t ring_size);

/* Whether the module writes the ring's pages (MGCAP_IOC_WRITE_PAGES) */
static inline int paged_writes_by_module(const struct paged_writes *w)
{
	return w->by_module;
}
void paged_writes_free(struct paged_writes *w);

static inline unsigned int paged_writes_in_flight(const struct paged_writes *w)
{
	return w->asked - w->oldest;
}

/*
 * A write of @len bytes at @p to @fd at @offset, asked for (made at once
 * without io_uring): 0, or -1 with errno (EBUSY: PAGED_WRITES_DEPTH in
 * flight, take some back first; EINVAL: more than INT32_MAX bytes).  Its
 * failure shows in err once taken back.
 */
int paged_writes_submit(struct paged_writes *w, int fd, const void *p, size_t len,
			uint64_t offset);

/*
 * The writes completed, taken back in order: with @wait, once the oldest
 * in flight has (at once if none is).  Returns the bytes of those written
 * whole since the last call; where one failed, err is set, and every write
 * after it is waited for (none is in flight then).  A write the kernel
 * asks to make again (EAGAIN, EINTR), or cuts short, goes on from where it
 * stopped first, a few times.  Where waiting fails, err and broken are set
 * and nothing is taken back any more.
 */
uint64_t paged_writes_reap(struct paged_writes *w, int wait);

/* A descriptor readable while completions wait to be taken back; -1 without io_uring. */
int paged_writes_fd(const struct paged_writes *w);

#endif /* MGDUMP_PAGED_WRITES_H */
