// SPDX-License-Identifier: GPL-2.0
/*
 * mgcap readers: several at once on one receive queue.
 *
 * The first reader of a queue reads the queue's own ring, which keeps
 * filling while nobody reads it, so a recorder that restarts finds what
 * arrived meanwhile (and nothing its last reader left: ring.c).  Each
 * further reader gets a ring of its own for as long as it has the queue
 * open, listed on the queue, and the receive hook copies each
 * frame into every listed ring too.  A reader that falls
 * behind thus fills and drops only in its own ring; one reader costs what it
 * did before there could be several, each further one a copy.
 */
#include <linux/capability.h>
#include <linux/moduleparam.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/stringify.h>

#include "mgcap.h"

unsigned int mgcap_max_readers = MGCAP_READERS_DEFAULT;
/* where a further reader's ring is freed, a grace period after its close */
static struct workqueue_struct *mgcap_readers_wq;

static int mgcap_max_readers_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, MGCAP_READERS_MAX);
}

static const struct kernel_param_ops mgcap_max_readers_ops = {
	.set = mgcap_max_readers_set,
	.get = param_get_uint,
};

module_param_cb(max_readers, &mgcap_max_readers_ops, &mgcap_max_readers, 0644);
MODULE_PARM_DESC(max_readers, "Readers one queue may have at once (1-"
		 __stringify(MGCAP_READERS_MAX) ", default "
		 __stringify(MGCAP_READERS_DEFAULT) ")");

/*
 * Whether the opening process holds CAP_NET_ADMIN (without an audit record
 * for those that do not: a member of the group mgcap opening a node is no
 * denial).  A reader without it gets neither a queue's last reader place
 * nor more than its share of ring memory (mgcap_ring_charge()), so that
 * members of the group can never leave root's recorder without either.
 */
static bool mgcap_reader_privileged(void)
{
	return ns_capable_noaudit(&init_user_ns, CAP_NET_ADMIN);
}

/* A further reader's ring: the size and default snaplen of the queue's own. */
static struct mgcap_ring *mgcap_reader_ring_create(struct mgcap_queue *q, bool privileged)
{
	struct mgcap_ring *mine = kzalloc(sizeof(*mine), GFP_KERNEL);

	if (!mine)
		return NULL;
	if (mgcap_ring_init(mine, q, q->ring.mask + 1, q->ring.default_snaplen,
			    MGCAP_RING_READER | (privileged ? 0 : MGCAP_RING_UNPRIVILEGED))) {
		kfree(mine);
		return NULL;
	}
	return mine;
}

static void mgcap_reader_ring_free(struct mgcap_ring *mine)
{
	mgcap_ring_destroy(mine);
	kfree(mine);
}

/* Under readers_lock: @mine is read by the calling process from now on. */
static void mgcap_reader_set_opener(struct mgcap_ring *mine)
{
	put_pid(mine->reader_pid);
	mine->reader_pid = get_pid(task_tgid(current));
	get_task_comm(mine->reader_comm, current);
}

/*
 * A reader opens @q, holding a reference to it.  Returns the ring it reads,
 * the queue's own or one of its own, which then owns that reference, or an
 * ERR_PTR: -ENODEV after a stop, -EBUSY beyond max_readers (or its last
 * place, without CAP_NET_ADMIN), -ENOMEM when no ring can be had.  A
 * further reader's ring is allocated before the lock is taken: netlink and
 * stop wait for the lock under RTNL.
 */
struct mgcap_ring *mgcap_reader_open(struct mgcap_queue *q)
{
	struct mgcap_ring *spare = NULL, *mine;
	bool privileged = mgcap_reader_privileged();

	for (;;) {
		u32 places = READ_ONCE(mgcap_max_readers);

		mutex_lock(&q->readers_lock);
		/* the capture stopped between the node lookup and here */
		if (mgcap_ring_has_flag(&q->ring, MGCAP_RING_F_DETACHED)) {
			mine = ERR_PTR(-ENODEV);
			goto out;
		}
		/* the last place kept for CAP_NET_ADMIN, where there are two */
		if (!privileged && places > 1)
			places--;
		if (q->num_readers >= places) {
			mine = ERR_PTR(-EBUSY);
			goto out;
		}
		/* the queue's ring, as its last reader may have left it held */
		if (!q->first_reader) {
			int err = mgcap_ring_renew_held(&q->ring);

			if (err) {
				mine = ERR_PTR(err);
				goto out;
			}
		}
		/*
		 * A place is free: a capture for its readers must not be
		 * stopping.  The reader holds the autostop from here to its
		 * close: the capture's reference goes at its stop.
		 */
		if ((!q->first_reader || spare) && q->autostop) {
			if (!atomic_inc_unless_negative(&q->autostop->readers)) {
				mine = ERR_PTR(-ENODEV);
				goto out;
			}
			kref_get(&q->autostop->ref);
		}
		if (!q->first_reader) {
			q->first_reader = true;
			mine = &q->ring;
			break;
		}
		if (spare) {
			mine = spare;
			spare = NULL;
			list_add_tail_rcu(&mine->reader_node, &q->more_readers);
			break;
		}
		mutex_unlock(&q->readers_lock);
		spare = mgcap_reader_ring_create(q, privileged);
		if (!spare)
			return ERR_PTR(-ENOMEM);
	}
	mgcap_reader_set_opener(mine);
	WRITE_ONCE(q->num_readers, q->num_readers + 1);
out:
	mutex_unlock(&q->readers_lock);
	/* not needed after all: the first reader's place came free, or no place */
	if (spare)
		mgcap_reader_ring_free(spare);
	return mine;
}

static void mgcap_reader_free(struct work_struct *work)
{
	struct mgcap_ring *mine = container_of(to_rcu_work(work), struct mgcap_ring, free_work);
	struct mgcap_queue *q = mine->q;

	mgcap_reader_ring_free(mine);
	mgcap_queue_put(q);
}

/*
 * The last close of what mgcap_reader_open() returned: @mine.  A further
 * reader's ring may still be in a hook's hands (under RCU): it is freed
 * after a grace period, without the closing process waiting for one, so a
 * reader of many queues leaves at once.
 */
void mgcap_reader_close(struct mgcap_ring *mine)
{
	struct mgcap_queue *q = mine->q;
	struct mgcap_autostop *as = q->autostop;
	bool first = mine == &q->ring;

	/* it leaves the count of the tap's readers (tap.c) */
	mgcap_sent_tap_set_directions(q->sent_tap, mine, MGCAP_DIR_RECEIVED);
	mutex_lock(&q->readers_lock);
	if (first) {
		WRITE_ONCE(mine->reader_waiting, false);
		mgcap_filter_remove(mine);
		mgcap_ring_reset_reader_settings(mine);
		put_pid(mine->reader_pid);
		mine->reader_pid = NULL;
		mgcap_ring_reader_gone(mine);
		q->first_reader = false;
	} else {
		list_del_rcu(&mine->reader_node);
	}
	WRITE_ONCE(q->num_readers, q->num_readers - 1);
	/*
	 * The last reader of the whole capture, while it runs: a stopped one
	 * has nothing to stop, and its timer could outlive the module.
	 * Under readers_lock, as mgcap_readers_detach() marks the stop.
	 */
	if (as && atomic_dec_and_test(&as->readers) &&
	    !mgcap_ring_has_flag(&q->ring, MGCAP_RING_F_DETACHED))
		mgcap_autostop_schedule(as, MGCAP_AUTOSTOP_LINGER);
	mutex_unlock(&q->readers_lock);
	/* the reference mgcap_reader_open() took */
	if (as)
		mgcap_autostop_put(as);

	if (!first) {
		INIT_RCU_WORK(&mine->free_work, mgcap_reader_free);
		queue_rcu_work(mgcap_readers_wq, &mine->free_work);
		return;
	}
	mgcap_queue_put(q);
}

/* The capture stopped (no hook runs any more): every reader of @q sees it. */
void mgcap_readers_detach(struct mgcap_queue *q)
{
	struct mgcap_ring *mine;

	mutex_lock(&q->readers_lock);
	mgcap_ring_detach(&q->ring);
	list_for_each_entry(mine, &q->more_readers, reader_node)
		mgcap_ring_detach(mine);
	mutex_unlock(&q->readers_lock);
}

/* The receive hook, under RCU, for the further readers of @q. */
void mgcap_readers_capture(struct mgcap_queue *q, struct sk_buff *skb, u16 queue)
{
	struct mgcap_ring *mine;

	list_for_each_entry_rcu(mine, &q->more_readers, reader_node)
		mgcap_ring_capture(mine, skb, queue);
}

static void mgcap_autostop_release(struct kref *ref)
{
	kfree(container_of(ref, struct mgcap_autostop, ref));
}

void mgcap_autostop_put(struct mgcap_autostop *as)
{
	kref_put(&as->ref, mgcap_autostop_release);
}

/*
 * The stop check (the work the capture gave it, see capture.c) runs @delay
 * from now, instead of when it was due, on the readers' workqueue.
 */
void mgcap_autostop_schedule(struct mgcap_autostop *as, unsigned long delay)
{
	kref_get(&as->ref);
	/* a stop already pending holds a reference of its own */
	if (mod_delayed_work(mgcap_readers_wq, &as->stop, delay))
		mgcap_autostop_put(as);
}

/* The capture stops otherwise: no timer may outlive it (and the module). */
void mgcap_autostop_cancel(struct mgcap_autostop *as)
{
	if (cancel_delayed_work(&as->stop))
		mgcap_autostop_put(as);
}

int mgcap_readers_init(void)
{
	mgcap_readers_wq = alloc_workqueue("mgcap_readers", 0, 0);
	return mgcap_readers_wq ? 0 : -ENOMEM;
}

/*
 * After every reader closed: the rings and filters still waiting for a
 * grace period are freed by this module's code before it goes.
 */
void mgcap_readers_exit(void)
{
	rcu_barrier();
	destroy_workqueue(mgcap_readers_wq);
}
