// SPDX-License-Identifier: GPL-2.0
/*
 * mgtestnic: a test NIC for mgcap.
 *
 * Each device "mgtN" has several receive queues, each with its own NAPI
 * context that generates numbered frames (mgtestnic_frame.h) with the queue
 * recorded and, while hardware stamping is on (SIOCSHWTSTAMP rx_filter ALL),
 * a deterministic hardware time stamp.  Optionally the frames carry an
 * offloaded VLAN tag or are non-linear.  Each device has a PHC (/dev/ptpN,
 * mgt_phc.h), at phc_offset_ns from the system clock when loaded (default
 * +37 s, as a PHC in TAI).  Everything is controlled through sysfs, in
 * /sys/class/net/mgtN/mgtestnic/ (mgt_sysfs.c).
 */
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/if_vlan.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/net_tstamp.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <linux/stringify.h>
#include <net/busy_poll.h>

#include "compat.h"
#include "mgt_phc.h"
#include "mgtestnic.h"
#include "mgtestnic_frame.h"

/* enough for a capture whose listing exceeds one netlink message */
#define MGT_QUEUES_MAX	1024
static unsigned int queues = 4;
module_param(queues, uint, 0444);
MODULE_PARM_DESC(queues, "Receive queues per device (1-" __stringify(MGT_QUEUES_MAX) ")");

static unsigned int devices = 1;
module_param(devices, uint, 0444);
MODULE_PARM_DESC(devices, "Number of devices (1-16)");

static long phc_offset_ns = 37000000000L;
module_param(phc_offset_ns, long, 0444);
MODULE_PARM_DESC(phc_offset_ns, "Each PHC's offset from system time at load (ns)");

static struct net_device *mgt_devs[16];

static struct sk_buff *mgt_build_skb(struct mgt_queue *q, struct mgt_priv *priv)
{
	u32 len = mgt_frame_len(READ_ONCE(priv->frame_len), q->seq);
	bool nonlinear = READ_ONCE(priv->nonlinear);
	u16 tci = READ_ONCE(priv->vlan_tci);
	u32 flows = READ_ONCE(priv->flows);
	bool phc_stamps = READ_ONCE(priv->phc_stamps);
	u64 hwtstamp = mgt_hwtstamp(q->index, q->seq), truth;
	struct sk_buff *skb;
	u8 *frame;

	skb = napi_alloc_skb(&q->napi, nonlinear ? MGT_HDR_LEN : len);
	if (!skb)
		return NULL;
	frame = nonlinear ? q->scratch : skb_put(skb, len);
	mgt_build_frame(frame, len, priv->dev_index, q->index, q->seq, flows);
	if (phc_stamps) {
		hwtstamp = mgt_phc_now(&priv->phc, &truth);
		mgt_put_truth(frame, truth);
	}
	if (nonlinear) {
		struct page *page = dev_alloc_page();

		if (!page) {
			kfree_skb(skb);
			return NULL;
		}
		skb_put_data(skb, q->scratch, MGT_HDR_LEN);
		memcpy(page_address(page), q->scratch + MGT_HDR_LEN, len - MGT_HDR_LEN);
		skb_add_rx_frag(skb, 0, page, 0, len - MGT_HDR_LEN, PAGE_SIZE);
	}

	skb->protocol = eth_type_trans(skb, q->dev);
	skb->ip_summed = CHECKSUM_UNNECESSARY;
	skb_record_rx_queue(skb, q->index);
	/* as GRO marks it: the stack finds the receiving device by it */
	skb_mark_napi_id(skb, &q->napi);
	if (READ_ONCE(priv->hwtstamp_rx) && READ_ONCE(priv->netdev_tstamp)) {
		/* the stamp in the headroom, its place pointing there (tsnep: its descriptor) */
		BUILD_BUG_ON(sizeof(u64) > NET_SKB_PAD);
		*(u64 *)skb->head = hwtstamp;
		skb_hwtstamps(skb)->netdev_data = skb->head;
		skb_shinfo(skb)->tx_flags |= SKBTX_HW_TSTAMP_NETDEV;
	} else if (READ_ONCE(priv->hwtstamp_rx)) {
		skb_hwtstamps(skb)->hwtstamp = ns_to_ktime(hwtstamp);
	}
	if (tci)
		__vlan_hwaccel_put_tag(skb, htons(ETH_P_8021Q), tci);
	q->seq++;
	return skb;
}

/*
 * How many of @budget frames a paced queue may make now; the first of a run
 * is due at once.  Sets *@next_ns to when the one after those is due.
 */
static int mgt_pace_allows(struct mgt_queue *q, u64 rate, int budget, u64 *next_ns)
{
	u64 now = ktime_get_ns(), due;

	if (atomic_xchg(&q->pace_restart, 0)) {
		q->pace_start_ns = now;
		q->pace_sent = 0;
	}
	due = mul_u64_u64_div_u64(now - q->pace_start_ns, rate, NSEC_PER_SEC) + 1;
	if (due <= q->pace_sent)
		budget = 0;
	else if (due - q->pace_sent < budget)
		budget = due - q->pace_sent;
	*next_ns = q->pace_start_ns +
		   mul_u64_u64_div_u64(q->pace_sent + budget, NSEC_PER_SEC, rate);
	return budget;
}

static enum hrtimer_restart mgt_pace_timer(struct hrtimer *timer)
{
	struct mgt_queue *q = container_of(timer, struct mgt_queue, pace_timer);

	napi_schedule(&q->napi);
	return HRTIMER_NORESTART;
}

static int mgt_poll(struct napi_struct *napi, int budget)
{
	struct mgt_queue *q = container_of(napi, struct mgt_queue, napi);
	struct mgt_priv *priv = netdev_priv(q->dev);
	u64 rate = READ_ONCE(priv->rate_pps), next_ns = 0;
	int limit = rate ? mgt_pace_allows(q, rate, budget, &next_ns) : budget;
	int done = 0;

	/* taken before it is built: a "stop" meanwhile ends the run at once */
	while (done < limit && atomic64_dec_if_positive(&q->pending) >= 0) {
		struct sk_buff *skb = mgt_build_skb(q, priv);

		if (!skb) {
			/* not generated: still to do (a "stop" meanwhile lets it through) */
			atomic64_inc(&q->pending);
			break;
		}
		netif_receive_skb(skb);
		done++;
	}
	q->pace_sent += done;
	if (done < budget && napi_complete_done(napi, done) && atomic64_read(&q->pending) > 0) {
		if (rate && done == limit)	/* the rest is not due yet */
			hrtimer_start(&q->pace_timer, ns_to_ktime(next_ns), HRTIMER_MODE_ABS);
		else
			napi_schedule(napi);
	}
	return done;
}

static int mgt_open(struct net_device *dev)
{
	struct mgt_priv *priv = netdev_priv(dev);
	unsigned int i;

	for (i = 0; i < dev->real_num_rx_queues; i++)
		napi_enable(&priv->q[i].napi);
	netif_tx_start_all_queues(dev);
	return 0;
}

static int mgt_stop(struct net_device *dev)
{
	struct mgt_priv *priv = netdev_priv(dev);
	unsigned int i;

	netif_tx_stop_all_queues(dev);
	for (i = 0; i < dev->real_num_rx_queues; i++) {
		napi_disable(&priv->q[i].napi);
		hrtimer_cancel(&priv->q[i].pace_timer);
		atomic64_set(&priv->q[i].pending, 0);
	}
	return 0;
}

static netdev_tx_t mgt_xmit(struct sk_buff *skb, struct net_device *dev)
{
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

static void mgt_get_stats64(struct net_device *dev, struct rtnl_link_stats64 *s)
{
	struct mgt_priv *priv = netdev_priv(dev);
	unsigned int i;

	for (i = 0; i < dev->real_num_rx_queues; i++)
		s->rx_packets += READ_ONCE(priv->q[i].seq);
}

static int mgt_hwtstamp_ioctl(struct net_device *dev, struct ifreq *ifr, int cmd)
{
	struct mgt_priv *priv = netdev_priv(dev);
	struct hwtstamp_config cfg;

	if (cmd == SIOCSHWTSTAMP) {
		if (copy_from_user(&cfg, ifr->ifr_data, sizeof(cfg)))
			return -EFAULT;
		/* TX on is kept and reported (a PTP daemon's), though nothing is sent */
		if (cfg.flags || (cfg.tx_type != HWTSTAMP_TX_OFF && cfg.tx_type != HWTSTAMP_TX_ON))
			return -ERANGE;
		if (cfg.rx_filter != HWTSTAMP_FILTER_NONE)
			cfg.rx_filter = HWTSTAMP_FILTER_ALL;
		WRITE_ONCE(priv->hwtstamp_rx, cfg.rx_filter == HWTSTAMP_FILTER_ALL);
		WRITE_ONCE(priv->hwtstamp_tx, cfg.tx_type == HWTSTAMP_TX_ON);
	} else {
		memset(&cfg, 0, sizeof(cfg));
		cfg.tx_type = READ_ONCE(priv->hwtstamp_tx) ? HWTSTAMP_TX_ON : HWTSTAMP_TX_OFF;
		cfg.rx_filter = priv->hwtstamp_rx ? HWTSTAMP_FILTER_ALL : HWTSTAMP_FILTER_NONE;
	}
	return copy_to_user(ifr->ifr_data, &cfg, sizeof(cfg)) ? -EFAULT : 0;
}

static int mgt_eth_ioctl(struct net_device *dev, struct ifreq *ifr, int cmd)
{
	if (cmd == SIOCSHWTSTAMP || cmd == SIOCGHWTSTAMP)
		return mgt_hwtstamp_ioctl(dev, ifr, cmd);
	return -EOPNOTSUPP;
}

static int mgt_get_ts_info(struct net_device *dev, struct mgt_ts_info *info)
{
	struct mgt_priv *priv = netdev_priv(dev);

	info->so_timestamping = SOF_TIMESTAMPING_RX_HARDWARE | SOF_TIMESTAMPING_RAW_HARDWARE |
				SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
	info->phc_index = READ_ONCE(priv->phc_stamps) ? mgt_phc_index(&priv->phc) : -1;
	info->tx_types = BIT(HWTSTAMP_TX_OFF) | BIT(HWTSTAMP_TX_ON);
	info->rx_filters = BIT(HWTSTAMP_FILTER_NONE) | BIT(HWTSTAMP_FILTER_ALL);
	return 0;
}

static void mgt_get_channels(struct net_device *dev, struct ethtool_channels *ch)
{
	ch->max_rx = dev->num_rx_queues;
	ch->rx_count = dev->real_num_rx_queues;
	ch->max_tx = 1;
	ch->tx_count = 1;
}

static const struct ethtool_ops mgt_ethtool_ops = {
	.get_ts_info = mgt_get_ts_info,
	.get_channels = mgt_get_channels,
	.get_link = ethtool_op_get_link,
};

/* A stamp left in the headroom by mgt_build_skb() (netdev_tstamp). */
static ktime_t mgt_get_tstamp(struct net_device *dev, const struct skb_shared_hwtstamps *hwtstamps,
			      bool cycles)
{
	return ns_to_ktime(*(const u64 *)hwtstamps->netdev_data);
}

static const struct net_device_ops mgt_netdev_ops = {
	.ndo_open = mgt_open,
	.ndo_stop = mgt_stop,
	.ndo_start_xmit = mgt_xmit,
	.ndo_get_stats64 = mgt_get_stats64,
	.ndo_eth_ioctl = mgt_eth_ioctl,
	.ndo_get_tstamp = mgt_get_tstamp,
	.ndo_set_mac_address = eth_mac_addr,
	.ndo_validate_addr = eth_validate_addr,
};

static void mgt_free_queues(struct net_device *dev)
{
	struct mgt_priv *priv = netdev_priv(dev);
	unsigned int i;

	for (i = 0; i < queues; i++) {
		netif_napi_del(&priv->q[i].napi);
		hrtimer_cancel(&priv->q[i].pace_timer);
		kfree(priv->q[i].scratch);
	}
	kfree(priv->q);
}

static struct net_device *mgt_create(u32 index)
{
	struct net_device *dev;
	struct mgt_priv *priv;
	u8 mac[ETH_ALEN];
	unsigned int i;
	int err;

	dev = alloc_netdev_mqs(sizeof(*priv), "mgt%d", NET_NAME_ENUM, ether_setup, 1, queues);
	if (!dev)
		return ERR_PTR(-ENOMEM);
	dev->netdev_ops = &mgt_netdev_ops;
	dev->ethtool_ops = &mgt_ethtool_ops;
	dev->sysfs_groups[0] = &mgt_attr_group;
	dev->max_mtu = MGT_FRAME_MAX - ETH_HLEN;
	mgt_dev_mac(mac, index);
	eth_hw_addr_set(dev, mac);

	priv = netdev_priv(dev);
	priv->dev_index = index;
	priv->frame_len = 128;
	priv->flows = 1;
	priv->q = kcalloc(queues, sizeof(*priv->q), GFP_KERNEL);
	if (!priv->q) {
		free_netdev(dev);
		return ERR_PTR(-ENOMEM);
	}
	for (i = 0; i < queues; i++) {
		priv->q[i].scratch = kmalloc(MGT_FRAME_MAX, GFP_KERNEL);
		if (!priv->q[i].scratch)
			goto err_scratch;
	}
	for (i = 0; i < queues; i++) {
		struct mgt_queue *q = &priv->q[i];

		q->dev = dev;
		q->index = i;
		atomic64_set(&q->pending, 0);
		hrtimer_init(&q->pace_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
		q->pace_timer.function = mgt_pace_timer;
		netif_napi_add(dev, &q->napi, mgt_poll);
	}
	err = register_netdev(dev);
	if (err) {
		mgt_free_queues(dev);
		free_netdev(dev);
		return ERR_PTR(err);
	}
	err = mgt_phc_register(&priv->phc, &dev->dev, phc_offset_ns);
	if (err) {
		unregister_netdev(dev);
		mgt_free_queues(dev);
		free_netdev(dev);
		return ERR_PTR(err);
	}
	return dev;

err_scratch:
	while (i--)
		kfree(priv->q[i].scratch);
	kfree(priv->q);
	free_netdev(dev);
	return ERR_PTR(-ENOMEM);
}

static void mgt_destroy(struct net_device *dev)
{
	struct mgt_priv *priv = netdev_priv(dev);

	mgt_phc_unregister(&priv->phc);
	unregister_netdev(dev);
	mgt_free_queues(dev);
	free_netdev(dev);
}

static int __init mgt_init(void)
{
	unsigned int i;

	if (queues < 1 || queues > MGT_QUEUES_MAX || devices < 1 || devices > ARRAY_SIZE(mgt_devs))
		return -EINVAL;
	for (i = 0; i < devices; i++) {
		struct net_device *dev = mgt_create(i);

		if (IS_ERR(dev)) {
			while (i--)
				mgt_destroy(mgt_devs[i]);
			return PTR_ERR(dev);
		}
		mgt_devs[i] = dev;
	}
	return 0;
}

static void __exit mgt_exit(void)
{
	unsigned int i;

	for (i = 0; i < devices; i++)
		mgt_destroy(mgt_devs[i]);
}

module_init(mgt_init);
module_exit(mgt_exit);

MODULE_DESCRIPTION("Multi-queue test NIC with synthetic hardware time stamps, for mgcap");
MODULE_LICENSE("GPL");
