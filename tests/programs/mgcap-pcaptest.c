// SPDX-License-Identifier: GPL-2.0
/*
 * mgcap-pcaptest DEV OTHER: the libpcap API over mgcap, call by call, as
 * libpcap documents it.  DEV: an mgtestnic with 2 queues captured with a
 * 64 KiB ring; OTHER: an mgtestnic that is not captured.  Run through
 * mgcap-run.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/mgcap.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int passes, failures;
static const char *dev;

static void check(int ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		passes++;
		printf("ok - %s\n", name);
		return;
	}
	failures++;
	printf("FAIL - %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void set_nic(const char *attr, const char *value)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/mgtestnic/%s", dev, attr);
	f = fopen(path, "w");
	if (!f || fputs(value, f) < 0 || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static void generate(const char *which)
{
	set_nic("generate", which);
}

static pcap_t *open_source(const char *name, int timeout_ms, int *status, char *err)
{
	pcap_t *p = pcap_create(name, err);

	if (!p) {
		*status = PCAP_ERROR;
		return NULL;
	}
	pcap_set_timeout(p, timeout_ms);
	*status = pcap_activate(p);
	if (*status < 0) {
		snprintf(err, PCAP_ERRBUF_SIZE, "%s", pcap_geterr(p));
		pcap_close(p);
		return NULL;
	}
	return p;
}

static void expect_error(const char *name, int want, const char *text)
{
	char err[PCAP_ERRBUF_SIZE] = "";
	int status = 0;
	pcap_t *p = open_source(name, 100, &status, err);

	check(!p && (!want || status == want) && strstr(err, text), name,
	      "status %d (%s), message '%s'", status, pcap_statustostr(status), err);
	if (p)
		pcap_close(p);
}

static void test_findalldevs(const char *other)
{
	char err[PCAP_ERRBUF_SIZE], name[64], other_name[64];
	pcap_if_t *all, *d;
	int found = 0, found_other = 0;

	snprintf(name, sizeof(name), "mgcap:%s", dev);
	snprintf(other_name, sizeof(other_name), "mgcap:%s", other);
	if (pcap_findalldevs(&all, err) < 0) {
		check(0, "findalldevs", "%s", err);
		return;
	}
	for (d = all; d; d = d->next) {
		const char *desc = d->description ? d->description : "";

		if (!strcmp(d->name, name)) {
			found = 1;
			check(strstr(desc, "captured now, 2 receive queues") &&
			      (d->flags & PCAP_IF_UP) && (d->flags & PCAP_IF_RUNNING),
			      "findalldevs describes the capture", "'%s' flags %#x", desc, d->flags);
		} else if (!strcmp(d->name, other_name)) {
			found_other = 1;
			check(strstr(desc, "not captured yet; opening it starts a capture") != NULL,
			      "findalldevs describes a device nobody captures", "'%s'", desc);
		} else if (!strcmp(d->name, "mgcap:lo")) {
			check(0, "findalldevs lists only Ethernet devices", "mgcap:lo listed");
		}
	}
	check(found, "findalldevs lists the capture", "%s missing", name);
	check(found_other, "findalldevs lists a device nobody captures", "%s missing", other_name);
	pcap_freealldevs(all);
}

/* Opening a device nobody captures starts its capture; the last close stops it. */
static void test_start_on_open(const char *other)
{
	char name[64], node[96], err[PCAP_ERRBUF_SIZE];
	int status, i;
	pcap_t *p1, *p2;

	snprintf(name, sizeof(name), "mgcap:%s", other);
	snprintf(node, sizeof(node), "/dev/mgcap/%s@0", other);
	p1 = open_source(name, 100, &status, err);
	check(p1 && access(node, F_OK) == 0, "opening starts the capture",
	      "status %d, '%s'", status, err);
	p2 = open_source(name, 100, &status, err);
	check(p2 != NULL, "a second reader joins it", "status %d, '%s'", status, err);
	if (p1)
		pcap_close(p1);
	usleep(300000);
	check(access(node, F_OK) == 0, "it goes on while a reader is left", "");
	if (p2)
		pcap_close(p2);
	for (i = 0; i < 100 && access(node, F_OK) == 0; i++)
		usleep(50000);
	check(access(node, F_OK) != 0, "the last reader's close stops it", "%s still there", node);
}

static void test_errors(void)
{
	char name[64], err[PCAP_ERRBUF_SIZE];
	int status;
	pcap_t *p1, *p2;

	expect_error("mgcap:nosuch0", PCAP_ERROR_NO_SUCH_DEVICE, "no such device");
	snprintf(name, sizeof(name), "mgcap:%s@7", dev);
	expect_error(name, PCAP_ERROR_NO_SUCH_DEVICE, "no such queue");
	snprintf(name, sizeof(name), "mgcap:%s@1-", dev);
	expect_error(name, 0, "bad queue list");

	snprintf(name, sizeof(name), "mgcap:%s@0", dev);
	p1 = open_source(name, 100, &status, err);
	p2 = open_source(name, 100, &status, err);
	check(p1 && p2, "two handles read one queue at once", "status %d, '%s'", status, err);
	if (p2)
		pcap_close(p2);
	if (p1)
		pcap_close(p1);
	/* and free again once closed */
	p1 = open_source(name, 100, &status, err);
	check(p1 != NULL, "a closed queue can be opened again", "%s", err);
	if (p1)
		pcap_close(p1);
}

/* As nobody: refused, with @text in the message. */
static void expect_denied(const char *name, const char *text, const char *what)
{
	pid_t pid;
	int st;

	pid = fork();
	if (pid == 0) {
		char err[PCAP_ERRBUF_SIZE] = "";
		int status = 0;

		if (setgid(65534) || setuid(65534))
			_exit(3);
		open_source(name, 100, &status, err);
		if (status != PCAP_ERROR_PERM_DENIED || !strstr(err, text)) {
			fprintf(stderr, "status %d, '%s'\n", status, err);
			_exit(1);
		}
		_exit(0);
	}
	waitpid(pid, &st, 0);
	check(WIFEXITED(st) && WEXITSTATUS(st) == 0, what, "child status %d", st);
}

static void test_permission(const char *other)
{
	char name[64];

	snprintf(name, sizeof(name), "mgcap:%s", dev);
	/* "only root may read it", or "only root and group mgcap ..." (udev rule) */
	expect_denied(name, "permission denied: only root",
		      "an unprivileged user is denied the queues");
	snprintf(name, sizeof(name), "mgcap:%s", other);
	expect_denied(name, "starting its capture takes CAP_NET_ADMIN",
		      "an unprivileged user cannot start a capture");
}

/* Opens @name as user nobody, promiscuous or not: the status, and errbuf in @err. */
static int open_as_nobody(const char *name, int promisc, char *err)
{
	pcap_t *p = pcap_create(name, err);
	int status;

	if (!p)
		return PCAP_ERROR;
	pcap_set_promisc(p, promisc);
	status = pcap_activate(p);
	snprintf(err, PCAP_ERRBUF_SIZE, "%s", pcap_geterr(p));
	pcap_close(p);
	return status;
}

/*
 * A user who may read the queues but lacks CAP_NET_RAW: promiscuous mode
 * refused as libpcap says it (tcpdump then suggests -p), and the message
 * names -p; without it, the capture opens.  The nodes are opened to all
 * for the test, then given back their mode.
 */
static void test_promiscuous_mode_refused(void)
{
	char name[64], node[2][96];
	struct stat st[2];
	pid_t pid;
	int i, ws;

	snprintf(name, sizeof(name), "mgcap:%s", dev);
	for (i = 0; i < 2; i++) {
		snprintf(node[i], sizeof(node[i]), "/dev/mgcap/%s@%d", dev, i);
		if (stat(node[i], &st[i]) || chmod(node[i], 0666)) {
			check(0, "promiscuous mode refused", "%s: %s", node[i], strerror(errno));
			return;
		}
	}
	pid = fork();
	if (pid == 0) {
		char err[PCAP_ERRBUF_SIZE] = "";
		int status;

		if (setgid(65534) || setuid(65534))
			_exit(3);
		status = open_as_nobody(name, 1, err);
		if (status != PCAP_ERROR_PROMISC_PERM_DENIED || !strstr(err, "(tcpdump -p)")) {
			fprintf(stderr, "promiscuous: status %d, '%s'\n", status, err);
			_exit(1);
		}
		status = open_as_nobody(name, 0, err);
		if (status < 0) {
			fprintf(stderr, "not promiscuous: status %d, '%s'\n", status, err);
			_exit(2);
		}
		_exit(0);
	}
	waitpid(pid, &ws, 0);
	for (i = 0; i < 2; i++)
		chmod(node[i], st[i].st_mode & 07777);
	check(WIFEXITED(ws) && WEXITSTATUS(ws) == 0,
	      "promiscuous mode without CAP_NET_RAW refused as such, -p named, and without it opens",
	      "child status %d", ws);
}

static void test_tstamp_lists(void)
{
	char err[PCAP_ERRBUF_SIZE], name[64];
	int *types = NULL, n, host = 0, unsynced = 0, i;
	pcap_t *p;

	snprintf(name, sizeof(name), "mgcap:%s", dev);
	p = pcap_create(name, err);
	if (!p) {
		check(0, "time stamp types", "%s", err);
		return;
	}
	n = pcap_list_tstamp_types(p, &types);
	for (i = 0; i < n; i++) {
		host |= types[i] == PCAP_TSTAMP_HOST;
		unsynced |= types[i] == PCAP_TSTAMP_ADAPTER_UNSYNCED;
	}
	/* the test NIC names no clock unless it stamps from its PHC (tests-adapter.sh) */
	check(n == 2 && host && unsynced, "host and adapter_unsynced before activation",
	      "%d types", n);
	check(pcap_set_tstamp_type(p, PCAP_TSTAMP_ADAPTER) == PCAP_WARNING_TSTAMP_TYPE_NOTSUP,
	      "adapter (converted) is not offered without the NIC's clock", "");
	check(pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO) == 0,
	      "nanosecond precision", "");
	pcap_free_tstamp_types(types);
	pcap_close(p);
}

static void count_cb(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	(void)h;
	(void)bytes;
	(*(int *)user)++;
}

static void *break_later(void *arg)
{
	usleep(300000);
	pcap_breakloop(arg);
	return NULL;
}

static pcap_t *signalled;

static void break_on_signal(int sig)
{
	(void)sig;
	pcap_breakloop(signalled);
}

static void *break_if_still_blocked(void *arg)
{
	usleep(3000000);
	pcap_breakloop(arg);
	return NULL;
}

/*
 * As tcpdump stops on SIGINT: pcap_breakloop() from a signal handler, in
 * the thread blocked in the read (a wakeup missed there would block it for
 * ever: a thread ends it after 3 s, failing the check).
 */
static void check_signal_breaks_a_blocked_read(pcap_t *p, int *n)
{
	struct sigaction sa;
	struct itimerval in_300ms = { { 0, 0 }, { 0, 300000 } };
	pthread_t watchdog;
	double t0;
	int ret;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = break_on_signal;
	sa.sa_flags = SA_RESTART;	/* as tcpdump's; epoll_wait ends with EINTR anyway */
	sigemptyset(&sa.sa_mask);
	signalled = p;
	sigaction(SIGALRM, &sa, NULL);
	pthread_create(&watchdog, NULL, break_if_still_blocked, p);
	t0 = now_s();
	setitimer(ITIMER_REAL, &in_300ms, NULL);
	ret = pcap_dispatch(p, -1, count_cb, (u_char *)n);
	check(ret == PCAP_ERROR_BREAK && now_s() - t0 < 1.3, "a signal's breakloop wakes a blocked read",
	      "returned %d after %.2f s", ret, now_s() - t0);
	pthread_cancel(watchdog);
	pthread_join(watchdog, NULL);
	signal(SIGALRM, SIG_DFL);
}

static void test_blocking_behaviour(void)
{
	char err[PCAP_ERRBUF_SIZE], name[64];
	struct pollfd pfd;
	pthread_t thr;
	int status, n = 0, ret;
	double t0;

	pcap_t *p;

	snprintf(name, sizeof(name), "mgcap:%s", dev);
	p = open_source(name, 0, &status, err);	/* timeout 0: block for ever */
	if (!p) {
		check(0, "open", "%s", err);
		return;
	}
	/* pcap_breakloop() from another thread wakes a read blocked with no traffic */
	pthread_create(&thr, NULL, break_later, p);
	t0 = now_s();
	ret = pcap_dispatch(p, -1, count_cb, (u_char *)&n);
	pthread_join(thr, NULL);
	check(ret == PCAP_ERROR_BREAK && now_s() - t0 < 1.3, "breakloop wakes a blocked read",
	      "returned %d after %.2f s", ret, now_s() - t0);
	check_signal_breaks_a_blocked_read(p, &n);

	/* non-blocking: nothing there, no wait */
	pcap_setnonblock(p, 1, err);
	t0 = now_s();
	ret = pcap_dispatch(p, -1, count_cb, (u_char *)&n);
	check(ret == 0 && now_s() - t0 < 0.05 && pcap_getnonblock(p, err) == 1,
	      "non-blocking read returns at once", "returned %d after %.3f s", ret, now_s() - t0);

	/* the selectable fd turns readable when packets wait */
	pfd.fd = pcap_get_selectable_fd(p);
	pfd.events = POLLIN;
	check(pfd.fd >= 0 && poll(&pfd, 1, 0) == 0, "selectable fd idle when empty", "");
	generate("all 10");
	check(poll(&pfd, 1, 3000) == 1 && (pfd.revents & POLLIN), "selectable fd turns readable",
	      "revents %#x", pfd.revents);
	/* a non-blocking reader polls on; the merge may hold records a while */
	n = 0;
	t0 = now_s();
	while (n < 20 && now_s() - t0 < 2 && pcap_dispatch(p, -1, count_cb, (u_char *)&n) >= 0)
		usleep(1000);
	check(n == 20, "every packet read after select", "read %d of 20", n);
	pcap_close(p);
}

/* mgcap:DEV as an event loop reads it: non-blocking, woken by the selectable fd */
static pcap_t *open_event_loop(struct pollfd *pfd)
{
	char err[PCAP_ERRBUF_SIZE], name[64];
	int status;
	pcap_t *p;

	snprintf(name, sizeof(name), "mgcap:%s", dev);
	p = open_source(name, 100, &status, err);
	if (!p) {
		check(0, "open", "%s", err);
		return NULL;
	}
	pcap_setnonblock(p, 1, err);
	pfd->fd = pcap_get_selectable_fd(p);
	pfd->events = POLLIN;
	return p;
}

/*
 * An event loop as Zeek's packet source runs one: non-blocking, woken by
 * the selectable fd.  Readable must mean a read makes progress: after
 * pcap_breakloop(), and while the merge holds records back for a quiet
 * queue (all traffic on queue 0), the fd does not stay readable for reads
 * that deliver nothing.
 */
static void test_event_loop_never_spins(void)
{
	struct pollfd pfd;
	int n = 0, ret, wakeups = 0, empty = 0, round;
	double t0;
	pcap_t *p;

	p = open_event_loop(&pfd);
	if (!p)
		return;
	pcap_breakloop(p);
	ret = pcap_dispatch(p, -1, count_cb, (u_char *)&n);
	check(ret == PCAP_ERROR_BREAK, "a non-blocking read after pcap_breakloop() breaks",
	      "returned %d", ret);
	ret = pcap_dispatch(p, -1, count_cb, (u_char *)&n);
	check(ret == 0 && poll(&pfd, 1, 0) == 0, "then the selectable fd is idle again",
	      "returned %d, revents %#x", ret, pfd.revents);
	/* 4 bursts of 50 frames on queue 0, queue 1 quiet, for 2 s */
	t0 = now_s();
	for (round = 0; now_s() - t0 < 2.0; round++) {
		if (round % 40 == 0 && round < 160)
			generate("0 50");
		if (poll(&pfd, 1, 10) <= 0)
			continue;
		wakeups++;
		ret = pcap_dispatch(p, -1, count_cb, (u_char *)&n);
		if (ret == 0)
			empty++;
		if (ret < 0)
			break;
	}
	check(n == 200, "every frame read in the event loop", "read %d of 200", n);
	check(empty <= 8, "the selectable fd wakes the loop for something",
	      "%d of %d wakeups read nothing", empty, wakeups);
	printf("    event loop: %d wakeups, %d read nothing, %d frames\n", wakeups, empty, n);
	pcap_close(p);
}

/*
 * Order never costs a frame in an event loop either: a frame on queue 1,
 * then a paced stream on queue 0 (3,000 frames at 5,000 a second).  Queue
 * 0's records wait for queue 1, which is not yet quiet, up to the hold (the
 * read timeout, 100 ms); meanwhile its 64 KiB ring, which holds 431 (86 ms
 * of the stream), must wake the loop at its fill mark (22 ms in) rather than
 * overflow.  At 20,000 a second the loop had 16 ms to answer the fill mark,
 * and under emulation with the host busy it did not always.
 */
static void test_event_loop_holding_loses_nothing(void)
{
	struct pcap_stat st;
	struct pollfd pfd;
	int n = 0, ret;
	double t0;
	pcap_t *p;

	p = open_event_loop(&pfd);
	if (!p)
		return;
	set_nic("rate_pps", "5000");
	generate("1 1");
	generate("0 3000");
	for (t0 = now_s(); now_s() - t0 < 1.5;) {
		if (poll(&pfd, 1, 10) <= 0)
			continue;
		ret = pcap_dispatch(p, -1, count_cb, (u_char *)&n);
		if (ret < 0)
			break;
	}
	set_nic("rate_pps", "0");
	pcap_stats(p, &st);
	check(n == 3001 && st.ps_drop == 0, "a held ring wakes the event loop at its fill mark",
	      "read %d of 3001, %u dropped", n, st.ps_drop);
	pcap_close(p);
}

static void test_zero_copy_and_stats(void)
{
	char err[PCAP_ERRBUF_SIZE], name[64];
	struct pcap_pkthdr *h;
	const u_char *data;
	u_char copy[128];
	struct pcap_stat s0, s1;
	int status, ret;
	pcap_t *p;

	snprintf(name, sizeof(name), "mgcap:%s@0", dev);
	p = pcap_create(name, err);
	pcap_set_snaplen(p, 100);
	pcap_set_timeout(p, 200);
	status = pcap_activate(p);
	if (status < 0) {
		check(0, "open", "%s", pcap_geterr(p));
		pcap_close(p);
		return;
	}
	pcap_stats(p, &s0);
	generate("0 2");
	ret = pcap_next_ex(p, &h, &data);
	check(ret == 1 && h->caplen == 100 && h->len == 128, "snaplen trims the capture",
	      "ret %d caplen %u len %u", ret, ret == 1 ? h->caplen : 0, ret == 1 ? h->len : 0);
	if (ret != 1) {
		pcap_close(p);
		return;
	}
	memcpy(copy, data, h->caplen);
	/* the 64 KiB ring overflows while we hold the packet: it must not move */
	generate("0 3000");
	usleep(500000);
	check(memcmp(copy, data, 100) == 0, "a packet stays valid until the next read", "");
	pcap_stats(p, &s1);
	check(s1.ps_recv - s0.ps_recv == 3002 && s1.ps_drop - s0.ps_drop > 0 &&
	      s1.ps_drop - s0.ps_drop < 3000, "stats count received and ring drops",
	      "recv %u drop %u", s1.ps_recv - s0.ps_recv, s1.ps_drop - s0.ps_drop);
	check(pcap_inject(p, copy, 60) == -1 && strstr(pcap_geterr(p), "not supported"),
	      "inject fails with a reason", "'%s'", pcap_geterr(p));
	/* (which records each hands out: tests-wire.sh, against AF_PACKET's) */
	check(pcap_setdirection(p, PCAP_D_OUT) == 0 && pcap_setdirection(p, PCAP_D_IN) == 0 &&
	      pcap_setdirection(p, PCAP_D_INOUT) == 0, "direction: out, in and both", "'%s'",
	      pcap_geterr(p));
	pcap_close(p);
}

/*
 * @name opened with @tstamp stamps and the filter @expr (over tagged frames,
 * which the kernel's filter cannot judge), or NULL, the test failed and the
 * tag gone again.
 */
static pcap_t *open_filtered(const char *name, int timeout_ms, int tstamp, const char *expr)
{
	char err[PCAP_ERRBUF_SIZE];
	struct bpf_program prog;
	pcap_t *p = pcap_create(name, err);

	if (p) {
		pcap_set_timeout(p, timeout_ms);
		pcap_set_tstamp_type(p, tstamp);
	}
	if (!p || pcap_activate(p) < 0 ||
	    pcap_compile(p, &prog, expr, 1, PCAP_NETMASK_UNKNOWN) || pcap_setfilter(p, &prog)) {
		check(0, "open with a filter", "%s", p ? pcap_geterr(p) : err);
		set_nic("vlan_tci", "0");
		if (p)
			pcap_close(p);
		return NULL;
	}
	pcap_freecode(&prog);
	return p;
}

/*
 * Queues 0 and 1 at the same sequence number, so that their frames
 * alternate in stamp order; before a handle opens, which discards them.
 */
static void equal_sequences(void)
{
	char path[128], more[32];
	unsigned long long q0, q1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/mgtestnic/generated", dev);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%llu %llu", &q0, &q1) != 2) {
		perror(path);
		exit(1);
	}
	fclose(f);
	if (q0 == q1)
		return;
	snprintf(more, sizeof(more), "%d %llu", q0 < q1 ? 0 : 1, q0 < q1 ? q1 - q0 : q0 - q1);
	generate(more);
	usleep(200000);
}

/*
 * pcap_next_ex() on a merged source keeps its packet until the next read,
 * also when the filter in user space rejected a batch's worth of records
 * before it (tagged frames, which the kernel's filter cannot judge).  With
 * the NIC's stamps the order is known: queue 0's S, then queue 1's S; the
 * filter passes queue 1's every 32nd, so that the packet of the second read
 * is its 64th record handed out.
 */
static void test_next_ex_keeps_its_packet_past_rejected_records(void)
{
	char name[64];
	struct pcap_pkthdr *h;
	const u_char *data;
	u_char copy[128];
	int ret, i, ids[2];
	pcap_t *p;

	set_nic("vlan_tci", "100");
	equal_sequences();
	snprintf(name, sizeof(name), "mgcap:%s", dev);
	p = open_filtered(name, 200, PCAP_TSTAMP_ADAPTER_UNSYNCED,
			  "vlan and udp src port 10001 and ip[4:2] & 31 = 0");
	if (!p)
		return;
	generate("all 100");
	for (i = 0, ret = 1; i < 2 && ret == 1; i++) {
		ret = pcap_next_ex(p, &h, &data);
		ids[i] = ret == 1 && h->caplen >= 24 ? data[22] << 8 | data[23] : -1;
	}
	check(ret == 1 && ids[0] >= 0 && ids[1] == ids[0] + 32,
	      "the second packet is queue 1's next 32nd frame", "ret %d, ids %d and %d", ret,
	      ids[0], ids[1]);
	if (ret == 1) {
		memcpy(copy, data, h->caplen < sizeof(copy) ? h->caplen : sizeof(copy));
		/* the 64 KiB rings wrap many times while we hold the packet */
		generate("all 3000");
		usleep(500000);
		check(memcmp(copy, data, h->caplen < sizeof(copy) ? h->caplen : sizeof(copy)) == 0,
		      "pcap_next_ex()'s packet stays valid past rejected records", "");
	}
	pcap_close(p);
	set_nic("vlan_tci", "0");
}

/*
 * Frames the filter rejects give their ring space back as the read goes:
 * tagged frames (the kernel's filter cannot judge them) that a filter in
 * user space rejects, 3,000 paced at 5,000 a second into a 64 KiB ring
 * (about 400 records, 80 ms of them) while one blocking read of 2 s
 * rejects them all.  Space kept until the read's end would drop all but
 * the 400; a tenth is left for an emulated CPU's late wakeups.
 */
static void test_rejected_frames_give_their_space_back(void)
{
	char name[64];
	struct pcap_stat st;
	int n = 0, ret;
	pcap_t *p;

	set_nic("vlan_tci", "100");
	snprintf(name, sizeof(name), "mgcap:%s@0", dev);
	p = open_filtered(name, 2000, PCAP_TSTAMP_HOST, "vlan and udp dst port 1");
	if (!p)
		return;
	set_nic("rate_pps", "5000");
	generate("0 3000");
	ret = pcap_dispatch(p, -1, count_cb, (u_char *)&n);
	set_nic("rate_pps", "0");
	pcap_stats(p, &st);
	check(ret == 0 && n == 0 && st.ps_recv >= 3000 && st.ps_drop < 300,
	      "frames the filter rejects give their ring space back",
	      "read returned %d with %d frames; %u received, %u dropped", ret, n, st.ps_recv,
	      st.ps_drop);
	pcap_close(p);
	set_nic("vlan_tci", "0");
}

/* The control page of the ring mapped from /dev/mgcap/NODE, or NULL. */
static volatile struct mgcap_ring_ctrl *mapped_ring(const char *node)
{
	char line[512], want[96];
	uintptr_t start = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	snprintf(want, sizeof(want), "/dev/mgcap/%s\n", node);
	while (f && !start && fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);

		if (len > strlen(want) && !strcmp(line + len - strlen(want), want))
			start = (uintptr_t)strtoull(line, NULL, 16);
	}
	if (f)
		fclose(f);
	return (volatile struct mgcap_ring_ctrl *)start;
}

/*
 * A read index the reader never gave back, written into the mapping as a
 * stray pointer would: the kernel drops the frames and says so by
 * EPOLLERR, and the read ends with an error at once rather than spinning
 * on a wait that always returns.
 */
static void test_overwritten_read_index_ends_the_read(void)
{
	char err[PCAP_ERRBUF_SIZE], name[64], node[64];
	volatile struct mgcap_ring_ctrl *ctrl;
	int status, ret, n = 0;
	double t0, took;
	pcap_t *p;

	snprintf(name, sizeof(name), "mgcap:%s@0", dev);
	snprintf(node, sizeof(node), "%s@0", dev);
	p = open_source(name, 2000, &status, err);
	if (!p) {
		check(0, "open", "%s", err);
		return;
	}
	ctrl = mapped_ring(node);
	if (!ctrl || ctrl->magic != MGCAP_RING_MAGIC) {
		check(0, "the ring's mapping", "not found in /proc/self/maps");
		pcap_close(p);
		return;
	}
	ctrl->consumer = ctrl->producer + 2 * ctrl->data_size;
	generate("0 5");
	t0 = now_s();
	ret = pcap_dispatch(p, -1, count_cb, (u_char *)&n);
	took = now_s() - t0;
	check(ret == PCAP_ERROR && strstr(pcap_geterr(p), "read index was overwritten") &&
	      took < 1.0, "an overwritten read index ends the read with an error",
	      "returned %d after %.2f s: '%s'", ret, took, pcap_geterr(p));
	pcap_close(p);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: mgcap-pcaptest DEV OTHER\n");
		return 2;
	}
	dev = argv[1];
	test_findalldevs(argv[2]);
	test_errors();
	test_start_on_open(argv[2]);
	test_permission(argv[2]);
	test_promiscuous_mode_refused();
	test_tstamp_lists();
	test_blocking_behaviour();
	test_event_loop_never_spins();
	test_event_loop_holding_loses_nothing();
	test_zero_copy_and_stats();
	test_next_ex_keeps_its_packet_past_rejected_records();
	test_rejected_frames_give_their_space_back();
	test_overwritten_read_index_ends_the_read();
	printf("pcaptest: %d passed, %d failed\n", passes, failures);
	return failures ? 1 : 0;
}
