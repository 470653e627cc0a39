// SPDX-License-Identifier: GPL-2.0
/*
 * mgcap generic netlink family "mgcap": start, stop, set mode, get/dump.
 *
 * Every operation runs under RTNL, which protects the capture list and the
 * device's rx_handler.  Devices are looked up in the caller's namespace.
 */
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/pid_namespace.h>
#include <linux/rtnetlink.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include "mgcap.h"

/* not const: 6.1's nla_policy points at a mutable one */
static struct netlink_range_validation mgcap_ring_size_range = {
	.min = MGCAP_RING_SIZE_MIN,
	.max = MGCAP_RING_SIZE_MAX,
};

static struct netlink_range_validation mgcap_snaplen_range = {
	.min = MGCAP_SNAPLEN_MIN,
	.max = MGCAP_SNAPLEN_MAX,
};

static const struct nla_policy mgcap_policy[MGCAP_ATTR_MAX + 1] = {
	[MGCAP_ATTR_PAD] = { .type = NLA_REJECT },
	[MGCAP_ATTR_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[MGCAP_ATTR_IFNAME] = { .type = NLA_NUL_STRING, .len = IFNAMSIZ - 1 },
	[MGCAP_ATTR_MODE] = NLA_POLICY_MAX(NLA_U32, __MGCAP_MODE_MAX - 1),
	[MGCAP_ATTR_RING_SIZE] = NLA_POLICY_FULL_RANGE(NLA_U64, &mgcap_ring_size_range),
	[MGCAP_ATTR_SNAPLEN] = NLA_POLICY_FULL_RANGE(NLA_U32, &mgcap_snaplen_range),
	[MGCAP_ATTR_NUM_QUEUES] = { .type = NLA_REJECT },
	[MGCAP_ATTR_QUEUES] = { .type = NLA_REJECT },
	[MGCAP_ATTR_AUTOSTOP] = { .type = NLA_FLAG },
	[MGCAP_ATTR_KEEP_COALESCING] = { .type = NLA_FLAG },
	[MGCAP_ATTR_COALESCING_OFF] = { .type = NLA_REJECT },
	[MGCAP_ATTR_RECEIVED_ONLY] = { .type = NLA_FLAG },
};

static struct genl_family mgcap_genl_family;

static struct net_device *mgcap_nl_get_dev(struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct nlattr *attr;
	struct net_device *dev;

	if (info->attrs[MGCAP_ATTR_IFINDEX]) {
		attr = info->attrs[MGCAP_ATTR_IFINDEX];
		dev = __dev_get_by_index(net, nla_get_u32(attr));
	} else if (info->attrs[MGCAP_ATTR_IFNAME]) {
		attr = info->attrs[MGCAP_ATTR_IFNAME];
		dev = __dev_get_by_name(net, nla_data(attr));
	} else {
		NL_SET_ERR_MSG(info->extack, "no device given (IFINDEX or IFNAME)");
		return ERR_PTR(-EINVAL);
	}
	if (!dev) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr, "no such device");
		return ERR_PTR(-ENODEV);
	}
	return dev;
}

static struct mgcap_capture *mgcap_nl_get_capture(struct genl_info *info)
{
	struct net_device *dev = mgcap_nl_get_dev(info);
	struct mgcap_capture *cap;

	if (IS_ERR(dev))
		return ERR_CAST(dev);
	cap = mgcap_capture_find(dev);
	if (!cap) {
		NL_SET_ERR_MSG(info->extack, "device is not captured");
		return ERR_PTR(-ENOENT);
	}
	return cap;
}

/* The size of a reply without its queues (MGCAP_ATTR_QUEUES left out). */
static size_t mgcap_nl_size_head(void)
{
	return nla_total_size(sizeof(u32)) +			/* IFINDEX */
		nla_total_size(IFNAMSIZ) +			/* IFNAME */
		nla_total_size(sizeof(u32)) +			/* MODE */
		nla_total_size_64bit(sizeof(u64)) +		/* RING_SIZE */
		nla_total_size(sizeof(u32)) +			/* SNAPLEN */
		nla_total_size(sizeof(u32)) +			/* NUM_QUEUES */
		3 * nla_total_size(0) +		/* AUTOSTOP, KEEP_COALESCING, RECEIVED_ONLY */
		nla_total_size(sizeof(u32));			/* COALESCING_OFF */
}

/* The reply's size as the capture is now; readers may come before it is filled. */
static size_t mgcap_nl_size(const struct mgcap_capture *cap)
{
	size_t reader = nla_total_size(0) +			/* MGCAP_ATTR_READER */
		2 * nla_total_size(sizeof(u32)) +		/* PID, SNAPLEN */
		nla_total_size(TASK_COMM_LEN) +			/* COMM */
		/* the counters, FILTERED, OUT_OF_ORDER, COALESCED, SENT */
		9 * nla_total_size_64bit(sizeof(u64)) +
		nla_total_size(sizeof(u32));			/* FILTER_LEN */
	size_t queue = nla_total_size(0) +			/* MGCAP_ATTR_QUEUE */
		nla_total_size(sizeof(u32)) +			/* ID */
		nla_total_size(sizeof_field(struct mgcap_queue, devnode)) +
		7 * nla_total_size_64bit(sizeof(u64)) +		/* counters, COALESCED, SENT */
		nla_total_size(sizeof(u32)) +			/* NUM_READERS */
		nla_total_size(0);				/* READERS */
	size_t size = mgcap_nl_size_head() +
		nla_total_size(0) +				/* QUEUES */
		cap->num_queues * queue;
	u32 i;

	for (i = 0; i < cap->num_queues; i++)
		size += READ_ONCE(cap->queues[i]->num_readers) * reader;
	return size;
}

#define MGCAP_NL_COUNTERS_IN_ORDER(p) \
	(p##_BYTES - p##_CAPTURED == 1 && p##_DROPPED - p##_CAPTURED == 2 && \
	 p##_FILL - p##_CAPTURED == 3 && p##_HIGH_WATER - p##_CAPTURED == 4)

/*
 * The five counters of @ring, as the consecutive attribute types from
 * @captured on (the queue's nest and a reader's nest have the same order),
 * and its coalesced and sent records as @coalesced and the type after it.
 */
static int mgcap_nl_put_counters(struct sk_buff *skb, struct mgcap_ring *ring, int captured,
				 int coalesced, int pad)
{
	struct mgcap_queue_stats st;

	BUILD_BUG_ON(!MGCAP_NL_COUNTERS_IN_ORDER(MGCAP_QATTR) ||
		     !MGCAP_NL_COUNTERS_IN_ORDER(MGCAP_RATTR) ||
		     MGCAP_QATTR_SENT - MGCAP_QATTR_COALESCED != 1 ||
		     MGCAP_RATTR_SENT - MGCAP_RATTR_COALESCED != 1);
	mgcap_ring_get_stats(ring, &st);
	if (nla_put_u64_64bit(skb, captured, st.captured, pad) ||
	    nla_put_u64_64bit(skb, captured + 1, st.bytes, pad) ||
	    nla_put_u64_64bit(skb, captured + 2, st.dropped, pad) ||
	    nla_put_u64_64bit(skb, captured + 3, st.fill, pad) ||
	    nla_put_u64_64bit(skb, captured + 4, st.high_water, pad) ||
	    nla_put_u64_64bit(skb, coalesced, st.coalesced, pad) ||
	    nla_put_u64_64bit(skb, coalesced + 1, st.sent, pad))
		return -EMSGSIZE;
	return 0;
}

static u32 mgcap_nl_filter_len(struct mgcap_ring *ring)
{
	const struct mgcap_filter_prog *filter;
	u32 len;

	rcu_read_lock();
	filter = rcu_dereference(ring->filter);
	len = filter ? filter->len : 0;
	rcu_read_unlock();
	return len;
}

/*
 * Who reads a queue and how (pid, comm, snaplen, filter) is for those who
 * may manage the device's captures: CAP_NET_ADMIN in its namespace, both
 * the socket's opener and the asking process.  Others see what the nodes'
 * listing shows, devices and queues, and the counters.
 */
static bool mgcap_nl_details(const struct sk_buff *request, const struct net *net)
{
	return netlink_ns_capable(request, net->user_ns, CAP_NET_ADMIN);
}

static int mgcap_nl_put_reader(struct sk_buff *skb, struct mgcap_ring *ring, bool details)
{
	struct nlattr *nest = nla_nest_start(skb, MGCAP_ATTR_READER);
	/*
	 * as the asking process sees it; 0 outside its pid namespace, and then
	 * no name either: a container's administrator does not learn what
	 * the host runs on its devices
	 */
	pid_t pid = pid_nr_ns(ring->reader_pid, task_active_pid_ns(current));

	if (!nest)
		return -EMSGSIZE;
	if ((details &&
	     (nla_put_u32(skb, MGCAP_RATTR_PID, pid) ||
	      (pid && nla_put_string(skb, MGCAP_RATTR_COMM, ring->reader_comm)) ||
	      nla_put_u32(skb, MGCAP_RATTR_SNAPLEN, READ_ONCE(ring->snaplen)) ||
	      nla_put_u64_64bit(skb, MGCAP_RATTR_FILTERED, atomic64_read(&ring->filtered),
				MGCAP_RATTR_PAD) ||
	      nla_put_u32(skb, MGCAP_RATTR_FILTER_LEN, mgcap_nl_filter_len(ring)))) ||
	    mgcap_nl_put_counters(skb, ring, MGCAP_RATTR_CAPTURED, MGCAP_RATTR_COALESCED,
				  MGCAP_RATTR_PAD) ||
	    nla_put_u64_64bit(skb, MGCAP_RATTR_OUT_OF_ORDER, mgcap_ring_out_of_order(ring),
			      MGCAP_RATTR_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* Under the queue's readers_lock: who reads it stays put meanwhile. */
static int mgcap_nl_put_readers(struct sk_buff *skb, struct mgcap_queue *q, bool details)
{
	struct mgcap_ring *mine;
	struct nlattr *nest;

	lockdep_assert_held(&q->readers_lock);
	if (nla_put_u32(skb, MGCAP_QATTR_NUM_READERS, q->num_readers))
		return -EMSGSIZE;
	nest = nla_nest_start(skb, MGCAP_QATTR_READERS);
	if (!nest)
		return -EMSGSIZE;
	if (q->first_reader && mgcap_nl_put_reader(skb, &q->ring, details))
		goto cancel;
	list_for_each_entry(mine, &q->more_readers, reader_node)
		if (mgcap_nl_put_reader(skb, mine, details))
			goto cancel;
	nla_nest_end(skb, nest);
	return 0;

cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static int mgcap_nl_put_queue(struct sk_buff *skb, struct mgcap_queue *q, bool details)
{
	struct nlattr *nest;
	int err;

	nest = nla_nest_start(skb, MGCAP_ATTR_QUEUE);
	if (!nest)
		return -EMSGSIZE;
	mutex_lock(&q->readers_lock);
	err = nla_put_u32(skb, MGCAP_QATTR_ID, q->index) ||
	      nla_put_string(skb, MGCAP_QATTR_DEVNODE, q->devnode) ||
	      mgcap_nl_put_counters(skb, &q->ring, MGCAP_QATTR_CAPTURED,
				    MGCAP_QATTR_COALESCED, MGCAP_QATTR_PAD) ||
	      mgcap_nl_put_readers(skb, q, details);
	mutex_unlock(&q->readers_lock);
	if (err) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * The capture's attributes and its queues from *@queue on, as many as fit;
 * *@queue is then the first left out (num_queues: none).  -EMSGSIZE when not
 * even one fits.  @queue NULL: the capture's attributes alone, without
 * MGCAP_ATTR_QUEUES.  @details: each reader's pid, comm, snaplen and filter.
 */
static int mgcap_nl_fill(struct sk_buff *skb, const struct mgcap_capture *cap,
			 u32 portid, u32 seq, int flags, u8 cmd, u32 *queue, bool details)
{
	struct nlattr *queues;
	void *hdr;
	u32 i;

	hdr = genlmsg_put(skb, portid, seq, &mgcap_genl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, MGCAP_ATTR_IFINDEX, cap->dev->ifindex) ||
	    nla_put_string(skb, MGCAP_ATTR_IFNAME, cap->dev->name) ||
	    nla_put_u32(skb, MGCAP_ATTR_MODE, READ_ONCE(cap->mode)) ||
	    nla_put_u64_64bit(skb, MGCAP_ATTR_RING_SIZE, cap->ring_size, MGCAP_ATTR_PAD) ||
	    nla_put_u32(skb, MGCAP_ATTR_SNAPLEN, cap->snaplen) ||
	    nla_put_u32(skb, MGCAP_ATTR_NUM_QUEUES, cap->num_queues) ||
	    (cap->autostop && nla_put_flag(skb, MGCAP_ATTR_AUTOSTOP)) ||
	    (cap->keep_coalescing && nla_put_flag(skb, MGCAP_ATTR_KEEP_COALESCING)) ||
	    (!cap->sent_tap && nla_put_flag(skb, MGCAP_ATTR_RECEIVED_ONLY)) ||
	    nla_put_u32(skb, MGCAP_ATTR_COALESCING_OFF, mgcap_coalescing_uapi(cap)))
		goto cancel;
	if (!queue)
		goto end;
	queues = nla_nest_start(skb, MGCAP_ATTR_QUEUES);
	if (!queues)
		goto cancel;
	for (i = *queue; i < cap->num_queues; i++) {
		unsigned char *before = skb_tail_pointer(skb);

		if (mgcap_nl_put_queue(skb, cap->queues[i], details))
			break;
		/* an attribute's length has 16 bits: the nest ends before it wraps */
		if (skb_tail_pointer(skb) - (unsigned char *)queues > U16_MAX) {
			nlmsg_trim(skb, before);
			break;
		}
	}
	if (i == *queue && i < cap->num_queues)
		goto cancel;
	*queue = i;
	nla_nest_end(skb, queues);
end:
	genlmsg_end(skb, hdr);
	return 0;

cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/*
 * The capture and every queue in one message: GET's reply, which fails
 * with -EMSGSIZE where they do not fit (the dump then lists the capture).
 */
static int mgcap_nl_reply(struct sk_buff *request, struct genl_info *info,
			  const struct mgcap_capture *cap)
{
	bool details = mgcap_nl_details(request, dev_net(cap->dev));
	struct sk_buff *msg;
	int tries, err = -EMSGSIZE;

	/* a reader may open between sizing and filling: size again, try again */
	for (tries = 0; tries < 3 && err == -EMSGSIZE; tries++) {
		u32 queue = 0;

		msg = genlmsg_new(mgcap_nl_size(cap), GFP_KERNEL);
		if (!msg)
			return -ENOMEM;
		err = mgcap_nl_fill(msg, cap, info->snd_portid, info->snd_seq, 0,
				    info->genlhdr->cmd, &queue, details);
		if (!err && queue < cap->num_queues)
			err = -EMSGSIZE;
		if (!err)
			return genlmsg_reply(msg, info);
		nlmsg_free(msg);
	}
	return err;
}

/*
 * START's and SET's reply, once the change is made: it succeeded, whatever
 * becomes of the reply.  GET's reply where it can be had; where the queues
 * do not fit one message (or no memory is left for them) the capture's
 * attributes alone, without MGCAP_ATTR_QUEUES; failing that, no reply at
 * all (the request's ACK still says it succeeded).
 */
static int mgcap_nl_reply_done(struct sk_buff *request, struct genl_info *info,
			       const struct mgcap_capture *cap)
{
	struct sk_buff *msg;
	int err = mgcap_nl_reply(request, info, cap);

	/* sent, or sent and not delivered: nothing better to send */
	if (err != -EMSGSIZE && err != -ENOMEM)
		return 0;
	msg = genlmsg_new(mgcap_nl_size_head(), GFP_KERNEL);
	if (!msg)
		return 0;
	if (mgcap_nl_fill(msg, cap, info->snd_portid, info->snd_seq, 0, info->genlhdr->cmd,
			  NULL, false)) {
		nlmsg_free(msg);
		return 0;
	}
	genlmsg_reply(msg, info);
	return 0;
}

static int mgcap_nl_start(struct sk_buff *skb, struct genl_info *info)
{
	u64 ring_size = MGCAP_RING_SIZE_DEFAULT;
	u32 snaplen = 0;
	u32 mode = MGCAP_MODE_MIRROR;
	u32 flags = 0;
	struct net_device *dev;
	int err;

	if (nla_get_flag(info->attrs[MGCAP_ATTR_AUTOSTOP]))
		flags |= MGCAP_START_AUTOSTOP;
	if (nla_get_flag(info->attrs[MGCAP_ATTR_KEEP_COALESCING]))
		flags |= MGCAP_START_KEEP_COALESCING;
	if (nla_get_flag(info->attrs[MGCAP_ATTR_RECEIVED_ONLY]))
		flags |= MGCAP_START_RECEIVED_ONLY;
	if (info->attrs[MGCAP_ATTR_RING_SIZE])
		ring_size = nla_get_u64(info->attrs[MGCAP_ATTR_RING_SIZE]);
	if (info->attrs[MGCAP_ATTR_SNAPLEN])
		snaplen = nla_get_u32(info->attrs[MGCAP_ATTR_SNAPLEN]);
	if (info->attrs[MGCAP_ATTR_MODE])
		mode = nla_get_u32(info->attrs[MGCAP_ATTR_MODE]);

	rtnl_lock();
	dev = mgcap_nl_get_dev(info);
	if (IS_ERR(dev)) {
		err = PTR_ERR(dev);
		goto out;
	}
	err = mgcap_capture_start(dev, ring_size, snaplen, mode, flags, info->extack);
	if (!err)
		err = mgcap_nl_reply_done(skb, info, mgcap_capture_find(dev));
out:
	rtnl_unlock();
	return err;
}

static int mgcap_nl_stop(struct sk_buff *skb, struct genl_info *info)
{
	struct mgcap_capture *cap;

	rtnl_lock();
	cap = mgcap_nl_get_capture(info);
	if (!IS_ERR(cap))
		mgcap_capture_stop(cap);
	rtnl_unlock();
	return PTR_ERR_OR_ZERO(cap);
}

static int mgcap_nl_set(struct sk_buff *skb, struct genl_info *info)
{
	struct mgcap_capture *cap;
	int err;

	if (!info->attrs[MGCAP_ATTR_MODE]) {
		NL_SET_ERR_MSG(info->extack, "nothing to set (give MODE)");
		return -EINVAL;
	}
	rtnl_lock();
	cap = mgcap_nl_get_capture(info);
	if (IS_ERR(cap)) {
		err = PTR_ERR(cap);
	} else {
		err = mgcap_capture_set_mode(cap, nla_get_u32(info->attrs[MGCAP_ATTR_MODE]));
		if (err)
			NL_SET_ERR_MSG(info->extack,
				       "drop mode would let its VLAN devices' frames through (no netfilter ingress hook)");
		else
			err = mgcap_nl_reply_done(skb, info, cap);
	}
	rtnl_unlock();
	return err;
}

static int mgcap_nl_get(struct sk_buff *skb, struct genl_info *info)
{
	struct mgcap_capture *cap;
	int err;

	rtnl_lock();
	cap = mgcap_nl_get_capture(info);
	err = IS_ERR(cap) ? PTR_ERR(cap) : mgcap_nl_reply(skb, info, cap);
	rtnl_unlock();
	return err;
}

/*
 * cb->args[0]: captures of this namespace sent whole; cb->args[1]: queues of
 * the next one already sent.  A capture with more queues than one message
 * holds goes out in several, each with the capture's attributes and some of
 * its queues, in order.
 */
static int mgcap_nl_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct net *net = sock_net(skb->sk);
	bool details = mgcap_nl_details(cb->skb, net);
	struct mgcap_capture *cap;
	long idx = 0;
	int err = 0;

	rtnl_lock();
	list_for_each_entry(cap, &mgcap_captures, list) {
		u32 queue = cb->args[1];

		if (!net_eq(dev_net(cap->dev), net))
			continue;
		if (idx < cb->args[0]) {
			idx++;
			continue;
		}
		err = mgcap_nl_fill(skb, cap, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
				    NLM_F_MULTI, MGCAP_CMD_GET, &queue, details);
		if (err)
			break;
		if (queue < cap->num_queues) {
			/* the rest of its queues in the next message */
			cb->args[1] = queue;
			err = -EMSGSIZE;
			break;
		}
		cb->args[1] = 0;
		idx++;
	}
	rtnl_unlock();
	cb->args[0] = idx;
	/* a queue too large for an empty message can never be sent */
	if (err && !skb->len)
		return err;
	return skb->len;
}

static const struct genl_small_ops mgcap_ops[] = {
	{
		.cmd = MGCAP_CMD_START,
		.doit = mgcap_nl_start,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = MGCAP_CMD_STOP,
		.doit = mgcap_nl_stop,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = MGCAP_CMD_SET,
		.doit = mgcap_nl_set,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = MGCAP_CMD_GET,
		.doit = mgcap_nl_get,
		.dumpit = mgcap_nl_dump,
	},
};

static struct genl_family mgcap_genl_family __ro_after_init = {
	.name = MGCAP_GENL_NAME,
	.version = MGCAP_GENL_VERSION,
	.maxattr = MGCAP_ATTR_MAX,
	.policy = mgcap_policy,
	.netnsok = true,
	.module = THIS_MODULE,
	.small_ops = mgcap_ops,
	.n_small_ops = ARRAY_SIZE(mgcap_ops),
	.resv_start_op = MGCAP_CMD_MAX + 1,
};

/* the first request for the family (mgcap start, show) loads the module */
MODULE_ALIAS_GENL_FAMILY(MGCAP_GENL_NAME);

int mgcap_netlink_init(void)
{
	return genl_register_family(&mgcap_genl_family);
}

void mgcap_netlink_exit(void)
{
	genl_unregister_family(&mgcap_genl_family);
}
