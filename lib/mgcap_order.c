// SPDX-License-Identifier: BSD-2-Clause
#include <stdlib.h>

#include "mgcap_order.h"

int mgcap_order_init(struct mgcap_order *o, size_t n, uint64_t hold_ns, uint64_t idle_lag_ns,
		     mgcap_order_look_fn look, void *arg)
{
	size_t i;

	o->n = n;
	o->hold_ns = hold_ns;
	o->idle_lag_ns = idle_lag_ns;
	o->look = look;
	o->arg = arg;
	for (o->leaves = 1, o->shift = 0; o->leaves < n; o->leaves *= 2)
		o->shift++;
	o->saturated = ((~(mgcap_order_rank)0 >> o->shift) - 1) << o->shift;
	/* n + 1: never calloc(0), which may return NULL */
	o->src = calloc(n + 1, sizeof(*o->src));
	o->tree = calloc(2 * o->leaves, sizeof(*o->tree));
	o->empty = calloc(n + 1, sizeof(*o->empty));
	if (!o->src || !o->tree || !o->empty) {
		mgcap_order_free(o);
		return -1;
	}
	o->rush = 0;
	o->out_of_order = 0;
	o->newest_out = 0;
	/* every source empty, its quiet time not started, and looked at first */
	o->empty_n = n;
	o->unstarted = n;
	for (i = 0; i <= n; i++) {
		o->empty[i] = i;
		o->src[i].key = MGCAP_ORDER_NONE;
		o->src[i].quiet_from = MGCAP_ORDER_PENDING;
		o->src[i].idle_from = 0;
	}
	o->base = 0;
	mgcap_order_rebuild(o);
	o->best_stale = 0;
	o->look_empty = 1;
	/* no key is clear of the empty sources until they were asked */
	o->clear_from = o->clear_to = MGCAP_ORDER_NONE;
	o->clear_visible = 0;
	return 0;
}

void mgcap_order_free(struct mgcap_order *o)
{
	free(o->src);
	free(o->tree);
	free(o->empty);
	o->src = NULL;
	o->tree = NULL;
	o->empty = NULL;
	o->empty_n = 0;
}

void mgcap_order_rebuild(struct mgcap_order *o)
{
	/* the winners of the nodes of a level, left to right, over the leaves' ranks */
	mgcap_order_rank *won = o->tree + o->leaves;
	uint64_t base = MGCAP_ORDER_NONE;
	size_t i, h;

	for (i = 0; i < o->n; i++)
		base = o->src[i].key < base ? o->src[i].key : base;
	o->base = base == MGCAP_ORDER_NONE ? o->base : base;
	o->span = o->saturated >> o->shift;
	if (o->span > MGCAP_ORDER_NONE - o->base)
		o->span = MGCAP_ORDER_NONE - o->base;
	o->fit_end = o->base + o->span;
	for (i = 0; i < o->leaves; i++)
		if (i >= o->n || o->src[i].key == MGCAP_ORDER_NONE ||
		    !mgcap_order_rank_of(o, o->src[i].key, i, &won[i]))
			won[i] = mgcap_order_rank_none(o, i);
	/* nodes h to 2h - 1, their children's winners at won[0] to won[2h - 1] */
	for (h = o->leaves / 2; h; h /= 2)
		for (i = 0; i < h; i++) {
			mgcap_order_rank l = won[2 * i], r = won[2 * i + 1];

			o->tree[h + i] = l > r ? l : r;
			won[i] = l < r ? l : r;
		}
	o->winner = won[0];
	o->best = mgcap_order_rank_src(o, o->winner);
	o->run = 0;
}

/*
 * Source @i, any of them, shows @key now.  Its path's matches are played
 * again, with the winner of each sibling subtree: the rank that lost the
 * match, or the one that went on (where @i's side lost), found from the
 * top.  Out of line: an empty source's first record, once a batch.
 */
static void set_rank(struct mgcap_order *o, size_t i, uint64_t key)
{
	mgcap_order_rank sibling[sizeof(size_t) * 8 + 1], on_path = o->winner, rank;
	size_t leaf = o->leaves + i;
	unsigned k;

	if (!mgcap_order_rank_of(o, key, i, &rank)) {
		mgcap_order_rebuild(o);
		return;
	}
	for (k = o->shift; k > 0; k--) {
		mgcap_order_rank lost = o->tree[leaf >> k];

		/* the winner on @i's side goes down the path, the other is the sibling's */
		if ((o->leaves + mgcap_order_rank_src(o, lost)) >> (k - 1) == leaf >> (k - 1)) {
			sibling[k] = on_path;
			on_path = lost;
		} else {
			sibling[k] = lost;
		}
	}
	for (k = 1; k <= o->shift; k++) {
		o->tree[leaf >> k] = sibling[k] > rank ? sibling[k] : rank;
		rank = sibling[k] < rank ? sibling[k] : rank;
	}
	o->winner = rank;
	o->best = mgcap_order_rank_src(o, rank);
	o->run = 0;
}

long mgcap_order_next(struct mgcap_order *o, uint64_t now_ns, uint64_t *wait_ns)
{
	return mgcap_order_next_with(o, now_ns, wait_ns, o->look);
}

void mgcap_order_look_at_empty(struct mgcap_order *o, uint64_t now_ns)
{
	size_t i = 0;

	o->look_empty = 0;
	if (!o->empty_n)
		return;
	/* the winner's rank must be its record's before other sources play */
	mgcap_order_end_run(o);
	while (i < o->empty_n) {
		size_t e = o->empty[i];
		struct mgcap_order_source *s = &o->src[e];
		uint64_t key;

		if (!o->look(o->arg, e, now_ns, &key, &s->visible_at)) {
			i++;
			continue;
		}
		key -= key == MGCAP_ORDER_NONE;
		s->key = key;
		o->empty[i] = o->empty[--o->empty_n];
		if (s->quiet_from == MGCAP_ORDER_PENDING)
			o->unstarted--;
		set_rank(o, e, key);
	}
}

/* whether empty source @e, its last record long handed out, holds no one at @key */
static int quiet_at(const struct mgcap_order *o, const struct mgcap_order_source *e, uint64_t key)
{
	return e->quiet_from != MGCAP_ORDER_PENDING && key > e->quiet_from &&
	       key - e->quiet_from >= o->hold_ns;
}

/*
 * How much longer the record of @key, visible for @waited ns, waits: until
 * no empty source that is not quiet might still produce something older,
 * each for the hold at most, an idle one for its lag.  0: it goes now, and
 * starts the quiet time of the empty sources that had none; then the keys
 * from @key to the oldest last key of the empty sources that are not quiet
 * go without asking again, and so do the records visible no later than
 * this one if every empty source's hold on it ran out.
 */
uint64_t mgcap_order_hold_left_slow(struct mgcap_order *o, uint64_t key, uint64_t now_ns,
				    uint64_t waited)
{
	uint64_t visible = now_ns - waited, left = 0, clear_to = MGCAP_ORDER_NONE;
	uint64_t idle_lag = o->hold_ns < o->idle_lag_ns ? o->hold_ns : o->idle_lag_ns;
	int ran_out = waited >= o->hold_ns;
	size_t i;

	if (!ran_out && !o->rush) {
		ran_out = 1;
		for (i = 0; i < o->empty_n; i++) {
			const struct mgcap_order_source *e = &o->src[o->empty[i]];
			uint64_t until = visible + o->hold_ns;

			/* idle by then: the lag only */
			if (e->idle_from < until)
				until = e->idle_from > visible + idle_lag ? e->idle_from :
									    visible + idle_lag;
			if (until <= now_ns)
				continue;
			ran_out = 0;
			if (!quiet_at(o, e, key) && e->last_key < key && until - now_ns > left)
				left = until - now_ns;
		}
		if (left)
			return left;
	}
	for (i = 0; i < o->empty_n; i++) {
		struct mgcap_order_source *e = &o->src[o->empty[i]];

		if (e->quiet_from == MGCAP_ORDER_PENDING)
			e->quiet_from = key;
		if (!quiet_at(o, e, key) && e->last_key < clear_to)
			clear_to = e->last_key;
	}
	o->unstarted = 0;
	/* nothing waits without a hold; and a range that ends before it begins is none */
	if (!o->hold_ns)
		clear_to = MGCAP_ORDER_NONE;
	o->clear_from = clear_to >= key ? key : MGCAP_ORDER_NONE;
	o->clear_to = clear_to >= key ? clear_to : MGCAP_ORDER_NONE;
	o->clear_visible = ran_out ? visible : 0;
	return 0;
}
