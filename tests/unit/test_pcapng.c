// SPDX-License-Identifier: BSD-2-Clause
/*
 * The pcapng writer: block layout, padding, a packet's flags, and files
 * libpcap and tshark read back.
 */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pcapng.h"
#include "unit.h"

static uint8_t buf[1 << 16];

/* sample packet @i's epb_flags: none, inbound or outbound, in turn */
static uint32_t sample_flags(uint32_t i)
{
	static const uint32_t flags[] = { 0, PCAPNG_EPB_FLAGS_INBOUND, PCAPNG_EPB_FLAGS_OUTBOUND };

	return flags[i % 3];
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* Every block: length a multiple of 4, the same at both ends. */
static int walk_blocks(const uint8_t *p, size_t len, uint32_t *types, int max)
{
	size_t off = 0;
	int n = 0;

	while (off < len) {
		uint32_t total = get32(p + off + 4);

		if (total < 12 || total % 4 || off + total > len ||
		    get32(p + off + total - 4) != total || n == max)
			return -1;
		types[n++] = get32(p + off);
		off += total;
	}
	return n;
}

static size_t sample_file(size_t *npkts)
{
	uint8_t data[64];
	struct pcapng_if_stats st = { 1, 2, 10, 3, 4, 5, 6, "" };
	size_t off = 0;
	uint32_t i;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)i;
	off += pcapng_shb(buf + off, sizeof(buf) - off, "mgcap unit test");
	off += pcapng_idb(buf + off, sizeof(buf) - off, 1, 96, "mgt0@0", "queue 0");
	off += pcapng_idb(buf + off, sizeof(buf) - off, 1, 96, "mgt0@1", NULL);
	/* caplens 0..9 cover every padding, with flags and without */
	for (i = 0; i < 10; i++)
		off += pcapng_epb(buf + off, sizeof(buf) - off, i % 2,
				  1700000000123456789ULL + i, data, i, 60 + i, sample_flags(i));
	off += pcapng_isb(buf + off, sizeof(buf) - off, 1, 1700000001000000000ULL, &st);
	*npkts = 10;
	return off;
}

static void test_block_layout(void)
{
	uint32_t types[32];
	size_t n, len = sample_file(&n);
	int blocks = walk_blocks(buf, len, types, 32), i;
	const uint8_t *epb;

	CU_ASSERT_EQUAL_FATAL(blocks, 14);
	CU_ASSERT_EQUAL(types[0], PCAPNG_SHB_TYPE);
	CU_ASSERT_EQUAL(get32(buf + 8), PCAPNG_BYTE_ORDER_MAGIC);
	CU_ASSERT_EQUAL(types[1], PCAPNG_IDB_TYPE);
	CU_ASSERT_EQUAL(types[2], PCAPNG_IDB_TYPE);
	CU_ASSERT_EQUAL(types[3], PCAPNG_EPB_TYPE);
	/* the first packet block's stamp, after the section and the two interfaces */
	for (epb = buf, i = 0; i < 3; i++)
		epb += pcapng_block_len(epb);
	CU_ASSERT_EQUAL(pcapng_epb_ts(epb), 1700000000123456789ULL);
	CU_ASSERT_EQUAL(types[13], PCAPNG_ISB_TYPE);
	CU_ASSERT_EQUAL(pcapng_epb_size(0, 0), 32);
	CU_ASSERT_EQUAL(pcapng_epb_size(1, 0), 36);
	CU_ASSERT_EQUAL(pcapng_epb_size(4, 0), 36);
	CU_ASSERT_EQUAL(pcapng_epb_size(5, 0), 40);
	/* epb_flags: its option (4 + 4 bytes) and the end of options */
	CU_ASSERT_EQUAL(pcapng_epb_size(0, PCAPNG_EPB_FLAGS_INBOUND), 44);
	CU_ASSERT_EQUAL(pcapng_epb_size(5, PCAPNG_EPB_FLAGS_OUTBOUND), 52);
}

/*
 * A packet's flags: each caplen's padding, flags or none, written and read
 * back, the option where the format puts it (after the padded data: code
 * 2, length 4, the value, then the end of options), the data intact.
 */
static void test_epb_flags_round_trip(void)
{
	static const uint32_t flags[] = { 0, PCAPNG_EPB_FLAGS_INBOUND, PCAPNG_EPB_FLAGS_OUTBOUND,
					  0x01000002U };
	uint8_t data[16], block[128];
	uint32_t caplen, f;

	for (caplen = 0; caplen < sizeof(data); caplen++)
		data[caplen] = (uint8_t)(0xa0 + caplen);
	for (caplen = 0; caplen <= sizeof(data); caplen++) {
		for (f = 0; f < sizeof(flags) / sizeof(flags[0]); f++) {
			size_t n, opts = PCAPNG_EPB_DATA + ((caplen + 3) & ~3U);
			uint16_t hdr[2];

			memset(block, 0xee, sizeof(block));
			n = pcapng_epb(block, sizeof(block), 3, 77, data, caplen, 1514, flags[f]);
			CU_ASSERT_EQUAL_FATAL(n, pcapng_epb_size(caplen, flags[f]));
			CU_ASSERT_EQUAL(pcapng_block_len(block), n);
			CU_ASSERT_EQUAL(get32(block + n - 4), n);
			CU_ASSERT_EQUAL(pcapng_epb_flags(block), flags[f]);
			CU_ASSERT_EQUAL(pcapng_epb_caplen(block), caplen);
			CU_ASSERT_EQUAL(pcapng_epb_wirelen(block), 1514);
			CU_ASSERT_EQUAL(pcapng_epb_ifid(block), 3);
			CU_ASSERT_EQUAL(pcapng_epb_ts(block), 77);
			CU_ASSERT_EQUAL(memcmp(block + PCAPNG_EPB_DATA, data, caplen), 0);
			/* the padding is zeros, not what the buffer held */
			CU_ASSERT_EQUAL(memchr(block + PCAPNG_EPB_DATA + caplen, 0xee,
					       opts - PCAPNG_EPB_DATA - caplen), NULL);
			if (!flags[f]) {
				CU_ASSERT_EQUAL(n, opts + 4);
				continue;
			}
			memcpy(hdr, block + opts, 4);
			CU_ASSERT_EQUAL(hdr[0], 2);
			CU_ASSERT_EQUAL(hdr[1], 4);
			CU_ASSERT_EQUAL(get32(block + opts + 4), flags[f]);
			CU_ASSERT_EQUAL(get32(block + opts + 8), 0);
			CU_ASSERT_EQUAL(n, opts + 16);
		}
	}
}

/* an option of @code, @len bytes of @fill, at @p: where the next goes */
static uint8_t *put_option(uint8_t *p, uint16_t code, uint16_t len, uint8_t fill)
{
	uint16_t hdr[2] = { code, len };

	memcpy(p, hdr, 4);
	memset(p + 4, fill, len);
	memset(p + 4 + len, 0, ((len + 3U) & ~3U) - len);
	return p + 4 + ((len + 3U) & ~3U);
}

/*
 * Another writer's block: epb_flags after other options (a comment, an
 * option of odd length), or none; options cut short, a length past the
 * block's end, or epb_flags' value where the block ends, read as no flags,
 * and nothing outside the block is read (a buffer of the block's size:
 * ASan in unit-san).
 */
static void test_epb_flags_among_options(void)
{
	uint8_t data[5] = { 1, 2, 3, 4, 5 }, tmpl[256], *p, *exact;
	uint32_t flags = PCAPNG_EPB_FLAGS_OUTBOUND, total;
	size_t head = pcapng_epb(tmpl, sizeof(tmpl), 0, 1, data, sizeof(data), 60, 0) - 4;
	int kase;

	for (kase = 0; kase < 7; kase++) {
		p = put_option(tmpl + head, 1, 7, 'c');		/* opt_comment */
		if (kase != 1)
			p = put_option(p, 0x8001, 3, 'x');	/* a custom one */
		if (kase != 2) {
			p = put_option(p, 2, 4, 0);
			memcpy(p - 4, &flags, 4);
		}
		if (kase != 3)
			p = put_option(p, 0, 0, 0);		/* opt_endofopt */
		if (kase == 4)	/* an option longer than the block */
			put_option(tmpl + head, 1, 200, 'c');
		total = (uint32_t)(p - tmpl) + 4;
		if (kase == 5)	/* the block ends inside the option */
			total = (uint32_t)head + 8;
		if (kase == 6)	/* ... inside epb_flags */
			total = (uint32_t)(p - tmpl) - 4;
		memcpy(tmpl + 4, &total, 4);
		memcpy(tmpl + total - 4, &total, 4);
		exact = malloc(total);
		CU_ASSERT_FATAL(exact != NULL);
		memcpy(exact, tmpl, total);
		CU_ASSERT_EQUAL(pcapng_epb_flags(exact), kase == 2 || kase >= 4 ? 0 : flags);
		if (kase == 6) {
			/* (its header is there, its value is the trailing length) */
			uint16_t hdr[2];

			memcpy(hdr, exact + total - 8, 4);
			CU_ASSERT(hdr[0] == 2 && hdr[1] == 4);
		}
		free(exact);
	}
	/* a block too short for its caplen: no flags, and no option read */
	total = 32;
	memcpy(tmpl + 4, &total, 4);
	CU_ASSERT_EQUAL(pcapng_epb_flags(tmpl), 0);
}

static void test_too_small_writes_nothing(void)
{
	uint8_t small[40], data[8] = { 0 };

	memset(small, 0xaa, sizeof(small));
	CU_ASSERT_EQUAL(pcapng_epb(small, 39, 0, 1, data, 8, 8, 0), 0);
	CU_ASSERT_EQUAL(pcapng_epb(small, 40, 0, 1, data, 8, 8, 0), 40);
	memset(small, 0xaa, sizeof(small));
	CU_ASSERT_EQUAL(pcapng_idb(small, sizeof(small), 1, 96, "a-long-interface-name", NULL), 0);
	CU_ASSERT_EQUAL(small[0], 0xaa);
	CU_ASSERT_EQUAL(pcapng_shb(small, 20, NULL), 0);
	CU_ASSERT_EQUAL(pcapng_isb(small, sizeof(small), 0, 0, &(struct pcapng_if_stats){ 0 }), 0);
}

/* block @kind (0 SHB, 1 IDB, 2 EPB, 3 EPB with flags, 4 ISB) into @cap bytes at @buf */
static size_t write_block(int kind, uint8_t *buf, size_t cap)
{
	static const uint8_t data[60];
	static struct pcapng_if_stats st = { .buffer_dropped = UINT64_MAX };

	/* the longest comment a statistics block carries */
	memset(st.note, 'x', sizeof(st.note) - 1);
	switch (kind) {
	case 0:
		return pcapng_shb(buf, cap, "mgdump");
	case 1:
		return pcapng_idb(buf, cap, 1, 262144, "eth0", "a description");
	case 2:
		return pcapng_epb(buf, cap, 0, 1, data, sizeof(data), 1514, 0);
	case 3:
		return pcapng_epb(buf, cap, 0, 1, data, sizeof(data), 1514,
				  PCAPNG_EPB_FLAGS_OUTBOUND);
	default:
		return pcapng_isb(buf, cap, 0, 1, &st);
	}
}

/*
 * Each block in exactly its own size, and a byte less: nothing.  (The
 * statistics block once counted its end of options but not its trailing
 * length, and wrote 4 bytes past a buffer that fit what it counted.)
 */
static void test_exact_room(void)
{
	uint8_t big[PCAPNG_ISB_MAX], *exact;
	size_t size, n;
	int kind;

	for (kind = 0; kind < 5; kind++) {
		size = write_block(kind, big, sizeof(big));
		CU_ASSERT_FATAL(size > 0 && size <= sizeof(big));
		/* a buffer of just that size: ASan (unit-san) sees a byte written past it */
		for (n = size - 1; n <= size; n++) {
			exact = malloc(n);
			CU_ASSERT_FATAL(exact != NULL);
			CU_ASSERT_EQUAL(write_block(kind, exact, n), n == size ? size : 0);
			free(exact);
		}
	}
}

/* The statistics block's comment: the buffer drops, then the note, cut to its size. */
static void test_statistics_comment(void)
{
	static const char want[] = "buffer drops: 6; time stamps: adapter, 2 fell back";
	struct pcapng_if_stats st = { 1, 2, 10, 3, 4, 5, 6, "time stamps: adapter, 2 fell back" };
	uint8_t isb[PCAPNG_ISB_MAX];
	size_t len = pcapng_isb(isb, sizeof(isb), 0, 1, &st);

	CU_ASSERT_FATAL(len > 0);
	CU_ASSERT_PTR_NOT_NULL(memmem(isb, len, want, strlen(want)));
	CU_ASSERT_EQUAL(pcapng_block_len(isb), len);
	/* a note without its terminating zero: the comment ends with the array */
	memset(st.note, 'x', sizeof(st.note));
	len = pcapng_isb(isb, sizeof(isb), 0, 1, &st);
	CU_ASSERT_FATAL(len > 0 && len <= PCAPNG_ISB_MAX);
	CU_ASSERT_PTR_NOT_NULL(memmem(isb, len, "; xxx", 5));
	st.note[0] = '\0';
	len = pcapng_isb(isb, sizeof(isb), 0, 1, &st);
	CU_ASSERT_PTR_NULL(memmem(isb, len, "; ", 2));
}

static const char *write_sample(char *path, size_t pathlen, size_t *npkts)
{
	size_t len = sample_file(npkts);
	FILE *f;

	snprintf(path, pathlen, "/tmp/mgcap-unit-%d.pcapng", (int)getpid());
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f))
		return NULL;
	return path;
}

/*
 * Whole blocks only: a torn last block and a block limit stop the count.
 * The second block has its flags, so is longer than the others.
 */
static void test_whole_blocks(void)
{
	uint8_t buf[1024], data[60] = { 0 };
	size_t one = pcapng_epb(buf, sizeof(buf), 0, 1, data, sizeof(data), sizeof(data), 0), n;
	size_t two = one + pcapng_epb(buf + one, sizeof(buf) - one, 0, 2, data, sizeof(data),
				      sizeof(data), PCAPNG_EPB_FLAGS_OUTBOUND);
	size_t three = two + pcapng_epb(buf + two, sizeof(buf) - two, 0, 3, data, sizeof(data),
					sizeof(data), 0);

	CU_ASSERT_EQUAL_FATAL(two - one, one + PCAPNG_EPB_FLAGS_BYTES);
	CU_ASSERT_EQUAL(pcapng_whole_blocks(buf, three, 0, &n), three);
	CU_ASSERT_EQUAL(n, 3);
	CU_ASSERT_EQUAL(pcapng_whole_blocks(buf, three - 1, 0, &n), two);
	CU_ASSERT_EQUAL(n, 2);
	CU_ASSERT_EQUAL(pcapng_whole_blocks(buf, two - 1, 0, &n), one);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_EQUAL(pcapng_whole_blocks(buf, three, 2, &n), two);
	CU_ASSERT_EQUAL(n, 2);
	CU_ASSERT_EQUAL(pcapng_whole_blocks(buf, 7, 0, NULL), 0);
	/* a block claiming length 0 ends the walk rather than looping on it */
	memset(buf + one, 0, 8);
	CU_ASSERT_EQUAL(pcapng_whole_blocks(buf, three, 0, &n), one);
	CU_ASSERT_EQUAL(n, 1);
}

static void test_libpcap_reads_it_back(void)
{
	char path[64], err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	size_t n, i = 0;
	pcap_t *p;

	CU_ASSERT_PTR_NOT_NULL_FATAL(write_sample(path, sizeof(path), &n));
	p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_EQUAL(pcap_datalink(p), DLT_EN10MB);
	while (pcap_next_ex(p, &h, &data) == 1) {
		CU_ASSERT_EQUAL(h->caplen, i);
		CU_ASSERT_EQUAL(h->len, 60 + i);
		CU_ASSERT_EQUAL(h->ts.tv_sec, 1700000000);
		CU_ASSERT_EQUAL(h->ts.tv_usec, 123456789 + (long)i);	/* nanoseconds */
		if (i)
			CU_ASSERT_EQUAL(data[i - 1], (u_char)(i - 1));
		i++;
	}
	CU_ASSERT_EQUAL(i, n);
	pcap_close(p);
	unlink(path);
}

static void test_tshark_reads_it_back(void)
{
	char path[64], cmd[256], line[256];
	size_t n, lines = 0;
	FILE *out;

	CU_ASSERT_PTR_NOT_NULL_FATAL(write_sample(path, sizeof(path), &n));
	snprintf(cmd, sizeof(cmd), "tshark -r %s -T fields -e frame.interface_name "
		 "-e frame.time_epoch -e frame.packet_flags_direction 2>/dev/null", path);
	out = popen(cmd, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	while (fgets(line, sizeof(line), out)) {
		static const char *const direction[] = { "", "0x00000001", "0x00000002" };
		char want[80];

		snprintf(want, sizeof(want), "mgt0@%zu\t1700000000.1234567%02zu\t%s\n", lines % 2,
			 89 + lines, direction[sample_flags((uint32_t)lines)]);
		CU_ASSERT_STRING_EQUAL(line, want);
		lines++;
	}
	CU_ASSERT_EQUAL(pclose(out), 0);
	CU_ASSERT_EQUAL(lines, n);
	snprintf(cmd, sizeof(cmd), "capinfos %s | grep -q 'nanoseconds (9)'", path);
	CU_ASSERT_EQUAL(system(cmd), 0);
	unlink(path);
}

void register_pcapng_tests(void)
{
	static const struct unit_test tests[] = {
		{ "block layout", test_block_layout },
		{ "a packet's flags written and read back", test_epb_flags_round_trip },
		{ "a packet's flags among other options", test_epb_flags_among_options },
		{ "too small writes nothing", test_too_small_writes_nothing },
		{ "exact room", test_exact_room },
		{ "statistics comment", test_statistics_comment },
		{ "whole blocks", test_whole_blocks },
		{ "libpcap reads it back", test_libpcap_reads_it_back },
		{ "tshark reads it back", test_tshark_reads_it_back },
	};

	ADD_SUITE("pcapng", tests);
}
