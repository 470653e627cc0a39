// SPDX-License-Identifier: GPL-2.0
/*
 * mgcap coalescing: what merges a device's received frames before the
 * capture sees them, off while it is captured.
 *
 * The rx_handler runs after GRO, and a NIC's LRO or hardware GRO merges
 * frames before the driver hands them over: one record would hold up to
 * 64 KiB of wire frames behind one stamp.  So a capture turns off what its
 * device has on of these, as `ethtool -K DEV gro off lro off ...` would
 * (the device's wanted features, then netdev_update_features()), and its
 * stop turns them on again.  What someone turns on meanwhile is theirs
 * from then on, even if they turn it off again: the notifier drops it from
 * the capture's give-back (mgcap_coalescing_changed()).  A device going
 * away gets nothing back.
 */
#include <linux/inetdevice.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>

#include "mgcap.h"

static const struct {
	netdev_features_t feature;
	u32 uapi;			/* MGCAP_COALESCING_* */
} mgcap_coalescing[] = {
	{ NETIF_F_GRO, MGCAP_COALESCING_GRO },
	{ NETIF_F_LRO, MGCAP_COALESCING_LRO },
	{ NETIF_F_GRO_HW, MGCAP_COALESCING_GRO_HW },
	{ NETIF_F_GRO_FRAGLIST, MGCAP_COALESCING_GRO_LIST },
	{ NETIF_F_GRO_UDP_FWD, MGCAP_COALESCING_GRO_UDP_FWD },
};

/*
 * The features changed one step at a time: the kernel applies a change
 * whole or not at all, and a driver may refuse its own (virtio-net its
 * hardware GRO while XDP runs), which must not keep the stack's GRO on.
 */
static const netdev_features_t mgcap_coalescing_steps[] = {
	NETIF_F_GRO | NETIF_F_GRO_FRAGLIST | NETIF_F_GRO_UDP_FWD,	/* the stack's */
	NETIF_F_LRO,
	NETIF_F_GRO_HW,
};

/* What @cap turned off and will give back, as MGCAP_ATTR_COALESCING_OFF says it. */
u32 mgcap_coalescing_uapi(const struct mgcap_capture *cap)
{
	u32 off = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(mgcap_coalescing); i++)
		if (cap->coalescing_off & mgcap_coalescing[i].feature)
			off |= mgcap_coalescing[i].uapi;
	return off;
}

/*
 * Turns off what @cap's device has on of the coalescing features and may
 * turn off.  A driver that refused keeps its setting (its frames then
 * come coalesced, and their records say so): only what went off is
 * given back.  LRO of a device with lower devices (a bond) stays: turning
 * it off there turns it off for good on every lower device
 * (netdev_sync_lower_features()), and their frames are merged below the
 * capture's device all the same.
 */
void mgcap_coalescing_turn_off(struct mgcap_capture *cap)
{
	struct net_device *dev = cap->dev, *lower_dev;
	struct list_head *iter;
	bool has_lower = false;
	size_t i;

	ASSERT_RTNL();
	netdev_for_each_lower_dev(dev, lower_dev, iter)
		has_lower = true;
	for (i = 0; i < ARRAY_SIZE(mgcap_coalescing_steps); i++) {
		netdev_features_t off = dev->wanted_features & dev->hw_features &
					mgcap_coalescing_steps[i];

		if (has_lower)
			off &= ~NETIF_F_UPPER_DISABLES;
		if (!off)
			continue;
		dev->wanted_features &= ~off;
		netdev_update_features(dev);
		/* what is still on stays wanted: the capture changed nothing there */
		dev->wanted_features |= off & dev->features;
		cap->coalescing_off |= off & ~dev->features;
	}
	if (cap->coalescing_off)
		netdev_info(dev, "mgcap: coalescing of received frames off while captured (%#x)\n",
			    mgcap_coalescing_uapi(cap));
}

/* After a change of @cap's device's features: what is on again is not the capture's. */
void mgcap_coalescing_changed(struct mgcap_capture *cap)
{
	ASSERT_RTNL();
	cap->coalescing_off &= ~cap->dev->wanted_features;
}

/*
 * What may not go back on: LRO where the device forwards (a router must
 * not pass merged frames on, and dev_disable_lro() turned it off for good,
 * whoever had it off then); LRO and hardware GRO under a generic XDP
 * program (its attach turned them off the same way).
 */
static netdev_features_t mgcap_coalescing_barred(struct net_device *dev)
{
	struct in_device *in_dev = __in_dev_get_rtnl(dev);
	struct inet6_dev *in6_dev = __in6_dev_get(dev);
	netdev_features_t barred = 0;

	if ((in_dev && IN_DEV_FORWARD(in_dev)) ||
	    (in6_dev && READ_ONCE(in6_dev->cnf.forwarding)))
		barred |= NETIF_F_LRO;
	if (rtnl_dereference(dev->xdp_prog))
		barred |= NETIF_F_LRO | NETIF_F_GRO_HW;
	return barred;
}

/* At @cap's stop: on again what it turned off and nobody turned on since. */
void mgcap_coalescing_give_back(struct mgcap_capture *cap)
{
	struct net_device *dev = cap->dev;
	netdev_features_t off = cap->coalescing_off;
	size_t i;

	ASSERT_RTNL();
	cap->coalescing_off = 0;
	if (!off || dev->reg_state != NETREG_REGISTERED)
		return;
	off &= ~mgcap_coalescing_barred(dev);
	for (i = 0; i < ARRAY_SIZE(mgcap_coalescing_steps); i++) {
		if (!(off & mgcap_coalescing_steps[i]))
			continue;
		dev->wanted_features |= off & mgcap_coalescing_steps[i];
		netdev_update_features(dev);
	}
}
