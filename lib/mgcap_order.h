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
 * The cost of a record is what a busy stream pays on every one, so:
 * - The caller reads in batches (mgcap_order_begin_batch()).  A source that
 *   showed nothing is looked at again at the next batch, not for every
 *   record: a batch sees what the empty sources held when it began, as an
 *   AF_PACKET reader sees a block.
 * - The sources with a record play a tournament (a loser tree: each match
 *   keeps the one that lost it, so the next record of the source handed out
 *   plays one match a level, log2 of the sources, against what it meets on
 *   its own path, no sibling to look up).  A record's place is one 64-bit
 *   number, its key from a base with the source in the low bits: a match is
 *   one comparison, ties by source included.
 * - A source that won again takes the records after it without a match
 *   while they are older than every other source's (a run: one busy queue
 *   beside quiet ones costs one comparison a record).
 * - Empty sources are asked whether a record must wait only when its key
 *   passes the last key one of them showed, or one went empty since.
 */
#ifndef MGCAP_ORDER_H
#define MGCAP_ORDER_H

#include <stddef.h>
#include <stdint.h>

/*
 * Looks at source @src: 1 with its next record's @key and @visible_at (the
 * monotonic ns it was first seen; @now_ns for one seen now), or 0 when it
 * has none.  The record stays where it is until mgcap_order_next() hands
 * out this source.  The order looks at a source only when it has no record
 * looked at: the one just handed out, and the empty ones at a batch's start.
 */
typedef int (*mgcap_order_look_fn)(void *arg, size_t src, uint64_t now_ns, uint64_t *key,
				   uint64_t *visible_at);

/* quiet_from of a source no record was handed out since it went empty */
#define MGCAP_ORDER_PENDING	UINT64_MAX
/*
 * The key of a source with no record, newer than every record's (a record
 * whose key is this one is taken for one a nanosecond older).
 */
#define MGCAP_ORDER_NONE	UINT64_MAX

/*
 * How long an idle receive queue's ring holds a record: its interrupt's
 * coalescing and a NAPI poll of each busier queue on its CPU, with room for
 * an emulated one.
 */
#define MGCAP_ORDER_IDLE_LAG_NS	10000000ULL

/*
 * A record's place in the order, key then source, as one number: (key -
 * base) << shift | source, shift the bits of the sources.  Keys from base
 * to base + the span fit; one past them takes the span's last place (a rank
 * newer than every key that fits, tied with the others past it by source:
 * saturated), and one below base moves the base (mgcap_order_rebuild()).
 * The rank of a source with no record is newer than all: every high bit set.
 */
typedef uint64_t mgcap_order_rank;

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
	/*
	 * The tournament: source i's record is leaf leaves + i (ranked
	 * none while it shows none, as are the leaves past n); every node
	 * below leaves, tree[1] to tree[leaves - 1], holds the rank that lost
	 * its match, the newer of the winners of its two subtrees, and
	 * @winner the oldest rank of all.  tree[leaves] on is room for
	 * mgcap_order_rebuild().
	 */
	mgcap_order_rank *tree;
	mgcap_order_rank winner;
	size_t leaves;			/* n, rounded up to a power of two */
	unsigned shift;			/* log2 of leaves */
	uint64_t base;			/* the key ranked 0 */
	/* ranks from this one on are saturated or none: the winner's key asks src */
	mgcap_order_rank saturated;
	/*
	 * Keys from base that fit: saturated >> shift, or up to the largest
	 * key (so that no key below base wraps into the span), fit_end on.
	 */
	uint64_t span, fit_end;
	size_t best;			/* the source handed out last, or to go next */
	int best_stale;			/* best was handed out: look at it again */
	/*
	 * A run: every other source's record is newer than @second, the
	 * oldest that best's record beat on its way up, so a newer record of
	 * best goes without a match while its key is below base + @run_span
	 * (and @winner holds the rank of its first: mgcap_order_end_run()).
	 */
	int run;
	mgcap_order_rank second;
	uint64_t run_span;
	int look_empty;			/* look at the empty sources at the next call */
	size_t *empty, empty_n;
	size_t unstarted;		/* empty sources whose quiet time has not started */
	/*
	 * Records that wait for no empty source: keys from clear_from to
	 * clear_to, and records visible by clear_visible (every empty
	 * source's hold on them ran out; 0, none but those visible since
	 * before the merge began, which waited out any hold anyway).
	 */
	uint64_t clear_from, clear_to, clear_visible;
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
 * A batch begins: the next call looks at the sources that showed nothing
 * (within a batch, only the source handed out is looked at again).
 */
static inline void mgcap_order_begin_batch(struct mgcap_order *o)
{
	o->look_empty = 1;
}

/*
 * The source whose record goes next (its key: src[i].last_key), which the
 * caller then takes from it; or -1 with *@wait_ns: how long until a held
 * record may go (0: nothing is held, there is just nothing to read in the
 * sources of this batch: a caller begins a batch for each read).
 */
long mgcap_order_next(struct mgcap_order *o, uint64_t now_ns, uint64_t *wait_ns);

/* The empty sources, at a batch's start; out of line, as a batch's cost. */
void mgcap_order_look_at_empty(struct mgcap_order *o, uint64_t now_ns);

/* Whether a record waits for an empty source: how long; out of line (see below). */
uint64_t mgcap_order_hold_left_slow(struct mgcap_order *o, uint64_t key, uint64_t now_ns,
				    uint64_t waited);

/*
 * Every source's record played again from src[].key, from a base that is
 * the oldest of them: where a key fell below the base, or the winner is
 * saturated.  Out of line: a clock that stepped, not a record's cost.
 */
void mgcap_order_rebuild(struct mgcap_order *o);

/* --- the core, in line where the look is known ------------------------------ */

static inline size_t mgcap_order_rank_src(const struct mgcap_order *o, mgcap_order_rank rank)
{
	return (size_t)(rank & (((mgcap_order_rank)1 << o->shift) - 1));
}

/* The rank of source @i while it shows no record: newer than every other (every high bit set). */
static inline mgcap_order_rank mgcap_order_rank_none(const struct mgcap_order *o, size_t i)
{
	return ~(mgcap_order_rank)0 << o->shift | i;
}

/* The rank of @key of source @i, which fits (or saturates): 0 where it is below the base. */
static inline int mgcap_order_rank_of(const struct mgcap_order *o, uint64_t key, size_t i,
				      mgcap_order_rank *rank)
{
	uint64_t from_base = key - o->base;

	if (from_base < o->span) {
		*rank = from_base << o->shift | i;
		return 1;
	}
	*rank = o->saturated | i;
	return key >= o->base;
}

/*
 * Source @i shows @rank now: its matches up the tree are played again, one
 * a level, and the winner goes next.  Where @i wins again, every other
 * source's record is newer than the oldest it met: a run begins.
 */
static inline void mgcap_order_replay(struct mgcap_order *o, size_t i, mgcap_order_rank rank)
{
	mgcap_order_rank *tree = o->tree;
	size_t at;

	for (at = (o->leaves + i) >> 1; at; at >>= 1) {
		mgcap_order_rank lost = tree[at];

		/* the newer stays, the older goes on up */
		tree[at] = lost > rank ? lost : rank;
		rank = lost < rank ? lost : rank;
	}
	o->winner = rank;
	o->best = mgcap_order_rank_src(o, rank);
	o->run = 0;
	if (o->best != i || rank >= o->saturated)
		return;
	/* the next oldest is one @i beat on its way up */
	o->second = ~(mgcap_order_rank)0;
	for (at = (o->leaves + i) >> 1; at; at >>= 1)
		o->second = tree[at] < o->second ? tree[at] : o->second;
	/* (a tie goes to the lower source; saturated or none: every key that fits is older) */
	o->run_span = o->second < o->saturated ?
		      (o->second >> o->shift) + (i < mgcap_order_rank_src(o, o->second)) : o->span;
	o->run = 1;
}

/* Ends a run: @winner holds the rank of its source's record again. */
static inline void mgcap_order_end_run(struct mgcap_order *o)
{
	if (o->run)
		mgcap_order_rank_of(o, o->src[o->best].key, o->best, &o->winner);
}

/* The source handed out last: its next record, or it goes empty. */
static inline __attribute__((always_inline))
void mgcap_order_look_again(struct mgcap_order *o, uint64_t now_ns, mgcap_order_look_fn look)
{
	size_t i = o->best;
	struct mgcap_order_source *s = &o->src[i];
	uint64_t key;

	o->best_stale = 0;
	if (look(o->arg, i, now_ns, &key, &s->visible_at)) {
		mgcap_order_rank rank;

		key -= key == MGCAP_ORDER_NONE;
		s->key = key;
		if (o->run && key - o->base < o->run_span)
			return;		/* still the oldest: the run goes on */
		if (!mgcap_order_rank_of(o, key, i, &rank)) {
			mgcap_order_rebuild(o);
			return;
		}
		mgcap_order_replay(o, i, rank);
		return;
	}
	s->key = MGCAP_ORDER_NONE;
	mgcap_order_replay(o, i, mgcap_order_rank_none(o, i));
	o->empty[o->empty_n++] = i;
	o->unstarted++;
	s->quiet_from = MGCAP_ORDER_PENDING;
	s->idle_from = now_ns + o->hold_ns;
}

/*
 * How much longer the record of @key, visible for @waited ns, waits for the
 * empty sources (mgcap_order_hold_left_slow()).  Asking them is skipped for
 * a key between the last one that asked and the oldest last key of those
 * that are not quiet, for a record visible no later than one whose holds
 * all ran out, and in a rush; only a source going empty since (its quiet
 * time starts with the next record) makes every record ask again.
 */
static inline uint64_t mgcap_order_hold_left(struct mgcap_order *o, uint64_t key,
					     uint64_t now_ns, uint64_t waited)
{
	if (!o->unstarted &&
	    (o->rush || now_ns - waited <= o->clear_visible ||
	     key - o->clear_from <= o->clear_to - o->clear_from))
		return 0;
	return mgcap_order_hold_left_slow(o, key, now_ns, waited);
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
	uint64_t key;

	if (o->best_stale)
		mgcap_order_look_again(o, now_ns, look);
	if (o->look_empty)
		mgcap_order_look_at_empty(o, now_ns);
	*wait_ns = 0;
	/* (in a run, the rank of its first record: no older, never none) */
	if (o->winner >= o->saturated) {
		/* every source empty, or the oldest past the span: ranked from it */
		if (o->winner >= mgcap_order_rank_none(o, 0))
			return -1;
		mgcap_order_rebuild(o);
	}
	best = &o->src[o->best];
	key = best->key;
	*wait_ns = mgcap_order_hold_left(o, key, now_ns, now_ns - best->visible_at);
	if (*wait_ns)
		return -1;
	o->best_stale = 1;
	best->last_key = key;
	if (key < o->newest_out)
		o->out_of_order++;
	else
		o->newest_out = key;
	return (long)o->best;
}

/*
 * A run: after mgcap_order_next() handed out a record of o->best, its next records
 * (visible since @visible_at) may follow at once, without a match and
 * without asking the empty sources, while their keys are from *@lo to
 * below *@hi: older than every other source's record, no older than the
 * newest handed out, clear of the empty sources' holds.  0: none may.
 */
static inline int mgcap_order_run_bounds(const struct mgcap_order *o, uint64_t visible_at,
					 uint64_t *lo, uint64_t *hi)
{
	/*
	 * (no empty source's quiet time is still to start: the record just
	 * handed out started them, or found none)
	 */
	if (!o->run)
		return 0;
	/* (the tie of best with second: in run_span) */
	*hi = o->second < o->saturated ? o->base + o->run_span : o->fit_end;
	*lo = o->newest_out;
	if (!o->rush && visible_at > o->clear_visible) {
		if (o->clear_from == MGCAP_ORDER_NONE)
			return 0;
		*lo = *lo > o->clear_from ? *lo : o->clear_from;
		if (o->clear_to < *hi)
			*hi = o->clear_to + 1;
	}
	return *lo < *hi;
}

/* A run of source @i ended with a record of @key, its last handed out. */
static inline void mgcap_order_run_end(struct mgcap_order *o, size_t i, uint64_t key)
{
	o->src[i].last_key = key;
	o->newest_out = key;
}

#endif /* MGCAP_ORDER_H */
