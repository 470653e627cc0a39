// SPDX-License-Identifier: GPL-2.0
/*
 * mgcap: per-receive-queue packet capture with hardware time stamps.
 *
 * Module entry points, the ifname= parameter and the netdev notifier that
 * stops a capture when its device goes away or leaves its namespace, has
 * it take the frames of a VLAN device made on it, and tells it of a change
 * of its device's features (its coalescing).
 */
#include <linux/if_vlan.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "mgcap.h"

static char *ifname;
module_param(ifname, charp, 0444);
MODULE_PARM_DESC(ifname, "Comma-separated devices to capture at load (initial namespace); "
		 "a name that is no device fails the load");

static int mgcap_netdev_event(struct notifier_block *nb, unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct mgcap_capture *cap;

	switch (event) {
	case NETDEV_REGISTER:
		/*
		 * a VLAN device of a captured one: its frames bypass the
		 * rx_handler; refused where drop mode would let them through
		 */
		if (!is_vlan_dev(dev))
			return NOTIFY_DONE;
		cap = mgcap_capture_find(vlan_dev_real_dev(dev));
		if (cap && mgcap_capture_watch_vlans(cap) &&
		    READ_ONCE(cap->mode) == MGCAP_MODE_DROP)
			return notifier_from_errno(-EOPNOTSUPP);
		return NOTIFY_OK;
	case NETDEV_FEAT_CHANGE:
		cap = mgcap_capture_find(dev);
		if (cap)
			mgcap_coalescing_changed(cap);
		return NOTIFY_OK;
	case NETDEV_UNREGISTER:
		/* also sent when the device moves to another namespace */
		cap = mgcap_capture_find(dev);
		if (cap)
			mgcap_capture_stop(cap);
		return NOTIFY_OK;
	default:
		return NOTIFY_DONE;
	}
}

static struct notifier_block mgcap_netdev_notifier = {
	.notifier_call = mgcap_netdev_event,
};

/*
 * The devices named in ifname= (the initial namespace), under RTNL: with
 * @start, each captured (never an error: what cannot be is logged, and the
 * load goes on, see mgcap_init()); without, each looked up, -ENODEV for the
 * first name that is no device.
 */
static int mgcap_param_devices(bool start)
{
	char *names, *cursor, *name;
	int err = 0;

	if (!ifname || !*ifname)
		return 0;
	names = kstrdup(ifname, GFP_KERNEL);
	if (!names)
		return -ENOMEM;
	rtnl_lock();
	cursor = names;
	while ((name = strsep(&cursor, ",")) != NULL) {
		struct net_device *dev;
		int ret;

		if (!*name)
			continue;
		dev = __dev_get_by_name(&init_net, name);
		if (!start) {
			if (dev)
				continue;
			pr_err("mgcap: ifname=%s: no such device\n", name);
			err = -ENODEV;
			break;
		}
		ret = dev ? mgcap_capture_start(dev, MGCAP_RING_SIZE_DEFAULT, 0, MGCAP_MODE_MIRROR,
						0, NULL) : -ENODEV;
		if (ret)
			pr_err("mgcap: ifname=%s: cannot capture (%d)\n", name, ret);
	}
	rtnl_unlock();
	kfree(names);
	return err;
}

/*
 * Once a queue node exists, the load must not fail: a reader that opened it
 * would close it after the module's code is gone.  So every way the load
 * can fail comes first (a name in ifname= that is no device, the netlink
 * family), and the nodes after, from the captures of ifname= and from
 * netlink's START, which can come at once.
 */
static int __init mgcap_init(void)
{
	int err;

	err = mgcap_param_devices(false);
	if (err)
		return err;
	err = mgcap_readers_init();
	if (err)
		return err;
	err = mgcap_chardev_init();
	if (err)
		goto err_readers;
	err = register_netdevice_notifier(&mgcap_netdev_notifier);
	if (err)
		goto err_chardev;
	err = mgcap_netlink_init();
	if (err)
		goto err_notifier;
	if (mgcap_param_devices(true))
		pr_err("mgcap: ifname=: no memory for the names: nothing captured\n");
	return 0;

err_notifier:
	unregister_netdevice_notifier(&mgcap_netdev_notifier);
err_chardev:
	mgcap_chardev_exit();
err_readers:
	mgcap_readers_exit();
	return err;
}

static void __exit mgcap_exit(void)
{
	mgcap_netlink_exit();
	rtnl_lock();
	mgcap_capture_stop_all();
	rtnl_unlock();
	unregister_netdevice_notifier(&mgcap_netdev_notifier);
	mgcap_chardev_exit();
	mgcap_readers_exit();
}

module_init(mgcap_init);
module_exit(mgcap_exit);

MODULE_DESCRIPTION("Per-receive-queue packet capture with hardware time stamps");
MODULE_AUTHOR("mgcap developers");
MODULE_LICENSE("GPL");
