// SPDX-License-Identifier: GPL-2.0
/*
 * mgtestnic's sysfs interface: /sys/class/net/mgtN/mgtestnic/
 *
 *   generate       write "QUEUE COUNT", "all COUNT" (COUNT on each queue)
 *                  or "zipf COUNT" (COUNT over the queues by Zipf's law:
 *                  queue i a share of 1/(i+1)); "stop": what is pending
 *                  is not generated
 *   rate_pps       each queue's frames a second, paced; 0: as fast as
 *                  NAPI goes (a burst)
 *   frame_len      frame bytes without FCS, or "imix": the sizes of a
 *                  simple IMIX in turn (mgt_frame_len())
 *   vlan_tci       0: no tag, else the offloaded TCI
 *   nonlinear      1: payload in a page fragment
 *   netdev_tstamp  1: a received frame's stamp is the driver's to give
 *                  (SKBTX_HW_TSTAMP_NETDEV: the stamp's place holds a
 *                  pointer to it, ndo_get_tstamp reads it), as tsnep does
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
#include <linux/math64.h>
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

/*
 * Queue @i's part of @count frames spread over @n queues by Zipf's law
 * (s = 1): queue i gets a share of 1/(i+1), queue 0 the rounding's rest.
 */
static u64 mgt_zipf_share(u64 count, unsigned int i, unsigned int n)
{
	u64 total = 0, share, given = 0;
	unsigned int k;

	for (k = 0; k < n; k++)
		total += 1000000 / (k + 1);
	for (k = 1; k < n; k++)
		given += div64_u64(count * (1000000 / (k + 1)), total);
	share = div64_u64(count * (1000000 / (i + 1)), total);
	return i ? share : count - given;
}

/*
 * "Q COUNT": COUNT more frames on queue Q; "all COUNT": on every queue;
 * "zipf COUNT": COUNT in all, spread over the queues by Zipf's law;
 * "stop": none of those still pending.
 */
static ssize_t generate_store(struct device *d, struct device_attribute *attr,
			      const char *buf, size_t len)
{
	struct net_device *dev = to_net_dev(d);
	struct mgt_priv *priv = netdev_priv(dev);
	unsigned int first, last, i, n = dev->real_num_rx_queues;
	bool zipf = false;
	char which[8];
	u64 count;

	if (sysfs_streq(buf, "stop")) {
		for (i = 0; i < n; i++)
			atomic64_set(&priv->q[i].pending, 0);
		return len;
	}
	if (sscanf(buf, "%7s %llu", which, &count) != 2 || count > (1ULL << 40))
		return -EINVAL;
	if (!strcmp(which, "all") || !strcmp(which, "zipf")) {
		first = 0;
		last = n - 1;
		zipf = which[0] == 'z';
	} else if (!kstrtouint(which, 10, &first) && first < n) {
		last = first;
	} else {
		return -EINVAL;
	}
	if (!netif_running(dev))
		return -ENETDOWN;

	for (i = first; i <= last; i++) {
		struct mgt_queue *q = &priv->q[i];
		u64 more = zipf ? mgt_zipf_share(count, i, n) : count;

		/* an idle queue's paced run starts now, not when its last ended */
		if (atomic64_read(&q->pending) == 0)
			atomic_set(&q->pace_restart, 1);
		atomic64_add(more, &q->pending);
	}
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
	u32 v = READ_ONCE(mgt_priv_of(d)->frame_len);

	if (v == MGT_FRAME_LEN_IMIX)
		return sysfs_emit(buf, "imix\n");
	return sysfs_emit(buf, "%u\n", v);
}

static ssize_t frame_len_store(struct device *d, struct device_attribute *attr,
			       const char *buf, size_t len)
{
	u32 v;

	if (sysfs_streq(buf, "imix"))
		v = MGT_FRAME_LEN_IMIX;
	else if (kstrtou32(buf, 0, &v) || v < MGT_FRAME_MIN || v > MGT_FRAME_MAX)
		return -EINVAL;
	WRITE_ONCE(mgt_priv_of(d)->frame_len, v);
	return len;
}
static DEVICE_ATTR_RW(frame_len);

/* each queue's frames a second, paced by a timer; 0: as fast as NAPI goes */
static ssize_t rate_pps_show(struct device *d, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", READ_ONCE(mgt_priv_of(d)->rate_pps));
}

static ssize_t rate_pps_store(struct device *d, struct device_attribute *attr,
			      const char *buf, size_t len)
{
	struct mgt_priv *priv = mgt_priv_of(d);
	struct net_device *dev = to_net_dev(d);
	unsigned int i;
	u64 v;

	if (kstrtou64(buf, 0, &v) || v > 100000000)
		return -EINVAL;
	WRITE_ONCE(priv->rate_pps, v);
	for (i = 0; i < dev->real_num_rx_queues; i++)
		atomic_set(&priv->q[i].pace_restart, 1);
	if (!netif_running(dev))
		return len;
	/* a queue asleep on the old rate's timer goes on at the new rate now */
	local_bh_disable();
	for (i = 0; i < dev->real_num_rx_queues; i++) {
		if (hrtimer_try_to_cancel(&priv->q[i].pace_timer) == 1)
			napi_schedule(&priv->q[i].napi);
	}
	local_bh_enable();
	return len;
}
static DEVICE_ATTR_RW(rate_pps);

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

static ssize_t netdev_tstamp_show(struct device *d, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(mgt_priv_of(d)->netdev_tstamp));
}

static ssize_t netdev_tstamp_store(struct device *d, struct device_attribute *attr,
				   const char *buf, size_t len)
{
	bool v;

	if (kstrtobool(buf, &v))
		return -EINVAL;
	WRITE_ONCE(mgt_priv_of(d)->netdev_tstamp, v);
	return len;
}
static DEVICE_ATTR_RW(netdev_tstamp);

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
	&dev_attr_rate_pps.attr,
	&dev_attr_vlan_tci.attr,
	&dev_attr_nonlinear.attr,
	&dev_attr_netdev_tstamp.attr,
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
