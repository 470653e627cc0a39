// SPDX-License-Identifier: GPL-2.0
/*
 * mgcap-ctlfuzz DEV [--seed S] [--programs N] [--seconds T] [--threads 1|2]
 *
 * A seeded random driver of mgcap's control plane, run in the VM against a
 * test NIC DEV (syz-execprog's idea, without coverage).  Program i uses seed
 * S+i and makes up to 32 calls drawn from: generic netlink START, STOP, SET
 * and GET (and dumps) with valid, out-of-range, unknown, duplicated and
 * truncated attributes, and unknown commands; open and close of DEV's queue
 * nodes; every ioctl, and unknown ones, with random arguments and bad
 * pointers; random classic BPF programs for SET_FILTER; mmap and munmap of
 * random lengths and offsets, a lying consumer index written through a
 * mapping; read, poll; frames from the test NIC.  With two threads, the odd
 * programs run beside the even ones, on the same device.
 *
 * Checks: every call's result is one the interface may return (mgcap(7),
 * ERRORS); every filter program is accepted or refused exactly as
 * SO_ATTACH_FILTER on a socket treats it; a mapping mgcap granted can be
 * read and written.  What the kernel logs is the VM test's to check.  Ends
 * with "N programs (seeds S..S+N-1), M calls, F failures"; exit status 1
 * with any failure, each named with its program's seed, which replays it
 * alone (--seed SEED --programs 1 --threads 1): every program starts from
 * the same state (DEV captured with 64 KiB rings, no frames pending),
 * whatever the one before left.  A failure beside another thread also
 * names the program that thread ran.
 *
 * Left out on purpose: rings of 1 GiB (a valid size the VM's memory cannot
 * hold: the OOM killer is not what is tested here).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/filter.h>
#include <linux/mgcap.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "mgcap_nl.h"

#define CALLS_MAX	32
#define FDS_MAX		6
#define MAPS_MAX	4

static const char *dev;
static unsigned int dev_ifindex;
static uint64_t seed0;
static long programs = 200;
static double seconds;
static int threads = 2;

static pthread_mutex_t counts_lock = PTHREAD_MUTEX_INITIALIZER;
static long next_program, programs_run, calls_made, failures;
static double deadline;
/* the seed of the program each thread runs, 0 between programs */
static uint64_t running[2];

/* splitmix64: a program's calls follow from its seed alone */
struct rng {
	uint64_t s;
};

static uint64_t next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint32_t below(struct rng *r, uint32_t n)
{
	return (uint32_t)(next(r) % n);
}

#define PICK(r, a) ((a)[below((r), sizeof(a) / sizeof((a)[0]))])

static void random_fill(struct rng *r, void *buf, size_t len)
{
	uint8_t *b = buf;
	size_t i;

	for (i = 0; i < len; i++)
		b[i] = (uint8_t)next(r);
}

/* one program's state: what it opened and mapped, closed at its end */
struct program {
	struct rng rng;
	uint64_t seed;
	int call;
	int fds[FDS_MAX];
	struct { void *addr; size_t len; } maps[MAPS_MAX];
	int sock;		/* for SO_ATTACH_FILTER */
	int thread;
};

static void fail(struct program *pg, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&counts_lock);
	failures++;
	printf("FAIL: program seed %" PRIu64 ", call %d: %s", pg->seed, pg->call, what);
	if (running[!pg->thread])
		printf(" (beside program seed %" PRIu64 ")", running[!pg->thread]);
	printf("\n");
	fflush(stdout);
	pthread_mutex_unlock(&counts_lock);
}

/* the errors each kind of call may end with (mgcap(7), ERRORS) */
static const int nl_errors[] = { EINVAL, ENODEV, EEXIST, ENOENT, EBUSY, ENOMEM, EMSGSIZE,
				 EPERM, EOPNOTSUPP, ERANGE, 0 };
static const int open_errors[] = { ENOENT, ENODEV, EBUSY, ENOMEM, EACCES, 0 };
static const int ioctl_errors[] = { EINVAL, EFAULT, ENOTTY, ENOMEM, ENODEV, 0 };
static const int mmap_errors[] = { EINVAL, ENOMEM, EACCES, EPERM, 0 };
static const int read_errors[] = { EINVAL, EBADF /* opened for writing */, 0 };

static void expect(struct program *pg, const int *allowed, int err, const char *what)
{
	for (; *allowed; allowed++)
		if (*allowed == err)
			return;
	fail(pg, "%s: %s, which it may not return", what, strerror(err));
}

/* --- generic netlink ---------------------------------------------------------- */

/* what fill_random() is handed (mgcap_nl_request() passes it on as const) */
struct nl_call {
	struct program *pg;
};

static void put_random_payload(struct nl_msg *msg, struct rng *r, int type)
{
	uint8_t bytes[24];
	size_t len = below(r, sizeof(bytes) + 1);

	random_fill(r, bytes, len);
	nla_put(msg, type, (int)len, bytes);
}

static int fill_random(struct nl_msg *msg, const void *arg)
{
	struct rng *r = &((const struct nl_call *)arg)->pg->rng;
	static const char *names[] = { NULL, "nosuchdev0", "", "lo", "0123456789abcdefXYZ" };
	static const uint64_t ring_sizes[] = { 0, 1, 4096, MGCAP_RING_SIZE_MIN - 1,
					       MGCAP_RING_SIZE_MIN, MGCAP_RING_SIZE_MIN + 1,
					       1 << 20, 3 << 20, MGCAP_RING_SIZE_MAX + 1, UINT64_MAX };
	static const uint32_t snaplens[] = { 0, 1, 60, 65535, MGCAP_SNAPLEN_MAX,
					     MGCAP_SNAPLEN_MAX + 1, UINT32_MAX };
	uint32_t n = below(r, 6), i;

	for (i = 0; i < n; i++) {
		uint32_t type = below(r, MGCAP_ATTR_MAX + 4);
		const char *name;

		if (below(r, 8) == 0) {		/* truncated, padded or plain garbage */
			put_random_payload(msg, r, (int)type);
			continue;
		}
		switch (type) {
		case MGCAP_ATTR_IFINDEX:
			nla_put_u32(msg, type, below(r, 4) ? dev_ifindex : (uint32_t)next(r));
			break;
		case MGCAP_ATTR_IFNAME:
			name = PICK(r, names);
			nla_put_string(msg, type, name ? name : dev);
			break;
		case MGCAP_ATTR_MODE:
			nla_put_u32(msg, type, below(r, __MGCAP_MODE_MAX + 2));
			break;
		case MGCAP_ATTR_RING_SIZE:
			nla_put_u64(msg, type, PICK(r, ring_sizes));
			break;
		case MGCAP_ATTR_SNAPLEN:
			nla_put_u32(msg, type, PICK(r, snaplens));
			break;
		case MGCAP_ATTR_AUTOSTOP:
			nla_put_flag(msg, type);
			break;
		default:	/* unknown, reply-only or unspec */
			put_random_payload(msg, r, (int)type);
		}
	}
	return 0;
}

static void call_netlink(struct program *pg)
{
	static const uint8_t cmds[] = { MGCAP_CMD_START, MGCAP_CMD_START, MGCAP_CMD_STOP,
					MGCAP_CMD_SET, MGCAP_CMD_GET, MGCAP_CMD_GET,
					MGCAP_CMD_UNSPEC, MGCAP_CMD_MAX + 1, 200 };
	struct mgcap_nl_list out;
	struct mgcap_nl_error e;
	uint8_t cmd = PICK(&pg->rng, cmds);
	int dump = below(&pg->rng, 4) == 0;
	struct nl_call c = { pg };
	char what[64];

	snprintf(what, sizeof(what), "netlink command %u%s", cmd, dump ? " (dump)" : "");
	if (mgcap_nl_request(cmd, dump, fill_random, &c, &out, &e) == 0)
		mgcap_nl_free_list(&out);
	else
		expect(pg, nl_errors, e.err, what);
}

/* --- the queue nodes ------------------------------------------------------------- */

static int *free_slot(struct program *pg)
{
	int i;

	for (i = 0; i < FDS_MAX; i++)
		if (pg->fds[i] < 0)
			return &pg->fds[i];
	return NULL;
}

static int random_fd(struct program *pg)
{
	return pg->fds[below(&pg->rng, FDS_MAX)];
}

static void call_open(struct program *pg)
{
	/* mostly as a reader opens it, so that its mappings are granted */
	static const int flags[] = { O_RDWR, O_RDWR | O_NONBLOCK, O_RDWR, O_RDONLY, O_WRONLY };
	int *slot = free_slot(pg);
	char path[64];
	int fd;

	if (!slot)
		return;
	snprintf(path, sizeof(path), MGCAP_DEVNODE_DIR "/%s@%u", dev, below(&pg->rng, 6));
	fd = open(path, PICK(&pg->rng, flags) | O_CLOEXEC);
	if (fd >= 0)
		*slot = fd;
	else
		expect(pg, open_errors, errno, path);
}

static void call_close(struct program *pg)
{
	int i = (int)below(&pg->rng, FDS_MAX);

	if (pg->fds[i] >= 0)
		close(pg->fds[i]);
	pg->fds[i] = -1;
}

/* a classic BPF program: half of them well formed (a return at the end), all of them random */
static void random_filter(struct rng *r, struct sock_filter *insns, uint32_t len)
{
	static const uint16_t codes[] = {
		BPF_LD | BPF_W | BPF_ABS, BPF_LD | BPF_H | BPF_ABS, BPF_LD | BPF_B | BPF_ABS,
		BPF_LD | BPF_W | BPF_IND, BPF_LD | BPF_W | BPF_LEN, BPF_LD | BPF_IMM,
		BPF_LD | BPF_MEM, BPF_LDX | BPF_B | BPF_MSH, BPF_LDX | BPF_IMM, BPF_LDX | BPF_MEM,
		BPF_ST, BPF_STX, BPF_ALU | BPF_ADD | BPF_K, BPF_ALU | BPF_DIV | BPF_K,
		BPF_ALU | BPF_DIV | BPF_X, BPF_ALU | BPF_MOD | BPF_K, BPF_ALU | BPF_LSH | BPF_K,
		BPF_ALU | BPF_NEG, BPF_ALU | BPF_AND | BPF_X, BPF_JMP | BPF_JA,
		BPF_JMP | BPF_JEQ | BPF_K, BPF_JMP | BPF_JGT | BPF_X, BPF_JMP | BPF_JSET | BPF_K,
		BPF_RET | BPF_K, BPF_RET | BPF_A, BPF_MISC | BPF_TAX, BPF_MISC | BPF_TXA,
	};
	static const uint32_t ks[] = { 0, 1, 12, 14, 16, 23, 0xffff, 0xfffff000 /* SKF_AD_OFF */,
				       0xfffff004, 0xfffff020, 0xffffffff };
	uint32_t i;

	for (i = 0; i < len; i++) {
		insns[i].code = below(r, 16) ? PICK(r, codes) : (uint16_t)next(r);
		insns[i].jt = (uint8_t)below(r, below(r, 4) ? 4 : 256);
		insns[i].jf = (uint8_t)below(r, below(r, 4) ? 4 : 256);
		insns[i].k = below(r, 2) ? PICK(r, ks) : (below(r, 2) ? below(r, 20) :
							 (uint32_t)next(r));
	}
	if (below(r, 2))
		insns[len - 1] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0xffff);
}

/* SET_FILTER as SO_ATTACH_FILTER: the same program accepted or refused alike */
static void call_filter(struct program *pg, int fd)
{
	struct sock_filter insns[64];
	uint32_t len = 1 + below(&pg->rng, 64);
	struct mgcap_filter f = { .len = len, .insns = (uintptr_t)insns };
	struct sock_fprog fprog = { .len = (unsigned short)len, .filter = insns };
	int mine, sock;

	random_filter(&pg->rng, insns, len);
	mine = ioctl(fd, MGCAP_IOC_SET_FILTER, &f) == 0 ? 0 : errno;
	sock = setsockopt(pg->sock, SOL_SOCKET, SO_ATTACH_FILTER, &fprog, sizeof(fprog)) == 0 ?
	       0 : errno;
	if (!sock)
		setsockopt(pg->sock, SOL_SOCKET, SO_DETACH_FILTER, NULL, 0);
	if (mine == ENODEV)	/* the capture went (a STOP, this program's or the other thread's) */
		return;
	if (!mine != !sock)
		fail(pg, "a filter of %u instructions: SET_FILTER %s, SO_ATTACH_FILTER %s", len,
		     mine ? strerror(mine) : "took it", sock ? strerror(sock) : "took it");
	else if (mine)
		expect(pg, ioctl_errors, mine, "SET_FILTER");
}

static void call_ioctl(struct program *pg)
{
	static const unsigned long cmds[] = {
		MGCAP_IOC_INFO, MGCAP_IOC_STATS, MGCAP_IOC_SET_SNAPLEN, MGCAP_IOC_SET_WAKEUP,
		MGCAP_IOC_SET_TSTAMP, MGCAP_IOC_SET_POLL_MARK, MGCAP_IOC_SET_DIRECTIONS,
		_IO(MGCAP_IOC_MAGIC, 0), _IOW(MGCAP_IOC_MAGIC, 9, __u32),
		_IOR(MGCAP_IOC_MAGIC, 1, __u64), 0x5401 /* TCGETS */,
	};
	union { uint8_t bytes[128]; uint64_t align; } arg;
	int fd = random_fd(pg);
	unsigned long cmd;
	void *p = &arg;
	char what[48];

	if (fd < 0)
		return;
	if (below(&pg->rng, 5) == 0) {
		call_filter(pg, fd);
		return;
	}
	cmd = below(&pg->rng, 8) ? PICK(&pg->rng, cmds) : (unsigned long)(uint32_t)next(&pg->rng);
	random_fill(&pg->rng, &arg, sizeof(arg));
	if (below(&pg->rng, 8) == 0)
		p = below(&pg->rng, 2) ? NULL : (void *)(uintptr_t)0x10;	/* bad pointers */
	snprintf(what, sizeof(what), "ioctl 0x%lx", cmd);
	if (ioctl(fd, cmd, p) < 0)
		expect(pg, ioctl_errors, errno, what);
}

/* --- mappings ----------------------------------------------------------------- */

/* a fault while touching a granted mapping is a finding; anywhere else, a crash */
static __thread sigjmp_buf touch_fault;
static __thread volatile sig_atomic_t touching;

static void on_fault(int sig)
{
	if (touching)
		siglongjmp(touch_fault, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* whether the first and the last byte of a mapping read */
static int can_touch(void *addr, size_t len)
{
	if (sigsetjmp(touch_fault, 1)) {
		touching = 0;
		return 0;
	}
	touching = 1;
	(void)*(volatile uint8_t *)addr;
	(void)*(volatile uint8_t *)((uint8_t *)addr + len - 1);
	touching = 0;
	return 1;
}

static void call_mmap(struct program *pg)
{
	struct mgcap_queue_info info;
	size_t page = 4096, len;
	off_t off = 0;
	int fd = random_fd(pg), slot;
	void *addr;

	if (fd < 0)
		return;
	for (slot = 0; slot < MAPS_MAX && pg->maps[slot].addr; slot++)
		;
	if (slot == MAPS_MAX) {
		slot = (int)below(&pg->rng, MAPS_MAX);
		munmap(pg->maps[slot].addr, pg->maps[slot].len);
		pg->maps[slot].addr = NULL;
	}
	len = ioctl(fd, MGCAP_IOC_INFO, &info) == 0 ? info.mmap_size : page;
	switch (below(&pg->rng, 6)) {
	case 0: len = page; break;
	case 1: len += page; break;
	case 2: len = page * (1 + below(&pg->rng, 64)); break;
	case 3: off = (off_t)page * below(&pg->rng, 4); break;
	case 4: len = 0; break;
	default: break;		/* the whole ring, as a reader maps it */
	}
	addr = mmap(NULL, len, PROT_READ | PROT_WRITE | (below(&pg->rng, 8) ? 0 : PROT_EXEC),
		    MAP_SHARED, fd, off);
	if (addr == MAP_FAILED) {
		expect(pg, mmap_errors, errno, "mmap");
		return;
	}
	pg->maps[slot].addr = addr;
	pg->maps[slot].len = len;
	/* granted: it reads, and its control page takes a consumer index, true or not */
	if (!can_touch(addr, len)) {
		fail(pg, "a mapping of %zu bytes at offset %lld faulted", len, (long long)off);
		return;
	}
	if (off == 0 && len >= sizeof(struct mgcap_ring_ctrl) && below(&pg->rng, 2)) {
		struct mgcap_ring_ctrl *ctrl = addr;

		__atomic_store_n(&ctrl->consumer, below(&pg->rng, 2) ? next(&pg->rng) :
				 __atomic_load_n(&ctrl->producer, __ATOMIC_ACQUIRE),
				 __ATOMIC_RELEASE);
	}
}

static void call_munmap(struct program *pg)
{
	int slot = (int)below(&pg->rng, MAPS_MAX);

	if (pg->maps[slot].addr)
		munmap(pg->maps[slot].addr, pg->maps[slot].len);
	pg->maps[slot].addr = NULL;
}

static void call_read_poll(struct program *pg)
{
	struct pollfd pfd;
	char buf[64];
	int fd = random_fd(pg);

	if (fd < 0)
		return;
	if (below(&pg->rng, 2)) {
		if (read(fd, buf, below(&pg->rng, sizeof(buf))) < 0)
			expect(pg, read_errors, errno, "read");
		return;
	}
	pfd.fd = fd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, (int)below(&pg->rng, 3)) < 0)
		fail(pg, "poll: %s", strerror(errno));
}

/* the test NIC's generator: "all N", or "stop" */
static void generate(const char *what)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/mgtestnic/generate", dev);
	f = fopen(path, "w");
	if (f) {
		fputs(what, f);
		fclose(f);
	}
}

static void call_traffic(struct program *pg)
{
	char what[32];

	snprintf(what, sizeof(what), "all %u\n", 1 + below(&pg->rng, 200));
	generate(what);
}

/*
 * Where every program starts: DEV captured with the smallest rings (a
 * start's cost is their allocation), no frames pending.
 */
static void reset_state(void)
{
	struct mgcap_nl_start defaults = { .ring_size = MGCAP_RING_SIZE_MIN, .mode = -1 };
	struct mgcap_nl_error e;

	generate("stop\n");
	mgcap_nl_stop(dev, &e);
	mgcap_nl_start(dev, &defaults, NULL, &e);
}

/* --- programs ----------------------------------------------------------------- */

static void run_program(uint64_t seed, int thread)
{
	struct program pg = { .rng = { seed }, .seed = seed, .sock = -1, .thread = thread };
	int i, calls;

	reset_state();
	pthread_mutex_lock(&counts_lock);
	running[thread] = seed;
	pthread_mutex_unlock(&counts_lock);
	for (i = 0; i < FDS_MAX; i++)
		pg.fds[i] = -1;
	pg.sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	calls = 1 + (int)below(&pg.rng, CALLS_MAX);
	for (pg.call = 0; pg.call < calls; pg.call++) {
		switch (below(&pg.rng, 16)) {
		case 0: case 1: case 2: call_netlink(&pg); break;
		case 3: case 4: case 5: call_open(&pg); break;
		case 6: call_close(&pg); break;
		case 7: case 8: case 9: call_ioctl(&pg); break;
		case 10: case 11: call_mmap(&pg); break;
		case 12: call_munmap(&pg); break;
		case 13: case 14: call_read_poll(&pg); break;
		default: call_traffic(&pg); break;
		}
	}
	for (i = 0; i < MAPS_MAX; i++)
		if (pg.maps[i].addr)
			munmap(pg.maps[i].addr, pg.maps[i].len);
	for (i = 0; i < FDS_MAX; i++)
		if (pg.fds[i] >= 0)
			close(pg.fds[i]);
	close(pg.sock);
	pthread_mutex_lock(&counts_lock);
	running[thread] = 0;
	programs_run++;
	calls_made += calls;
	pthread_mutex_unlock(&counts_lock);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *worker(void *arg)
{
	int thread = (int)(intptr_t)arg;

	for (;;) {
		long i;

		pthread_mutex_lock(&counts_lock);
		i = next_program < programs && (!seconds || now_s() < deadline) ? next_program++ : -1;
		pthread_mutex_unlock(&counts_lock);
		if (i < 0)
			return NULL;
		run_program(seed0 + (uint64_t)i, thread);
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: mgcap-ctlfuzz DEV [--seed S] [--programs N] [--seconds T] "
		"[--threads 1|2]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "programs", required_argument, NULL, 'n' },
		{ "seconds", required_argument, NULL, 't' },
		{ "threads", required_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct sigaction sa;
	pthread_t thr[2];
	int c, i;

	seed0 = (uint64_t)time(NULL);
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 's': seed0 = strtoull(optarg, NULL, 0); break;
		case 'n': programs = strtol(optarg, NULL, 0); break;
		case 't': seconds = strtod(optarg, NULL); break;
		case 'j': threads = atoi(optarg); break;
		default: usage();
		}
	}
	if (optind + 1 != argc || programs < 1 || threads < 1 || threads > 2)
		usage();
	dev = argv[optind];
	dev_ifindex = if_nametoindex(dev);
	if (!dev_ifindex) {
		fprintf(stderr, "mgcap-ctlfuzz: no device %s\n", dev);
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fault;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	deadline = now_s() + seconds;
	for (i = 0; i < threads; i++)
		pthread_create(&thr[i], NULL, worker, (void *)(intptr_t)i);
	for (i = 0; i < threads; i++)
		pthread_join(thr[i], NULL);
	printf("%ld programs (seeds %" PRIu64 "..%" PRIu64 "), %ld calls, %ld failures\n",
	       programs_run, seed0, seed0 + (uint64_t)programs_run - 1, calls_made, failures);
	return failures ? 1 : 0;
}
