// SPDX-License-Identifier: BSD-2-Clause
/* mgdump's files: names as tcpdump's, rotation between whole blocks, statistics at the end. */
#include <pcap/pcap.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dump_output.h"
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
	CU_ASSERT(o.files_done >= 3);
	/* counters are collected once per file, not per write */
	CU_ASSERT_EQUAL(collected, (int)o.files_done + 1);
	CU_ASSERT_EQUAL(read_back(dir, "cap", (unsigned int)o.files_done + 1, 0), 100);
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
	CU_ASSERT(stat(path, &st) == 0 && (uint64_t)st.st_size == header + 3 * one);
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

void register_dump_output_tests(void)
{
	static const struct unit_test tests[] = {
		{ "file names", test_file_names },
		{ "rotation between whole blocks", test_rotation_between_whole_blocks },
		{ "ring of files", test_ring_of_files },
		{ "full disk keeps whole blocks", test_full_disk_keeps_whole_blocks },
		{ "unwritable path", test_unwritable_path },
	};

	ADD_SUITE("dump output", tests);
}
