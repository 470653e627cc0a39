// SPDX-License-Identifier: BSD-2-Clause
/*
 * Writes in flight (tools/mgdump/paged_writes.h), through io_uring and
 * made at once: as many as it holds, taken back in the order asked for
 * whatever order they completed in, and a failure stopping what is taken
 * at it (a file size limit: the writes past it fail, those before it not).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "paged_writes.h"
#include "unit.h"

#define PAGE	4096U

static uint8_t pages[PAGED_WRITES_DEPTH + 4][PAGE] __attribute__((aligned(PAGE)));

/* A file to write to in a new directory (@dir, to remove), its descriptor. */
static int new_file(char *dir, char *path, size_t len)
{
	int fd;

	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(path, len, "%s/f", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	CU_ASSERT_FATAL(fd >= 0);
	return fd;
}

static void remove_file(int fd, const char *dir, const char *path)
{
	close(fd);
	unlink(path);
	rmdir(dir);
}

/*
 * @w set up with io_uring (@async), or for writes made at once, and a file
 * for them (new_file()'s): its descriptor, or -1 where this host has no
 * io_uring (a sandbox's seccomp may forbid it: said, and that half passed
 * by)
 */
static int set_up(struct paged_writes *w, int async, char *dir, char *path, size_t len)
{
	if (!async) {
		memset(w, 0, sizeof(*w));
	} else if (paged_writes_init(w, -1, NULL, 0)) {
		CU_ASSERT(errno == ENOSYS || errno == EPERM);
		fprintf(stderr, "(no io_uring here: %s; writes made at once only) ",
			strerror(errno));
		return -1;
	}
	return new_file(dir, path, len);
}

static void writes_are_taken_back_in_order(int async)
{
	char dir[] = "/tmp/mgcap-writes-XXXXXX", path[64];
	static uint8_t back[PAGED_WRITES_DEPTH * PAGE];
	struct paged_writes w;
	uint64_t taken = 0;
	unsigned int i;
	int fd;

	fd = set_up(&w, async, dir, path, sizeof(path));
	if (fd < 0)
		return;
	for (i = 0; i < PAGED_WRITES_DEPTH; i++) {
		memset(pages[i], 'a' + (int)i, PAGE);
		/* (asked for last first: the places, not the order, make the file) */
		CU_ASSERT_EQUAL(paged_writes_submit(&w, fd, pages[i], PAGE,
						    (uint64_t)(PAGED_WRITES_DEPTH - 1 - i) * PAGE), 0);
	}
	CU_ASSERT_EQUAL(paged_writes_in_flight(&w), PAGED_WRITES_DEPTH);
	/* one more than it holds */
	errno = 0;
	CU_ASSERT_EQUAL(paged_writes_submit(&w, fd, pages[0], PAGE, 0), -1);
	CU_ASSERT_EQUAL(errno, EBUSY);
	while (paged_writes_in_flight(&w)) {
		unsigned int before = paged_writes_in_flight(&w);
		uint64_t n = paged_writes_reap(&w, 1);

		/* each call with @wait takes back the oldest at least, whole writes */
		CU_ASSERT(paged_writes_in_flight(&w) < before);
		CU_ASSERT_EQUAL(n % PAGE, 0);
		CU_ASSERT_EQUAL(n, (uint64_t)(before - paged_writes_in_flight(&w)) * PAGE);
		taken += n;
	}
	CU_ASSERT_EQUAL(paged_writes_reap(&w, 1), 0);	/* (none in flight: at once) */
	CU_ASSERT_EQUAL(taken, PAGED_WRITES_DEPTH * PAGE);
	CU_ASSERT_EQUAL(w.err, 0);
	CU_ASSERT_EQUAL(pread(fd, back, sizeof(back), 0), (ssize_t)sizeof(back));
	for (i = 0; i < PAGED_WRITES_DEPTH; i++)
		CU_ASSERT_EQUAL(back[i * PAGE + 7], 'a' + PAGED_WRITES_DEPTH - 1 - i);
	paged_writes_free(&w);
	remove_file(fd, dir, path);
}

static void test_writes_are_taken_back_in_order(void)
{
	writes_are_taken_back_in_order(1);
	writes_are_taken_back_in_order(0);
}

/*
 * A file limited to 3 pages (RLIMIT_FSIZE: EFBIG past it, SIGXFSZ ignored)
 * and 6 writes of a page, or one of 6 pages (@one_write): 3 pages taken as
 * written, then the failure where the writing stopped, none in flight.
 */
static void a_failure_stops_what_is_taken(int async, int one_write)
{
	char dir[] = "/tmp/mgcap-writes-XXXXXX", path[64];
	struct rlimit was, limit;
	struct paged_writes w;
	void (*had)(int);
	uint64_t taken = 0;
	unsigned int i;
	int fd;

	fd = set_up(&w, async, dir, path, sizeof(path));
	if (fd < 0)
		return;
	CU_ASSERT_FATAL(getrlimit(RLIMIT_FSIZE, &was) == 0);
	limit = was;
	limit.rlim_cur = 3 * PAGE;
	had = signal(SIGXFSZ, SIG_IGN);
	CU_ASSERT_FATAL(setrlimit(RLIMIT_FSIZE, &limit) == 0);
	if (one_write) {
		/* (a write across the limit: what it wrote before stays) */
		CU_ASSERT_EQUAL(paged_writes_submit(&w, fd, pages, 6 * PAGE, 0), 0);
	} else {
		for (i = 0; i < 6; i++)
			CU_ASSERT_EQUAL(paged_writes_submit(&w, fd, pages[i], PAGE,
							    (uint64_t)i * PAGE), 0);
	}
	while (paged_writes_in_flight(&w))
		taken += paged_writes_reap(&w, 1);
	CU_ASSERT_FATAL(setrlimit(RLIMIT_FSIZE, &was) == 0);
	signal(SIGXFSZ, had);
	CU_ASSERT_EQUAL(taken, 3 * PAGE);
	/* (made at once, a write cut short says no more than that: ENOSPC) */
	CU_ASSERT_EQUAL(w.err, one_write && !async ? ENOSPC : EFBIG);
	CU_ASSERT_EQUAL(w.failed_at, 3 * PAGE);
	paged_writes_free(&w);
	remove_file(fd, dir, path);
}

static void test_a_failure_stops_what_is_taken(void)
{
	a_failure_stops_what_is_taken(1, 0);
	a_failure_stops_what_is_taken(0, 0);
	a_failure_stops_what_is_taken(1, 1);
	a_failure_stops_what_is_taken(0, 1);
}

/*
 * A module's write that io_uring refuses (as a security module may: here
 * the "queue node" is a file, which has no commands, -EOPNOTSUPP) is made
 * from the mapping, and so is every write after it.  (The module's side:
 * the VM's tests.)
 */
static void test_a_refused_module_write_goes_from_the_mapping(void)
{
	char dir[] = "/tmp/mgcap-writes-XXXXXX", path[64];
	static uint8_t back[4 * PAGE];
	struct paged_writes w;
	uint64_t taken = 0;
	int fd, node, ret;

	memset(&w, 0, sizeof(w));
	ret = io_uring_queue_init(PAGED_WRITES_DEPTH, &w.ring, IORING_SETUP_SQE128);
	if (ret < 0) {
		CU_ASSERT(ret == -ENOSYS || ret == -EPERM || ret == -EINVAL);
		fprintf(stderr, "(no io_uring with 128-byte entries here: %s) ", strerror(-ret));
		return;
	}
	fd = new_file(dir, path, sizeof(path));
	node = open(path, O_RDONLY | O_CLOEXEC);
	CU_ASSERT_FATAL(node >= 0);
	/* (as paged_writes_init() sets it up where the module writes) */
	w.async = 1;
	w.sqe128 = 1;
	w.by_module = 1;
	w.ring_fd = node;
	w.ring_data = pages[0];
	w.ring_size = sizeof(pages);
	memset(pages[0], 'x', 2 * PAGE);
	memset(pages[2], 'y', 2 * PAGE);
	CU_ASSERT_EQUAL(paged_writes_submit(&w, fd, pages[0], 2 * PAGE, 0), 0);
	while (paged_writes_in_flight(&w))
		taken += paged_writes_reap(&w, 1);
	CU_ASSERT_EQUAL(w.sqe128, 0);
	CU_ASSERT_EQUAL(paged_writes_submit(&w, fd, pages[2], 2 * PAGE, 2 * PAGE), 0);
	while (paged_writes_in_flight(&w))
		taken += paged_writes_reap(&w, 1);
	CU_ASSERT_EQUAL(w.err, 0);
	CU_ASSERT_EQUAL(taken, 4 * PAGE);
	CU_ASSERT_EQUAL(pread(fd, back, sizeof(back), 0), (ssize_t)sizeof(back));
	CU_ASSERT(!memcmp(back, pages[0], sizeof(back)));
	paged_writes_free(&w);
	close(node);
	remove_file(fd, dir, path);
}

void register_paged_writes_tests(void)
{
	static const struct unit_test tests[] = {
		{ "writes are taken back in order, as many as it holds",
		  test_writes_are_taken_back_in_order },
		{ "a failure stops what is taken at it", test_a_failure_stops_what_is_taken },
		{ "a module's write io_uring refuses goes from the mapping",
		  test_a_refused_module_write_goes_from_the_mapping },
	};

	ADD_SUITE("paged writes", tests);
}
