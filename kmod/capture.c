// SPDX-License-Identifier: GPL-2.0
/*
 * mgcap capture: attaching to a net device and the receive hook.
 *
 * The hook is an rx_handler: it runs for every received frame after the
 * AF_PACKET taps and tc ingress, in the CPU context that receives it (NAPI
 * or an RPS backlog), so one queue's frames may arrive on several CPUs.
 * Frames of the device's VLAN devices never reach it: a netfilter ingress
 * hook takes those (mgcap_vlan_hook()).
 *
 * The frames the device sends reach a packet tap of the device (as
 * AF_PACKET's), where dev_queue_xmit_nit() hands them over as the driver
 * gets them: mgcap_sent_tap_rcv(), in place while a reader takes them (tap.c).
 *
 * A capture started for its readers (MGCAP_ATTR_AUTOSTOP) is stopped here
 * too, by the work its autostop runs: reader.c only counts the readers and
 * schedules that work, and never calls back into this file.
 */
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/if_vlan.h>
#include <linux/log2.h>
#include <linux/netdevice.h>
#include <linux/netfilter.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>

#include "mgcap.h"

LIST_HEAD(mgcap_captures);

/* A frame into the rings of the queue numbered @queue. */
static __always_inline void mgcap_capture_into(struct mgcap_capture *cap, struct sk_buff *skb,
					       u16 queue)
{
	/* queues added later by ethtool -L share the existing ones' rings */
	struct mgcap_queue *q = cap->queues[queue < cap->num_queues ? queue :
					    queue % cap->num_queues];

	mgcap_ring_capture(&q->ring, skb, queue);
	if (unlikely(!list_empty(&q->more_readers)))
		mgcap_readers_capture(q, skb, queue);
}

/* A received frame into its queue's rings: true if drop mode consumed it. */
static __always_inline bool mgcap_capture_frame(struct mgcap_capture *cap, struct sk_buff *skb)
{
	mgcap_capture_into(cap, skb, skb_rx_queue_recorded(skb) ? skb_get_rx_queue(skb) : 0);
	if (READ_ONCE(cap->mode) == MGCAP_MODE_DROP) {
		consume_skb(skb);
		return true;
	}
	return false;
}

/*
 * A frame the stack sent and loops back to itself on the device (its own
 * broadcasts and multicast, dev_loopback_xmit()) was never on the wire, and
 * has no MAC header: the tap took it as sent; it goes on, as AF_PACKET and
 * every rx_handler of the tree let it.
 */
static rx_handler_result_t mgcap_rx_handler(struct sk_buff **pskb)
{
	struct sk_buff *skb = *pskb;
	struct mgcap_capture *cap = rcu_dereference(skb->dev->rx_handler_data);

	if (unlikely(skb->pkt_type == PACKET_LOOPBACK))
		return RX_HANDLER_PASS;
	return mgcap_capture_frame(cap, skb) ? RX_HANDLER_CONSUMED : RX_HANDLER_PASS;
}

/*
 * The tap sees every frame of the device, received ones too (those before
 * the receive hook, which takes them): it keeps the sent ones, a clone that
 * every tap shares, with skb->data at the MAC header.  The receive hook's
 * view is skb->data past the MAC header, and the ring's copy and filter
 * take that view: the clone's data moves there while they run, and back
 * for the taps after this one (as AF_PACKET's packet_rcv() does).  Drop
 * mode never drops a sent frame: the clone is the taps', the frame goes on
 * to the driver.
 */
static int mgcap_sent_tap_rcv(struct sk_buff *skb, struct net_device *dev,
			      struct packet_type *pt, struct net_device *orig_dev)
{
	if (skb->pkt_type == PACKET_OUTGOING && likely(skb_headlen(skb) >= ETH_HLEN)) {
		__skb_pull(skb, ETH_HLEN);
		mgcap_capture_into(container_of(pt, struct mgcap_sent_tap, pt)->cap, skb,
				   skb_get_queue_mapping(skb));
		__skb_push(skb, ETH_HLEN);
	}
	consume_skb(skb);
	return 0;
}

static const struct packet_type mgcap_sent_tap_template = {
	.type = cpu_to_be16(ETH_P_ALL),
	.func = mgcap_sent_tap_rcv,
};

/*
 * A frame of a VLAN that has a device of its own (eth0.100) goes to that
 * device before any rx_handler of eth0 runs (vlan_do_receive()): the
 * capture would miss it, and drop mode would let it through.  While the
 * captured device has VLAN devices, this netfilter ingress hook, which
 * runs before, takes those frames (the rest go on to the rx_handler).
 * It runs last among the device's netdev ingress hooks (nftables' chains
 * among them), as the rx_handler runs after all of them, so both see the
 * frames those let through, as they left them.  (Frames an ifb device
 * sends back skip every ingress hook: mgcap(7), BUGS.)
 */
#if IS_ENABLED(CONFIG_NETFILTER_INGRESS)
static unsigned int mgcap_vlan_hook(void *priv, struct sk_buff *skb,
				    const struct nf_hook_state *state)
{
	/*
	 * The device's own VLAN devices only, as vlan_do_receive() looks: the
	 * lookup's fallback to a master's would take frames it never moves
	 */
	if (!skb_vlan_tag_present(skb) || !rcu_access_pointer(skb->dev->vlan_info) ||
	    !__vlan_find_dev_deep_rcu(skb->dev, skb->vlan_proto, skb_vlan_tag_get_id(skb)))
		return NF_ACCEPT;
	return mgcap_capture_frame(priv, skb) ? NF_STOLEN : NF_ACCEPT;
}

static int mgcap_vlan_hook_register(struct mgcap_capture *cap)
{
	cap->vlan_hook = (struct nf_hook_ops) {
		.hook = mgcap_vlan_hook,
		.priv = cap,
		.dev = cap->dev,
		.pf = NFPROTO_NETDEV,
		.hooknum = NF_NETDEV_INGRESS,
		.priority = INT_MAX,
	};
	return nf_register_net_hook(dev_net(cap->dev), &cap->vlan_hook);
}

/* (no wait for a hook running: mgcap_capture_stop() has the rx_handler's) */
static void mgcap_vlan_hook_unregister(struct mgcap_capture *cap)
{
	nf_unregister_net_hook(dev_net(cap->dev), &cap->vlan_hook);
}
#else
static int mgcap_vlan_hook_register(struct mgcap_capture *cap)
{
	return -EOPNOTSUPP;
}

static void mgcap_vlan_hook_unregister(struct mgcap_capture *cap)
{
}
#endif

/*
 * The VLAN hook in place for @cap (once: it stays until the stop), where
 * the device has a VLAN device or one is being made.  0, or the error: a
 * capture in drop mode must not go on without it (it would let the VLAN
 * devices' frames through); in mirror mode they bypass the capture, and
 * the kernel's log says so.
 */
int mgcap_capture_watch_vlans(struct mgcap_capture *cap)
{
	int err;

	ASSERT_RTNL();
	if (cap->vlan_hooked)
		return 0;
	err = mgcap_vlan_hook_register(cap);
	if (err)
		netdev_warn(cap->dev,
			    "mgcap: its VLAN devices' frames bypass the capture (no netfilter ingress hook: %d)\n",
			    err);
	cap->vlan_hooked = !err;
	return err;
}

struct mgcap_capture *mgcap_capture_find(const struct net_device *dev)
{
	ASSERT_RTNL();
	if (rtnl_dereference(dev->rx_handler) != mgcap_rx_handler)
		return NULL;
	return rtnl_dereference(dev->rx_handler_data);
}

/*
 * Its last reader closed, or none came: the capture stops, unless a reader
 * has one of its queues open now or it stopped already.  Run on the
 * readers' workqueue (mgcap_autostop_schedule()), with a reference of its own.
 */
static void mgcap_autostop_work(struct work_struct *work)
{
	struct mgcap_autostop *as = container_of(to_delayed_work(work), struct mgcap_autostop,
						 stop);
	struct mgcap_capture *cap;

	rtnl_lock();
	list_for_each_entry(cap, &mgcap_captures, list) {
		/* no reader, and none can come: opens fail once this is negative */
		if (cap->autostop == as) {
			if (atomic_cmpxchg(&as->readers, 0, INT_MIN) == 0)
				mgcap_capture_stop(cap);
			break;
		}
	}
	rtnl_unlock();
	mgcap_autostop_put(as);
}

/* The capture's reference; each open reader takes one of its own. */
static struct mgcap_autostop *mgcap_autostop_create(void)
{
	struct mgcap_autostop *as = kzalloc(sizeof(*as), GFP_KERNEL);

	if (as) {
		kref_init(&as->ref);
		INIT_DELAYED_WORK(&as->stop, mgcap_autostop_work);
	}
	return as;
}

static void mgcap_capture_free_queues(struct mgcap_capture *cap)
{
	u32 i;

	for (i = 0; i < cap->num_queues; i++) {
		if (!cap->queues[i])
			continue;
		mgcap_chardev_remove(cap->queues[i]);
		mgcap_readers_detach(cap->queues[i]);
		mgcap_queue_put(cap->queues[i]);
	}
	/* after every queue's stop: no reader's close schedules a stop any more */
	if (cap->autostop) {
		mgcap_autostop_cancel(cap->autostop);
		mgcap_autostop_put(cap->autostop);
	}
	mgcap_sent_tap_put(cap->sent_tap);
	kfree(cap);
}

static int mgcap_capture_add_queues(struct mgcap_capture *cap, struct netlink_ext_ack *extack)
{
	u32 i;
	int err;

	for (i = 0; i < cap->num_queues; i++) {
		struct mgcap_queue *q = mgcap_queue_create(i, cap->ring_size, cap->snaplen);

		if (!q) {
			NL_SET_ERR_MSG(extack, "cannot allocate a ring (try a smaller ring size)");
			return -ENOMEM;
		}
		q->num_queues = cap->num_queues;
		q->ifindex = cap->dev->ifindex;
		q->mode = cap->mode;
		q->autostop = cap->autostop;
		if (cap->sent_tap) {
			mgcap_sent_tap_get(cap->sent_tap);
			q->sent_tap = cap->sent_tap;
		}
		strscpy(q->ifname, cap->dev->name, sizeof(q->ifname));
		cap->queues[i] = q;

		err = mgcap_chardev_add(q, cap->dev);
		if (err == -EEXIST) {
			NL_SET_ERR_MSG(extack,
				       "device node name in use (a renamed device still captured?)");
			return err;
		}
		if (err) {
			NL_SET_ERR_MSG(extack, "cannot create the queue's character device");
			return err;
		}
	}
	return 0;
}

/* @snaplen 0: the default; @flags: MGCAP_START_* */
int mgcap_capture_start(struct net_device *dev, u64 ring_size, u32 snaplen,
			u32 mode, u32 flags, struct netlink_ext_ack *extack)
{
	bool autostop = flags & MGCAP_START_AUTOSTOP;
	struct mgcap_capture *cap;
	u32 num_queues;
	int err;

	ASSERT_RTNL();
	cap = mgcap_capture_find(dev);
	if (cap) {
		if (cap->autostop)
			NL_SET_ERR_MSG(extack,
				       "device is already captured, for its readers: it stops once they closed");
		else
			NL_SET_ERR_MSG(extack, "device is already captured");
		return -EEXIST;
	}
	/* devtmpfs makes a '!' in a node's name a '/': a path out of MGCAP_DEVNODE_DIR */
	if (strchr(dev->name, '!')) {
		NL_SET_ERR_MSG(extack, "device names with a '!' cannot be captured");
		return -EINVAL;
	}
	if (dev->type != ARPHRD_ETHER) {
		NL_SET_ERR_MSG(extack, "only Ethernet devices can be captured");
		return -EOPNOTSUPP;
	}
	ring_size = roundup_pow_of_two(ring_size);
	/* unless told, take whole frames, as far as they fit a quarter ring */
	if (!snaplen)
		snaplen = min_t(u64, MGCAP_SNAPLEN_DEFAULT,
				ring_size / 4 - sizeof(struct mgcap_rec));
	if (MGCAP_REC_LEN(snaplen) > ring_size / 4) {
		NL_SET_ERR_MSG(extack, "snaplen too large for the ring size");
		return -EINVAL;
	}

	num_queues = max(dev->real_num_rx_queues, 1U);
	cap = kzalloc(struct_size(cap, queues, num_queues), GFP_KERNEL);
	if (!cap)
		return -ENOMEM;
	cap->dev = dev;
	cap->mode = mode;
	cap->num_queues = num_queues;
	cap->ring_size = ring_size;
	cap->snaplen = snaplen;
	if (autostop) {
		cap->autostop = mgcap_autostop_create();
		if (!cap->autostop) {
			err = -ENOMEM;
			goto err_free;
		}
	}
	if (!(flags & MGCAP_START_RECEIVED_ONLY)) {
		cap->sent_tap = mgcap_sent_tap_create(cap, &mgcap_sent_tap_template);
		if (!cap->sent_tap) {
			err = -ENOMEM;
			goto err_free;
		}
	}

	/* (a reader may open a queue from here on: the tap waits for the start) */
	err = mgcap_capture_add_queues(cap, extack);
	if (err)
		goto err_free;

	if (vlan_uses_dev(dev) && mgcap_capture_watch_vlans(cap) && mode == MGCAP_MODE_DROP) {
		NL_SET_ERR_MSG(extack,
			       "drop mode would let its VLAN devices' frames through (no netfilter ingress hook)");
		err = -EOPNOTSUPP;
		goto err_free;
	}
	err = netdev_rx_handler_register(dev, mgcap_rx_handler, cap);
	if (err == -EBUSY) {
		NL_SET_ERR_MSG(extack,
			       "device already has a receive handler (bridge, bond, team or macvlan port?)");
		goto err_unhook;
	}
	if (err) {
		NL_SET_ERR_MSG(extack, "cannot register the receive handler");
		goto err_unhook;
	}
	if (cap->sent_tap)
		mgcap_sent_tap_run(cap->sent_tap);
	netdev_hold(dev, &cap->dev_tracker, GFP_KERNEL);
	list_add_tail(&cap->list, &mgcap_captures);
	cap->keep_coalescing = flags & MGCAP_START_KEEP_COALESCING;
	if (!cap->keep_coalescing)
		mgcap_coalescing_turn_off(cap);
	if (cap->autostop)
		mgcap_autostop_schedule(cap->autostop, MGCAP_AUTOSTOP_GRACE);
	netdev_info(dev, "mgcap: capturing %u queue(s), %llu byte rings, %s mode%s\n",
		    num_queues, ring_size, mode == MGCAP_MODE_DROP ? "drop" : "mirror",
		    autostop ? ", until its last reader closes" : "");
	return 0;

err_unhook:
	if (cap->vlan_hooked) {
		mgcap_vlan_hook_unregister(cap);
		synchronize_net();	/* a hook may still run with @cap */
	}
err_free:
	mgcap_capture_free_queues(cap);
	return err;
}

/* 0, or -EOPNOTSUPP: drop mode, and the device's VLAN devices would bypass it */
int mgcap_capture_set_mode(struct mgcap_capture *cap, u32 mode)
{
	u32 i;

	ASSERT_RTNL();
	if (mode == MGCAP_MODE_DROP && vlan_uses_dev(cap->dev) && mgcap_capture_watch_vlans(cap))
		return -EOPNOTSUPP;
	WRITE_ONCE(cap->mode, mode);
	for (i = 0; i < cap->num_queues; i++)
		WRITE_ONCE(cap->queues[i]->mode, mode);
	return 0;
}

void mgcap_capture_stop(struct mgcap_capture *cap)
{
	struct net_device *dev = cap->dev;

	ASSERT_RTNL();
	/*
	 * The VLAN hook first: the rx_handler's unregistration then waits for
	 * every hook running (synchronize_net), this one's and the tap's too,
	 * before the queues and @cap go
	 */
	if (cap->vlan_hooked)
		mgcap_vlan_hook_unregister(cap);
	if (cap->sent_tap)
		mgcap_sent_tap_stop(cap->sent_tap);
	netdev_rx_handler_unregister(dev);
	list_del(&cap->list);
	mgcap_coalescing_give_back(cap);
	netdev_info(dev, "mgcap: capture stopped\n");
	netdev_put(dev, &cap->dev_tracker);
	mgcap_capture_free_queues(cap);
}

void mgcap_capture_stop_all(void)
{
	struct mgcap_capture *cap, *tmp;

	ASSERT_RTNL();
	list_for_each_entry_safe(cap, tmp, &mgcap_captures, list)
		mgcap_capture_stop(cap);
}
