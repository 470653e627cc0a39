// SPDX-License-Identifier: BSD-2-Clause
/* The test NIC's frame generator, which the VM tests trust byte for byte. */
#include <stdint.h>
#include <string.h>

#include "mgtestnic/mgtestnic_frame.h"
#include "unit.h"

static void test_headers(void)
{
	uint8_t f[MGT_FRAME_MAX];
	uint8_t mac[6];

	mgt_build_frame(f, 128, 1, 3, 0x0102030405060708ULL, 1);
	mgt_dev_mac(mac, 1);
	CU_ASSERT_EQUAL(memcmp(f, mac, 6), 0);
	CU_ASSERT_EQUAL(f[11], 3);			/* source MAC carries the queue */
	CU_ASSERT_EQUAL(f[12] << 8 | f[13], 0x0800);
	CU_ASSERT_EQUAL(f[16] << 8 | f[17], 128 - 14);	/* IP total length */
	CU_ASSERT_EQUAL(mgt_ip_csum(f + 14, 20), 0);	/* checksum verifies */
	CU_ASSERT_EQUAL(f[34] << 8 | f[35], 10003);	/* UDP source port */
	CU_ASSERT_EQUAL(f[36] << 8 | f[37], MGT_UDP_PORT);
	CU_ASSERT_EQUAL(f[38] << 8 | f[39], 128 - 34);	/* UDP length */
	CU_ASSERT_EQUAL(f[42], 1);			/* sequence, big-endian */
	CU_ASSERT_EQUAL(f[49], 8);
	CU_ASSERT_EQUAL(f[51], 3);			/* queue */
	CU_ASSERT_EQUAL(f[127], mgt_pattern(3, 0x0102030405060708ULL, 127));
}

static void test_frames_differ(void)
{
	uint8_t a[MGT_FRAME_MIN], b[MGT_FRAME_MIN];

	mgt_build_frame(a, sizeof(a), 0, 0, 1, 1);
	mgt_build_frame(b, sizeof(b), 0, 0, 2, 1);
	CU_ASSERT_NOT_EQUAL(memcmp(a, b, sizeof(a)), 0);
	mgt_build_frame(b, sizeof(b), 0, 1, 1, 1);
	CU_ASSERT_NOT_EQUAL(memcmp(a, b, sizeof(a)), 0);
	mgt_build_frame(b, sizeof(b), 0, 0, 1, 1);
	CU_ASSERT_EQUAL(memcmp(a, b, sizeof(a)), 0);
	/* flows spread the source port */
	mgt_build_frame(b, sizeof(b), 0, 0, 9, 4);
	CU_ASSERT_EQUAL(b[34] << 8 | b[35], 10000 + 100);
}

static void test_stamps(void)
{
	CU_ASSERT_EQUAL(mgt_hwtstamp(0, 0), MGT_TS_BASE_NS);
	CU_ASSERT(mgt_hwtstamp(1, 0) > mgt_hwtstamp(0, 0));
	CU_ASSERT(mgt_hwtstamp(0, 1) > mgt_hwtstamp(63, 0));
	CU_ASSERT_EQUAL(mgt_hwtstamp(2, 5) - mgt_hwtstamp(2, 4), MGT_TS_STEP_NS);
}

static void test_imix(void)
{
	unsigned int n60 = 0, n590 = 0, n1514 = 0, run = 0, longest_run = 0;
	uint64_t seq;
	__u32 v = 1;

	/* 7:4:1 in every 12, whichever seq a run starts from */
	for (seq = 5; seq < 5 + 1200; seq++) {
		__u32 len = mgt_frame_len(MGT_FRAME_LEN_IMIX, seq);

		n60 += len == 60;
		n590 += len == 590;
		n1514 += len == 1514;
		run = len == 60 ? run + 1 : 0;
		longest_run = run > longest_run ? run : longest_run;
	}
	CU_ASSERT_EQUAL(n60, 700);
	CU_ASSERT_EQUAL(n590, 400);
	CU_ASSERT_EQUAL(n1514, 100);
	CU_ASSERT(longest_run <= 2);	/* interleaved, not three blocks */
	CU_ASSERT_EQUAL(mgt_frame_len(128, 7), 128);

	CU_ASSERT(mgt_parse_frame_len("imix", &v) && v == MGT_FRAME_LEN_IMIX);
	CU_ASSERT(mgt_parse_frame_len("1514", &v) && v == 1514);
	CU_ASSERT(!mgt_parse_frame_len("59", &v));
	CU_ASSERT(!mgt_parse_frame_len("4097", &v));
	CU_ASSERT(!mgt_parse_frame_len("128x", &v));
	CU_ASSERT(!mgt_parse_frame_len("-128", &v));
	CU_ASSERT(!mgt_parse_frame_len("", &v));
	CU_ASSERT(!mgt_parse_frame_len("IMIX", &v));
}

static void test_wire_frame_with_tag(void)
{
	uint8_t plain[MGT_FRAME_MAX], wire[MGT_FRAME_MAX + 4];

	mgt_build_frame(plain, 100, 0, 1, 9, 1);
	CU_ASSERT_EQUAL(mgt_build_wire_frame(wire, 100, 0, 1, 9, 1, 0), 100);
	CU_ASSERT_EQUAL(memcmp(wire, plain, 100), 0);
	CU_ASSERT_EQUAL(mgt_build_wire_frame(wire, 100, 0, 1, 9, 1, 0x2064), 104);
	CU_ASSERT_EQUAL(memcmp(wire, plain, 12), 0);
	CU_ASSERT(wire[12] == 0x81 && wire[13] == 0x00 && wire[14] == 0x20 && wire[15] == 0x64);
	CU_ASSERT_EQUAL(memcmp(wire + 16, plain + 12, 88), 0);
}

void register_frame_tests(void)
{
	static const struct unit_test tests[] = {
		{ "headers", test_headers },
		{ "frames differ", test_frames_differ },
		{ "stamps", test_stamps },
		{ "IMIX lengths", test_imix },
		{ "wire frame with a re-inserted tag", test_wire_frame_with_tag },
	};

	ADD_SUITE("mgtestnic frames", tests);
}
