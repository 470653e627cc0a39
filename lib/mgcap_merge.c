// SPDX-License-Identifier: BSD-2-Clause
#include "mgcap_merge.h"

void mgcap_merge_init(struct mgcap_merge *m, struct mgcap_merge_queue *queues, size_t n,
		      uint64_t hold_ns)
{
	size_t i;

	m->q = queues;
	m->n = n;
	m->hold_ns = hold_ns;
	for (i = 0; i < n; i++) {
		queues[i].next = NULL;
		queues[i].done = queues[i].r.tail;
		queues[i].last_ts = 0;
		queues[i].head_seen = queues[i].r.head;
		queues[i].head_seen_at = 0;
	}
}

static void look_ahead(struct mgcap_merge_queue *q, uint64_t now_ns)
{
	if (q->next)
		return;
	q->next = mgcap_reader_next(&q->r);
	/* records behind a fresh look at the producer index became visible now */
	if (q->r.head != q->head_seen) {
		q->head_seen = q->r.head;
		q->head_seen_at = now_ns;
	}
	if (q->next) {
		q->next_end = q->r.tail;
		q->next_seen = q->head_seen_at;
	}
}

/* a before b: older stamp, then lower queue */
static int older(const struct mgcap_merge_queue *a, size_t ai,
		 const struct mgcap_merge_queue *b, size_t bi)
{
	if (a->next->tstamp_ns != b->next->tstamp_ns)
		return a->next->tstamp_ns < b->next->tstamp_ns;
	return ai < bi;
}

/* Whether an empty queue might still produce something older than @best. */
static int held_back(const struct mgcap_merge *m, const struct mgcap_merge_queue *best)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		const struct mgcap_merge_queue *q = &m->q[i];

		if (!q->next && q->last_ts < best->next->tstamp_ns)
			return 1;
	}
	return 0;
}

const struct mgcap_rec *mgcap_merge_next(struct mgcap_merge *m, uint64_t now_ns,
					 size_t *queue, uint64_t *wait_ns)
{
	struct mgcap_merge_queue *best = NULL;
	const struct mgcap_rec *rec;
	size_t i, best_i = 0;
	uint64_t waited;

	for (i = 0; i < m->n; i++) {
		struct mgcap_merge_queue *q = &m->q[i];

		look_ahead(q, now_ns);
		if (q->next && (!best || older(q, i, best, best_i))) {
			best = q;
			best_i = i;
		}
	}
	*wait_ns = 0;
	if (!best)
		return NULL;

	waited = now_ns - best->next_seen;
	if (waited < m->hold_ns && held_back(m, best)) {
		*wait_ns = m->hold_ns - waited;
		return NULL;
	}

	rec = best->next;
	best->next = NULL;
	best->done = best->next_end;
	best->last_ts = rec->tstamp_ns;
	*queue = best_i;
	return rec;
}

void mgcap_merge_release(struct mgcap_merge *m)
{
	size_t i;

	/*
	 * Up to the last record handed out: one looked at but not handed out
	 * stays.  Without one, everything the reader passed was handed out, so
	 * records taken straight from a lone queue's reader go back too.
	 */
	for (i = 0; i < m->n; i++) {
		const struct mgcap_merge_queue *q = &m->q[i];

		__atomic_store_n(&q->r.ctrl->consumer, q->next ? q->done : q->r.tail,
				 __ATOMIC_RELEASE);
	}
}
