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
 * never asks.
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

int main(int argc, char **argv)
{
	struct mgcap_reader r;
	struct timespec deadline;
	struct pollfd pfd;
	uint64_t want = 0, got = 0, wakeups = 0;
	const char *what;
	char err[256];
	int timeout_s = 30, argi, sent = 0;

	if (argc > 1 && !strcmp(argv[1], "--sent")) {
		sent = 1;
		argv++;
		argc--;
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
	if (!strcmp(what, "records")) {
		/* immediate-mode style wakeups would defeat the point */
		while (mgcap_reader_next(&r))
			;
		mgcap_reader_release(&r);
	}
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
		n = poll(&pfd, 1, (int)left);
		if (n < 0 && errno != EINTR) {
			perror("mgcap-wait: poll");
			return 1;
		}
		if (n <= 0)
			continue;
		wakeups++;
		while (mgcap_reader_next(&r))
			got++;
		mgcap_reader_release(&r);
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
	fprintf(stderr, "usage: mgcap-wait [--sent] NODE hup|first|records N [TIMEOUT_S]\n");
	return 2;
}
