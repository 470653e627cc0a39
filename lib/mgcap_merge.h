/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Several queue rings read as one stream in time-stamp order (ties by
 * queue): mgcap_order.h over rings.  Records handed out stay in their rings
 * (zero copy) until mgcap_merge_release().
 */
#ifndef MGCAP_MERGE_H
#define MGCAP_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "mgcap_order.h"
#include "mgcap_reader.h"

struct mgcap_merge_queue {
	struct mgcap_reader r;
	/*
	 * The rest of the stretch being read (mgcap_reader_stretch()): its
	 * records are walked as a lone queue's read walks them, r.tail kept at
	 * @walk (so just past @next, while there is one); past its end,
	 * mgcap_merge_walk_on() reads on.
	 */
	const uint8_t *walk, *walk_end;
	const struct mgcap_rec *next;	/* looked at, not yet handed out */
	uint64_t next_key;		/* its place in the order (its stamp, or the key's) */
	uint64_t done;			/* ring index just past the last handed out */
	uint64_t last_ts;		/* key of the last record handed out */
	uint64_t head_seen;		/* producer index at the last look ... */
	uint64_t head_seen_at;		/* ... and when it was taken */
};

struct mgcap_merge {
	struct mgcap_merge_queue *q;
	size_t n;
	/*
	 * The order: each record's stamp, or (when set) what @key makes of it,
	 * such as stamps of several NICs' clocks in system time.  A queue's keys
	 * rise as its stamps do; one that goes back (a clock stepped) is handed
	 * out late and counted.
	 */
	uint64_t (*key)(void *arg, size_t queue, const struct mgcap_rec *rec);
	void *key_arg;
	struct mgcap_order order;	/* order.hold_ns: how long a record may wait */
	/* a bit a queue: records were handed out of it since the last release */
	uint64_t *handed;
	uint64_t batch_taken;		/* records handed out in this batch */
	int batch_over;			/* the next read begins a batch */
};

/*
 * @queues[i].r must be attached (mgcap_reader_open/attach); the merge reads
 * from where each reader stands.  @hold_ns 0: never hold back.  0, or -1
 * (out of memory); mgcap_merge_free() frees what it allocated.
 */
int mgcap_merge_init(struct mgcap_merge *m, struct mgcap_merge_queue *queues, size_t n,
		     uint64_t hold_ns);
void mgcap_merge_free(struct mgcap_merge *m);

/*
 * Order never costs a frame: once a ring holds this share of its size
 * (1/MGCAP_MERGE_FILL_MARK), nothing is held back for the order.  It is
 * the share at which the libpcap module has the kernel wake its reader, so
 * a merged read drains its rings when a lone queue's read would be woken.
 */
#define MGCAP_MERGE_FILL_MARK	4

/*
 * A batch begins: the rings past the fill mark set m->order.rush, and the
 * rings that showed nothing are looked at again (within a batch, only the
 * ring of the record handed out is).
 */
void mgcap_merge_begin_batch(struct mgcap_merge *m);

/* Records a batch hands out at most, however many each read takes. */
#define MGCAP_MERGE_BATCH	4096

/*
 * A read begins, and a batch with it where the last one is over: its rings
 * had nothing more to hand out, or it handed out MGCAP_MERGE_BATCH
 * records.  A caller that takes one record a read (pcap_next_ex()) then
 * looks at the empty rings as seldom as one that takes thousands.
 */
static inline void mgcap_merge_begin_read(struct mgcap_merge *m)
{
	if (m->batch_over)
		mgcap_merge_begin_batch(m);
}

/* A read ended: @taken records handed out; @drained: nothing more was there. */
static inline void mgcap_merge_end_read(struct mgcap_merge *m, uint64_t taken, int drained)
{
	m->batch_taken += taken;
	m->batch_over = drained || m->batch_taken >= MGCAP_MERGE_BATCH;
}

/*
 * Give back to the kernel every record handed out so far; a record looked
 * at but not handed out stays.  Only the rings records were handed out of
 * since the last release are written: one busy queue's read costs the
 * quiet ones nothing.
 */
void mgcap_merge_release(struct mgcap_merge *m);

/* --- the hot path, in line in the read loop ------------------------------- */

/*
 * The record after a stretch's end or a record that does not fit it: the
 * next stretch's first, or NULL (none yet, or reading ended: see
 * mgcap_reader_corrupt()).  Out of line: once a stretch.
 */
const struct mgcap_rec *mgcap_merge_walk_on(struct mgcap_merge_queue *q, uint64_t now_ns);

/*
 * The order's look at a queue, which has no record looked at: its next
 * one, kept in the queue until handed out.  @keyed: whether m->key is set,
 * a constant where inlined (the order's look functions below).
 */
static inline __attribute__((always_inline))
int mgcap_merge_look_at(void *arg, size_t queue, uint64_t now_ns, uint64_t *key,
			uint64_t *visible_at, int keyed)
{
	struct mgcap_merge *m = arg;
	struct mgcap_merge_queue *q = &m->q[queue];
	uint64_t len;
	const struct mgcap_rec *rec = mgcap_walk_rec(q->walk, q->walk_end, &len);

	if (rec) {
		q->walk += len;
		q->r.tail += len;
	} else if (!(rec = mgcap_merge_walk_on(q, now_ns))) {
		return 0;
	}
	q->next = rec;
	q->next_key = keyed ? m->key(m->key_arg, queue, rec) : rec->tstamp_ns;
	*key = q->next_key;
	/* a record of a stretch became visible when its producer index was read */
	*visible_at = q->head_seen_at;
	return 1;
}

static inline __attribute__((always_inline))
int mgcap_merge_look_by_stamp(void *arg, size_t queue, uint64_t now_ns, uint64_t *key,
			      uint64_t *visible_at)
{
	return mgcap_merge_look_at(arg, queue, now_ns, key, visible_at, 0);
}

static inline __attribute__((always_inline))
int mgcap_merge_look_by_key(void *arg, size_t queue, uint64_t now_ns, uint64_t *key,
			    uint64_t *visible_at)
{
	return mgcap_merge_look_at(arg, queue, now_ns, key, visible_at, 1);
}

/*
 * mgcap_merge_next() with whether m->key is set (@keyed) a constant where
 * inlined: the read loops' hot path.
 */
static inline __attribute__((always_inline))
const struct mgcap_rec *mgcap_merge_next_keyed(struct mgcap_merge *m, uint64_t now_ns,
					       size_t *queue, uint64_t *wait_ns, int keyed)
{
	uint64_t late_before = m->order.out_of_order;
	long i = mgcap_order_next_with(&m->order, now_ns, wait_ns,
				       keyed ? mgcap_merge_look_by_key : mgcap_merge_look_by_stamp);
	struct mgcap_merge_queue *best;
	const struct mgcap_rec *rec;

	if (i < 0)
		return NULL;
	best = &m->q[i];
	/* and in its ring, where mgcap show finds it (only this reader writes it) */
	if (m->order.out_of_order != late_before)
		__atomic_store_n(&best->r.ctrl->out_of_order, best->r.ctrl->out_of_order + 1,
				 __ATOMIC_RELAXED);
	rec = best->next;
	best->next = NULL;
	best->done = best->r.tail;
	best->last_ts = best->next_key;
	m->handed[i / 64] |= 1ULL << (i % 64);
	*queue = (size_t)i;
	return rec;
}

/*
 * The next record in stamp order, or NULL.  With NULL, *@wait_ns says how
 * long until a held-back record may go (0: nothing is held back, there is
 * just nothing to read in the rings of this batch: a reader begins a batch,
 * mgcap_merge_begin_batch(), for each read).  @now_ns is CLOCK_MONOTONIC.
 * *@queue gets the index of the queue the record came from, and
 * q[*@queue].last_ts its key.
 */
static inline __attribute__((always_inline))
const struct mgcap_rec *mgcap_merge_next(struct mgcap_merge *m, uint64_t now_ns,
					 size_t *queue, uint64_t *wait_ns)
{
	return mgcap_merge_next_keyed(m, now_ns, queue, wait_ns, m->key != NULL);
}

/*
 * The records of one queue that follow the one mgcap_merge_next() handed
 * out while the order needs no match for them (mgcap_order_run_bounds()):
 * one busy queue beside quiet ones is then walked as a lone queue is.
 * Within its stretch: the next stretch goes through mgcap_merge_next().
 * A run begun is ended (mgcap_merge_run_end()) before the merge is asked
 * for anything else.
 */
struct mgcap_merge_run {
	size_t queue;
	const uint8_t *walk, *end;	/* what is left of the stretch */
	uint64_t lo, span;		/* keys from lo, below lo + span */
	uint64_t key;			/* of the last record taken */
};

/* A run after a record of @queue, if the order allows one: 0 if not. */
static inline int mgcap_merge_run_begin(struct mgcap_merge *m, size_t queue,
					struct mgcap_merge_run *run)
{
	const struct mgcap_merge_queue *q = &m->q[queue];
	uint64_t lo, hi;

	if (!mgcap_order_run_bounds(&m->order, q->head_seen_at, &lo, &hi))
		return 0;
	run->queue = queue;
	run->walk = q->walk;
	run->end = q->walk_end;
	run->lo = lo;
	run->span = hi - lo;
	run->key = q->last_ts;
	return 1;
}

/*
 * The run's next record (run->key its key), or NULL where it ends.  @keyed:
 * whether m->key is set, a constant where inlined.
 */
static inline __attribute__((always_inline))
const struct mgcap_rec *mgcap_merge_run_next(const struct mgcap_merge *m,
					     struct mgcap_merge_run *run, int keyed)
{
	uint64_t key, len;
	const struct mgcap_rec *rec = mgcap_walk_rec(run->walk, run->end, &len);

	if (!rec)
		return NULL;
	key = keyed ? m->key(m->key_arg, run->queue, rec) : rec->tstamp_ns;
	if (key - run->lo >= run->span)
		return NULL;
	/* no older key after it in the run: one that goes back is the order's to count */
	run->span -= key - run->lo;
	run->lo = key;
	run->walk += len;
	run->key = key;
	return rec;
}

/* The run's records were handed out: the queue and the order go on after them. */
static inline void mgcap_merge_run_end(struct mgcap_merge *m, const struct mgcap_merge_run *run)
{
	struct mgcap_merge_queue *q = &m->q[run->queue];
	uint64_t bytes = (uint64_t)(run->walk - q->walk);

	if (!bytes)
		return;
	q->walk = run->walk;
	q->r.tail += bytes;
	q->done = q->r.tail;
	q->last_ts = run->key;
	mgcap_order_run_end(&m->order, run->queue, run->key);
}

#endif /* MGCAP_MERGE_H */
