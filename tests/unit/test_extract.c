// SPDX-License-Identifier: BSD-2-Clause
/*
 * mgcap-extract's files: a recording as mgdump writes it, read through its
 * index and whole, and what a range and a filter take written out as one
 * file, each packet with its block's flags (the direction mgdump recorded).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capindex.h"
#include "extract.h"
#include "pcapng.h"
#include "unit.h"

#define PACKETS		300
#define FRAME		64
#define FIRST_NS	1700000000000000000ULL
#define GAP_NS		1000000ULL	/* a packet a millisecond */

/* packet @i's epb_flags: none, inbound, outbound, and a bit beside the direction */
static uint32_t flags_of(uint32_t i)
{
	static const uint32_t flags[] = { 0, PCAPNG_EPB_FLAGS_INBOUND, PCAPNG_EPB_FLAGS_OUTBOUND,
					  0x01000000U | PCAPNG_EPB_FLAGS_OUTBOUND };

	return flags[i % 4];
}

/* packet @i: UDP from port 1000 + i % 7 to port 53, its number after the headers */
static void frame_of(uint8_t *f, uint32_t i)
{
	uint16_t sport = (uint16_t)(1000 + i % 7);

	memset(f, 0, FRAME);
	f[12] = 0x08;
	f[14] = 0x45;
	f[23] = 17;
	f[26] = 192;
	f[29] = 1;
	f[30] = 192;
	f[33] = 2;
	f[34] = (uint8_t)(sport >> 8);
	f[35] = (uint8_t)sport;
	f[37] = 53;
	memcpy(f + 42, &i, sizeof(i));
}

/*
 * The recording @path as mgdump writes it: its section, its interface, the
 * packets; with @indexed, its index beside it, the blocks given to it in
 * writes of 10.
 */
static void write_recording(const char *path, int indexed)
{
	static uint8_t buf[PACKETS * (FRAME + 64) + 1024];
	size_t len = 0, head, at, take;
	uint8_t f[FRAME], eth = 1;
	char part[300];
	struct capindex_writer *w;
	FILE *file;
	uint32_t i;

	len += pcapng_shb(buf, sizeof(buf), "mgdump (unit test)");
	len += pcapng_idb(buf + len, sizeof(buf) - len, 1, 262144, "mgt0@0", "receive queue 0");
	head = len;
	for (i = 0; i < PACKETS; i++) {
		frame_of(f, i);
		len += pcapng_epb(buf + len, sizeof(buf) - len, 0, FIRST_NS + i * GAP_NS, f, FRAME,
				  FRAME, flags_of(i));
	}
	file = fopen(path, "wb");
	CU_ASSERT_FATAL(file != NULL);
	CU_ASSERT_FATAL(fwrite(buf, 1, len, file) == len && fclose(file) == 0);
	if (!indexed)
		return;
	w = capindex_writer_new(&eth, 1);
	CU_ASSERT_FATAL(w != NULL);
	snprintf(part, sizeof(part), "%s.idx.part", path);
	CU_ASSERT_EQUAL_FATAL(capindex_begin(w, part), 0);
	for (at = head; at < len; at += take) {
		take = pcapng_whole_blocks(buf + at, len - at, 10, NULL);
		capindex_blocks(w, at, buf + at, take);
	}
	CU_ASSERT_EQUAL_FATAL(capindex_end(w, path, len), 0);
	capindex_writer_free(w);
}

/* mgcap-extract's run over @dir into @out: the packets it wrote */
static size_t extract(const char *dir, const char *out, int no_index, const char *filter,
		      uint64_t from_ns, uint64_t to_ns)
{
	static struct extract x;
	size_t i;

	memset(&x, 0, sizeof(x));
	x.out = out;
	x.from_ns = from_ns;
	x.to_ns = to_ns;
	x.no_index = no_index;
	x.quiet = 1;
	x.filter_text = filter ? strdup(filter) : NULL;
	x.found = extract_merge_new(0);
	CU_ASSERT_FATAL(x.found != NULL);
	extract_read_input(&x, dir);
	extract_write_output(&x);
	extract_merge_free(x.found);
	for (i = 0; i < x.ncompiled; i++)
		pcap_freecode(&x.compiled[i].prog);
	free(x.filter_text);
	CU_ASSERT_EQUAL(x.files, 1);
	CU_ASSERT_EQUAL(x.files_indexed, !no_index);
	return x.npackets;
}

/*
 * The packets of the file at @path: each must be one of the recording's,
 * in order, with its stamp and its flags; how many there are.
 */
static size_t check_output(const char *path)
{
	static uint8_t buf[PACKETS * (FRAME + 64) + 1024];
	size_t len, at, n = 0;
	uint32_t last = 0, i;
	FILE *file = fopen(path, "rb");

	CU_ASSERT_FATAL(file != NULL);
	len = fread(buf, 1, sizeof(buf), file);
	fclose(file);
	CU_ASSERT_EQUAL_FATAL(pcapng_whole_blocks(buf, len, 0, NULL), len);
	for (at = 0; at < len; at += pcapng_block_len(buf + at)) {
		if (pcapng_block_type(buf + at) != PCAPNG_EPB_TYPE)
			continue;
		CU_ASSERT_EQUAL_FATAL(pcapng_epb_caplen(buf + at), FRAME);
		memcpy(&i, buf + at + PCAPNG_EPB_DATA + 42, sizeof(i));
		CU_ASSERT_FATAL(i < PACKETS && (!n || i > last));
		CU_ASSERT_EQUAL(pcapng_epb_ts(buf + at), FIRST_NS + i * GAP_NS);
		CU_ASSERT_EQUAL(pcapng_epb_flags(buf + at), flags_of(i));
		/* (the same bytes as the recording's block: the option in its place) */
		CU_ASSERT_EQUAL(pcapng_block_len(buf + at), pcapng_epb_size(FRAME, flags_of(i)));
		last = i;
		n++;
	}
	return n;
}

/*
 * Every packet, and a range and a filter's, through the index and whole:
 * each packet written has the flags its recording's block had, none where
 * it had none.
 */
static void test_flags_kept(void)
{
	char dir[] = "/tmp/mgcap-extract-XXXXXX", rec[64], recording[96], out[96];
	uint32_t i, want = 0;
	int no_index;

	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(rec, sizeof(rec), "%s/rec", dir);
	snprintf(recording, sizeof(recording), "%s/mgt0.pcapng", rec);
	snprintf(out, sizeof(out), "%s/found.pcapng", dir);
	CU_ASSERT_FATAL(mkdir(rec, 0700) == 0);
	write_recording(recording, 1);
	/* packets 50 to 249 from port 1003 */
	for (i = 50; i < 250; i++)
		want += i % 7 == 3;
	for (no_index = 0; no_index <= 1; no_index++) {
		CU_ASSERT_EQUAL(extract(rec, out, no_index, NULL, 0, UINT64_MAX), PACKETS);
		CU_ASSERT_EQUAL(check_output(out), PACKETS);
		CU_ASSERT_EQUAL(extract(rec, out, no_index, "udp src port 1003",
					FIRST_NS + 50 * GAP_NS, FIRST_NS + 250 * GAP_NS), want);
		CU_ASSERT_EQUAL(check_output(out), want);
	}
	unit_remove_dir(dir);
}

void register_extract_tests(void)
{
	static const struct unit_test tests[] = {
		{ "a packet's flags kept, read through the index or whole", test_flags_kept },
	};

	ADD_SUITE("extract", tests);
}
