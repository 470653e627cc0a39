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
 * goes through here (the reset at a close finds the ring's received only
 * already), so the count of readers taking sent frames cannot drift from
 * the rings' own settings.
 *
 * The capture makes the tap (capture.c: its function) and holds a
 * reference until its stop, each of its queues one until the queue goes:
 * a reader may close, and so leave the count, long after the stop.
 */
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
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
	tap->removed = get_completed_synchronize_rcu();	/* (never was) */
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
 * Under tap->lock: the tap registered if a reader takes sent frames while
 * the capture runs, else not.  A removal does not wait for the walks of
 * the device's taps that may still stand on it (a reader leaves at once,
 * and cannot make the kernel wait for grace periods by toggling); adding
 * it back does, for the one since its last removal, if that has not passed.
 */
static void mgcap_sent_tap_update(struct mgcap_sent_tap *tap)
{
	bool wanted = tap->readers && tap->running;

	lockdep_assert_held(&tap->lock);
	if (wanted && !tap->registered) {
		cond_synchronize_rcu(tap->removed);
		dev_add_pack(&tap->pt);
	} else if (!wanted && tap->registered) {
		__dev_remove_pack(&tap->pt);
		tap->removed = get_state_synchronize_rcu();
	}
	tap->registered = wanted;
}

/*
 * @ring's reader takes the frames of @directions (MGCAP_DIR_*) from now on.
 * @tap: its queue's, or NULL (a capture without one: sent frames never come).
 */
void mgcap_sent_tap_set_directions(struct mgcap_sent_tap *tap, struct mgcap_ring *ring,
				   u32 directions)
{
	bool took;

	if (!tap) {
		WRITE_ONCE(ring->directions, directions);
		return;
	}
	mutex_lock(&tap->lock);
	took = ring->directions & MGCAP_DIR_SENT;
	WRITE_ONCE(ring->directions, directions);
	if (took != !!(directions & MGCAP_DIR_SENT)) {
		tap->readers += took ? -1 : 1;
		mgcap_sent_tap_update(tap);
	}
	mutex_unlock(&tap->lock);
}

/*
 * The capture runs (its queues are all there): the tap may be in place
 * from now on.  Before, a reader that opened a queue's node only counts.
 */
void mgcap_sent_tap_run(struct mgcap_sent_tap *tap)
{
	mutex_lock(&tap->lock);
	tap->running = true;
	mgcap_sent_tap_update(tap);
	mutex_unlock(&tap->lock);
}

/*
 * The capture stops: the tap goes, and never comes back.  No wait for a
 * tap running: the capture's stop waits for every hook of it after this.
 */
void mgcap_sent_tap_stop(struct mgcap_sent_tap *tap)
{
	mutex_lock(&tap->lock);
	tap->running = false;
	mgcap_sent_tap_update(tap);
	mutex_unlock(&tap->lock);
}
