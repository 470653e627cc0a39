// SPDX-License-Identifier: BSD-2-Clause
/* mgdump's block ring: whole blocks in, whole blocks out, never torn. */
#include <string.h>

#include "blockring.h"
#include "pcapng.h"
#include "unit.h"

/* block @ts's epb_flags: none, inbound or outbound, in turn (the blocks' lengths vary by them) */
static uint32_t flags_of(uint64_t ts)
{
	return (uint32_t)(ts % 3);
}

static void put(struct blockring *r, uint32_t caplen, uint64_t ts, uint32_t flags, int *ok)
{
	uint32_t size = (uint32_t)pcapng_epb_size(caplen, flags);
	uint8_t data[300];
	uint8_t *p;

	memset(data, (int)(ts & 0xff), sizeof(data));
	p = blockring_reserve(r, size);
	*ok = p != NULL;
	if (p) {
		pcapng_epb(p, size, 0, ts, data, caplen, caplen, flags);
		blockring_commit(r, size);
	}
}

static void test_round_trip_with_wraps(void)
{
	struct blockring r;
	uint64_t put_ts = 0, got_ts = 0, drops = 0;
	int ok, rounds;

	CU_ASSERT_FATAL(blockring_init(&r, 4096) == 0);
	for (rounds = 0; rounds < 2000; rounds++) {
		const uint8_t *data;
		size_t n, off;
		int i;

		for (i = 0; i < 1 + rounds % 11; i++) {
			put(&r, (uint32_t)((put_ts * 37) % 300), put_ts, flags_of(put_ts), &ok);
			if (ok)
				put_ts++;
			else
				drops++;
		}
		if (rounds % 5 == 0)
			continue;	/* a stalled writer */
		/* release part of what is there, like a writer with a short write */
		n = blockring_peek(&r, &data);
		for (off = 0; off < n;) {
			uint32_t len = pcapng_block_len(data + off);

			CU_ASSERT_EQUAL_FATAL(pcapng_epb_ts(data + off), got_ts);
			CU_ASSERT_EQUAL_FATAL(len, pcapng_epb_size((uint32_t)((got_ts * 37) % 300),
								   flags_of(got_ts)));
			CU_ASSERT_EQUAL_FATAL(pcapng_epb_flags(data + off), flags_of(got_ts));
			got_ts++;
			off += len;
			if (rounds % 3 == 0)
				break;
		}
		blockring_release(&r, off);
	}
	CU_ASSERT(drops > 0);
	CU_ASSERT_EQUAL(r.dropped, drops);
	CU_ASSERT(r.high_water <= 4096);
	CU_ASSERT(got_ts > 1000);
	blockring_free(&r);
}

static void test_full_ring_drops_new_blocks(void)
{
	struct blockring r;
	const uint8_t *data;
	int ok, i, kept = 0;

	CU_ASSERT_FATAL(blockring_init(&r, 1024) == 0);
	for (i = 0; i < 20; i++) {
		put(&r, 96, (uint64_t)i, 0, &ok);
		kept += ok;
	}
	CU_ASSERT_EQUAL(kept, 1024 / 128);
	CU_ASSERT_EQUAL(r.dropped, 20 - kept);
	CU_ASSERT_EQUAL(blockring_peek(&r, &data), 1024);
	CU_ASSERT_EQUAL(blockring_fill(&r), 1024);
	blockring_free(&r);
}

void register_blockring_tests(void)
{
	static const struct unit_test tests[] = {
		{ "round trip with wraps", test_round_trip_with_wraps },
		{ "full ring drops new blocks", test_full_ring_drops_new_blocks },
	};

	ADD_SUITE("blockring", tests);
}
