// SPDX-License-Identifier: BSD-2-Clause
/* mgdump's files: names as tcpdump's, rotation between whole blocks, statistics at the end. */
#include <fcntl.h>
#include <pcap/pcap.h>
#include <signal.h>
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
		off += pcapng_epb(buf + off, 1 << 20, i % 2, 1700000000000000000ULL + i, data,
				  sizeof(data), 128);
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
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CU_ASSERT(system(cmd) == 0);
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
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CU_ASSERT(system(cmd) == 0);
}

/* A write the disk takes only part of: the whole blocks that fit stay in the file. */
static void test_full_disk_keeps_whole_blocks(void)
{
	static uint8_t buf[1 << 16];
	char dir[] = "/tmp/mgcap-dump-XXXXXX", path[600], cmd[640];
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
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CU_ASSERT(system(cmd) == 0);
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
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CU_ASSERT(system(cmd) == 0);
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
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CU_ASSERT(system(cmd) == 0);
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
	char dir[] = "/tmp/mgcap-dump-XXXXXX", path[600], name[700], cmd[700];
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
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CU_ASSERT(system(cmd) == 0);
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
		{ "ring of files", test_ring_of_files },
		{ "full disk keeps whole blocks", test_full_disk_keeps_whole_blocks },
		{ "unwritable path", test_unwritable_path },
		{ "rotation by time", test_rotation_by_time },
		{ "periods, then the end", test_periods_then_the_end },
		{ "postrotate in order", test_postrotate_in_order },
		{ "rotation on request keeps the first", test_rotation_on_request_keeps_the_first },
		{ "rotation under a bad path fails", test_rotation_under_a_bad_path_fails },
	};

	ADD_SUITE("dump output", tests);
}
