// SPDX-License-Identifier: BSD-2-Clause
#include <stdlib.h>

#include "mgcap_merge.h"

int mgcap_merge_init(struct mgcap_merge *m, struct mgcap_merge_queue *queues, size_t n,
		     uint64_t hold_ns)
{
	size_t i;

	m->q = queues;
	m->n = n;
	m->hold_ns = hold_ns;
	m->key = NULL;
	m->key_arg = NULL;
	/* n + 1: never calloc(0), which may return NULL */
	m->heap = calloc(n + 1, sizeof(*m->heap));
	m->empty = calloc(n + 1, sizeof(*m->empty));
	if (!m->heap || !m->empty) {
		mgcap_merge_free(m);
		return -1;
	}
	m->heap_n = 0;
	m->top_stale = 0;
	m->empty_n = n;
	for (i = 0; i < n; i++) {
		queues[i].next = NULL;
		queues[i].done = queues[i].r.tail;
		queues[i].last_ts = 0;
		queues[i].head_seen = queues[i].r.head;
		queues[i].head_seen_at = 0;
		m->empty[i] = i;
	}
	return 0;
}

void mgcap_merge_free(struct mgcap_merge *m)
{
	free(m->heap);
	free(m->empty);
	m->heap = NULL;
	m->empty = NULL;
	m->heap_n = m->empty_n = 0;
}

/* once a record: inlined into its two callers */
static inline __attribute__((always_inline))
void look_ahead(struct mgcap_merge *m, size_t queue, uint64_t now_ns)
{
	struct mgcap_merge_queue *q = &m->q[queue];

	q->next = mgcap_reader_next(&q->r);
	/* records behind a fresh look at the producer index became visible now */
	if (q->r.head != q->head_seen) {
		q->head_seen = q->r.head;
		q->head_seen_at = now_ns;
	}
	if (q->next) {
		q->next_end = q->r.tail;
		q->next_seen = q->head_seen_at;
		q->next_key = m->key ? m->key(m->key_arg, queue, q->next) : q->next->tstamp_ns;
	}
}

/* a's record before b's: older stamp, then lower queue */
static int older(const struct mgcap_merge_slot *a, const struct mgcap_merge_slot *b)
{
	return a->tstamp_ns != b->tstamp_ns ? a->tstamp_ns < b->tstamp_ns : a->queue < b->queue;
}

/*
 * Puts @slot on top, then where the heap order allows: the hole goes down
 * to a leaf along the older children, then back up to where @slot belongs
 * (Floyd).  A queue's next record is newer than most others, so it mostly
 * belongs near the bottom: one comparison a level, not two.
 */
static void sift_from_top(struct mgcap_merge *m, struct mgcap_merge_slot slot)
{
	size_t hole = 0, child;

	while ((child = 2 * hole + 1) < m->heap_n) {
		if (child + 1 < m->heap_n && older(&m->heap[child + 1], &m->heap[child]))
			child++;
		m->heap[hole] = m->heap[child];
		hole = child;
	}
	while (hole > 0 && older(&slot, &m->heap[(hole - 1) / 2])) {
		m->heap[hole] = m->heap[(hole - 1) / 2];
		hole = (hole - 1) / 2;
	}
	m->heap[hole] = slot;
}

static void heap_push(struct mgcap_merge *m, size_t queue)
{
	struct mgcap_merge_slot slot = { m->q[queue].next_key, queue };
	size_t at = m->heap_n++;

	while (at > 0 && older(&slot, &m->heap[(at - 1) / 2])) {
		m->heap[at] = m->heap[(at - 1) / 2];
		at = (at - 1) / 2;
	}
	m->heap[at] = slot;
}

/* The queue on top was handed out last: its next record, or the empty set. */
static void refresh_top(struct mgcap_merge *m, uint64_t now_ns)
{
	size_t top = m->heap[0].queue;

	look_ahead(m, top, now_ns);
	if (m->q[top].next) {
		sift_from_top(m, (struct mgcap_merge_slot){ m->q[top].next_key, top });
	} else {
		m->heap_n--;
		if (m->heap_n)
			sift_from_top(m, m->heap[m->heap_n]);
		m->empty[m->empty_n++] = top;
	}
	m->top_stale = 0;
}

/* Whether an empty queue might still produce something older than @best. */
static int held_back(const struct mgcap_merge *m, const struct mgcap_merge_queue *best)
{
	size_t i;

	for (i = 0; i < m->empty_n; i++)
		if (m->q[m->empty[i]].last_ts < best->next_key)
			return 1;
	return 0;
}

const struct mgcap_rec *mgcap_merge_next(struct mgcap_merge *m, uint64_t now_ns,
					 size_t *queue, uint64_t *wait_ns)
{
	struct mgcap_merge_queue *best;
	const struct mgcap_rec *rec;
	size_t i = 0, best_i;
	uint64_t waited;

	/* the queues with a record are as they were: look at the others */
	if (m->top_stale)
		refresh_top(m, now_ns);
	while (i < m->empty_n) {
		size_t e = m->empty[i];

		look_ahead(m, e, now_ns);
		if (m->q[e].next) {
			m->empty[i] = m->empty[--m->empty_n];
			heap_push(m, e);
		} else {
			i++;
		}
	}
	*wait_ns = 0;
	if (!m->heap_n)
		return NULL;
	best_i = m->heap[0].queue;
	best = &m->q[best_i];

	waited = now_ns - best->next_seen;
	if (waited < m->hold_ns && held_back(m, best)) {
		*wait_ns = m->hold_ns - waited;
		return NULL;
	}

	m->top_stale = 1;
	rec = best->next;
	best->next = NULL;
	best->done = best->next_end;
	best->last_ts = best->next_key;
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
