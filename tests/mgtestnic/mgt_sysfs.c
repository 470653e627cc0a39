// SPDX-License-Identifier: GPL-2.0
/*
 * mgtestnic's sysfs interface: /sys/class/net/mgtN/mgtestnic/
 *
 *   generate       write "QUEUE COUNT" or "all COUNT"
 *   frame_len      frame bytes without FCS
 *   vlan_tci       0: no tag, else the offloaded TCI
 *   nonlinear      1: payload in a page fragment
 *   flows          UDP flows per queue (RPS spread)
 *   generated      frames generated per queue
 *   pending        frames still to generate
 *
 * and the device's PHC (mgt_phc.h):
 *
 *   phc_stamps     0: the synthetic stamps mgt_hwtstamp() gives, from a
 *                     clock the NIC does not name (as NICs without a PHC
 *                     stamp)
 *                  1: stamps from the PHC, which ethtool then names, each
 *                     frame carrying the system time of its stamp
 *                     (MGT_TRUTH_OFF)
 *   phc_offset_ns  PHC minus system time now; writing steps it
 *   phc_step_ns    write: step the PHC by this much (either sign)
 *   phc_error_ppb  the PHC's frequency error (adjfine adds to it)
 *   phc_best       the best cross-timestamp it offers: precise, extended
 *                  or basic
 */
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/netdevice.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "mgt_phc.h"
#include "mgtestnic.h"
#include "mgtestnic_frame.h"

static struct mgt_priv *mgt_priv_of(struct device *d)
{
	return netdev_priv(to_net_dev(d));
}

static ssize_t generate_store(struct device *d, struct device_attribute *attr,
			      const char *buf, size_t len)
{
	struct net_device *dev = to_net_dev(d);
	struct mgt_priv *priv = netdev_priv(dev);
	char which[8];
	unsigned int first, last, i;
	u64 count;

	if (sscanf(buf, "%7s %llu", which, &count) != 2 || count > (1ULL << 40))
		return -EINVAL;
	if (!strcmp(which, "all")) {
		first = 0;
		last = dev->real_num_rx_queues - 1;
	} else if (!kstrtouint(which, 10, &first) && first < dev->real_num_rx_queues) {
		last = first;
	} else {
		return -EINVAL;
	}
	if (!netif_running(dev))
		return -ENETDOWN;

	for (i = first; i <= last; i++)
		atomic64_add(count, &priv->q[i].pending);
	/* softirqs run at local_bh_enable(), on this CPU */
	local_bh_disable();
	for (i = first; i <= last; i++)
		napi_schedule(&priv->q[i].napi);
	local_bh_enable();
	return len;
}
static DEVICE_ATTR_WO(generate);

static ssize_t mgt_show_per_queue(struct device *d, char *buf, bool pending)
{
	struct net_device *dev = to_net_dev(d);
	struct mgt_priv *priv = netdev_priv(dev);
	unsigned int i;
	ssize_t n = 0;

	for (i = 0; i < dev->real_num_rx_queues; i++) {
		u64 v = pending ? atomic64_read(&priv->q[i].pending) : READ_ONCE(priv->q[i].seq);

		n += sysfs_emit_at(buf, n, "%s%llu", i ? " " : "", v);
	}
	n += sysfs_emit_at(buf, n, "\n");
	return n;
}

static ssize_t generated_show(struct device *d, struct device_attribute *attr, char *buf)
{
	return mgt_show_per_queue(d, buf, false);
}
static DEVICE_ATTR_RO(generated);

static ssize_t pending_show(struct device *d, struct device_attribute *attr, char *buf)
{
	return mgt_show_per_queue(d, buf, true);
}
static DEVICE_ATTR_RO(pending);

static ssize_t frame_len_show(struct device *d, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(mgt_priv_of(d)->frame_len));
}

static ssize_t frame_len_store(struct device *d, struct device_attribute *attr,
			       const char *buf, size_t len)
{
	u32 v;

	if (kstrtou32(buf, 0, &v) || v < MGT_FRAME_MIN || v > MGT_FRAME_MAX)
		return -EINVAL;
	WRITE_ONCE(mgt_priv_of(d)->frame_len, v);
	return len;
}
static DEVICE_ATTR_RW(frame_len);

static ssize_t vlan_tci_show(struct device *d, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(mgt_priv_of(d)->vlan_tci));
}

static ssize_t vlan_tci_store(struct device *d, struct device_attribute *attr,
			      const char *buf, size_t len)
{
	u16 v;

	if (kstrtou16(buf, 0, &v))
		return -EINVAL;
	WRITE_ONCE(mgt_priv_of(d)->vlan_tci, v);
	return len;
}
static DEVICE_ATTR_RW(vlan_tci);

static ssize_t nonlinear_show(struct device *d, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(mgt_priv_of(d)->nonlinear));
}

static ssize_t nonlinear_store(struct device *d, struct device_attribute *attr,
			       const char *buf, size_t len)
{
	bool v;

	if (kstrtobool(buf, &v))
		return -EINVAL;
	WRITE_ONCE(mgt_priv_of(d)->nonlinear, v);
	return len;
}
static DEVICE_ATTR_RW(nonlinear);

static ssize_t flows_show(struct device *d, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(mgt_priv_of(d)->flows));
}

static ssize_t flows_store(struct device *d, struct device_attribute *attr,
			   const char *buf, size_t len)
{
	u32 v;

	if (kstrtou32(buf, 0, &v) || v < 1 || v > 64)
		return -EINVAL;
	WRITE_ONCE(mgt_priv_of(d)->flows, v);
	return len;
}
static DEVICE_ATTR_RW(flows);

static ssize_t phc_stamps_show(struct device *d, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(mgt_priv_of(d)->phc_stamps));
}

static ssize_t phc_stamps_store(struct device *d, struct device_attribute *attr,
				const char *buf, size_t len)
{
	bool v;

	if (kstrtobool(buf, &v))
		return -EINVAL;
	WRITE_ONCE(mgt_priv_of(d)->phc_stamps, v);
	return len;
}
static DEVICE_ATTR_RW(phc_stamps);

static ssize_t phc_offset_ns_show(struct device *d, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lld\n", mgt_phc_offset(&mgt_priv_of(d)->phc));
}

static ssize_t phc_offset_ns_store(struct device *d, struct device_attribute *attr,
				   const char *buf, size_t len)
{
	s64 v;

	if (kstrtos64(buf, 0, &v))
		return -EINVAL;
	mgt_phc_set_offset(&mgt_priv_of(d)->phc, v);
	return len;
}
static DEVICE_ATTR_RW(phc_offset_ns);

static ssize_t phc_step_ns_store(struct device *d, struct device_attribute *attr,
				 const char *buf, size_t len)
{
	s64 v;

	if (kstrtos64(buf, 0, &v))
		return -EINVAL;
	mgt_phc_step(&mgt_priv_of(d)->phc, v);
	return len;
}
static DEVICE_ATTR_WO(phc_step_ns);

static ssize_t phc_error_ppb_show(struct device *d, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lld\n", READ_ONCE(mgt_priv_of(d)->phc.error_ppb));
}

static ssize_t phc_error_ppb_store(struct device *d, struct device_attribute *attr,
				   const char *buf, size_t len)
{
	s64 v;
	int err;

	if (kstrtos64(buf, 0, &v))
		return -EINVAL;
	err = mgt_phc_set_error(&mgt_priv_of(d)->phc, v);
	return err ? err : len;
}
static DEVICE_ATTR_RW(phc_error_ppb);

static const char *const mgt_phc_method_names[] = {
	[MGT_PHC_BASIC] = "basic",
	[MGT_PHC_EXTENDED] = "extended",
	[MGT_PHC_PRECISE] = "precise",
};

static ssize_t phc_best_show(struct device *d, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", mgt_phc_method_names[READ_ONCE(mgt_priv_of(d)->phc.best)]);
}

static ssize_t phc_best_store(struct device *d, struct device_attribute *attr,
			      const char *buf, size_t len)
{
	int i = sysfs_match_string(mgt_phc_method_names, buf);

	if (i < 0)
		return -EINVAL;
	WRITE_ONCE(mgt_priv_of(d)->phc.best, i);
	return len;
}
static DEVICE_ATTR_RW(phc_best);

static struct attribute *mgt_attrs[] = {
	&dev_attr_generate.attr,
	&dev_attr_generated.attr,
	&dev_attr_pending.attr,
	&dev_attr_frame_len.attr,
	&dev_attr_vlan_tci.attr,
	&dev_attr_nonlinear.attr,
	&dev_attr_flows.attr,
	&dev_attr_phc_stamps.attr,
	&dev_attr_phc_offset_ns.attr,
	&dev_attr_phc_step_ns.attr,
	&dev_attr_phc_error_ppb.attr,
	&dev_attr_phc_best.attr,
	NULL,
};

const struct attribute_group mgt_attr_group = {
	.name = "mgtestnic",
	.attrs = mgt_attrs,
};
