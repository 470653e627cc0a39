// SPDX-License-Identifier: BSD-2-Clause
/* The ring protocol: placement, wrap rules, full ring, reader validation. */
#include <string.h>

#include "mgcap_reader.h"
#include "synthetic_ring.h"
#include "unit.h"

#define SMALL_RING 4096

static void fill_frame(uint8_t *f, uint32_t len, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		f[i] = (uint8_t)(n * 7 + i);
}

static void test_rec_len_alignment(void)
{
	CU_ASSERT_EQUAL(sizeof(struct mgcap_rec), 24);
	CU_ASSERT_EQUAL(MGCAP_REC_LEN(0), 24);
	CU_ASSERT_EQUAL(MGCAP_REC_LEN(1), 32);
	CU_ASSERT_EQUAL(MGCAP_REC_LEN(8), 32);
	CU_ASSERT_EQUAL(MGCAP_REC_LEN(9), 40);
	CU_ASSERT_EQUAL(MGCAP_REC_LEN(60), 88);
	CU_ASSERT_EQUAL(MGCAP_REC_LEN(MGCAP_SNAPLEN_MAX) % MGCAP_REC_ALIGN, 0);
}

static void test_ctrl_layout(void)
{
	/* producer and consumer on cache lines of their own */
	CU_ASSERT_EQUAL(offsetof(struct mgcap_ring_ctrl, producer), 64);
	CU_ASSERT_EQUAL(offsetof(struct mgcap_ring_ctrl, consumer), 128);
	CU_ASSERT_EQUAL(sizeof(struct mgcap_ring_ctrl), 192);
	CU_ASSERT_EQUAL(sizeof(struct mgcap_queue_info), 64);
	CU_ASSERT_EQUAL(offsetof(struct mgcap_queue_info, netns), 56);
	CU_ASSERT_EQUAL(sizeof(struct mgcap_queue_stats), 64);
	/* what readers of MGCAP_IOC_STATS_V1, _V2 and _V3 know of it */
	CU_ASSERT_EQUAL(offsetof(struct mgcap_queue_stats, coalesced), 40);
	CU_ASSERT_EQUAL(_IOC_SIZE(MGCAP_IOC_STATS_V1), 40);
	CU_ASSERT_EQUAL(_IOC_NR(MGCAP_IOC_STATS_V1), _IOC_NR(MGCAP_IOC_STATS));
	CU_ASSERT_EQUAL(offsetof(struct mgcap_queue_stats, sent), 48);
	CU_ASSERT_EQUAL(_IOC_SIZE(MGCAP_IOC_STATS_V2), 48);
	CU_ASSERT_EQUAL(_IOC_NR(MGCAP_IOC_STATS_V2), _IOC_NR(MGCAP_IOC_STATS));
	CU_ASSERT_EQUAL(offsetof(struct mgcap_queue_stats, unconverted), 56);
	CU_ASSERT_EQUAL(_IOC_SIZE(MGCAP_IOC_STATS_V3), 56);
	CU_ASSERT_EQUAL(_IOC_NR(MGCAP_IOC_STATS_V3), _IOC_NR(MGCAP_IOC_STATS));
}

static void test_skip_before(void)
{
	CU_ASSERT_EQUAL(mgcap_ring_skip_before(0, 4096, 4096), 0);
	CU_ASSERT_EQUAL(mgcap_ring_skip_before(4000, 4096, 96), 0);
	CU_ASSERT_EQUAL(mgcap_ring_skip_before(4000, 4096, 104), 96);
	/* free-running: the lap does not matter */
	CU_ASSERT_EQUAL(mgcap_ring_skip_before(3 * 4096 + 4000, 4096, 104), 96);
	CU_ASSERT_EQUAL(mgcap_ring_skip_before(4088, 4096, 24), 8);
}

static void test_skip_at(void)
{
	uint8_t data[4096];
	struct mgcap_rec *rec;

	memset(data, 0, sizeof(data));
	/* fewer bytes than a header left: skip without reading */
	CU_ASSERT_EQUAL(mgcap_ring_skip_at(4080, sizeof(data), data), 16);
	/* a pad record */
	rec = (struct mgcap_rec *)(data + 4000);
	rec->rec_len = 96;
	rec->flags = MGCAP_REC_F_PAD;
	CU_ASSERT_EQUAL(mgcap_ring_skip_at(4000, sizeof(data), data), 96);
	/* a real record */
	rec->flags = MGCAP_REC_F_HWTSTAMP;
	CU_ASSERT_EQUAL(mgcap_ring_skip_at(4000, sizeof(data), data), 0);
}

static void test_attach_rejects_bad_rings(void)
{
	struct synthetic_ring s;
	struct mgcap_reader r;
	char err[128];

	CU_ASSERT_FATAL(synthetic_ring_init(&s, SMALL_RING, 0) == 0);
	CU_ASSERT_EQUAL(mgcap_reader_attach(&r, s.map, s.map_size, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(mgcap_reader_attach(&r, s.map, s.map_size - 1, err, sizeof(err)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "layout"));
	s.ctrl->version = 99;
	CU_ASSERT_EQUAL(mgcap_reader_attach(&r, s.map, s.map_size, err, sizeof(err)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "version"));
	s.ctrl->version = MGCAP_RING_VERSION;
	s.ctrl->data_size = SMALL_RING - 8;
	CU_ASSERT_EQUAL(mgcap_reader_attach(&r, s.map, s.map_size, err, sizeof(err)), -1);
	/* a layout whose sum wraps to the mapping's size: data far outside it */
	s.ctrl->data_size = 1ULL << 63;
	s.ctrl->data_offset = s.map_size + (1ULL << 63);
	CU_ASSERT_EQUAL(mgcap_reader_attach(&r, s.map, s.map_size, err, sizeof(err)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "layout"));
	s.ctrl->data_offset = s.map_size - SMALL_RING;
	s.ctrl->data_size = SMALL_RING;
	s.ctrl->magic = 0;
	CU_ASSERT_EQUAL(mgcap_reader_attach(&r, s.map, s.map_size, err, sizeof(err)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "magic"));
	CU_ASSERT_EQUAL(mgcap_reader_attach(&r, s.map, 8, err, sizeof(err)), -1);
	synthetic_ring_free(&s);
}

/* Many laps with record sizes that land on every wrap case. */
static void test_round_trip_many_laps(void)
{
	struct synthetic_ring s;
	struct mgcap_reader r;
	uint8_t frame[600];
	char err[128];
	uint32_t put = 0, got = 0, pads_seen = 0;
	uint64_t last_tail = 0;

	CU_ASSERT_FATAL(synthetic_ring_init(&s, SMALL_RING, 3) == 0);
	CU_ASSERT_FATAL(mgcap_reader_attach(&r, s.map, s.map_size, err, sizeof(err)) == 0);
	while (got < 5000) {
		const struct mgcap_rec *rec;

		/* bursts of varying length, so the reader lags and the ring fills */
		while (put < got + 1 + (put % 13)) {
			uint32_t len = 1 + (put * 37) % sizeof(frame);

			fill_frame(frame, len, put);
			if (synthetic_ring_put(&s, frame, len, len + 4, 3, 0, 1000 + put))
				break;
			put++;
		}
		while ((rec = mgcap_reader_next(&r)) != NULL) {
			uint32_t len = 1 + (got * 37) % sizeof(frame);

			if (r.tail - last_tail != rec->rec_len)
				pads_seen++;
			last_tail = r.tail;
			fill_frame(frame, len, got);
			CU_ASSERT_EQUAL_FATAL(rec->caplen, len);
			CU_ASSERT_EQUAL(rec->wirelen, len + 4);
			CU_ASSERT_EQUAL(rec->queue, 3);
			CU_ASSERT_EQUAL(rec->tstamp_ns, 1000 + got);
			CU_ASSERT_EQUAL_FATAL(memcmp(rec->data, frame, len), 0);
			CU_ASSERT(rec->rec_len >= sizeof(*rec) + len);
			/* records never straddle the end of the data area */
			CU_ASSERT((uint8_t *)rec + rec->rec_len <= s.data + SMALL_RING);
			got++;
		}
		mgcap_reader_release(&r);
	}
	CU_ASSERT_EQUAL(s.dropped > 0, 1);	/* the full-ring path ran too */
	CU_ASSERT(pads_seen > 10);		/* and the wrap paths */
	CU_ASSERT_EQUAL(r.tail, s.head);
	synthetic_ring_free(&s);
}

/* Stretches hold records back to back, padding only at their end, over many laps. */
static void test_stretches_over_many_laps(void)
{
	struct synthetic_ring s;
	struct mgcap_reader r;
	uint8_t frame[600];
	char err[128];
	uint32_t put = 0, got = 0, wraps = 0;

	CU_ASSERT_FATAL(synthetic_ring_init(&s, SMALL_RING, 1) == 0);
	CU_ASSERT_FATAL(mgcap_reader_attach(&r, s.map, s.map_size, err, sizeof(err)) == 0);
	while (got < 5000) {
		const uint8_t *start;
		uint64_t len;

		while (put < got + 1 + (put % 17)) {
			uint32_t n = 1 + (put * 53) % sizeof(frame);

			fill_frame(frame, n, put);
			if (synthetic_ring_put(&s, frame, n, n, 1, 0, put))
				break;
			put++;
		}
		while ((len = mgcap_reader_stretch(&r, &start)) != 0) {
			const uint8_t *cur = start, *end = start + len;

			CU_ASSERT_FATAL(end <= s.data + SMALL_RING);
			while (end - cur >= (ptrdiff_t)sizeof(struct mgcap_rec)) {
				const struct mgcap_rec *rec = (const struct mgcap_rec *)cur;
				uint32_t n = 1 + (got * 53) % sizeof(frame);

				if (rec->flags & MGCAP_REC_F_PAD)
					break;
				fill_frame(frame, n, got);
				CU_ASSERT_EQUAL_FATAL(rec->caplen, n);
				CU_ASSERT_EQUAL_FATAL(rec->tstamp_ns, got);
				CU_ASSERT_EQUAL_FATAL(memcmp(rec->data, frame, n), 0);
				cur += rec->rec_len;
				got++;
			}
			/* whatever is left is padding up to the end of the data area */
			if (cur != end) {
				CU_ASSERT_EQUAL(end, s.data + SMALL_RING);
				wraps++;
			}
			mgcap_reader_advance(&r, len);
		}
		mgcap_reader_release(&r);
	}
	CU_ASSERT(wraps > 10);
	CU_ASSERT_EQUAL(r.tail, s.head);
	synthetic_ring_free(&s);
}

static void test_full_ring_keeps_unread_records(void)
{
	struct synthetic_ring s;
	struct mgcap_reader r;
	uint8_t frame[100];
	char err[128];
	uint32_t n = 0, i;
	const struct mgcap_rec *rec;

	CU_ASSERT_FATAL(synthetic_ring_init(&s, SMALL_RING, 0) == 0);
	CU_ASSERT_FATAL(mgcap_reader_attach(&r, s.map, s.map_size, err, sizeof(err)) == 0);
	for (i = 0; i < 100; i++) {
		fill_frame(frame, sizeof(frame), i);
		if (synthetic_ring_put(&s, frame, sizeof(frame), sizeof(frame), 0, 0, i) == 0)
			n++;
	}
	/* 124-byte records (128 aligned): exactly 32 fit in 4096 bytes */
	CU_ASSERT_EQUAL(n, SMALL_RING / MGCAP_REC_LEN(sizeof(frame)));
	CU_ASSERT_EQUAL(s.dropped, 100 - n);
	for (i = 0; i < n; i++) {
		rec = mgcap_reader_next(&r);
		CU_ASSERT_PTR_NOT_NULL_FATAL(rec);
		CU_ASSERT_EQUAL(rec->tstamp_ns, i);	/* the first ones, not the last */
	}
	CU_ASSERT_PTR_NULL(mgcap_reader_next(&r));
	/* nothing freed until released */
	CU_ASSERT_EQUAL(synthetic_ring_put(&s, frame, sizeof(frame), sizeof(frame), 0, 0, 0), -1);
	mgcap_reader_release(&r);
	CU_ASSERT_EQUAL(synthetic_ring_put(&s, frame, sizeof(frame), sizeof(frame), 0, 0, 0), 0);
	synthetic_ring_free(&s);
}

static void test_reader_resumes_at_consumer(void)
{
	struct synthetic_ring s;
	struct mgcap_reader r;
	uint8_t frame[40] = { 0 };
	char err[128];
	uint32_t i;
	const struct mgcap_rec *rec;

	CU_ASSERT_FATAL(synthetic_ring_init(&s, SMALL_RING, 0) == 0);
	for (i = 0; i < 10; i++)
		synthetic_ring_put(&s, frame, sizeof(frame), sizeof(frame), 0, 0, i);
	CU_ASSERT_FATAL(mgcap_reader_attach(&r, s.map, s.map_size, err, sizeof(err)) == 0);
	for (i = 0; i < 4; i++)
		mgcap_reader_next(&r);
	mgcap_reader_release(&r);
	/* a new reader starts where the last one released */
	CU_ASSERT_FATAL(mgcap_reader_attach(&r, s.map, s.map_size, err, sizeof(err)) == 0);
	rec = mgcap_reader_next(&r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rec);
	CU_ASSERT_EQUAL(rec->tstamp_ns, 4);
	CU_ASSERT_EQUAL(mgcap_reader_backlog(&r), 5 * MGCAP_REC_LEN(sizeof(frame)));
	CU_ASSERT_EQUAL(mgcap_reader_detached(&r), 0);
	s.ctrl->flags |= MGCAP_RING_F_DETACHED;
	CU_ASSERT_EQUAL(mgcap_reader_detached(&r), 1);
	synthetic_ring_free(&s);
}

/* A gated reader sees only what was captured before the gate last opened. */
static void test_gated_reader(void)
{
	struct synthetic_ring s;
	struct mgcap_reader r;
	uint8_t frame[40] = { 0 };
	const uint8_t *first;
	char err[128];
	uint32_t i;
	const struct mgcap_rec *rec;

	CU_ASSERT_FATAL(synthetic_ring_init(&s, SMALL_RING, 0) == 0);
	CU_ASSERT_FATAL(mgcap_reader_attach(&r, s.map, s.map_size, err, sizeof(err)) == 0);
	mgcap_reader_set_gated(&r, 1);
	for (i = 0; i < 3; i++)
		synthetic_ring_put(&s, frame, sizeof(frame), sizeof(frame), 0, 0, i);
	CU_ASSERT_PTR_NULL(mgcap_reader_next(&r));
	CU_ASSERT_EQUAL(mgcap_reader_stretch(&r, &first), 0);
	CU_ASSERT_EQUAL(mgcap_reader_open_gate(&r), 1);
	CU_ASSERT_EQUAL(mgcap_reader_open_gate(&r), 0);	/* nothing new since */
	synthetic_ring_put(&s, frame, sizeof(frame), sizeof(frame), 0, 0, 3);
	for (i = 0; i < 3; i++) {
		rec = mgcap_reader_next(&r);
		CU_ASSERT_PTR_NOT_NULL_FATAL(rec);
		CU_ASSERT_EQUAL(rec->tstamp_ns, i);
	}
	/* the fourth came after the gate opened */
	CU_ASSERT_PTR_NULL(mgcap_reader_next(&r));
	CU_ASSERT_EQUAL(mgcap_reader_open_gate(&r), 1);
	CU_ASSERT_EQUAL(mgcap_reader_stretch(&r, &first), MGCAP_REC_LEN(sizeof(frame)));
	/* ungated, it reads the producer index itself again */
	mgcap_reader_advance(&r, MGCAP_REC_LEN(sizeof(frame)));
	mgcap_reader_set_gated(&r, 0);
	synthetic_ring_put(&s, frame, sizeof(frame), sizeof(frame), 0, 0, 4);
	rec = mgcap_reader_next(&r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rec);
	CU_ASSERT_EQUAL(rec->tstamp_ns, 4);
	synthetic_ring_free(&s);
}

/*
 * What a reader of the ring (the last one, or this one) may have written: a
 * record's lengths, an index into a frame's bytes.  Every record handed out
 * fits the ring; the first that does not ends the reading, there.
 */
enum forgery { FORGE_REC_LEN, FORGE_ZERO_LEN, FORGE_CAPLEN, FORGE_SWTSTAMP, FORGE_INTO_PAYLOAD,
	       FORGE_PRODUCER, FORGE_COUNT };

static void forged_ring_ends_reading(enum forgery how)
{
	struct synthetic_ring s;
	struct mgcap_reader r;
	struct mgcap_rec fake = { 0 }, *third;
	uint8_t frame[200];
	char err[128];
	const struct mgcap_rec *rec;
	uint64_t at = 0, expect_at;
	uint32_t i, got = 0, expect = 2;

	CU_ASSERT_FATAL(synthetic_ring_init(&s, SMALL_RING, 0) == 0);
	/* a sender's frame shaped like a record header that claims 200,000 bytes */
	memset(frame, 0x5a, sizeof(frame));
	fake.caplen = 200000;
	fake.wirelen = 200000;
	fake.rec_len = MGCAP_REC_LEN(fake.caplen);
	memcpy(frame, &fake, sizeof(fake));
	for (i = 0; i < 4; i++)
		CU_ASSERT_FATAL(synthetic_ring_put(&s, frame, sizeof(frame), sizeof(frame), 0, 0,
						   i) == 0);
	third = (struct mgcap_rec *)(s.data + 2 * MGCAP_REC_LEN(sizeof(frame)));
	expect_at = 2 * MGCAP_REC_LEN(sizeof(frame));
	switch (how) {
	case FORGE_REC_LEN:
		third->rec_len = SMALL_RING * 64;
		break;
	case FORGE_ZERO_LEN:
		third->rec_len = 0;
		break;
	case FORGE_CAPLEN:
		third->caplen = 100000;
		break;
	case FORGE_SWTSTAMP:
		third->flags |= MGCAP_REC_F_SWTSTAMP;
		break;
	case FORGE_INTO_PAYLOAD:
		/* the reader starts in the first frame's bytes */
		s.ctrl->consumer = sizeof(struct mgcap_rec);
		expect = 0;
		expect_at = sizeof(struct mgcap_rec);
		break;
	case FORGE_PRODUCER:
		s.ctrl->producer = s.head + 2 * SMALL_RING;
		expect = 0;
		expect_at = 0;
		break;
	default:
		break;
	}
	CU_ASSERT_FATAL(mgcap_reader_attach(&r, s.map, s.map_size, err, sizeof(err)) == 0);
	/* bounded: a record that does not move the reader on must not hand it out forever */
	for (i = 0; i < 16 && (rec = mgcap_reader_next(&r)) != NULL; i++) {
		const uint8_t *data = rec->data;
		uint64_t sum = 0;
		uint32_t b;

		/* what a client does with a record: reads its bytes (ASan sees past the ring) */
		for (b = 0; b < rec->caplen; b++)
			sum += data[b];
		CU_ASSERT(sum > 0);
		CU_ASSERT(data + rec->caplen <= s.data + SMALL_RING);
		got++;
	}
	CU_ASSERT_EQUAL(got, expect);
	CU_ASSERT(mgcap_reader_corrupt(&r, &at));
	CU_ASSERT_EQUAL(at, expect_at);
	/* and stays ended, whatever comes after */
	mgcap_reader_release(&r);
	synthetic_ring_put(&s, frame, sizeof(frame), sizeof(frame), 0, 0, 9);
	CU_ASSERT_PTR_NULL(mgcap_reader_next(&r));
	synthetic_ring_free(&s);
}

static void test_forged_records_end_reading(void)
{
	int how;

	for (how = 0; how < FORGE_COUNT; how++)
		forged_ring_ends_reading((enum forgery)how);
}

/* Honest rings never end a reading: no record the producer writes is refused. */
static void test_honest_ring_is_not_corrupt(void)
{
	struct synthetic_ring s;
	struct mgcap_reader r;
	uint8_t frame[1600];
	char err[128];
	uint32_t i, len, read = 0, put = 0;

	CU_ASSERT_FATAL(synthetic_ring_init(&s, SMALL_RING, 0) == 0);
	CU_ASSERT_FATAL(mgcap_reader_attach(&r, s.map, s.map_size, err, sizeof(err)) == 0);
	memset(frame, 1, sizeof(frame));
	for (i = 0; i < 20000; i++) {
		len = (i * 37) % (sizeof(frame) + 1);
		put += (i % 3 ? synthetic_ring_put(&s, frame, len, len, 0, 0, i) :
			synthetic_ring_put_both(&s, frame, len, len, 0, 0, i, i + 1)) == 0;
		if (i % 7 == 0) {
			while (mgcap_reader_next(&r))
				read++;
			mgcap_reader_release(&r);
		}
	}
	while (mgcap_reader_next(&r))
		read++;
	CU_ASSERT_EQUAL(read, put);
	CU_ASSERT(put > 10000);
	CU_ASSERT_FALSE(mgcap_reader_corrupt(&r, NULL));
	synthetic_ring_free(&s);
}

void register_ring_tests(void)
{
	static const struct unit_test tests[] = {
		{ "record length alignment", test_rec_len_alignment },
		{ "control page layout", test_ctrl_layout },
		{ "producer skip rule", test_skip_before },
		{ "reader skip rule", test_skip_at },
		{ "attach rejects bad rings", test_attach_rejects_bad_rings },
		{ "round trip over many laps", test_round_trip_many_laps },
		{ "stretches over many laps", test_stretches_over_many_laps },
		{ "full ring keeps unread records", test_full_ring_keeps_unread_records },
		{ "reader resumes at consumer index", test_reader_resumes_at_consumer },
		{ "gated reader", test_gated_reader },
		{ "forged records end the reading", test_forged_records_end_reading },
		{ "an honest ring is never corrupt", test_honest_ring_is_not_corrupt },
	};

	ADD_SUITE("ring", tests);
}
