// SPDX-License-Identifier: BSD-2-Clause
/* mgdump's files: names as tcpdump's, rotation between whole blocks, statistics at the end. */
#include <errno.h>
#include <fcntl.h>
#include <pcap/pcap.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dump_output.h"
#include "postrotate.h"
#include "unit.h"

/*
 * A disk that fills on demand: the files' write(), open() and unlink()
 * come here (the unit tests link with --wrap for each).  Writes fail with
 * ENOSPC once room_writes more went (-1: never), opens while opens_full is
 * set; with unlink_makes_room, removing a file ends both.
 */
static int room_writes = -1, opens_full, unlink_makes_room;
ssize_t __real_write(int fd, const void *buf, size_t n);
ssize_t __wrap_write(int fd, const void *buf, size_t n);
int __real_open(const char *path, int flags, ...);
int __wrap_open(const char *path, int flags, ...);
int __real_unlink(const char *path);
int __wrap_unlink(const char *path);

int __wrap_unlink(const char *path)
{
	int ret = __real_unlink(path);

	if (ret == 0 && unlink_makes_room) {
		room_writes = -1;
		opens_full = 0;
	}
	return ret;
}

ssize_t __wrap_write(int fd, const void *buf, size_t n)
{
	if (room_writes == 0) {
		errno = ENOSPC;
		return -1;
	}
	if (room_writes > 0)
		room_writes--;
	return __real_write(fd, buf, n);
}

int __wrap_open(const char *path, int flags, ...)
{
	int mode = 0;

	if (flags & O_CREAT) {
		va_list ap;

		va_start(ap, flags);
		mode = va_arg(ap, int);
		va_end(ap);
	}
	if (opens_full) {
		errno = ENOSPC;
		return -1;
	}
	return __real_open(path, flags, mode);
}

static void test_file_names(void)
{
	char name[64];

	dump_output_file_name(name, sizeof(name), "cap", 0, 0, 0);
	CU_ASSERT_STRING_EQUAL(name, "cap");
	dump_output_file_name(name, sizeof(name), "cap", 0, 1, 0);
	CU_ASSERT_STRING_EQUAL(name, "cap");
	dump_output_file_name(name, sizeof(name), "cap", 2, 1, 0);
	CU_ASSERT_STRING_EQUAL(name, "cap2");
	dump_output_file_name(name, sizeof(name), "cap", 0, 1, 3);
	CU_ASSERT_STRING_EQUAL(name, "cap0");
	dump_output_file_name(name, sizeof(name), "cap", 7, 1, 100);
	CU_ASSERT_STRING_EQUAL(name, "cap07");
}

static const struct dump_interface ifs[] = {
	{ "mgt0@0", "queue 0", 1, 96 },
	{ "mgt0@1", "queue 1", 1, 96 },
};

static size_t blocks(uint8_t *buf, uint32_t first, uint32_t n)
{
	uint8_t data[96];
	size_t off = 0;
	uint32_t i;

	for (i = first; i < first + n; i++) {
		memset(data, (int)i, sizeof(data));
		memcpy(data, &i, sizeof(i));
		/* (sent and received in turn: blocks of two lengths) */
		off += pcapng_epb(buf + off, 1 << 20, i % 2, 1700000000000000000ULL + i, data,
				  sizeof(data), 128, i % 3 ? PCAPNG_EPB_FLAGS_INBOUND :
							     PCAPNG_EPB_FLAGS_OUTBOUND);
	}
	return off;
}

/* Reads every file in order: the packets must be 0..n-1 with nothing missing. */
static uint32_t read_back(const char *dir, const char *base, unsigned int files, unsigned int keep)
{
	uint32_t next = 0;
	unsigned int f;

	for (f = 0; f < files; f++) {
		char name[512], path[600], err[PCAP_ERRBUF_SIZE];
		struct pcap_pkthdr *h;
		const u_char *d;
		struct stat st;
		pcap_t *p;

		dump_output_file_name(name, sizeof(name), base, f, 1, keep);
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		p = pcap_open_offline(path, err);
		CU_ASSERT_PTR_NOT_NULL_FATAL(p);
		while (pcap_next_ex(p, &h, &d) == 1) {
			uint32_t seq;

			memcpy(&seq, d, 4);
			CU_ASSERT_EQUAL(seq, next);
			next = seq + 1;
		}
		pcap_close(p);
		CU_ASSERT(stat(path, &st) == 0 && st.st_size <= 4096);
	}
	return next;
}

static void fixed_stats(struct pcapng_if_stats *st, size_t n, void *arg)
{
	CU_ASSERT_EQUAL(n, 2);
	(*(int *)arg)++;
	st[0] = (struct pcapng_if_stats){ 1, 2, 100, 1, 2, 97, 3, "" };
}

static void test_rotation_between_whole_blocks(void)
{
	static uint8_t buf[1 << 20];
	char dir[] = "/tmp/mgcap-dump-XXXXXX", path[600], cmd[640];
	struct dump_output o;
	int collected = 0;
	size_t len;

	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/cap", dir);
	memset(&o, 0, sizeof(o));
	o.path = path;
	o.rotate_bytes = 4096;
	o.ifs = ifs;
	o.nifs = 2;
	o.collect_stats = fixed_stats;
	o.collect_arg = &collected;
	CU_ASSERT_FATAL(dump_output_open(&o) == 0);
	/* 100 blocks of 128 bytes in uneven writes */
	len = blocks(buf, 0, 37);
	CU_ASSERT_EQUAL(dump_output_write(&o, buf, len), 0);
	len = blocks(buf, 37, 63);
	CU_ASSERT_EQUAL(dump_output_write(&o, buf, len), 0);
	CU_ASSERT_EQUAL(dump_output_close(&o), 0);
	CU_ASSERT(o.files_done >= 4);
	/* counters are collected once per file, not per write */
	CU_ASSERT_EQUAL(collected, (int)o.files_done);
	CU_ASSERT_EQUAL(read_back(dir, "cap", (unsigned int)o.files_done, 0), 100);
	/* the statistics blocks carry the buffer drops */
	snprintf(cmd, sizeof(cmd), "grep -q 'buffer drops: 3' %s/cap", dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
	unit_remove_dir(dir);
}

/*
 * Paged output (mgdump --per-queue): whole pages written as they are, the
 * header and the statistics each padded to pages, and a file ended inside
 * a page: that page's blocks before the end close it, the rest of the page
 * begins the next after its header.  Both read whole, every packet once.
 */
/* Paged output's writes in flight, every one done: their bytes */
static uint64_t written_out(struct dump_output *o)
{
	uint64_t all = 0, n = 0;

	do {
		CU_ASSERT_FATAL(dump_output_reap(o, 1, &n) == 0);
		all += n;
	} while (paged_writes_in_flight(&o->writes));
	return all;
}

static void test_paged_files_end_inside_a_page(void)
{
	enum { PAGE = MGCAP_PAGE_SIZE, BLOCKS = 438 };
	static uint8_t stream[16 * PAGE] __attribute__((aligned(PAGE)));
	char dir[] = "/tmp/mgcap-dump-XXXXXX", path[600];
	size_t len = blocks(stream, 0, BLOCKS), block = len / BLOCKS, cut, f;
	uint32_t next = 0;
	struct dump_output o;
	int collected = 0;

	/* a ring's 15 pages: 438 blocks of 140 bytes, a filler to the end of the 15th */
	CU_ASSERT_FATAL(block == 140 && len < 15 * PAGE);
	CU_ASSERT_FATAL(pcapng_filler(stream + len, sizeof(stream) - len,
				      (uint32_t)(15 * PAGE - len)) == 15 * PAGE - len);
	/* the end of the first file: the first block's end in the 6th page */
	cut = (5 * PAGE / block + 1) * block;
	CU_ASSERT_FATAL(cut > 5 * PAGE && cut < 6 * PAGE);
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/cap", dir);
	memset(&o, 0, sizeof(o));
	o.path = path;
	o.paged = 1;
	o.ring_fd = -1;
	o.rotate_bytes = 1000000;
	/* (the blocks are of two interfaces in turn) */
	o.ifs = ifs;
	o.nifs = 2;
	o.collect_stats = fixed_stats;
	o.collect_arg = &collected;
	CU_ASSERT_FATAL(dump_output_open(&o) == 0);
	CU_ASSERT_EQUAL(o.file_bytes, PAGE);
	CU_ASSERT_EQUAL(dump_output_write(&o, stream, 5 * PAGE), 0);
	/* (a write in flight: nothing else goes until it is done) */
	CU_ASSERT_EQUAL(dump_output_end_page(&o, stream + 5 * PAGE, cut - 5 * PAGE),
			paged_writes_in_flight(&o.writes) ? -1 : 0);
	CU_ASSERT_EQUAL(written_out(&o), 5 * PAGE);
	/* with -C: due once what is pending would take it past its room */
	CU_ASSERT_EQUAL(dump_output_room(&o), 1000000 - 8 * PAGE);
	CU_ASSERT(!dump_output_due(&o, 1000000 - 8 * PAGE));
	CU_ASSERT(dump_output_due(&o, 1000000 - 8 * PAGE + 1));
	CU_ASSERT_EQUAL(dump_output_end_page(&o, stream + 5 * PAGE, cut - 5 * PAGE), 0);
	dump_output_lead(&o, stream + cut, 6 * PAGE - cut);
	/* (the lead is the output's own: the ring may overwrite its page now) */
	memset(stream + 5 * PAGE, 0xa5, PAGE);
	CU_ASSERT_EQUAL(dump_output_rotate(&o), 0);
	CU_ASSERT_EQUAL(o.file_bytes % PAGE, 0);
	CU_ASSERT_EQUAL(dump_output_write(&o, stream + 6 * PAGE, 9 * PAGE), 0);
	CU_ASSERT_EQUAL(written_out(&o), 9 * PAGE);
	CU_ASSERT_EQUAL(dump_output_close(&o), 0);
	CU_ASSERT_EQUAL(o.files_done, 2);
	CU_ASSERT_EQUAL(collected, 2);
	for (f = 0; f < 2; f++) {
		char name[700], err[PCAP_ERRBUF_SIZE];
		struct pcap_pkthdr *h;
		const u_char *d;
		struct stat st;
		pcap_t *p;
		int ret;

		dump_output_file_name(name, sizeof(name), path, (unsigned int)f, 1, 0);
		CU_ASSERT_FATAL(stat(name, &st) == 0);
		CU_ASSERT_EQUAL(st.st_size % PAGE, 0);
		p = pcap_open_offline(name, err);
		CU_ASSERT_PTR_NOT_NULL_FATAL(p);
		while ((ret = pcap_next_ex(p, &h, &d)) == 1) {
			uint32_t seq;

			memcpy(&seq, d, 4);
			CU_ASSERT_EQUAL(seq, next);
			next = seq + 1;
		}
		CU_ASSERT_EQUAL(ret, PCAP_ERROR_BREAK);	/* the file's end, nothing torn */
		/* the first file ends at the cut */
		if (f == 0)
			CU_ASSERT_EQUAL(next, cut / block);
		pcap_close(p);
	}
	CU_ASSERT_EQUAL(next, BLOCKS);
	unit_remove_dir(dir);
}

static void test_ring_of_files(void)
{
	static uint8_t buf[1 << 20];
	char dir[] = "/tmp/mgcap-dump-XXXXXX", path[600], cmd[640];
	struct dump_output o;
	unsigned int i;
	size_t len;

	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/ring", dir);
	memset(&o, 0, sizeof(o));
	o.path = path;
	o.rotate_bytes = 4096;
	o.keep = 3;
	o.ifs = ifs;
	o.nifs = 2;
	CU_ASSERT_FATAL(dump_output_open(&o) == 0);
	len = blocks(buf, 0, 300);
	CU_ASSERT_EQUAL(dump_output_write(&o, buf, len), 0);
	CU_ASSERT_EQUAL(dump_output_close(&o), 0);
	snprintf(cmd, sizeof(cmd), "test $(ls %s | wc -l) -eq 3", dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
	/* a restart goes on at the ring's oldest file (ring1), which it overwrites first */
	for (i = 0; i < 3; i++) {
		struct timespec at[2] = { { 1700000000 + (i + 2) % 3, 0 },
					  { 1700000000 + (i + 2) % 3, 0 } };

		snprintf(cmd, sizeof(cmd), "%s/ring%u", dir, i);
		CU_ASSERT(utimensat(AT_FDCWD, cmd, at, 0) == 0);
	}
	CU_ASSERT_FATAL(dump_output_open(&o) == 0);
	CU_ASSERT_EQUAL(o.index, 1);
	CU_ASSERT_EQUAL(dump_output_close(&o), 0);
	/* or at its first free name */
	snprintf(cmd, sizeof(cmd), "%s/ring2", dir);
	CU_ASSERT(unlink(cmd) == 0);
	CU_ASSERT_FATAL(dump_output_open(&o) == 0);
	CU_ASSERT_EQUAL(o.index, 2);
	CU_ASSERT_EQUAL(dump_output_close(&o), 0);
	unit_remove_dir(dir);
}

/* A write the disk takes only part of: the whole blocks that fit stay in the file. */
static void test_full_disk_keeps_whole_blocks(void)
{
	static uint8_t buf[1 << 16];
	char dir[] = "/tmp/mgcap-dump-XXXXXX", path[600];
	struct dump_output o;
	struct rlimit saved, lim;
	struct stat st;
	uint64_t header;
	size_t one, len;

	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/cap", dir);
	memset(&o, 0, sizeof(o));
	o.path = path;
	o.ifs = ifs;
	o.nifs = 2;
	CU_ASSERT_FATAL(dump_output_open(&o) == 0);
	header = o.file_bytes;
	one = blocks(buf, 0, 1);
	len = blocks(buf, 0, 10);
	/* room for 3.5 blocks: write() stops short, then fails (EFBIG, not a signal) */
	signal(SIGXFSZ, SIG_IGN);
	CU_ASSERT_FATAL(getrlimit(RLIMIT_FSIZE, &saved) == 0);
	lim = saved;
	lim.rlim_cur = header + 3 * one + one / 2;
	CU_ASSERT_FATAL(setrlimit(RLIMIT_FSIZE, &lim) == 0);
	CU_ASSERT_EQUAL(dump_output_write(&o, buf, len), -1);
	CU_ASSERT_FATAL(setrlimit(RLIMIT_FSIZE, &saved) == 0);
	signal(SIGXFSZ, SIG_DFL);
	CU_ASSERT_EQUAL(o.kept, 3 * one);
	CU_ASSERT_PTR_NOT_NULL(strstr(o.error, "File too large"));
	CU_ASSERT(stat(o.part, &st) == 0 && (uint64_t)st.st_size == header + 3 * one);
	CU_ASSERT_EQUAL(dump_output_close(&o), 0);
	CU_ASSERT_EQUAL(read_back(dir, "cap", 1, 0), 3);
	unit_remove_dir(dir);
}

/* @o set up for files @dir/@base (a new directory made from @dir's template) */
static void output_in_new_dir(struct dump_output *o, char *dir, char *path, size_t len,
			      const char *base)
{
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(path, len, "%s/%s", dir, base);
	memset(o, 0, sizeof(*o));
	o->path = path;
	o->ifs = ifs;
	o->nifs = 2;
}

/*
 * A full disk (/dev/full in place of the file): the write fails saying so,
 * and none of it stays; once there is room the next one goes; a close on a
 * full disk still names the file, whole without its statistics.
 */
static void test_full_disk_then_room(void)
{
	static uint8_t buf[1 << 16];
	char dir[] = "/tmp/mgcap-dump-XXXXXX", path[600], cmd[640];
	struct dump_output o;
	struct stat st;
	int file_fd, full_fd, calls = 0;
	uint64_t header;
	size_t len = blocks(buf, 0, 10);

	output_in_new_dir(&o, dir, path, sizeof(path), "cap");
	o.collect_stats = fixed_stats;
	o.collect_arg = &calls;
	CU_ASSERT_FATAL(dump_output_open(&o) == 0);
	header = o.file_bytes;
	file_fd = dup(o.fd);
	full_fd = open("/dev/full", O_WRONLY);
	CU_ASSERT_FATAL(file_fd >= 0 && full_fd >= 0);

	CU_ASSERT_FATAL(dup2(full_fd, o.fd) == o.fd);
	CU_ASSERT_EQUAL(dump_output_write(&o, buf, len), -1);
	CU_ASSERT(o.full);
	CU_ASSERT_EQUAL(o.kept, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(o.error, "No space left on device"));
	CU_ASSERT_EQUAL(o.file_bytes, header);

	CU_ASSERT_FATAL(dup2(file_fd, o.fd) == o.fd);
	CU_ASSERT_EQUAL(dump_output_write(&o, buf, len), 0);
	CU_ASSERT(!o.full);
	CU_ASSERT_EQUAL(o.kept, len);

	CU_ASSERT_FATAL(dup2(full_fd, o.fd) == o.fd);
	CU_ASSERT_EQUAL(dump_output_close(&o), 0);
	CU_ASSERT_EQUAL(calls, 1);
	snprintf(cmd, sizeof(cmd), "%s/cap", dir);
	CU_ASSERT(stat(cmd, &st) == 0 && (uint64_t)st.st_size == header + len);
	CU_ASSERT_EQUAL(read_back(dir, "cap", 1, 0), 10);
	close(file_fd);
	close(full_fd);
	unit_remove_dir(dir);
}

/* The types of the blocks of file @path, one letter each (S, I, E, s), in order. */
static void block_types(const char *path, char *types, size_t cap)
{
	static uint8_t data[1 << 16];
	size_t n = 0, off = 0, t = 0;
	FILE *f = fopen(path, "rb");

	if (f) {
		n = fread(data, 1, sizeof(data), f);
		fclose(f);
	}
	while (off + 12 <= n && t + 1 < cap) {
		uint32_t type = pcapng_block_type(data + off);

		types[t++] = type == PCAPNG_SHB_TYPE ? 'S' : type == PCAPNG_IDB_TYPE ? 'I' :
			     type == PCAPNG_EPB_TYPE ? 'E' : type == PCAPNG_ISB_TYPE ? 's' : '?';
		off += pcapng_block_len(data + off);
	}
	types[t] = '\0';
}

/*
 * -C rotates while the disk is full: the file it ends keeps its blocks
 * without its statistics; the next cannot be opened, then gets half of its
 * header; once there is room, the next write starts it (one header, from
 * the start) and its blocks follow.
 */
static void test_rotation_while_full(void)
{
	static uint8_t buf[1 << 16];
	char dir[] = "/tmp/mgcap-dump-XXXXXX", path[600], cmd[640], types[64];
	struct dump_output o;
	size_t one = blocks(buf, 0, 1), four;

	output_in_new_dir(&o, dir, path, sizeof(path), "cap");
	o.rotate_bytes = 1 << 20;	/* (set below, once the header's size is known) */
	o.collect_stats = fixed_stats;
	o.collect_arg = &(int){ 0 };
	CU_ASSERT_FATAL(dump_output_open(&o) == 0);
	o.rotate_bytes = o.file_bytes + 4 * one + 2 * PCAPNG_ISB_MAX;
	four = blocks(buf, 0, 4);
	CU_ASSERT_EQUAL(dump_output_write(&o, buf, four), 0);

	/* the next four need the next file: no room for the statistics, nor to open it */
	four = blocks(buf, 4, 4);
	room_writes = 0;
	opens_full = 1;
	CU_ASSERT_EQUAL(dump_output_write(&o, buf, four), -1);
	CU_ASSERT(o.full);
	CU_ASSERT_EQUAL(o.kept, 0);
	CU_ASSERT_EQUAL(o.files_done, 1);
	/* the open goes, the section header too, the interfaces' do not */
	opens_full = 0;
	room_writes = 1;
	CU_ASSERT_EQUAL(dump_output_write(&o, buf, four), -1);
	CU_ASSERT(o.full);
	CU_ASSERT_EQUAL(o.file_bytes, 0);
	/* room */
	room_writes = -1;
	CU_ASSERT_EQUAL(dump_output_write(&o, buf, four), 0);
	CU_ASSERT(!o.full);
	CU_ASSERT_EQUAL(o.kept, four);
	CU_ASSERT_EQUAL(dump_output_close(&o), 0);

	block_types(path, types, sizeof(types));
	CU_ASSERT_STRING_EQUAL(types, "SIIEEEE");
	snprintf(cmd, sizeof(cmd), "%s1", path);
	block_types(cmd, types, sizeof(types));
	CU_ASSERT_STRING_EQUAL(types, "SIIEEEEss");
	CU_ASSERT_EQUAL(read_back(dir, "cap", 2, 0), 8);
	unit_remove_dir(dir);
}

/*
 * -C with -W on a full disk: the file a new one replaces goes at once, and
 * with the room it leaves the new one is written whole.
 */
static void test_ring_makes_its_own_room(void)
{
	static uint8_t buf[1 << 16];
	char dir[] = "/tmp/mgcap-dump-XXXXXX", path[600], cmd[640], types[64];
	struct dump_output o;
	size_t one = blocks(buf, 0, 1), four;
	struct stat st;

	output_in_new_dir(&o, dir, path, sizeof(path), "ring");
	o.keep = 2;
	o.rotate_bytes = 1 << 20;
	CU_ASSERT_FATAL(dump_output_open(&o) == 0);
	o.rotate_bytes = o.file_bytes + 4 * one + 2 * PCAPNG_ISB_MAX;
	/* ring0 and ring1 full, ring0 again started */
	four = blocks(buf, 0, 4);
	CU_ASSERT_EQUAL(dump_output_write(&o, buf, four), 0);
	four = blocks(buf, 4, 4);
	CU_ASSERT_EQUAL(dump_output_write(&o, buf, four), 0);
	four = blocks(buf, 8, 4);
	CU_ASSERT_EQUAL(dump_output_write(&o, buf, four), 0);
	CU_ASSERT_EQUAL(o.index, 0);
	/*
	 * The disk fills as ring1 is reused: the old ring1 goes, and in the
	 * room it leaves the new one's header and blocks; then as ring0 is,
	 * after the new one's header: the old ring0 goes for its blocks.
	 */
	snprintf(cmd, sizeof(cmd), "%s1", path);
	CU_ASSERT(stat(cmd, &st) == 0);
	unlink_makes_room = 1;
	room_writes = 0;
	four = blocks(buf, 12, 4);
	CU_ASSERT_EQUAL(dump_output_write(&o, buf, four), 0);
	CU_ASSERT(room_writes == -1 && stat(cmd, &st) != 0);
	snprintf(cmd, sizeof(cmd), "%s0", path);
	CU_ASSERT(stat(cmd, &st) == 0);
	room_writes = 3;
	four = blocks(buf, 16, 4);
	CU_ASSERT_EQUAL(dump_output_write(&o, buf, four), 0);
	CU_ASSERT(room_writes == -1 && stat(cmd, &st) != 0);
	unlink_makes_room = 0;
	CU_ASSERT_EQUAL(o.kept, four);
	CU_ASSERT_EQUAL(dump_output_close(&o), 0);
	block_types(cmd, types, sizeof(types));
	CU_ASSERT_STRING_EQUAL(types, "SIIEEEE");
	snprintf(cmd, sizeof(cmd), "%s1", path);
	block_types(cmd, types, sizeof(types));
	CU_ASSERT_STRING_EQUAL(types, "SIIEEEE");
	unit_remove_dir(dir);
}

/* A file never started for a full disk leaves nothing behind at the close. */
static void test_file_never_started_leaves_nothing(void)
{
	static uint8_t buf[1 << 16];
	char dir[] = "/tmp/mgcap-dump-XXXXXX", path[600], cmd[640];
	struct dump_output o;
	size_t one = blocks(buf, 0, 1);
	struct stat st;

	output_in_new_dir(&o, dir, path, sizeof(path), "cap");
	CU_ASSERT_FATAL(dump_output_open(&o) == 0);
	/* SIGHUP on a full disk: the next file's header does not fit */
	room_writes = 0;
	CU_ASSERT_EQUAL(dump_output_rotate(&o), -1);
	CU_ASSERT(o.full);
	CU_ASSERT_EQUAL(dump_output_write(&o, buf, one), -1);
	room_writes = -1;
	CU_ASSERT_EQUAL(dump_output_close(&o), 0);
	CU_ASSERT_EQUAL(o.files_done, 1);
	CU_ASSERT(stat(path, &st) == 0);
	snprintf(cmd, sizeof(cmd), "%s1.part", path);
	CU_ASSERT(stat(cmd, &st) != 0);
	snprintf(cmd, sizeof(cmd), "%s1", path);
	CU_ASSERT(stat(cmd, &st) != 0);
	unit_remove_dir(dir);
}

/*
 * With an index: the file being written has NAME.idx.part beside it, and
 * once complete NAME.idx, of the blocks that went in (not of a write the
 * full disk refused), its end the file's size and packets; none is left
 * half written.
 */
static void test_index_beside_each_file(void)
{
	static const uint8_t ethernet[2] = { 1, 1 };
	static uint8_t buf[1 << 16];
	char dir[] = "/tmp/mgcap-dump-XXXXXX", path[600], name[700], err[800], cmd[640];
	struct dump_output o;
	struct capindex idx;
	struct stat st;
	uint64_t header, packets = 0;
	size_t len = blocks(buf, 0, 10), i;
	int file_fd, full_fd;

	output_in_new_dir(&o, dir, path, sizeof(path), "cap");
	o.capindex = capindex_writer_new(ethernet, 2);
	CU_ASSERT_FATAL(o.capindex != NULL);
	CU_ASSERT_FATAL(dump_output_open(&o) == 0);
	header = o.file_bytes;
	snprintf(name, sizeof(name), "%s.idx.part", path);
	CU_ASSERT(stat(name, &st) == 0);
	file_fd = dup(o.fd);
	full_fd = open("/dev/full", O_WRONLY);
	CU_ASSERT_FATAL(file_fd >= 0 && full_fd >= 0);
	CU_ASSERT_FATAL(dup2(full_fd, o.fd) == o.fd);
	CU_ASSERT_EQUAL(dump_output_write(&o, buf, len), -1);
	CU_ASSERT_FATAL(dup2(file_fd, o.fd) == o.fd);
	CU_ASSERT_EQUAL(dump_output_write(&o, buf, len), 0);
	close(file_fd);
	close(full_fd);
	/* SIGHUP: the first file complete with its index, the next one begun */
	CU_ASSERT_EQUAL(dump_output_rotate(&o), 0);
	CU_ASSERT_EQUAL(dump_output_write(&o, buf, blocks(buf, 10, 5)), 0);
	CU_ASSERT_EQUAL(dump_output_close(&o), 0);
	snprintf(name, sizeof(name), "%s.idx", path);
	CU_ASSERT_EQUAL_FATAL(capindex_load(name, &idx, err, sizeof(err)), 0);
	CU_ASSERT(stat(path, &st) == 0);
	CU_ASSERT_EQUAL(idx.end.file_bytes, (uint64_t)st.st_size);
	CU_ASSERT_EQUAL(idx.end.packets, 10);
	CU_ASSERT(idx.nspans >= 1);
	CU_ASSERT_EQUAL(idx.spans[0]->offset, header);
	for (i = 0; i < idx.nspans; i++)
		packets += idx.spans[i]->packets;
	CU_ASSERT_EQUAL(packets, 10);
	CU_ASSERT_EQUAL(idx.spans[idx.nspans - 1]->offset + idx.spans[idx.nspans - 1]->length,
			header + len);
	capindex_release(&idx);
	snprintf(name, sizeof(name), "%s1.idx", path);
	CU_ASSERT_EQUAL_FATAL(capindex_load(name, &idx, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(idx.end.packets, 5);
	capindex_release(&idx);
	snprintf(cmd, sizeof(cmd), "ls %s | grep -q part", dir);
	CU_ASSERT_EQUAL(system(cmd), 256);	/* grep found none */
	capindex_writer_free(o.capindex);
	unit_remove_dir(dir);
}

static void test_unwritable_path(void)
{
	struct dump_output o;

	memset(&o, 0, sizeof(o));
	o.path = "/nonexistent-dir/cap";
	o.ifs = ifs;
	o.nifs = 1;
	CU_ASSERT_EQUAL(dump_output_open(&o), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(o.error, "/nonexistent-dir/cap: No such file or directory"));
}

static uint64_t fake_now;

static uint64_t fake_clock(void)
{
	return fake_now;
}

static void note_done(const char *path, void *arg)
{
	char *list = arg;
	const char *base = strrchr(path, '/');

	strcat(list, base ? base + 1 : path);
	strcat(list, " ");
}

static int count_packets(const char *path)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *d;
	pcap_t *p = pcap_open_offline(path, err);
	int n = 0;

	if (!p)
		return -1;
	while (pcap_next_ex(p, &h, &d) == 1)
		n++;
	pcap_close(p);
	return n;
}

/*
 * -G 10 over a clock that jumps: a file for each period with packets or
 * not, named through strftime at the period's start; each under a .part
 * name until complete; a name a file has (a restart's) is never taken.
 */
static void test_rotation_by_time(void)
{
	static uint8_t buf[1 << 16];
	char dir[] = "/tmp/mgcap-dump-XXXXXX", path[600], name[700], cmd[700], done[4096] = "";
	struct dump_output o;
	struct stat st;
	size_t len = blocks(buf, 0, 10);
	FILE *f;

	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	setenv("TZ", "UTC", 1);
	tzset();
	snprintf(path, sizeof(path), "%s/t-%%Y%%m%%d-%%H%%M%%S.pcapng", dir);
	/* what an earlier run left at the second period's name */
	snprintf(name, sizeof(name), "%s/t-20231114-221330.pcapng", dir);
	f = fopen(name, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs("earlier", f);
	fclose(f);
	o = (struct dump_output){ .path = path, .rotate_seconds = 10, .ifs = ifs, .nifs = 2,
				  .clock_ns = fake_clock, .file_done = note_done,
				  .file_done_arg = done };
	fake_now = 1700000003ULL * 1000000000ULL;	/* 2023-11-14 22:13:23 UTC */
	CU_ASSERT_FATAL(dump_output_open(&o) == 0);
	snprintf(name, sizeof(name), "%s/t-20231114-221320.pcapng.part", dir);
	CU_ASSERT_STRING_EQUAL(o.part, name);
	CU_ASSERT_EQUAL(stat(name, &st), 0);
	CU_ASSERT_EQUAL(dump_output_write(&o, buf, len), 0);
	fake_now += 10ULL * 1000000000ULL;		/* :33, the next period */
	CU_ASSERT_EQUAL(dump_output_write(&o, buf, len), 0);
	CU_ASSERT_EQUAL(stat(name, &st), -1);		/* complete: renamed */
	fake_now += 25ULL * 1000000000ULL;		/* :58, past an idle period */
	CU_ASSERT_EQUAL(dump_output_tick(&o), 0);
	CU_ASSERT_EQUAL(dump_output_close(&o), 0);
	CU_ASSERT_STRING_EQUAL(done, "t-20231114-221320.pcapng t-20231114-221330.pcapng1 "
				     "t-20231114-221350.pcapng ");
	snprintf(name, sizeof(name), "%s/t-20231114-221320.pcapng", dir);
	CU_ASSERT_EQUAL(count_packets(name), 10);
	snprintf(name, sizeof(name), "%s/t-20231114-221330.pcapng1", dir);
	CU_ASSERT_EQUAL(count_packets(name), 10);
	snprintf(name, sizeof(name), "%s/t-20231114-221350.pcapng", dir);
	CU_ASSERT_EQUAL(count_packets(name), 0);
	snprintf(cmd, sizeof(cmd), "test \"$(cat %s/t-20231114-221330.pcapng)\" = earlier && "
		 "! ls %s | grep -q part", dir, dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
	unit_remove_dir(dir);
}

/* -G with -W 2: two periods, then the output ends, taking nothing more */
static void test_periods_then_the_end(void)
{
	static uint8_t buf[1 << 16];
	char dir[] = "/tmp/mgcap-dump-XXXXXX", path[600], cmd[700];
	struct dump_output o;
	size_t len = blocks(buf, 0, 5);

	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/p-%%s", dir);
	o = (struct dump_output){ .path = path, .rotate_seconds = 1, .keep = 2, .ifs = ifs,
				  .nifs = 2, .clock_ns = fake_clock };
	fake_now = 1700000000ULL * 1000000000ULL;
	CU_ASSERT_FATAL(dump_output_open(&o) == 0);
	CU_ASSERT_EQUAL(dump_output_write(&o, buf, len), 0);
	fake_now += 1000000000ULL;
	CU_ASSERT_EQUAL(dump_output_write(&o, buf, len), 0);
	CU_ASSERT_FALSE(o.ended);
	fake_now += 1000000000ULL;
	CU_ASSERT_EQUAL(dump_output_write(&o, buf, len), 0);
	CU_ASSERT_TRUE(o.ended);
	CU_ASSERT_EQUAL(o.files_done, 2);
	CU_ASSERT_EQUAL(dump_output_close(&o), 0);
	snprintf(cmd, sizeof(cmd), "test \"$(ls %s)\" = \"$(printf 'p-1700000000\\np-1700000001')\"",
		 dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
	unit_remove_dir(dir);
}

/* -z: each finished file's command once, in order, one at a time */
static void test_postrotate_in_order(void)
{
	char dir[] = "/tmp/mgcap-dump-XXXXXX", script[600], list[600], cmd[1400];
	struct postrotate pr = { 0 };
	FILE *f;
	int i;

	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(script, sizeof(script), "%s/post", dir);
	snprintf(list, sizeof(list), "%s/list", dir);
	f = fopen(script, "w");
	CU_ASSERT_FATAL(f != NULL);
	/* slow enough that files queue up; fails for one, which is reported */
	fprintf(f, "#!/bin/sh\nsleep 0.05\necho \"$1\" >>%s\n[ \"$1\" != f2 ]\n", list);
	fclose(f);
	CU_ASSERT_FATAL(chmod(script, 0755) == 0);
	pr.command = script;
	for (i = 0; i < 4; i++) {
		char name[8];

		snprintf(name, sizeof(name), "f%d", i);
		postrotate_file_done(name, &pr);
	}
	CU_ASSERT(pr.queued >= 2);	/* none waited for */
	postrotate_finish(&pr);
	CU_ASSERT_EQUAL(pr.ran, 4);
	CU_ASSERT_EQUAL(pr.failed, 1);
	snprintf(cmd, sizeof(cmd), "test \"$(cat %s)\" = \"$(printf 'f0\\nf1\\nf2\\nf3')\" && rm -rf %s",
		 list, dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

/* SIGHUP on a single file: the next is numbered, the first kept whole */
static void test_rotation_on_request_keeps_the_first(void)
{
	static uint8_t buf[1 << 16];
	char dir[] = "/tmp/mgcap-dump-XXXXXX", path[600], name[700];
	struct dump_output o;
	size_t len = blocks(buf, 0, 10);

	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/cap", dir);
	o = (struct dump_output){ .path = path, .ifs = ifs, .nifs = 2 };
	CU_ASSERT_FATAL(dump_output_open(&o) == 0);
	CU_ASSERT_EQUAL(dump_output_write(&o, buf, len), 0);
	CU_ASSERT_EQUAL(dump_output_rotate(&o), 0);
	CU_ASSERT_EQUAL(dump_output_write(&o, buf, blocks(buf, 10, 3)), 0);
	CU_ASSERT_EQUAL(dump_output_close(&o), 0);
	CU_ASSERT_EQUAL(count_packets(path), 10);
	snprintf(name, sizeof(name), "%s/cap1", dir);
	CU_ASSERT_EQUAL(count_packets(name), 3);
	unit_remove_dir(dir);
}

/* a rotating output under a path no file can have: an error, not a search for a name */
static void test_rotation_under_a_bad_path_fails(void)
{
	char file[] = "/tmp/mgcap-dump-XXXXXX", path[600];
	struct dump_output o = { .path = path, .rotate_seconds = 60, .ifs = ifs, .nifs = 2 };
	int fd = mkstemp(file);

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	snprintf(path, sizeof(path), "%s/cap", file);	/* under a file */
	CU_ASSERT_EQUAL(dump_output_open(&o), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(o.error, "/cap: Not a directory"));
	unlink(file);
}

void register_dump_output_tests(void)
{
	static const struct unit_test tests[] = {
		{ "file names", test_file_names },
		{ "rotation between whole blocks", test_rotation_between_whole_blocks },
		{ "paged files end inside a page", test_paged_files_end_inside_a_page },
		{ "ring of files", test_ring_of_files },
		{ "full disk keeps whole blocks", test_full_disk_keeps_whole_blocks },
		{ "full disk, then room", test_full_disk_then_room },
		{ "rotation while full", test_rotation_while_full },
		{ "a ring makes its own room", test_ring_makes_its_own_room },
		{ "a file never started leaves nothing", test_file_never_started_leaves_nothing },
		{ "an index beside each file, of its blocks", test_index_beside_each_file },
		{ "unwritable path", test_unwritable_path },
		{ "rotation by time", test_rotation_by_time },
		{ "periods, then the end", test_periods_then_the_end },
		{ "postrotate in order", test_postrotate_in_order },
		{ "rotation on request keeps the first", test_rotation_on_request_keeps_the_first },
		{ "rotation under a bad path fails", test_rotation_under_a_bad_path_fails },
	};

	ADD_SUITE("dump output", tests);
}
