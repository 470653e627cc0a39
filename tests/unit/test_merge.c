// SPDX-License-Identifier: BSD-2-Clause
/* Merging queue rings into one stream in stamp order. */
#include <string.h>

#include "mgcap_merge.h"
#include "synthetic_ring.h"
#include "unit.h"

#define HOLD 10000000ULL	/* 10 ms */
#define T0 1000000000ULL

static struct synthetic_ring rings[3];
static struct mgcap_merge_queue queues[3];
static struct mgcap_merge merge;

static void setup(size_t n)
{
	char err[128];
	size_t i;

	for (i = 0; i < n; i++) {
		CU_ASSERT_FATAL(synthetic_ring_init(&rings[i], 1 << 16, (uint32_t)i) == 0);
		CU_ASSERT_FATAL(mgcap_reader_attach(&queues[i].r, rings[i].map, rings[i].map_size,
						    err, sizeof(err)) == 0);
	}
	CU_ASSERT_FATAL(mgcap_merge_init(&merge, queues, n, HOLD) == 0);
}

static void teardown(size_t n)
{
	size_t i;

	mgcap_merge_free(&merge);
	for (i = 0; i < n; i++)
		synthetic_ring_free(&rings[i]);
}

static void put(size_t q, uint64_t ts)
{
	uint8_t frame[64];

	memset(frame, (int)q, sizeof(frame));
	CU_ASSERT_FATAL(synthetic_ring_put(&rings[q], frame, sizeof(frame), sizeof(frame),
					   (uint16_t)q, 0, ts) == 0);
}

/* a read of one record (pcap_next_ex()): a batch of its own */
static uint64_t take(uint64_t now, size_t *q, uint64_t *wait)
{
	const struct mgcap_rec *rec;

	mgcap_merge_begin_batch(&merge);
	rec = mgcap_merge_next(&merge, now, q, wait);

	return rec ? rec->tstamp_ns : 0;
}

static void test_interleaves_by_stamp_then_queue(void)
{
	uint64_t ts, wait, last = 0;
	size_t q = 0, lastq = 0, n = 0;
	int i;

	setup(3);
	for (i = 0; i < 100; i++) {
		put(0, 1000 + (uint64_t)i * 30);
		put(1, 1000 + (uint64_t)i * 20);	/* faster queue */
		put(2, 1000 + (uint64_t)i * 30);	/* ties with queue 0 */
	}
	while ((ts = take(T0, &q, &wait)) != 0) {
		CU_ASSERT(ts > last || (ts == last && q > lastq));
		last = ts;
		lastq = q;
		n++;
	}
	/* queue 1 ran dry at 2980, queues 0 and 2 go on from 3010: they wait */
	CU_ASSERT(n < 300);
	CU_ASSERT_EQUAL(last, 2980);
	CU_ASSERT_EQUAL(wait, HOLD);
	/* for the hold at most, counted from when they were first seen */
	CU_ASSERT_EQUAL(take(T0 + HOLD - 1, &q, &wait), 0);
	CU_ASSERT_EQUAL(wait, 1);
	while ((ts = take(T0 + HOLD, &q, &wait)) != 0)
		n++;
	CU_ASSERT_EQUAL(n, 300);
	CU_ASSERT_EQUAL(wait, 0);
	teardown(3);
}

/* queue 1's stamps are of a clock 1000 ahead: the key brings it back */
static uint64_t minus_offset(void *arg, size_t queue, const struct mgcap_rec *rec)
{
	(void)arg;
	return rec->tstamp_ns - (queue == 1 ? 1000 : 0);
}

/* With a key, the order (and the hold) follow the keys, not the stamps. */
static void test_orders_by_key(void)
{
	uint64_t wait, key, last = 0;
	const struct mgcap_rec *rec;
	size_t q = 0, n = 0;
	int i;

	setup(2);
	merge.key = minus_offset;
	for (i = 0; i < 50; i++) {
		put(0, 5000 + (uint64_t)i * 10);
		put(1, 6005 + (uint64_t)i * 10);	/* 5005 + 10 i in queue 0's time */
	}
	while ((rec = mgcap_merge_next(&merge, T0, &q, &wait)) != NULL) {
		key = merge.q[q].last_ts;
		CU_ASSERT_EQUAL(key, rec->tstamp_ns - (q == 1 ? 1000 : 0));
		/* by stamp, queue 0 would come out whole first */
		CU_ASSERT_EQUAL(q, n % 2);
		CU_ASSERT(key > last);
		last = key;
		n++;
	}
	/* queue 1's last, 5495, waits: queue 0 ran dry at 5490 and may have more */
	CU_ASSERT_EQUAL(n, 99);
	CU_ASSERT_EQUAL(wait, HOLD);
	rec = mgcap_merge_next(&merge, T0 + HOLD, &q, &wait);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rec);
	CU_ASSERT_EQUAL(merge.q[q].last_ts, 5495);
	teardown(2);
}

static void test_empty_queue_holds_back_a_while(void)
{
	uint64_t wait;
	size_t q = 0;

	setup(2);
	put(0, 500);
	/* queue 1 has never produced: it might still have something older */
	CU_ASSERT_EQUAL(take(T0, &q, &wait), 0);
	CU_ASSERT_EQUAL(wait, HOLD);
	CU_ASSERT_EQUAL(take(T0 + HOLD / 2, &q, &wait), 0);
	CU_ASSERT_EQUAL(wait, HOLD / 2);
	/* it produces in time: its older record goes first */
	put(1, 400);
	CU_ASSERT_EQUAL(take(T0 + HOLD / 2, &q, &wait), 400);
	CU_ASSERT_EQUAL(q, 1);
	/* 500 still waits for queue 1, until 500 has waited the hold */
	CU_ASSERT_EQUAL(take(T0 + HOLD / 2, &q, &wait), 0);
	CU_ASSERT_EQUAL(wait, HOLD / 2);
	CU_ASSERT_EQUAL(take(T0 + HOLD, &q, &wait), 500);
	CU_ASSERT_EQUAL(q, 0);
	/* a new record waits its own hold: an idle queue costs one per batch */
	put(0, 600);
	put(0, 601);
	CU_ASSERT_EQUAL(take(T0 + 2 * HOLD, &q, &wait), 0);
	CU_ASSERT_EQUAL(wait, HOLD);
	CU_ASSERT_EQUAL(take(T0 + 3 * HOLD, &q, &wait), 600);
	CU_ASSERT_EQUAL(take(T0 + 3 * HOLD, &q, &wait), 601);	/* same batch: no new wait */
	/* the queue that comes back takes part at once */
	put(0, 800);
	put(1, 700);
	CU_ASSERT_EQUAL(take(T0 + 3 * HOLD, &q, &wait), 700);
	CU_ASSERT_EQUAL(take(T0 + 3 * HOLD, &q, &wait), 0);	/* 800 waits for queue 1 */
	teardown(2);
}

static void test_no_hold_for_a_queue_already_past(void)
{
	uint64_t wait;
	size_t q = 0;

	setup(2);
	put(0, 100);
	put(1, 900);
	CU_ASSERT_EQUAL(take(T0, &q, &wait), 100);
	/* queue 0 went empty at 100: it may still produce something before 900 */
	CU_ASSERT_EQUAL(take(T0, &q, &wait), 0);
	CU_ASSERT_EQUAL(wait, HOLD);
	put(0, 800);
	CU_ASSERT_EQUAL(take(T0, &q, &wait), 800);
	CU_ASSERT_EQUAL(take(T0 + HOLD, &q, &wait), 900);
	/* queue 1 is empty now, but it showed 900: queue 0's 850 need not wait */
	put(0, 850);
	CU_ASSERT_EQUAL(take(T0 + HOLD, &q, &wait), 850);
	CU_ASSERT_EQUAL(q, 0);
	teardown(2);
}

/*
 * A record that waited out its holds lets the records seen no later go
 * without asking the empty queues again, but not one seen after it: that
 * one waits a hold of its own.
 */
static void test_a_record_seen_later_waits_its_own_hold(void)
{
	const uint64_t later = T0 + HOLD / 20;
	uint64_t wait;
	size_t q = 0;

	setup(3);
	put(0, 500);
	put(0, 700);
	put(1, 400);
	put(2, 300);
	CU_ASSERT_EQUAL(take(T0, &q, &wait), 300);
	/* queue 2 went empty: 400 (seen at T0) waits for it */
	CU_ASSERT_EQUAL(take(T0, &q, &wait), 0);
	CU_ASSERT_EQUAL(wait, HOLD);
	put(2, 600);
	CU_ASSERT_EQUAL(take(later, &q, &wait), 400);	/* it spoke: nothing waits */
	/* queue 1 went empty: 500 (seen at T0) waits for it, until T0 + HOLD */
	CU_ASSERT_EQUAL(take(later, &q, &wait), 0);
	CU_ASSERT_EQUAL(take(T0 + HOLD, &q, &wait), 500);
	/* 600, seen at later, waits for queue 1 until later + HOLD */
	CU_ASSERT_EQUAL(take(T0 + HOLD, &q, &wait), 0);
	CU_ASSERT_EQUAL(wait, later - T0);
	CU_ASSERT_EQUAL(take(later + HOLD, &q, &wait), 600);
	CU_ASSERT_EQUAL(q, 2);
	teardown(3);
}

/* a read of the merge, as the libpcap module's: one record, within the read's batch */
static uint64_t read_one(size_t *q, uint64_t *wait)
{
	const struct mgcap_rec *rec;

	mgcap_merge_begin_read(&merge);
	rec = mgcap_merge_next(&merge, T0, q, wait);
	mgcap_merge_end_read(&merge, rec != NULL, rec == NULL);
	return rec ? rec->tstamp_ns : 0;
}

/*
 * Reads of one record (pcap_next_ex()) share a batch: an empty ring is
 * looked at again once the batch handed out its records, or found nothing
 * more, not at every read.
 */
static void test_reads_of_one_record_share_a_batch(void)
{
	uint64_t wait;
	size_t q = 0;

	setup(2);
	merge.order.hold_ns = 0;
	put(0, 100);
	put(0, 200);
	put(0, 300);
	CU_ASSERT_EQUAL(read_one(&q, &wait), 100);
	put(1, 150);
	/* queue 1 was empty when the batch began */
	CU_ASSERT_EQUAL(read_one(&q, &wait), 200);
	/* the batch's records handed out: the next read looks again */
	mgcap_merge_end_read(&merge, MGCAP_MERGE_BATCH, 0);
	CU_ASSERT_EQUAL(read_one(&q, &wait), 150);
	CU_ASSERT_EQUAL(q, 1);
	CU_ASSERT_EQUAL(merge.order.out_of_order, 1);
	CU_ASSERT_EQUAL(read_one(&q, &wait), 300);
	/* nothing more: the read after that one looks again */
	CU_ASSERT_EQUAL(read_one(&q, &wait), 0);
	put(1, 400);
	CU_ASSERT_EQUAL(read_one(&q, &wait), 400);
	teardown(2);
}

static void test_release_keeps_what_was_not_handed_out(void)
{
	uint64_t wait;
	size_t q = 0;

	setup(2);
	put(0, 1);
	put(0, 2);
	put(1, 3);
	CU_ASSERT_EQUAL(take(T0, &q, &wait), 1);
	CU_ASSERT_EQUAL(take(T0, &q, &wait), 2);
	/* queue 1's record was looked at but not handed out */
	mgcap_merge_release(&merge);
	CU_ASSERT_EQUAL(rings[0].ctrl->consumer, rings[0].head);
	CU_ASSERT_EQUAL(rings[1].ctrl->consumer, 0);
	CU_ASSERT_EQUAL(take(T0, &q, &wait), 0);	/* queue 0 may still send before 3 */
	CU_ASSERT_EQUAL(take(T0 + HOLD, &q, &wait), 3);
	mgcap_merge_release(&merge);
	CU_ASSERT_EQUAL(rings[1].ctrl->consumer, rings[1].head);
	teardown(2);
}

static void test_zero_hold_never_waits(void)
{
	uint64_t wait;
	size_t q = 0;

	setup(2);
	merge.order.hold_ns = 0;
	put(0, 5);
	CU_ASSERT_EQUAL(take(T0, &q, &wait), 5);
	CU_ASSERT_EQUAL(wait, 0);
	teardown(2);
}

/* A queue quiet for longer than the hold, in the stream's time, holds no one. */
static void test_quiet_queue_holds_no_one(void)
{
	uint64_t wait;
	size_t q = 0;

	setup(2);
	put(1, 1000);
	/* queue 0 has not produced since the start: it might, and holds 1000 */
	CU_ASSERT_EQUAL(take(T0, &q, &wait), 0);
	CU_ASSERT_EQUAL(take(T0 + HOLD, &q, &wait), 1000);
	/* within a hold of 1000, queue 0 still holds what follows */
	put(1, 1000 + HOLD - 1);
	CU_ASSERT_EQUAL(take(T0 + HOLD, &q, &wait), 0);
	CU_ASSERT_EQUAL(wait, HOLD);
	CU_ASSERT_EQUAL(take(T0 + 2 * HOLD, &q, &wait), 1000 + HOLD - 1);
	/* a hold of the stream later it is quiet: records go as they come */
	put(1, 1000 + HOLD);
	put(1, 1000 + 5 * HOLD);
	CU_ASSERT_EQUAL(take(T0 + 2 * HOLD, &q, &wait), 1000 + HOLD);
	CU_ASSERT_EQUAL(take(T0 + 2 * HOLD, &q, &wait), 1000 + 5 * HOLD);
	CU_ASSERT_EQUAL(merge.order.out_of_order, 0);
	/* it speaks late: its record goes at once, counted out of order */
	put(0, 1000 + 4 * HOLD);
	CU_ASSERT_EQUAL(take(T0 + 2 * HOLD, &q, &wait), 1000 + 4 * HOLD);
	CU_ASSERT_EQUAL(q, 0);
	CU_ASSERT_EQUAL(merge.order.out_of_order, 1);
	/* and in the late record's ring, for mgcap show */
	CU_ASSERT_EQUAL(rings[0].ctrl->out_of_order, 1);
	CU_ASSERT_EQUAL(rings[1].ctrl->out_of_order, 0);
	/* and, having spoken, it holds again: queue 1's next waits for it */
	put(1, 1000 + 6 * HOLD);
	CU_ASSERT_EQUAL(take(T0 + 2 * HOLD, &q, &wait), 0);
	CU_ASSERT_EQUAL(wait, HOLD);
	teardown(2);
}

/*
 * An idle queue (empty since the start, or for a whole hold) holds a record
 * for its lag only, one that went empty lately for the hold: the default
 * hold here, ten times the lag.
 */
static void test_idle_queue_holds_for_its_lag_only(void)
{
	const uint64_t lag = MGCAP_ORDER_IDLE_LAG_NS, hold = 10 * lag, t1 = T0 + lag;
	uint64_t wait;
	size_t q = 0;

	setup(2);
	merge.order.hold_ns = hold;
	put(0, 500);
	/* queue 1 has shown nothing since the start: 500 waits the lag */
	CU_ASSERT_EQUAL(take(T0, &q, &wait), 0);
	CU_ASSERT_EQUAL(wait, lag);
	CU_ASSERT_EQUAL(take(T0 + lag - 1, &q, &wait), 0);
	CU_ASSERT_EQUAL(wait, 1);
	CU_ASSERT_EQUAL(take(t1, &q, &wait), 500);
	/* queue 0 went empty at t1: queue 1's 600 waits for it until it is idle */
	CU_ASSERT_EQUAL(take(t1, &q, &wait), 0);
	put(1, 600);
	CU_ASSERT_EQUAL(take(t1 + hold / 2, &q, &wait), 0);
	CU_ASSERT_EQUAL(wait, hold / 2);
	CU_ASSERT_EQUAL(take(t1 + hold - 1, &q, &wait), 0);
	CU_ASSERT_EQUAL(wait, 1);
	CU_ASSERT_EQUAL(take(t1 + hold, &q, &wait), 600);
	/* a hold after it went empty it is idle: 700 waits the lag only */
	put(1, 700);
	CU_ASSERT_EQUAL(take(t1 + 2 * hold, &q, &wait), 0);
	CU_ASSERT_EQUAL(wait, lag);
	CU_ASSERT_EQUAL(take(t1 + 2 * hold + lag, &q, &wait), 700);
	/* it brings something within the lag: that goes first */
	put(1, 900);
	CU_ASSERT_EQUAL(take(t1 + 3 * hold, &q, &wait), 0);
	put(0, 800);
	CU_ASSERT_EQUAL(take(t1 + 3 * hold + 1, &q, &wait), 800);
	CU_ASSERT_EQUAL(take(t1 + 3 * hold + 1, &q, &wait), 0);	/* queue 0 just went empty */
	CU_ASSERT_EQUAL(wait, hold - 1);
	CU_ASSERT_EQUAL(merge.order.out_of_order, 0);
	teardown(2);
}

/*
 * Each empty queue holds by its own state, the longest wait counting; the
 * lag is never longer than the hold; a caller whose sources are never
 * prompt (mgdump's devices) gives the hold as the lag.
 */
static void test_idle_lag_by_queue_and_by_caller(void)
{
	const uint64_t lag = MGCAP_ORDER_IDLE_LAG_NS, hold = 10 * lag;
	uint64_t wait;
	size_t q = 0;

	setup(3);
	merge.order.hold_ns = hold;
	put(0, 100);
	put(1, 200);
	/* queue 2, idle since the start, holds 100 its lag */
	CU_ASSERT_EQUAL(take(T0, &q, &wait), 0);
	CU_ASSERT_EQUAL(wait, lag);
	CU_ASSERT_EQUAL(take(T0 + lag, &q, &wait), 100);
	/* queue 0, just gone empty, holds 200 (seen at T0) for the hold; queue 2 no longer */
	CU_ASSERT_EQUAL(take(T0 + lag, &q, &wait), 0);
	CU_ASSERT_EQUAL(wait, hold - lag);
	CU_ASSERT_EQUAL(take(T0 + hold, &q, &wait), 200);
	teardown(3);

	setup(2);
	merge.order.hold_ns = lag / 2;
	put(0, 5);
	CU_ASSERT_EQUAL(take(T0, &q, &wait), 0);
	CU_ASSERT_EQUAL(wait, lag / 2);
	teardown(2);

	setup(2);
	merge.order.hold_ns = hold;
	merge.order.idle_lag_ns = hold;
	put(0, 5);
	CU_ASSERT_EQUAL(take(T0, &q, &wait), 0);
	CU_ASSERT_EQUAL(wait, hold);
	teardown(2);
}

/* Order never costs a frame: a ring past its fill mark holds nothing back. */
static void test_ring_past_the_fill_mark_holds_nothing_back(void)
{
	uint64_t wait, ts = 100, n = 0, put_n = 0;
	size_t q = 0;

	setup(2);
	/* queue 0 holds queue 1's records, until queue 1's ring is half full */
	while (rings[1].head + MGCAP_REC_LEN(64) < queues[1].r.data_size / MGCAP_MERGE_FILL_MARK) {
		put(1, ts++);
		put_n++;
	}
	mgcap_merge_begin_batch(&merge);
	CU_ASSERT_EQUAL(merge.order.rush, 0);
	CU_ASSERT_EQUAL(take(T0, &q, &wait), 0);
	put(1, ts++);
	put_n++;
	mgcap_merge_begin_batch(&merge);
	CU_ASSERT_EQUAL(merge.order.rush, 1);
	while (take(T0, &q, &wait))
		n++;
	CU_ASSERT_EQUAL(n, put_n);
	mgcap_merge_release(&merge);
	mgcap_merge_begin_batch(&merge);
	CU_ASSERT_EQUAL(merge.order.rush, 0);
	teardown(2);
}

/*
 * The merge written the plain way, looking at every queue for every record
 * (but one that showed nothing, until the next batch): the reference the
 * tournament, its runs and its shortcuts past the empty queues must agree
 * with, record for record, holds and quiet queues included.
 */
struct ref_queue {
	struct mgcap_reader r;
	const struct mgcap_rec *next;
	uint64_t next_seen, last_ts, head_seen, head_seen_at;
	uint64_t quiet_from;	/* as mgcap_order's, MGCAP_ORDER_PENDING at the start */
	int handed;		/* its record was handed out: empty next, it starts anew */
	int found_empty;	/* looked at in this batch, and it showed nothing */
	uint64_t handed_end;	/* ring index just past its last record handed out */
};

/* the reference's newest stamp handed out, and the records handed out after a newer one */
static uint64_t ref_newest, ref_out_of_order;

static void ref_begin_batch(struct ref_queue *rq, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		rq[i].found_empty = 0;
}

static const struct mgcap_rec *ref_next(struct ref_queue *rq, size_t n, uint64_t hold, int rush,
					uint64_t now, size_t *queue, uint64_t *wait)
{
	struct ref_queue *best = NULL;
	const struct mgcap_rec *rec;
	size_t i, best_i = 0;

	for (i = 0; i < n; i++) {
		struct ref_queue *q = &rq[i];

		if (!q->next && !q->found_empty) {
			q->next = mgcap_reader_next(&q->r);
			q->found_empty = !q->next;
			if (q->r.head != q->head_seen) {
				q->head_seen = q->r.head;
				q->head_seen_at = now;
			}
			if (q->next)
				q->next_seen = q->head_seen_at;
			else if (q->handed)
				q->quiet_from = MGCAP_ORDER_PENDING;
			q->handed = 0;
		}
		if (q->next && (!best || q->next->tstamp_ns < best->next->tstamp_ns ||
				(q->next->tstamp_ns == best->next->tstamp_ns && i < best_i))) {
			best = q;
			best_i = i;
		}
	}
	*wait = 0;
	if (!best)
		return NULL;
	if (now - best->next_seen < hold && !rush)
		for (i = 0; i < n; i++) {
			uint64_t key = best->next->tstamp_ns, from = rq[i].quiet_from;
			int quiet = from != MGCAP_ORDER_PENDING && key > from && key - from >= hold;

			if (!rq[i].next && !quiet && rq[i].last_ts < key) {
				*wait = hold - (now - best->next_seen);
				return NULL;
			}
		}
	for (i = 0; i < n; i++)
		if (!rq[i].next && rq[i].quiet_from == MGCAP_ORDER_PENDING)
			rq[i].quiet_from = best->next->tstamp_ns;
	*queue = best_i;
	rec = best->next;
	best->last_ts = rec->tstamp_ns;
	best->next = NULL;
	best->handed = 1;
	best->handed_end = best->r.tail;
	if (rec->tstamp_ns < ref_newest)
		ref_out_of_order++;
	else
		ref_newest = rec->tstamp_ns;
	return rec;
}

/*
 * One record from the merge and from the reference, which must agree: the
 * same record (both read the same ring memory, so the same pointer), queue
 * and wait.  1 if a record came; *@wait gets the wait, *@queue its queue.
 */
static int take_both(struct mgcap_merge *m, struct ref_queue *rq, size_t n, uint64_t now,
		     uint64_t *wait, size_t *queue)
{
	size_t qa = 0, qb = 0;
	uint64_t wb;
	const struct mgcap_rec *a = mgcap_merge_next(m, now, &qa, wait);
	const struct mgcap_rec *b = ref_next(rq, n, HOLD, m->order.rush, now, &qb, &wb);

	CU_ASSERT_PTR_EQUAL_FATAL(a, b);
	CU_ASSERT_EQUAL_FATAL(*wait, wb);
	CU_ASSERT_EQUAL_FATAL(qa, qb);
	CU_ASSERT_EQUAL_FATAL(m->order.out_of_order, ref_out_of_order);
	*queue = qa;
	return a != NULL;
}

/*
 * A record as take_both(), then the run after it (the read loop's way
 * past the tournament), each of its records the reference's next: how
 * many came.
 */
static uint64_t take_run_both(struct mgcap_merge *m, struct ref_queue *rq, size_t n,
			      uint64_t now, uint64_t *wait, uint64_t *in_runs)
{
	struct mgcap_merge_run run = { 0 };
	const struct mgcap_rec *a;
	uint64_t taken = 1;
	size_t q, qb = 0;

	if (!take_both(m, rq, n, now, wait, &q))
		return 0;
	if (!mgcap_merge_run_begin(m, q, &run))
		return taken;
	while ((a = mgcap_merge_run_next(m, &run, 0)) != NULL) {
		const struct mgcap_rec *b = ref_next(rq, n, HOLD, m->order.rush, now, &qb, wait);

		CU_ASSERT_PTR_EQUAL_FATAL(a, b);
		CU_ASSERT_EQUAL_FATAL(qb, run.queue);
		CU_ASSERT_EQUAL_FATAL(run.key, b->tstamp_ns);
		/* (a run never takes a record the order would count late) */
		CU_ASSERT_EQUAL_FATAL(m->order.out_of_order, ref_out_of_order);
		taken++;
		(*in_runs)++;
	}
	mgcap_merge_run_end(m, &run);
	return taken;
}

/*
 * @queues rings of @ring_bytes, records arriving at random, stamps tied
 * often, time going by, batches, runs and releases at random: the same
 * stream as the reference, record for record.  Small rings wrap (padding
 * at their end), and a record that finds one full is not made.
 */
static void agree_with_the_reference(size_t queues, uint64_t ring_bytes, uint32_t seed,
				     int steps)
{
	enum { MOST = 64 };
	static struct synthetic_ring big[MOST];
	static struct mgcap_merge_queue mq[MOST];
	static struct ref_queue rq[MOST];
	uint64_t stamp[MOST] = { 0 }, now = T0, put_n = 0, taken = 0, wait;
	uint64_t batches = 0, rushed = 0, in_runs = 0;
	struct mgcap_merge m;
	uint8_t frame[64] = { 0 };
	char err[128];
	size_t i;
	int step;

	CU_ASSERT_FATAL(queues <= MOST);
	memset(rq, 0, sizeof(rq));
	ref_newest = ref_out_of_order = 0;
	for (i = 0; i < queues; i++) {
		CU_ASSERT_FATAL(synthetic_ring_init(&big[i], ring_bytes, (uint32_t)i) == 0);
		CU_ASSERT_FATAL(mgcap_reader_attach(&mq[i].r, big[i].map, big[i].map_size,
						    err, sizeof(err)) == 0);
		CU_ASSERT_FATAL(mgcap_reader_attach(&rq[i].r, big[i].map, big[i].map_size,
						    err, sizeof(err)) == 0);
		rq[i].quiet_from = MGCAP_ORDER_PENDING;
	}
	CU_ASSERT_FATAL(mgcap_merge_init(&m, mq, queues, HOLD) == 0);
	for (step = 0; step < steps; step++) {
		uint32_t r;

		/* xorshift32: the same sequence everywhere */
		seed ^= seed << 13;
		seed ^= seed >> 17;
		seed ^= seed << 5;
		r = seed;

		if (r % 8 < 3) {		/* a record into some queue, its stamp near the others' */
			size_t q = (r >> 3) % (r % 8 == 0 && queues > 4 ? 4 : queues);

			/* now and then a leap of a third of the hold: queues fall quiet */
			stamp[q] += (r >> 12) % 64 ? (r >> 18) % 3 : HOLD / 3;
			/* and now and then a step back (a clock stepped, a forged ring): late */
			if ((r >> 12) % 97 == 1 && stamp[q] > 5)
				stamp[q] -= 5;
			put_n += synthetic_ring_put(&big[q], frame, sizeof(frame), sizeof(frame),
						    (uint16_t)q, 0, stamp[q]) == 0;
		} else if (r % 8 == 3) {	/* time goes by, a new batch */
			now += (r >> 3) % (HOLD / 4);
			mgcap_merge_release(&m);
			/*
			 * every ring got back up to its last record handed out, and
			 * (past the padding at the data area's end) no further than
			 * its first record not handed out
			 */
			for (i = 0; i < queues; i++) {
				CU_ASSERT_FATAL(big[i].ctrl->consumer >= rq[i].handed_end);
				CU_ASSERT_FATAL(big[i].ctrl->consumer <=
						rq[i].r.tail - (rq[i].next ? rq[i].next->rec_len : 0));
			}
			mgcap_merge_begin_batch(&m);
			rushed += m.order.rush;
			batches++;
			ref_begin_batch(rq, queues);
		} else if (r % 8 < 6) {		/* both take one */
			taken += take_both(&m, rq, queues, now, &wait, &i);
		} else {			/* one, and the run after it */
			taken += take_run_both(&m, rq, queues, now, &wait, &in_runs);
		}
	}
	/* then time runs on, a batch at a time: every record comes out, the same in both */
	for (;;) {
		uint64_t got = 0;

		mgcap_merge_release(&m);
		mgcap_merge_begin_batch(&m);
		ref_begin_batch(rq, queues);
		while (take_both(&m, rq, queues, now, &wait, &i))
			got++;
		taken += got;
		if (!got && !wait)
			break;
		now += wait;
	}
	CU_ASSERT_EQUAL(taken, put_n);
	/* each way was taken: batches with a ring past its fill mark and without, runs */
	CU_ASSERT(rushed > batches / 20 && rushed < batches - batches / 20);
	CU_ASSERT(in_runs > taken / 20);
	mgcap_merge_free(&m);
	for (i = 0; i < queues; i++)
		synthetic_ring_free(&big[i]);
}

/* 64 queues of 1 MiB, and a few of 4 KiB, which wrap some 600 times */
static void test_agrees_with_looking_at_every_queue(void)
{
	agree_with_the_reference(64, 1 << 20, 12345, 200000);
	agree_with_the_reference(2, 4096, 777, 50000);
	agree_with_the_reference(3, 4096, 4242, 50000);
	agree_with_the_reference(5, 4096, 99, 50000);
	agree_with_the_reference(7, 4096, 31337, 50000);
}

/*
 * A run goes no further than the key an empty queue that is not quiet
 * showed last: past it, a record waits for that queue.
 */
static void test_a_run_stops_at_an_empty_queues_last_key(void)
{
	struct mgcap_merge_run run = { 0 };
	uint64_t wait;
	size_t q = 0;

	setup(2);
	put(0, 50);
	put(1, 50);
	put(1, 50);
	put(1, 60);
	put(1, 70);
	CU_ASSERT_EQUAL(take(T0, &q, &wait), 50);
	CU_ASSERT_EQUAL(q, 0);
	/* queue 0 went empty at 50: queue 1's 50s go, the second of them in a run */
	CU_ASSERT_EQUAL(take(T0, &q, &wait), 50);
	CU_ASSERT_EQUAL(take(T0, &q, &wait), 50);
	CU_ASSERT_EQUAL(q, 1);
	CU_ASSERT_FATAL(mgcap_merge_run_begin(&merge, q, &run));
	/* its 60 does not */
	CU_ASSERT_PTR_NULL(mgcap_merge_run_next(&merge, &run, 0));
	mgcap_merge_run_end(&merge, &run);
	CU_ASSERT_EQUAL(take(T0, &q, &wait), 0);
	CU_ASSERT_EQUAL(wait, HOLD);
	CU_ASSERT_EQUAL(take(T0 + HOLD, &q, &wait), 60);
	teardown(2);
}

void register_merge_tests(void)
{
	static const struct unit_test tests[] = {
		{ "interleaves by stamp, then queue", test_interleaves_by_stamp_then_queue },
		{ "orders by a key", test_orders_by_key },
		{ "empty queue holds back a while", test_empty_queue_holds_back_a_while },
		{ "no hold for a queue already past", test_no_hold_for_a_queue_already_past },
		{ "a record seen later waits its own hold",
		  test_a_record_seen_later_waits_its_own_hold },
		{ "a run stops at an empty queue's last key",
		  test_a_run_stops_at_an_empty_queues_last_key },
		{ "reads of one record share a batch", test_reads_of_one_record_share_a_batch },
		{ "release keeps what was not handed out", test_release_keeps_what_was_not_handed_out },
		{ "zero hold never waits", test_zero_hold_never_waits },
		{ "a quiet queue holds no one", test_quiet_queue_holds_no_one },
		{ "an idle queue holds for its lag only", test_idle_queue_holds_for_its_lag_only },
		{ "the idle lag by queue and by caller", test_idle_lag_by_queue_and_by_caller },
		{ "a ring past its fill mark holds nothing back",
		  test_ring_past_the_fill_mark_holds_nothing_back },
		{ "agrees with looking at every queue", test_agrees_with_looking_at_every_queue },
	};

	ADD_SUITE("merge", tests);
}
