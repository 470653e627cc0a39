// SPDX-License-Identifier: BSD-2-Clause
#include "mgcap_merge.h"

/* The order's look at a queue: its next record, kept in the queue until handed out. */
static inline __attribute__((always_inline))
int look_ahead(void *arg, size_t queue, uint64_t now_ns, uint64_t *key,
		      uint64_t *visible_at)
{
	struct mgcap_merge *m = arg;
	struct mgcap_merge_queue *q = &m->q[queue];

	if (!q->next) {
		q->next = mgcap_reader_next(&q->r);
		/* records behind a fresh look at the producer index became visible now */
		if (q->r.head != q->head_seen) {
			q->head_seen = q->r.head;
			q->head_seen_at = now_ns;
		}
		if (!q->next)
			return 0;
		q->next_end = q->r.tail;
		q->next_seen = q->head_seen_at;
		q->next_key = m->key ? m->key(m->key_arg, queue, q->next) : q->next->tstamp_ns;
	}
	*key = q->next_key;
	*visible_at = q->next_seen;
	return 1;
}

int mgcap_merge_init(struct mgcap_merge *m, struct mgcap_merge_queue *queues, size_t n,
		     uint64_t hold_ns)
{
	size_t i;

	m->q = queues;
	m->n = n;
	m->key = NULL;
	m->key_arg = NULL;
	for (i = 0; i < n; i++) {
		queues[i].next = NULL;
		queues[i].done = queues[i].r.tail;
		queues[i].last_ts = 0;
		queues[i].head_seen = queues[i].r.head;
		queues[i].head_seen_at = 0;
	}
	/* a ring shows a record as soon as the kernel wrote it */
	return mgcap_order_init(&m->order, n, hold_ns, MGCAP_ORDER_IDLE_LAG_NS, look_ahead, m);
}

void mgcap_merge_free(struct mgcap_merge *m)
{
	mgcap_order_free(&m->order);
}

const struct mgcap_rec *mgcap_merge_next(struct mgcap_merge *m, uint64_t now_ns,
					 size_t *queue, uint64_t *wait_ns)
{
	uint64_t late_before = m->order.out_of_order;
	long i = mgcap_order_next_with(&m->order, now_ns, wait_ns, look_ahead);
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
	best->done = best->next_end;
	best->last_ts = best->next_key;
	*queue = (size_t)i;
	return rec;
}

void mgcap_merge_check_fill(struct mgcap_merge *m)
{
	size_t i;

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
	size_t i;

	/*
	 * Up to the last record handed out: one looked at but not handed out
	 * stays.  Without one, everything the reader passed was handed out.
	 */
	for (i = 0; i < m->n; i++) {
		const struct mgcap_merge_queue *q = &m->q[i];

		__atomic_store_n(&q->r.ctrl->consumer, q->next ? q->done : q->r.tail,
				 __ATOMIC_RELEASE);
	}
}
