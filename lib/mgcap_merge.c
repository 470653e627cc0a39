// SPDX-License-Identifier: BSD-2-Clause
#include "mgcap_merge.h"

static void look_ahead(struct mgcap_merge *m, struct mgcap_merge_queue *q, uint64_t now_ns)
{
	if (q->next)
		return;
	q->next = mgcap_reader_next(&q->r);
	if (q->next) {
		q->next_end = q->r.tail;
		q->empty_since = 0;
		q->idle = 0;
		return;
	}
	if (!q->empty_since)
		q->empty_since = now_ns;
	if (now_ns - q->empty_since >= m->hold_ns)
		q->idle = 1;
}

/* a before b: older stamp, then lower queue */
static int older(const struct mgcap_merge_queue *a, size_t ai,
		 const struct mgcap_merge_queue *b, size_t bi)
{
	if (a->next->tstamp_ns != b->next->tstamp_ns)
		return a->next->tstamp_ns < b->next->tstamp_ns;
	return ai < bi;
}

const struct mgcap_rec *mgcap_merge_next(struct mgcap_merge *m, uint64_t now_ns,
					 size_t *queue, uint64_t *wait_ns)
{
	struct mgcap_merge_queue *best = NULL;
	const struct mgcap_rec *rec;
	size_t i, best_i = 0;
	uint64_t wait = 0;

	for (i = 0; i < m->n; i++) {
		struct mgcap_merge_queue *q = &m->q[i];

		look_ahead(m, q, now_ns);
		if (q->next && (!best || older(q, i, best, best_i))) {
			best = q;
			best_i = i;
		}
	}
	*wait_ns = 0;
	if (!best)
		return NULL;

	/* an empty queue that may still produce something older holds it back */
	for (i = 0; i < m->n; i++) {
		const struct mgcap_merge_queue *q = &m->q[i];
		uint64_t left;

		if (q->next || q->idle || best->next->tstamp_ns <= q->last_ts)
			continue;
		left = m->hold_ns - (now_ns - q->empty_since);
		if (!wait || left < wait)
			wait = left;
	}
	if (wait) {
		*wait_ns = wait;
		return NULL;
	}

	rec = best->next;
	best->next = NULL;
	best->done = best->next_end;
	best->last_ts = rec->tstamp_ns;
	*queue = best_i;
	return rec;
}

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
		queues[i].empty_since = 0;
		queues[i].idle = 0;
	}
}

void mgcap_merge_release(struct mgcap_merge *m)
{
	size_t i;

	/* up to the last record handed out: one looked at but not handed out stays */
	for (i = 0; i < m->n; i++)
		__atomic_store_n(&m->q[i].r.ctrl->consumer, m->q[i].done, __ATOMIC_RELEASE);
}
