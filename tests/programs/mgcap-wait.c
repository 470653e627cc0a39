// SPDX-License-Identifier: GPL-2.0
/*
 * mgcap-wait: a reader for the lifecycle and wakeup tests.
 *
 *   mgcap-wait NODE hup [TIMEOUT_S]     read until the capture ends; exit 0 on
 *                                       a clean end (POLLHUP, DETACHED flag)
 *   mgcap-wait NODE records N [TIMEOUT_S]
 *                                       read N records by poll(); print the
 *                                       number of poll() wakeups it took
 *   mgcap-wait NODE first [TIMEOUT_S]   one poll(): exit 0 if a record woke it
 *
 * It prints "ready" once the queue is open and mapped, so a test can start
 * the traffic or the teardown only then.  With --sent before NODE it takes
 * the frames the device sends too (MGCAP_IOC_SET_DIRECTIONS), as libpcap's
 * readers do by default; else the received ones only, as a reader that
 * never asks.  With --mark BYTES it is woken once BYTES are unread
 * (MGCAP_IOC_SET_POLL_MARK), and reads what there is every 100 ms besides,
 * as mgdump --per-queue's threads wait: the capture path alone beside them
 * then pays for the wakeups they pay for, no more (the ring's default wakes
 * a reader at every 64 KiB, which costs large frames more a packet).
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "mgcap_reader.h"

static int64_t ms_left(const struct timespec *deadline)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (deadline->tv_sec - now.tv_sec) * 1000 + (deadline->tv_nsec - now.tv_nsec) / 1000000;
}

/* every record @r holds now, given back to the ring: how many */
static uint64_t read_all(struct mgcap_reader *r)
{
	uint64_t n = 0;

	while (mgcap_reader_next(r))
		n++;
	mgcap_reader_release(r);
	return n;
}

/* how often a reader with a poll mark reads what is below it (mgdump --per-queue's poll) */
#define MARK_POLL_MS	100

int main(int argc, char **argv)
{
	struct mgcap_reader r;
	struct timespec deadline;
	struct pollfd pfd;
	uint64_t want = 0, got = 0, wakeups = 0;
	uint32_t mark = 0;
	const char *what;
	char err[256], *end;
	int timeout_s = 30, argi, sent = 0;

	for (; argc > 1 && !strncmp(argv[1], "--", 2); argv++, argc--) {
		if (!strcmp(argv[1], "--sent")) {
			sent = 1;
		} else if (!strcmp(argv[1], "--mark") && argc > 2) {
			unsigned long bytes = strtoul(argv[2], &end, 0);

			if (*end || !bytes || bytes > UINT32_MAX) {
				fprintf(stderr, "mgcap-wait: --mark: not a byte count: %s\n", argv[2]);
				return 2;
			}
			mark = (uint32_t)bytes;
			argv++;
			argc--;
		} else {
			goto usage;
		}
	}
	if (argc < 3)
		goto usage;
	what = argv[2];
	argi = 3;
	if (!strcmp(what, "records")) {
		if (argc < 4)
			goto usage;
		want = strtoull(argv[3], NULL, 0);
		argi = 4;
	} else if (strcmp(what, "hup") && strcmp(what, "first")) {
		goto usage;
	}
	if (argc > argi)
		timeout_s = atoi(argv[argi]);

	if (mgcap_reader_open(&r, argv[1], err, sizeof(err)) < 0) {
		fprintf(stderr, "mgcap-wait: %s\n", err);
		return 1;
	}
	if (sent) {
		uint32_t both = MGCAP_DIR_RECEIVED | MGCAP_DIR_SENT;

		if (ioctl(r.fd, MGCAP_IOC_SET_DIRECTIONS, &both) < 0) {
			perror("mgcap-wait: MGCAP_IOC_SET_DIRECTIONS");
			return 1;
		}
	}
	if (mark && ioctl(r.fd, MGCAP_IOC_SET_POLL_MARK, &mark) < 0) {
		perror("mgcap-wait: MGCAP_IOC_SET_POLL_MARK");
		return 1;
	}
	/* immediate-mode style wakeups would defeat the point */
	if (!strcmp(what, "records"))
		read_all(&r);
	printf("ready\n");
	fflush(stdout);

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += timeout_s;
	pfd.fd = r.fd;
	pfd.events = POLLIN;
	for (;;) {
		int64_t left = ms_left(&deadline);
		int n;

		if (left <= 0) {
			fprintf(stderr, "mgcap-wait: timed out (%" PRIu64 " records)\n", got);
			return 1;
		}
		n = poll(&pfd, 1, mark && left > MARK_POLL_MS ? MARK_POLL_MS : (int)left);
		if (n < 0 && errno != EINTR) {
			perror("mgcap-wait: poll");
			return 1;
		}
		if (n == 0 && mark) {	/* what is below the mark, as mgdump's poll timeout */
			got += read_all(&r);
			continue;
		}
		if (n <= 0)
			continue;
		wakeups++;
		got += read_all(&r);
		if (!strcmp(what, "first")) {
			if (!got)
				fprintf(stderr, "mgcap-wait: poll woke with nothing to read (%#x)\n",
					pfd.revents);
			printf("first record after %" PRIu64 " wakeup(s)\n", wakeups);
			return got ? 0 : 1;
		}
		if (!strcmp(what, "records") && got >= want) {
			printf("%" PRIu64 " records, %" PRIu64 " wakeups\n", got, wakeups);
			return 0;
		}
		if (pfd.revents & POLLHUP) {
			struct mgcap_queue_stats st;

			if (!mgcap_reader_detached(&r)) {
				fprintf(stderr, "mgcap-wait: POLLHUP without the DETACHED flag\n");
				return 1;
			}
			/* the counters stay readable after the end */
			if (ioctl(r.fd, MGCAP_IOC_STATS, &st) < 0) {
				perror("mgcap-wait: MGCAP_IOC_STATS after the end");
				return 1;
			}
			printf("end: %" PRIu64 " records read, %" PRIu64 " captured\n", got,
			       (uint64_t)st.captured);
			return strcmp(what, "hup") ? 1 : 0;
		}
		if (pfd.revents & POLLERR) {
			fprintf(stderr, "mgcap-wait: POLLERR\n");
			return 1;
		}
	}
usage:
	fprintf(stderr, "usage: mgcap-wait [--sent] [--mark BYTES] NODE hup|first|records N "
		"[TIMEOUT_S]\n");
	return 2;
}
