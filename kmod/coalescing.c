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

static netdev_features_t mgcap_coalescing_features(void)
{
	netdev_features_t all = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(mgcap_coalescing); i++)
		all |= mgcap_coalescing[i].feature;
	return all;
}

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
 * given back.
 */
void mgcap_coalescing_turn_off(struct mgcap_capture *cap)
{
	struct net_device *dev = cap->dev;
	netdev_features_t off;

	ASSERT_RTNL();
	off = dev->wanted_features & dev->hw_features & mgcap_coalescing_features();
	if (!off)
		return;
	dev->wanted_features &= ~off;
	netdev_update_features(dev);
	/* what is still on stays wanted: the capture changed nothing there */
	dev->wanted_features |= off & dev->features;
	cap->coalescing_off = off & ~dev->features;
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
 * Whether @dev forwards: LRO merges frames a router must not pass on
 * merged, so forwarding turned on meanwhile turned it off for good
 * (dev_disable_lro()), whoever had it off then.
 */
static bool mgcap_forwards(struct net_device *dev)
{
	struct in_device *in_dev = __in_dev_get_rtnl(dev);
	struct inet6_dev *in6_dev = __in6_dev_get(dev);

	return (in_dev && IN_DEV_FORWARD(in_dev)) ||
	       (in6_dev && READ_ONCE(in6_dev->cnf.forwarding));
}

/* At @cap's stop: on again what it turned off and nobody turned on since. */
void mgcap_coalescing_give_back(struct mgcap_capture *cap)
{
	struct net_device *dev = cap->dev;
	netdev_features_t off = cap->coalescing_off;

	ASSERT_RTNL();
	cap->coalescing_off = 0;
	if (off & NETIF_F_LRO && mgcap_forwards(dev))
		off &= ~NETIF_F_LRO;
	if (!off || dev->reg_state != NETREG_REGISTERED)
		return;
	dev->wanted_features |= off;
	netdev_update_features(dev);
}
