// SPDX-License-Identifier: GPL-2.0
/*
 * mgcap: per-receive-queue packet capture with hardware time stamps.
 *
 * Module entry points, the ifname= parameter and the netdev notifier that
 * stops a capture when its device goes away or leaves its namespace.
 */
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "mgcap.h"

static char *ifname;
module_param(ifname, charp, 0444);
MODULE_PARM_DESC(ifname, "Comma-separated devices to capture at load (initial namespace)");

static int mgcap_netdev_event(struct notifier_block *nb, unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct mgcap_capture *cap;

	/* also sent when the device moves to another namespace */
	if (event != NETDEV_UNREGISTER)
		return NOTIFY_DONE;
	cap = mgcap_capture_find(dev);
	if (cap)
		mgcap_capture_stop(cap);
	return NOTIFY_OK;
}

static struct notifier_block mgcap_netdev_notifier = {
	.notifier_call = mgcap_netdev_event,
};

static int mgcap_start_param_devices(void)
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
	while (!err && (name = strsep(&cursor, ",")) != NULL) {
		struct net_device *dev;

		if (!*name)
			continue;
		dev = __dev_get_by_name(&init_net, name);
		if (!dev) {
			pr_err("mgcap: ifname=%s: no such device\n", name);
			err = -ENODEV;
			break;
		}
		err = mgcap_capture_start(dev, MGCAP_RING_SIZE_DEFAULT, 0, MGCAP_MODE_MIRROR,
					  false, NULL);
		if (err)
			pr_err("mgcap: ifname=%s: cannot capture (%d)\n", name, err);
	}
	/* on an error, mgcap_init() stops what started, once netlink cannot start more */
	rtnl_unlock();
	kfree(names);
	return err;
}

static int __init mgcap_init(void)
{
	int err;

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
	err = mgcap_start_param_devices();
	if (err)
		goto err_captures;
	return 0;

err_captures:
	/*
	 * As at exit: the family goes first (waiting for a request under way),
	 * so that no START can put a receive hook in place after the stop,
	 * for a module about to be freed.
	 */
	mgcap_netlink_exit();
	rtnl_lock();
	mgcap_capture_stop_all();
	rtnl_unlock();
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
