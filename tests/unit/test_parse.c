// SPDX-License-Identifier: BSD-2-Clause
#include <string.h>
#include <linux/mgcap.h>

#include "mgcap_netdev.h"
#include "parse.h"
#include "unit.h"

static void test_sizes(void)
{
	uint64_t v;

	CU_ASSERT_EQUAL(mgcap_parse_size("65536", &v), 0);
	CU_ASSERT_EQUAL(v, 65536);
	CU_ASSERT_EQUAL(mgcap_parse_size("64K", &v), 0);
	CU_ASSERT_EQUAL(v, 65536);
	CU_ASSERT_EQUAL(mgcap_parse_size("8M", &v), 0);
	CU_ASSERT_EQUAL(v, 8ULL << 20);
	CU_ASSERT_EQUAL(mgcap_parse_size("8MiB", &v), 0);
	CU_ASSERT_EQUAL(v, 8ULL << 20);
	CU_ASSERT_EQUAL(mgcap_parse_size("1g", &v), 0);
	CU_ASSERT_EQUAL(v, 1ULL << 30);
	CU_ASSERT_EQUAL(mgcap_parse_size("512B", &v), 0);
	CU_ASSERT_EQUAL(v, 512);
	CU_ASSERT_EQUAL(mgcap_parse_size("2T", &v), 0);
	CU_ASSERT_EQUAL(v, 2ULL << 40);
}

static void test_durations(void)
{
	uint64_t v = 7;

	CU_ASSERT_EQUAL(mgcap_parse_duration("90", &v), 0);
	CU_ASSERT_EQUAL(v, 90);
	CU_ASSERT_EQUAL(mgcap_parse_duration("90s", &v), 0);
	CU_ASSERT_EQUAL(v, 90);
	CU_ASSERT_EQUAL(mgcap_parse_duration("15m", &v), 0);
	CU_ASSERT_EQUAL(v, 900);
	CU_ASSERT_EQUAL(mgcap_parse_duration("12h", &v), 0);
	CU_ASSERT_EQUAL(v, 43200);
	CU_ASSERT_EQUAL(mgcap_parse_duration("7d", &v), 0);
	CU_ASSERT_EQUAL(v, 604800);
	CU_ASSERT_EQUAL(mgcap_parse_duration("2w", &v), 0);
	CU_ASSERT_EQUAL(v, 1209600);
	v = 7;
	CU_ASSERT_EQUAL(mgcap_parse_duration("", &v), -1);
	CU_ASSERT_EQUAL(mgcap_parse_duration("d", &v), -1);
	CU_ASSERT_EQUAL(mgcap_parse_duration("7x", &v), -1);
	CU_ASSERT_EQUAL(mgcap_parse_duration("7dd", &v), -1);
	CU_ASSERT_EQUAL(mgcap_parse_duration("-7d", &v), -1);
	CU_ASSERT_EQUAL(mgcap_parse_duration("99999999999999999999", &v), -1);
	CU_ASSERT_EQUAL(mgcap_parse_duration("30500000000000000w", &v), -1);
	CU_ASSERT_EQUAL(v, 7);
}

static void test_bad_sizes(void)
{
	uint64_t v = 7;

	CU_ASSERT_EQUAL(mgcap_parse_size("", &v), -1);
	CU_ASSERT_EQUAL(mgcap_parse_size(NULL, &v), -1);
	CU_ASSERT_EQUAL(mgcap_parse_size("-1", &v), -1);
	CU_ASSERT_EQUAL(mgcap_parse_size("8X", &v), -1);
	CU_ASSERT_EQUAL(mgcap_parse_size("8MM", &v), -1);
	CU_ASSERT_EQUAL(mgcap_parse_size("M", &v), -1);
	CU_ASSERT_EQUAL(mgcap_parse_size(" 8M", &v), -1);
	CU_ASSERT_EQUAL(mgcap_parse_size("99999999999999999999", &v), -1);
	CU_ASSERT_EQUAL(mgcap_parse_size("17179869184G", &v), -1);	/* 2^64: overflows */
	CU_ASSERT_EQUAL(v, 7);	/* untouched on error */
}

static void test_u32(void)
{
	uint32_t v = 0;

	CU_ASSERT_EQUAL(mgcap_parse_u32("96", 1, 262144, &v), 0);
	CU_ASSERT_EQUAL(v, 96);
	CU_ASSERT_EQUAL(mgcap_parse_u32("0", 1, 262144, &v), -1);
	CU_ASSERT_EQUAL(mgcap_parse_u32("262145", 1, 262144, &v), -1);
	CU_ASSERT_EQUAL(mgcap_parse_u32("12a", 1, 262144, &v), -1);
	CU_ASSERT_EQUAL(mgcap_parse_u32("-5", 0, 10, &v), -1);
	CU_ASSERT_EQUAL(mgcap_parse_u32("4294967296", 0, UINT32_MAX, &v), -1);
}

static void test_modes(void)
{
	CU_ASSERT_EQUAL(mgcap_parse_mode("mirror"), MGCAP_MODE_MIRROR);
	CU_ASSERT_EQUAL(mgcap_parse_mode("drop"), MGCAP_MODE_DROP);
	CU_ASSERT_EQUAL(mgcap_parse_mode("Drop"), -1);
	CU_ASSERT_EQUAL(mgcap_parse_mode(""), -1);
	CU_ASSERT_EQUAL(mgcap_parse_mode(NULL), -1);
	CU_ASSERT_STRING_EQUAL(mgcap_mode_name(MGCAP_MODE_DROP), "drop");
	CU_ASSERT_STRING_EQUAL(mgcap_mode_name(9), "unknown");
}

static void test_ifnames(void)
{
	CU_ASSERT_EQUAL(mgcap_check_ifname("eth0"), 0);
	CU_ASSERT_EQUAL(mgcap_check_ifname("enp3s0f1.100"), 0);
	CU_ASSERT_EQUAL(mgcap_check_ifname("123456789012345"), 0);
	CU_ASSERT_EQUAL(mgcap_check_ifname("1234567890123456"), -1);
	CU_ASSERT_EQUAL(mgcap_check_ifname(""), -1);
	CU_ASSERT_EQUAL(mgcap_check_ifname(NULL), -1);
	CU_ASSERT_EQUAL(mgcap_check_ifname("a/b"), -1);
	CU_ASSERT_EQUAL(mgcap_check_ifname("a b"), -1);
}

void register_parse_tests(void)
{
	static const struct unit_test tests[] = {
		{ "sizes", test_sizes },
		{ "durations", test_durations },
		{ "bad sizes", test_bad_sizes },
		{ "u32 ranges", test_u32 },
		{ "modes", test_modes },
		{ "interface names", test_ifnames },
	};

	ADD_SUITE("parse", tests);
}
