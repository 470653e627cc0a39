// SPDX-License-Identifier: GPL-2.0
/*
 * mgcap queue: one receive queue of a capture, and how long it lives.
 *
 * The capture makes one per receive queue and drops its reference at the
 * stop; each reader holds one from its open to its last close (a further
 * reader's until its own ring is freed, after the hook can no longer see
 * it).  So the ring the queue holds, which readers map, lives as long as
 * anyone may read it, whatever became of the capture and its device.
 */
#include <linux/slab.h>

#include "mgcap.h"

/* Its ring of @ring_size bytes, which frames fill while no one reads it. */
struct mgcap_queue *mgcap_queue_create(u32 index, u64 ring_size, u32 snaplen)
{
	struct mgcap_queue *q = kzalloc(sizeof(*q), GFP_KERNEL);

	if (!q)
		return NULL;
	q->index = index;
	q->minor = -1;
	/* (a START needs CAP_NET_ADMIN: the queue's ring is a privileged one) */
	if (mgcap_ring_init(&q->ring, q, ring_size, snaplen, 0)) {
		kfree(q);
		return NULL;
	}
	kref_init(&q->ref);
	INIT_LIST_HEAD(&q->more_readers);
	mutex_init(&q->readers_lock);
	return q;
}

static void mgcap_queue_release(struct kref *ref)
{
	struct mgcap_queue *q = container_of(ref, struct mgcap_queue, ref);

	/* the last reference: no hook, no reader, no node can reach it any more */
	mgcap_ring_destroy(&q->ring);
	mgcap_sent_tap_put(q->sent_tap);
	mutex_destroy(&q->readers_lock);
	kfree(q);
}

void mgcap_queue_put(struct mgcap_queue *q)
{
	kref_put(&q->ref, mgcap_queue_release);
}
