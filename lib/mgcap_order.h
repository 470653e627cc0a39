/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Several sources, each in the order of its keys (time stamps), read as one
 * in key order, ties by source: the one merge of mgcap, under the queues of
 * a libpcap handle (mgcap_merge.h) and under mgdump's devices.
 *
 * Each source shows one record at a time, its oldest; the order hands out
 * the oldest of those.  A source that shows nothing may still produce an
 * older record (its frames may be a NAPI round behind), so the oldest
 * record waits while some empty source last showed an older key; but a
 * record waits at most @hold_ns from when it became visible, so an empty
 * source never holds the stream back longer than that.  A source that has
 * shown nothing for a whole hold of real time (or nothing since the order
 * began) is idle: it has no backlog, and holds a record @idle_lag_ns at
 * most, the caller's bound on how late an idle source's frame shows (a live
 * viewer of a quiet link does not wait for the hold).  Order never costs a
 * frame: a source quiet for longer than the hold (while the others
 * delivered more than @hold_ns of key time) holds no one, and with @rush
 * set (the caller's rings passed their fill mark) nothing waits.  What a
 * late source then brings is handed out as it comes, counted in
 * @out_of_order.
 *
 * The sources with a record form a heap by (key, source), so the oldest is
 * found without looking at them all; the others are looked at again on
 * every call, as only they can change.  A record costs O(log n) plus the
 * sources that are empty.  The source last handed out stays on top until
 * the next call looks at it: its next record then takes its place with one
 * sift.
 */
#ifndef MGCAP_ORDER_H
#define MGCAP_ORDER_H

#include <stddef.h>
#include <stdint.h>

/*
 * Looks at source @src: 1 with its next record's @key and @visible_at (the
 * monotonic ns it was first seen; @now_ns for one seen now), or 0 when it
 * has none.  The record stays where it is until mgcap_order_next() hands
 * out this source; looking again without that must show the same record.
 */
typedef int (*mgcap_order_look_fn)(void *arg, size_t src, uint64_t now_ns, uint64_t *key,
				   uint64_t *visible_at);

/* quiet_from of a source no record was handed out since it went empty */
#define MGCAP_ORDER_PENDING	UINT64_MAX

/*
 * How long an idle receive queue's ring holds a record: its interrupt's
 * coalescing and a NAPI poll of each busier queue on its CPU, with room for
 * an emulated one.
 */
#define MGCAP_ORDER_IDLE_LAG_NS	10000000ULL

struct mgcap_order {
	size_t n;
	uint64_t hold_ns;		/* 0: never hold back */
	uint64_t idle_lag_ns;		/* an idle source's hold (hold_ns, if shorter) */
	int rush;			/* set by the caller: hold nothing back now */
	uint64_t out_of_order;		/* records handed out after a newer one */
	uint64_t newest_out;		/* the newest key handed out */
	mgcap_order_look_fn look;
	void *arg;
	struct mgcap_order_source {
		uint64_t key;		/* of the record looked at */
		uint64_t visible_at;
		uint64_t last_key;	/* of the last handed out; 0: none yet */
		/*
		 * Empty: the key of the first record handed out since it went
		 * empty; once the stream is @hold_ns of key time past it, the
		 * source is quiet.
		 */
		uint64_t quiet_from;
		/*
		 * Empty: the monotonic ns from which it is idle, a hold after
		 * it went empty; 0 for one empty since the order began.
		 */
		uint64_t idle_from;
	} *src;
	struct mgcap_order_slot {
		uint64_t key;
		size_t src;
	} *heap;
	size_t heap_n;
	int top_stale;
	size_t *empty, empty_n;
};

/*
 * @idle_lag_ns: how late an idle source's record can show, at most; the
 * hold for sources that are never prompt.  0, or -1 (out of memory);
 * mgcap_order_free() frees what it allocated.
 */
int mgcap_order_init(struct mgcap_order *o, size_t n, uint64_t hold_ns, uint64_t idle_lag_ns,
		     mgcap_order_look_fn look, void *arg);
void mgcap_order_free(struct mgcap_order *o);

/*
 * The source whose record goes next (its key: src[i].last_key), which the
 * caller then takes from it; or -1 with *@wait_ns: how long until a held
 * record may go (0: nothing is held, there is just nothing to read).
 */
long mgcap_order_next(struct mgcap_order *o, uint64_t now_ns, uint64_t *wait_ns);

/* --- the core, in line where the look is known ------------------------------ */

/* a's record before b's: older key, then lower source */
static inline int mgcap_order_older(const struct mgcap_order_slot *a,
				    const struct mgcap_order_slot *b)
{
	return a->key != b->key ? a->key < b->key : a->src < b->src;
}

/*
 * Puts @slot on top, then where the heap order allows: the hole goes down
 * to a leaf along the older children, then back up to where @slot belongs
 * (Floyd).  A source's next record is newer than most others, so it mostly
 * belongs near the bottom: one comparison a level, not two.
 */
static inline void mgcap_order_sift_from_top(struct mgcap_order *o,
					     struct mgcap_order_slot slot)
{
	size_t hole = 0, child;

	while ((child = 2 * hole + 1) < o->heap_n) {
		if (child + 1 < o->heap_n && mgcap_order_older(&o->heap[child + 1], &o->heap[child]))
			child++;
		o->heap[hole] = o->heap[child];
		hole = child;
	}
	while (hole > 0 && mgcap_order_older(&slot, &o->heap[(hole - 1) / 2])) {
		o->heap[hole] = o->heap[(hole - 1) / 2];
		hole = (hole - 1) / 2;
	}
	o->heap[hole] = slot;
}

static inline void mgcap_order_heap_push(struct mgcap_order *o, size_t i)
{
	struct mgcap_order_slot slot = { o->src[i].key, i };
	size_t at = o->heap_n++;

	while (at > 0 && mgcap_order_older(&slot, &o->heap[(at - 1) / 2])) {
		o->heap[at] = o->heap[(at - 1) / 2];
		at = (at - 1) / 2;
	}
	o->heap[at] = slot;
}

/* The source on top was handed out last: its next record, or the empty set. */
static inline __attribute__((always_inline))
void mgcap_order_refresh_top(struct mgcap_order *o, uint64_t now_ns, mgcap_order_look_fn look)
{
	size_t top = o->heap[0].src;

	if (look(o->arg, top, now_ns, &o->src[top].key, &o->src[top].visible_at)) {
		mgcap_order_sift_from_top(o, (struct mgcap_order_slot){ o->src[top].key, top });
	} else {
		o->heap_n--;
		if (o->heap_n)
			mgcap_order_sift_from_top(o, o->heap[o->heap_n]);
		o->empty[o->empty_n++] = top;
		o->src[top].quiet_from = MGCAP_ORDER_PENDING;
		o->src[top].idle_from = now_ns + o->hold_ns;
	}
	o->top_stale = 0;
}

/*
 * How much longer the record of @key, visible for @waited ns, waits: until
 * no empty source that is not quiet might still produce something older,
 * each for the hold at most, an idle one for its lag.  0: it goes now, and
 * starts the quiet time of the empty sources that had none.
 */
static inline uint64_t mgcap_order_hold_left(struct mgcap_order *o, uint64_t key,
					     uint64_t now_ns, uint64_t waited)
{
	uint64_t visible = now_ns - waited, left = 0;
	uint64_t idle_lag = o->hold_ns < o->idle_lag_ns ? o->hold_ns : o->idle_lag_ns;
	size_t i;

	if (waited < o->hold_ns && !o->rush) {
		for (i = 0; i < o->empty_n; i++) {
			const struct mgcap_order_source *e = &o->src[o->empty[i]];
			int quiet = e->quiet_from != MGCAP_ORDER_PENDING &&
				    key > e->quiet_from && key - e->quiet_from >= o->hold_ns;
			uint64_t until = visible + o->hold_ns;

			if (quiet || e->last_key >= key)
				continue;
			/* idle by then: the lag only */
			if (e->idle_from < until)
				until = e->idle_from > visible + idle_lag ? e->idle_from :
									    visible + idle_lag;
			if (until > now_ns && until - now_ns > left)
				left = until - now_ns;
		}
		if (left)
			return left;
	}
	for (i = 0; i < o->empty_n; i++)
		if (o->src[o->empty[i]].quiet_from == MGCAP_ORDER_PENDING)
			o->src[o->empty[i]].quiet_from = key;
	return 0;
}

/*
 * mgcap_order_next() with @look known where it is called, so that the
 * compiler puts it in line: once a record, in the merge's hot path.
 */
static inline __attribute__((always_inline))
long mgcap_order_next_with(struct mgcap_order *o, uint64_t now_ns, uint64_t *wait_ns,
			   mgcap_order_look_fn look)
{
	struct mgcap_order_source *best;
	size_t i = 0, best_i;
	uint64_t waited;

	/* the sources with a record are as they were: look at the others */
	if (o->top_stale)
		mgcap_order_refresh_top(o, now_ns, look);
	while (i < o->empty_n) {
		size_t e = o->empty[i];

		if (look(o->arg, e, now_ns, &o->src[e].key, &o->src[e].visible_at)) {
			o->empty[i] = o->empty[--o->empty_n];
			mgcap_order_heap_push(o, e);
		} else {
			i++;
		}
	}
	*wait_ns = 0;
	if (!o->heap_n)
		return -1;
	best_i = o->heap[0].src;
	best = &o->src[best_i];

	waited = now_ns - best->visible_at;
	*wait_ns = mgcap_order_hold_left(o, best->key, now_ns, waited);
	if (*wait_ns)
		return -1;
	o->top_stale = 1;
	best->last_key = best->key;
	if (best->key < o->newest_out)
		o->out_of_order++;
	else
		o->newest_out = best->key;
	return (long)best_i;
}

#endif /* MGCAP_ORDER_H */
