// SPDX-License-Identifier: GPL-2.0
/*
 * mgcap tap of sent frames: in place only while a reader takes them.
 *
 * A packet tap of a device costs every frame it receives (the stack calls
 * each of the device's taps before the receive hook: a reference, an
 * indirect call, a release) and every frame it sends (a clone for the
 * taps), whether anyone reads the sent frames or not.  So the capture's
 * tap is registered while at least one reader's ring takes sent frames
 * (MGCAP_DIR_SENT), and removed when the last such reader asks for
 * received frames only or closes.  Every change of a ring's directions
 * goes through here, so the count of readers taking sent frames cannot
 * drift from the rings' own settings.
 *
 * The capture makes the tap (capture.c: its function) and holds a
 * reference until its stop, each of its queues one until the queue goes:
 * a reader may close, and so leave the count, long after the stop.
 */
#include <linux/netdevice.h>
#include <linux/slab.h>

#include "mgcap.h"

/* @template: the tap's type and function; it taps @cap's device. */
struct mgcap_sent_tap *mgcap_sent_tap_create(struct mgcap_capture *cap,
					     const struct packet_type *template)
{
	struct mgcap_sent_tap *tap = kzalloc(sizeof(*tap), GFP_KERNEL);

	if (!tap)
		return NULL;
	kref_init(&tap->ref);
	mutex_init(&tap->lock);
	tap->cap = cap;
	tap->pt = *template;
	tap->pt.dev = cap->dev;
	return tap;
}

static void mgcap_sent_tap_release(struct kref *ref)
{
	struct mgcap_sent_tap *tap = container_of(ref, struct mgcap_sent_tap, ref);

	mutex_destroy(&tap->lock);
	kfree(tap);
}

void mgcap_sent_tap_get(struct mgcap_sent_tap *tap)
{
	kref_get(&tap->ref);
}

void mgcap_sent_tap_put(struct mgcap_sent_tap *tap)
{
	if (tap)
		kref_put(&tap->ref, mgcap_sent_tap_release);
}

/*
 * Under tap->lock: one reader more (+1) or fewer (-1) takes sent frames.
 * The removal waits for a grace period: a tap added again at once would be
 * met by a walk of the device's taps still standing on its old place.
 */
static void mgcap_sent_tap_count(struct mgcap_sent_tap *tap, int change)
{
	lockdep_assert_held(&tap->lock);
	tap->readers += change;
	if (tap->stopped)
		return;
	if (change > 0 && tap->readers == 1)
		dev_add_pack(&tap->pt);
	else if (change < 0 && tap->readers == 0)
		dev_remove_pack(&tap->pt);
}

/*
 * @ring's reader takes the frames of @directions (MGCAP_DIR_*) from now on.
 * @tap: its queue's, or NULL (a capture without one: sent frames never come).
 */
void mgcap_sent_tap_set_directions(struct mgcap_sent_tap *tap, struct mgcap_ring *ring,
				   u32 directions)
{
	bool took, takes = directions & MGCAP_DIR_SENT;

	if (!tap) {
		WRITE_ONCE(ring->directions, directions);
		return;
	}
	mutex_lock(&tap->lock);
	took = ring->directions & MGCAP_DIR_SENT;
	WRITE_ONCE(ring->directions, directions);
	if (took != takes)
		mgcap_sent_tap_count(tap, takes ? 1 : -1);
	mutex_unlock(&tap->lock);
}

/*
 * The capture stops: the tap goes, and never comes back.  No wait for a
 * tap running: the capture's stop waits for every hook of it after this.
 */
void mgcap_sent_tap_stop(struct mgcap_sent_tap *tap)
{
	mutex_lock(&tap->lock);
	if (tap->readers && !tap->stopped)
		__dev_remove_pack(&tap->pt);
	tap->stopped = true;
	mutex_unlock(&tap->lock);
}
