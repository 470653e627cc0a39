// SPDX-License-Identifier: BSD-2-Clause
/* ERSPAN decapsulation: every type, the outer variants, and hostile input. */
#include <stdlib.h>
#include <string.h>

#include "erspan.h"
#include "unit.h"

static const uint8_t inner[] = {
	0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2, 0x08, 0x00, 0x45, 0, 0, 20,
};

/* Builds outer Ethernet [+VLAN] + IPv4/IPv6 + GRE + ERSPAN + inner; returns the length. */
static uint32_t build(uint8_t *p, int vlan, int ipv6, int ip_options, uint16_t gre_flags,
		      uint16_t proto, int erspan_version, int platform, uint32_t *inner_off)
{
	uint32_t off = 12, i;

	memset(p, 0, 256);
	if (vlan) {
		p[off] = 0x81;
		p[off + 3] = 10;
		off += 4;
	}
	if (ipv6) {
		p[off] = 0x86;
		p[off + 1] = 0xdd;
		off += 2;
		p[off] = 0x60;
		p[off + 6] = 47;
		off += 40;
	} else {
		p[off] = 0x08;
		off += 2;
		p[off] = (uint8_t)(0x45 + ip_options);
		p[off + 9] = 47;
		off += 20 + 4 * (uint32_t)ip_options;
	}
	p[off] = (uint8_t)(gre_flags >> 8);
	p[off + 2] = (uint8_t)(proto >> 8);
	p[off + 3] = (uint8_t)proto;
	off += 4;
	for (i = 0; i < 3; i++)
		if (gre_flags & (0x8000 >> (i == 0 ? 0 : i + 1)))
			off += 4;
	if (erspan_version == 1) {
		p[off] = 0x10;
		off += 8;
	} else if (erspan_version == 2) {
		p[off] = 0x20;
		p[off + 11] = (uint8_t)platform;
		off += 12 + (platform ? 8 : 0);
	}
	memcpy(p + off, inner, sizeof(inner));
	*inner_off = off;
	return off + (uint32_t)sizeof(inner);
}

static void test_types(void)
{
	uint8_t p[256];
	uint32_t want, len;

	len = build(p, 0, 0, 0, 0x0000, 0x88BE, 0, 0, &want);		/* type I */
	CU_ASSERT_EQUAL(erspan_inner_offset(p, len), (int)want);
	CU_ASSERT_EQUAL(want, 14 + 20 + 4);
	len = build(p, 0, 0, 0, 0x1000, 0x88BE, 1, 0, &want);		/* type II */
	CU_ASSERT_EQUAL(erspan_inner_offset(p, len), (int)want);
	CU_ASSERT_EQUAL(want, 50);	/* Gulp's fixed offset for Cisco ERSPAN */
	len = build(p, 0, 0, 0, 0x1000, 0x22EB, 2, 0, &want);		/* type III */
	CU_ASSERT_EQUAL(erspan_inner_offset(p, len), (int)want);
	len = build(p, 0, 0, 0, 0x1000, 0x22EB, 2, 1, &want);		/* with subheader */
	CU_ASSERT_EQUAL(erspan_inner_offset(p, len), (int)want);
}

static void test_outer_variants(void)
{
	uint8_t p[256];
	uint32_t want, len;

	len = build(p, 1, 0, 0, 0x1000, 0x88BE, 1, 0, &want);		/* VLAN-tagged */
	CU_ASSERT_EQUAL(erspan_inner_offset(p, len), (int)want);
	len = build(p, 0, 1, 0, 0x1000, 0x88BE, 1, 0, &want);		/* IPv6 */
	CU_ASSERT_EQUAL(erspan_inner_offset(p, len), (int)want);
	len = build(p, 0, 0, 2, 0x1000, 0x88BE, 1, 0, &want);		/* IP options */
	CU_ASSERT_EQUAL(erspan_inner_offset(p, len), (int)want);
	len = build(p, 0, 0, 0, 0xB000, 0x88BE, 1, 0, &want);		/* GRE C, K, S */
	CU_ASSERT_EQUAL(erspan_inner_offset(p, len), (int)want);
	CU_ASSERT_EQUAL(want, 14 + 20 + 16 + 8);
}

static void test_not_erspan(void)
{
	uint8_t p[256];
	uint32_t want, len;

	len = build(p, 0, 0, 0, 0x1000, 0x6558, 0, 0, &want);		/* plain GRE/TEB */
	CU_ASSERT_EQUAL(erspan_inner_offset(p, len), -1);
	len = build(p, 0, 0, 0, 0x1000, 0x88BE, 2, 0, &want);		/* type II, wrong version */
	CU_ASSERT_EQUAL(erspan_inner_offset(p, len), -1);
	len = build(p, 0, 0, 0, 0x1000, 0x88BE, 1, 0, &want);
	CU_ASSERT_EQUAL(erspan_inner_offset(p, want + 13), -1);	/* inner frame cut short */
	CU_ASSERT_EQUAL(erspan_inner_offset(p, 30), -1);
	p[23] = 17;							/* UDP, not GRE */
	CU_ASSERT_EQUAL(erspan_inner_offset(p, len), -1);
	CU_ASSERT_EQUAL(erspan_inner_offset(inner, sizeof(inner)), -1);
	CU_ASSERT_EQUAL(erspan_inner_offset(p, 0), -1);
}

/* Random and mutated input never reads out of bounds (ASan in unit-san) */
static void test_hostile_input(void)
{
	uint8_t seed[256];
	uint32_t want, len, i, n;

	srand(12345);
	len = build(seed, 1, 0, 0, 0xB000, 0x22EB, 2, 1, &want);
	for (i = 0; i < 200000; i++) {
		uint32_t cut = (uint32_t)rand() % (len + 1);
		uint8_t *p = malloc(cut ? cut : 1);	/* exact size: overreads trip ASan */
		int off;

		memcpy(p, seed, cut);
		for (n = 0; n < 3 && cut; n++)
			p[(uint32_t)rand() % cut] = (uint8_t)rand();
		off = erspan_inner_offset(p, cut);
		CU_ASSERT(off == -1 || (off > 0 && (uint32_t)off + 14 <= cut));
		free(p);
	}
}

void register_erspan_tests(void)
{
	static const struct unit_test tests[] = {
		{ "types I, II and III", test_types },
		{ "outer variants", test_outer_variants },
		{ "not ERSPAN", test_not_erspan },
		{ "hostile input", test_hostile_input },
	};

	ADD_SUITE("erspan", tests);
}
