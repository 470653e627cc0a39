// SPDX-License-Identifier: BSD-2-Clause
/*
 * The consumer side of a pcapng ring (lib/mgcap_pages.h) against a
 * synthetic ring that places blocks and fillers as the kernel does: the
 * pages handed out, put end to end as a file holds them, are every block in
 * order; a limit, a file's end at a block, a block that does not fit.
 */
#include <string.h>

#include "mgcap_pages.h"
#include "pcapng.h"
#include "synthetic_ring.h"
#include "unit.h"

#define RING	65536U
#define PAGE	MGCAP_PAGE_SIZE

/* what a file of the handed-out pages holds */
static uint8_t file[1 << 22];
static size_t file_len;

static void attach(struct synthetic_ring *s, struct mgcap_pages *pg)
{
	char err[128];

	CU_ASSERT_FATAL(synthetic_ring_init(s, RING, 0) == 0);
	memset(pg, 0, sizeof(*pg));
	CU_ASSERT_FATAL(mgcap_reader_attach(&pg->r, s->map, s->map_size, err, sizeof(err)) == 0);
	CU_ASSERT_FATAL(mgcap_pages_begin(pg, 0) == 0);
	file_len = 0;
}

/* frame @seq: its length and bytes, different for every one */
static uint32_t frame_len(uint32_t seq)
{
	return 1 + seq * 37 % 1600;
}

static void frame(uint8_t *buf, uint32_t seq)
{
	uint32_t i;

	for (i = 0; i < frame_len(seq); i++)
		buf[i] = (uint8_t)(seq + i);
}

/* the pages ready up to @end into the file, given back; 0, or -1 */
static int take(struct mgcap_pages *pg, uint64_t end)
{
	const uint8_t *first;
	uint64_t n;

	while ((n = mgcap_pages_next(pg, end, &first)) > 0) {
		if (n % PAGE || file_len + n > sizeof(file))
			return -1;
		memcpy(file + file_len, first, n);
		file_len += n;
		if (mgcap_pages_done(pg, n))
			return -1;
	}
	return 0;
}

/* The file's blocks: frames 0 .. @frames - 1 in order, fillers between; the frames seen, or -1. */
static long check_file(uint32_t frames)
{
	size_t at = 0;
	uint32_t seq = 0;
	uint8_t want[1600];

	while (at < file_len) {
		struct mgcap_pcapng_epb epb;
		uint32_t trailer;

		memcpy(&epb, file + at, sizeof(epb));
		if (epb.total_len < MGCAP_PCAPNG_BLOCK_MIN || epb.total_len % 4 ||
		    epb.total_len > file_len - at)
			return -1;
		memcpy(&trailer, file + at + epb.total_len - 4, 4);
		if (trailer != epb.total_len)
			return -1;
		if (epb.type == MGCAP_PCAPNG_EPB) {
			frame(want, seq);
			if (seq >= frames || epb.caplen != frame_len(seq) || epb.ts_low != seq ||
			    epb.total_len != mgcap_pcapng_epb_len(epb.caplen, 1) ||
			    memcmp(file + at + sizeof(epb), want, epb.caplen))
				return -1;
			seq++;
		} else if (epb.type != MGCAP_PCAPNG_FILLER) {
			return -1;
		}
		at += epb.total_len;
	}
	return seq;
}

static void test_pages_hold_every_block_in_order(void)
{
	struct synthetic_ring s;
	struct mgcap_pages pg;
	uint8_t buf[1600];
	uint64_t end;
	uint32_t seq;

	attach(&s, &pg);
	/* about 13 times round the ring, a look every 7 frames, a page filled every 100 */
	for (seq = 0; seq < 1000; seq++) {
		frame(buf, seq);
		CU_ASSERT_FATAL(synthetic_ring_put_epb(&s, buf, frame_len(seq), frame_len(seq), 3,
						       seq) == 0);
		if (seq % 100 == 99) {
			CU_ASSERT_FATAL(synthetic_ring_fill_page(&s, &end) == 0);
			CU_ASSERT_EQUAL_FATAL(take(&pg, end), 0);
			/* all of it handed out and given back: whole blocks */
			CU_ASSERT_EQUAL(pg.r.tail, end);
			CU_ASSERT_EQUAL(pg.packets, seq + 1);
		} else if (seq % 7 == 6) {
			CU_ASSERT_EQUAL_FATAL(take(&pg, UINT64_MAX), 0);
			CU_ASSERT_EQUAL(pg.r.tail % PAGE, 0);
		}
	}
	CU_ASSERT(s.head > 10 * (uint64_t)RING);
	CU_ASSERT_EQUAL(s.dropped, 0);
	CU_ASSERT_EQUAL(check_file(1000), 1000);
	CU_ASSERT_EQUAL(pg.bytes, file_len);
	synthetic_ring_free(&s);
}

static void test_pages_stop_at_a_limit(void)
{
	struct synthetic_ring s;
	struct mgcap_pages pg;
	const uint8_t *first;
	uint8_t buf[1600];
	uint64_t end, n;
	uint32_t seq;

	attach(&s, &pg);
	for (seq = 0; seq < 30; seq++) {
		frame(buf, seq);
		CU_ASSERT_FATAL(synthetic_ring_put_epb(&s, buf, frame_len(seq), frame_len(seq), 3,
						       seq) == 0);
	}
	CU_ASSERT_FATAL(synthetic_ring_fill_page(&s, &end) == 0);
	CU_ASSERT_FATAL(end > 2 * PAGE);
	n = mgcap_pages_next(&pg, PAGE, &first);
	CU_ASSERT_EQUAL(n, PAGE);
	CU_ASSERT_EQUAL(mgcap_pages_next(&pg, PAGE, &first), 0);
	CU_ASSERT_EQUAL(mgcap_pages_next(&pg, UINT64_MAX, &first), end - PAGE);
	/* (a partial page is never handed out) */
	frame(buf, 30);
	CU_ASSERT_FATAL(synthetic_ring_put_epb(&s, buf, 100, 100, 3, 30) == 0);
	CU_ASSERT_EQUAL(mgcap_pages_next(&pg, UINT64_MAX, &first), 0);
	synthetic_ring_free(&s);
}

/* A file that ends within a room: at the last block's end that fits, or the first's. */
static void test_pages_cut_at_a_block(void)
{
	struct synthetic_ring s;
	struct mgcap_pages pg;
	uint8_t buf[1600];
	uint64_t end, cut, room;
	uint32_t seq, len = mgcap_pcapng_epb_len(128, 1);

	attach(&s, &pg);
	memset(buf, 7, sizeof(buf));
	for (seq = 0; seq < 100; seq++)
		CU_ASSERT_FATAL(synthetic_ring_put_epb(&s, buf, 128, 128, 0, seq) == 0);
	CU_ASSERT_FATAL(synthetic_ring_fill_page(&s, &end) == 0);
	/* from the start: whole blocks of 172 bytes */
	for (room = 0; room < 3 * PAGE; room += 1000) {
		CU_ASSERT_FATAL(mgcap_pages_cut(&pg, end, room, &cut) == 0);
		CU_ASSERT_EQUAL(cut, room / len * len);
	}
	/* past everything: what the ring holds, its filler too */
	CU_ASSERT_FATAL(mgcap_pages_cut(&pg, end, UINT64_MAX, &cut) == 0);
	CU_ASSERT_EQUAL(cut, end);
	/* a page given back: the block across its end ends in this file, whatever the room */
	CU_ASSERT_EQUAL_FATAL(take(&pg, PAGE), 0);
	CU_ASSERT_FATAL(mgcap_pages_cut(&pg, end, 0, &cut) == 0);
	CU_ASSERT_EQUAL(cut, (PAGE / len + 1) * len);
	CU_ASSERT_FATAL(mgcap_pages_cut(&pg, end, 2 * len, &cut) == 0);
	CU_ASSERT_EQUAL(cut, (PAGE + 2 * len) / len * len);
	/* counted to the cut, then on from there: each block once */
	CU_ASSERT_FATAL(mgcap_pages_count(&pg, cut) == 0);
	CU_ASSERT_EQUAL(pg.packets, cut / len);
	CU_ASSERT_EQUAL_FATAL(take(&pg, end), 0);
	CU_ASSERT_EQUAL(pg.packets, 100);
	synthetic_ring_free(&s);
}

/* Blocks up to ring index @to exactly (from a multiple of 4, at least a block before it). */
static void fill_to(struct synthetic_ring *s, uint64_t to, const uint8_t *buf, uint32_t *seq)
{
	const uint32_t least = mgcap_pcapng_epb_len(0, 1), most = least + 1000;

	while (s->head < to) {
		uint64_t room = to - s->head;
		uint32_t len = room >= most + least ? most : room <= most ? (uint32_t)room :
			       (uint32_t)room - least;

		CU_ASSERT_FATAL(synthetic_ring_put_epb(s, buf, len - least, len - least, 3,
						       (*seq)++) == 0);
	}
}

/*
 * A block across the end of a page given back is counted later, when the
 * page it ends in is: by then the kernel may have written the first page
 * again (the ring filled behind it).  Its start at every offset near the
 * page's end, its header across it too.
 */
static void test_pages_count_a_block_across_a_page_given_back(void)
{
	uint32_t before;

	for (before = 4; before <= 64; before += 4) {
		struct synthetic_ring s;
		struct mgcap_pages pg;
		const uint8_t *first;
		static uint8_t buf[PAGE];
		uint32_t seq = 0, len;

		attach(&s, &pg);
		/* two blocks up to @before bytes before the first page's end, one across it */
		memset(buf, 0, sizeof(buf));
		len = PAGE - before - 2 * mgcap_pcapng_epb_len(0, 1);
		CU_ASSERT_FATAL(synthetic_ring_put_epb(&s, buf, len, len, 3, seq++) == 0);
		CU_ASSERT_FATAL(synthetic_ring_put_epb(&s, buf, 0, 0, 3, seq++) == 0);
		CU_ASSERT_EQUAL_FATAL(s.head, PAGE - before);
		CU_ASSERT_FATAL(synthetic_ring_put_epb(&s, buf, 100, 100, 3, seq++) == 0);
		CU_ASSERT_EQUAL_FATAL(mgcap_pages_next(&pg, PAGE, &first), PAGE);
		CU_ASSERT_EQUAL_FATAL(mgcap_pages_done(&pg, PAGE), 0);
		CU_ASSERT_EQUAL(pg.packets, 2);
		/* the ring filled to the brim: the first page's place written again */
		memset(buf, 0xee, sizeof(buf));
		fill_to(&s, RING, buf, &seq);
		fill_to(&s, RING + PAGE, buf, &seq);
		CU_ASSERT_EQUAL_FATAL(s.dropped, 0);
		/* every block counted once, the one across the page too */
		CU_ASSERT_EQUAL(take(&pg, s.head), 0);
		CU_ASSERT_EQUAL(pg.r.tail, RING + PAGE);
		CU_ASSERT_EQUAL(pg.packets, seq);
		synthetic_ring_free(&s);
	}
}

/*
 * A ring full to the brim behind a block across the end of a page given
 * back: a file's end looked for over the whole ring (the first block ends
 * in it whatever the room), and the whole ring dropped, every block counted
 * once (a bound of one ring's length from the block hid them all).
 */
static void test_pages_a_full_ring_behind_a_block_across(void)
{
	static uint8_t buf[PAGE];
	struct synthetic_ring s;
	struct mgcap_pages pg;
	const uint8_t *first;
	uint64_t cut, dropped;
	uint32_t seq = 0, len = PAGE - 100 - 2 * mgcap_pcapng_epb_len(0, 1), across;

	attach(&s, &pg);
	memset(buf, 0, sizeof(buf));
	CU_ASSERT_FATAL(synthetic_ring_put_epb(&s, buf, len, len, 3, seq++) == 0);
	CU_ASSERT_FATAL(synthetic_ring_put_epb(&s, buf, 0, 0, 3, seq++) == 0);
	CU_ASSERT_FATAL(synthetic_ring_put_epb(&s, buf, 1000, 1000, 3, seq++) == 0);
	across = PAGE - 100 + mgcap_pcapng_epb_len(1000, 1);
	CU_ASSERT_EQUAL_FATAL(mgcap_pages_next(&pg, PAGE, &first), PAGE);
	CU_ASSERT_EQUAL_FATAL(mgcap_pages_done(&pg, PAGE), 0);
	fill_to(&s, RING, buf, &seq);
	fill_to(&s, RING + PAGE, buf, &seq);
	CU_ASSERT_EQUAL_FATAL(s.head - pg.r.tail, RING);
	CU_ASSERT_FATAL(mgcap_pages_cut(&pg, s.head, 0, &cut) == 0);
	CU_ASSERT_EQUAL(cut, across);
	CU_ASSERT_FATAL(mgcap_pages_cut(&pg, s.head, UINT64_MAX, &cut) == 0);
	CU_ASSERT_EQUAL(cut, s.head);
	CU_ASSERT_FATAL(mgcap_pages_drop(&pg, s.head, &dropped) == 0);
	CU_ASSERT_EQUAL(dropped, seq - 2);
	CU_ASSERT_EQUAL(pg.block_at, s.head);
	CU_ASSERT_FALSE(mgcap_reader_corrupt(&pg.r, NULL));
	synthetic_ring_free(&s);
}

/*
 * The blocks for an index: from a block's start, those that begin before a
 * bound, each whole (past the bound too), a run ending at the data area's
 * end; a frame longer than its block is refused.
 */
static void test_pages_runs_of_blocks_for_an_index(void)
{
	struct synthetic_ring s;
	struct mgcap_pages pg;
	const uint8_t *first;
	uint8_t buf[1600];
	uint64_t at = 0, len, end;
	uint32_t seq, blen = mgcap_pcapng_epb_len(128, 1), runs = 0, epbs = 0;

	attach(&s, &pg);
	memset(buf, 7, sizeof(buf));
	for (seq = 0; seq < 300; seq++)
		CU_ASSERT_FATAL(synthetic_ring_put_epb(&s, buf, 128, 128, 0, seq) == 0);
	/* those that begin in the first page: the last ends in the second */
	CU_ASSERT_FATAL(mgcap_pages_blocks(&pg, 0, PAGE, &first, &len) == 0);
	CU_ASSERT_PTR_EQUAL(first, s.data);
	CU_ASSERT_EQUAL(len, (PAGE + blen - 1) / blen * blen);
	CU_ASSERT_FATAL(mgcap_pages_blocks(&pg, blen, blen, &first, &len) == 0);
	CU_ASSERT_EQUAL(len, 0);
	/* from a block in the fifth page, four given back, to everything after 100 more */
	CU_ASSERT_EQUAL_FATAL(take(&pg, 4 * PAGE), 0);
	at = (4 * PAGE + blen - 1) / blen * blen;
	for (; seq < 400; seq++)
		CU_ASSERT_FATAL(synthetic_ring_put_epb(&s, buf, 128, 128, 0, seq) == 0);
	/* two runs, the filler before the data area's end in the first */
	while (at < s.head) {
		CU_ASSERT_FATAL(mgcap_pages_blocks(&pg, at, s.head, &first, &len) == 0);
		CU_ASSERT_FATAL(len > 0);
		CU_ASSERT_PTR_EQUAL(first, s.data + at % RING);
		for (end = 0; end < len; end += pcapng_block_len(first + end))
			epbs += pcapng_block_type(first + end) == MGCAP_PCAPNG_EPB;
		CU_ASSERT_EQUAL(end, len);
		at += len;
		runs++;
	}
	CU_ASSERT_EQUAL(at, s.head);
	CU_ASSERT_EQUAL(runs, 2);
	CU_ASSERT_EQUAL(epbs, 400 - (4 * PAGE + blen - 1) / blen);
	/* a frame that would reach past its block */
	at = (4 * PAGE + blen - 1) / blen * blen;
	memcpy(s.data + at + blen + 20, &(uint32_t){ blen - 31 }, 4);
	CU_ASSERT_EQUAL(mgcap_pages_blocks(&pg, at, 6 * PAGE, &first, &len), -1);
	CU_ASSERT(mgcap_reader_corrupt(&pg.r, &end));
	CU_ASSERT_EQUAL(end, at + blen);
	synthetic_ring_free(&s);
}

/* A block the kernel never wrote (a length it cannot have) ends the reading. */
static void test_pages_refuse_a_block_that_does_not_fit(void)
{
	static const uint32_t lies[] = { 0, 8, 14, RING + 4, 0x80000000U };
	size_t i;

	for (i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
		struct synthetic_ring s;
		struct mgcap_pages pg;
		uint8_t buf[1600];
		uint64_t at, end, cut;
		uint32_t seq;

		attach(&s, &pg);
		for (seq = 0; seq < 60; seq++) {
			frame(buf, seq);
			CU_ASSERT_FATAL(synthetic_ring_put_epb(&s, buf, frame_len(seq),
							       frame_len(seq), 3, seq) == 0);
		}
		CU_ASSERT_FATAL(synthetic_ring_fill_page(&s, &end) == 0);
		/* the third block's length */
		at = mgcap_pcapng_epb_len(frame_len(0), 1) + mgcap_pcapng_epb_len(frame_len(1), 1);
		memcpy(s.data + at + 4, &lies[i], 4);
		CU_ASSERT_EQUAL(take(&pg, end), -1);
		CU_ASSERT(mgcap_reader_corrupt(&pg.r, &at));
		CU_ASSERT_EQUAL(pg.packets, 2);
		/* and a cut looks no further, from the start either */
		CU_ASSERT_EQUAL(mgcap_pages_cut(&pg, end, UINT64_MAX, &cut), -1);
		CU_ASSERT_FATAL(mgcap_pages_begin(&pg, 0) == 0);
		CU_ASSERT_EQUAL(mgcap_pages_cut(&pg, end, UINT64_MAX, &cut), -1);
		synthetic_ring_free(&s);
	}
}

void register_pages_tests(void)
{
	static const struct unit_test tests[] = {
		{ "the pages hold every block, in order", test_pages_hold_every_block_in_order },
		{ "the pages stop at a limit", test_pages_stop_at_a_limit },
		{ "a file ends at a block", test_pages_cut_at_a_block },
		{ "a block across a page given back is counted though its page was written again",
		  test_pages_count_a_block_across_a_page_given_back },
		{ "a full ring behind a block across a page given back",
		  test_pages_a_full_ring_behind_a_block_across },
		{ "runs of blocks for an index", test_pages_runs_of_blocks_for_an_index },
		{ "a block that does not fit ends the reading",
		  test_pages_refuse_a_block_that_does_not_fit },
	};

	ADD_SUITE("pages", tests);
}
