// SPDX-License-Identifier: BSD-2-Clause
#include <stdlib.h>

#include "mgcap_merge.h"

/* the order's look, out of line: for the empty rings at a batch's start */
static int look_at_queue(void *arg, size_t queue, uint64_t now_ns, uint64_t *key,
			 uint64_t *visible_at)
{
	struct mgcap_merge *m = arg;

	return mgcap_merge_look_at(m, queue, now_ns, key, visible_at, m->key != NULL);
}

const struct mgcap_rec *mgcap_merge_walk_on(struct mgcap_merge_queue *q, uint64_t now_ns)
{
	/* past the padding at the data area's end, a new look at the producer index */
	const struct mgcap_rec *rec = mgcap_reader_next(&q->r);
	const uint8_t *start;
	uint64_t len;

	/* records behind a fresh look at the producer index became visible now */
	if (q->r.head != q->head_seen) {
		q->head_seen = q->r.head;
		q->head_seen_at = now_ns;
	}
	/* what follows it, up to the producer index already read, or the data area's end */
	len = rec && q->r.tail != q->r.head ? mgcap_reader_stretch(&q->r, &start) : 0;
	q->walk = len ? start : q->r.data;
	q->walk_end = q->walk + len;
	return rec;
}

int mgcap_merge_init(struct mgcap_merge *m, struct mgcap_merge_queue *queues, size_t n,
		     uint64_t hold_ns)
{
	size_t i;

	m->q = queues;
	m->n = n;
	m->key = NULL;
	m->key_arg = NULL;
	m->batch_taken = 0;
	m->batch_over = 1;
	for (i = 0; i < n; i++) {
		queues[i].next = NULL;
		queues[i].walk = queues[i].walk_end = queues[i].r.data;	/* nothing yet */
		queues[i].done = queues[i].r.tail;
		queues[i].last_ts = 0;
		queues[i].head_seen = queues[i].r.head;
		queues[i].head_seen_at = 0;
	}
	/* (one word more: never calloc(0), which may return NULL) */
	m->handed = calloc((n + 63) / 64 + 1, sizeof(*m->handed));
	if (!m->handed)
		return -1;
	/* a ring shows a record as soon as the kernel wrote it */
	if (mgcap_order_init(&m->order, n, hold_ns, MGCAP_ORDER_IDLE_LAG_NS, look_at_queue, m)) {
		free(m->handed);
		m->handed = NULL;
		return -1;
	}
	return 0;
}

void mgcap_merge_free(struct mgcap_merge *m)
{
	mgcap_order_free(&m->order);
	free(m->handed);
	m->handed = NULL;
}

void mgcap_merge_begin_batch(struct mgcap_merge *m)
{
	size_t i;

	mgcap_order_begin_batch(&m->order);
	m->batch_taken = 0;
	m->batch_over = 0;
	m->order.rush = 0;
	for (i = 0; i < m->n && !m->order.rush; i++) {
		const struct mgcap_reader *r = &m->q[i].r;
		uint64_t unread = __atomic_load_n(r->producer, __ATOMIC_RELAXED) -
				  __atomic_load_n(&r->ctrl->consumer, __ATOMIC_RELAXED);

		m->order.rush = unread >= r->data_size / MGCAP_MERGE_FILL_MARK;
	}
}

void mgcap_merge_release(struct mgcap_merge *m)
{
	uint64_t bits;
	size_t w;

	/*
	 * Up to the last record handed out: one looked at but not handed out
	 * stays.  Without one, everything the reader passed was handed out.
	 */
	for (w = 0; w < (m->n + 63) / 64; w++) {
		for (bits = m->handed[w]; bits; bits &= bits - 1) {
			const struct mgcap_merge_queue *q = &m->q[w * 64 + __builtin_ctzll(bits)];

			__atomic_store_n(&q->r.ctrl->consumer, q->next ? q->done : q->r.tail,
					 __ATOMIC_RELEASE);
		}
		m->handed[w] = 0;
	}
}
