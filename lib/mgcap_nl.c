// SPDX-License-Identifier: BSD-2-Clause
/* Requests to the "mgcap" generic netlink family, with extack error text. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <linux/mgcap.h>

#include "mgcap_nl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

struct request {
	struct mgcap_nl_list *out;
	struct mgcap_nl_error *e;
	int parse_err;
};

static void set_error(struct mgcap_nl_error *e, int err, const char *msg)
{
	e->err = err;
	snprintf(e->msg, sizeof(e->msg), "%s", msg ? msg : "");
}

/* The extack message, when the kernel attached one to its error. */
static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *err, void *arg)
{
	struct request *req = arg;
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)err - NLMSG_HDRLEN);
	const char *msg = NULL;

	(void)nla;
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) {
		size_t off = NLMSG_HDRLEN + sizeof(*err);
		struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];

		if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
			off += err->msg.nlmsg_len - NLMSG_HDRLEN;
		if (nlh->nlmsg_len > off &&
		    !nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)((char *)nlh + off),
			       nlh->nlmsg_len - off, NULL) && tb[NLMSGERR_ATTR_MSG])
			msg = nla_get_string(tb[NLMSGERR_ATTR_MSG]);
	}
	set_error(req->e, -err->error, msg);
	return NL_STOP;
}

/*
 * What each attribute must be, checked by libnl before it is read: a
 * counter shorter than its type, or a string without its NUL, is a
 * malformed reply rather than bytes read past the attribute.
 */
static struct nla_policy dev_policy[MGCAP_ATTR_MAX + 1] = {
	[MGCAP_ATTR_IFINDEX] = { .type = NLA_U32 },
	[MGCAP_ATTR_IFNAME] = { .type = NLA_STRING },
	[MGCAP_ATTR_MODE] = { .type = NLA_U32 },
	[MGCAP_ATTR_RING_SIZE] = { .type = NLA_U64 },
	[MGCAP_ATTR_SNAPLEN] = { .type = NLA_U32 },
	[MGCAP_ATTR_NUM_QUEUES] = { .type = NLA_U32 },
	[MGCAP_ATTR_QUEUES] = { .type = NLA_NESTED },
	[MGCAP_ATTR_AUTOSTOP] = { .type = NLA_FLAG },
	[MGCAP_ATTR_KEEP_COALESCING] = { .type = NLA_FLAG },
	[MGCAP_ATTR_COALESCING_OFF] = { .type = NLA_U32 },
};

static struct nla_policy queue_policy[MGCAP_QATTR_MAX + 1] = {
	[MGCAP_QATTR_ID] = { .type = NLA_U32 },
	[MGCAP_QATTR_DEVNODE] = { .type = NLA_STRING },
	[MGCAP_QATTR_CAPTURED] = { .type = NLA_U64 },
	[MGCAP_QATTR_BYTES] = { .type = NLA_U64 },
	[MGCAP_QATTR_DROPPED] = { .type = NLA_U64 },
	[MGCAP_QATTR_FILL] = { .type = NLA_U64 },
	[MGCAP_QATTR_HIGH_WATER] = { .type = NLA_U64 },
	[MGCAP_QATTR_NUM_READERS] = { .type = NLA_U32 },
	[MGCAP_QATTR_READERS] = { .type = NLA_NESTED },
	[MGCAP_QATTR_COALESCED] = { .type = NLA_U64 },
};

static struct nla_policy reader_policy[MGCAP_RATTR_MAX + 1] = {
	[MGCAP_RATTR_PID] = { .type = NLA_U32 },
	[MGCAP_RATTR_COMM] = { .type = NLA_STRING },
	[MGCAP_RATTR_SNAPLEN] = { .type = NLA_U32 },
	[MGCAP_RATTR_CAPTURED] = { .type = NLA_U64 },
	[MGCAP_RATTR_BYTES] = { .type = NLA_U64 },
	[MGCAP_RATTR_DROPPED] = { .type = NLA_U64 },
	[MGCAP_RATTR_FILL] = { .type = NLA_U64 },
	[MGCAP_RATTR_HIGH_WATER] = { .type = NLA_U64 },
	[MGCAP_RATTR_FILTERED] = { .type = NLA_U64 },
	[MGCAP_RATTR_FILTER_LEN] = { .type = NLA_U32 },
	[MGCAP_RATTR_OUT_OF_ORDER] = { .type = NLA_U64 },
	[MGCAP_RATTR_COALESCED] = { .type = NLA_U64 },
};

/* a record's queue is a u16: no capture has more queues than that */
#define MAX_QUEUES 65536

/*
 * The counters of a queue's or a reader's nest: five of consecutive types
 * from @captured on, and @coalesced.
 */
static void parse_counters(struct nlattr **tb, int captured, int coalesced,
			   struct mgcap_nl_counters *c)
{
	uint64_t *field[] = { &c->captured, &c->bytes, &c->dropped, &c->fill, &c->high_water };
	size_t i;

	for (i = 0; i < sizeof(field) / sizeof(field[0]); i++)
		if (tb[captured + (int)i])
			*field[i] = nla_get_u64(tb[captured + (int)i]);
	if (tb[coalesced])
		c->coalesced = nla_get_u64(tb[coalesced]);
}

static int parse_reader(struct nlattr *nest, struct mgcap_nl_reader *r)
{
	struct nlattr *tb[MGCAP_RATTR_MAX + 1];

	if (nla_parse_nested(tb, MGCAP_RATTR_MAX, nest, reader_policy))
		return -1;
	/* who reads and how is for CAP_NET_ADMIN only: the counters stay */
	r->hidden = !tb[MGCAP_RATTR_PID];
	if (tb[MGCAP_RATTR_PID])
		r->pid = nla_get_u32(tb[MGCAP_RATTR_PID]);
	if (tb[MGCAP_RATTR_COMM])
		snprintf(r->comm, sizeof(r->comm), "%s", nla_get_string(tb[MGCAP_RATTR_COMM]));
	if (tb[MGCAP_RATTR_SNAPLEN])
		r->snaplen = nla_get_u32(tb[MGCAP_RATTR_SNAPLEN]);
	parse_counters(tb, MGCAP_RATTR_CAPTURED, MGCAP_RATTR_COALESCED, &r->counters);
	if (tb[MGCAP_RATTR_FILTERED])
		r->filtered = nla_get_u64(tb[MGCAP_RATTR_FILTERED]);
	if (tb[MGCAP_RATTR_FILTER_LEN])
		r->filter_len = nla_get_u32(tb[MGCAP_RATTR_FILTER_LEN]);
	if (tb[MGCAP_RATTR_OUT_OF_ORDER])
		r->out_of_order = nla_get_u64(tb[MGCAP_RATTR_OUT_OF_ORDER]);
	return 0;
}

static int parse_readers(struct nlattr *readers, struct mgcap_nl_queue *q)
{
	struct nlattr *nest;
	int rem;
	uint32_t n = 0;

	q->readers = calloc(q->num_readers ? q->num_readers : 1, sizeof(*q->readers));
	if (!q->readers)
		return -1;
	nla_for_each_nested(nest, readers, rem) {
		if (n == q->num_readers || parse_reader(nest, &q->readers[n]))
			return -1;
		n++;
	}
	return n == q->num_readers ? 0 : -1;
}

static int parse_queue(struct nlattr *nest, struct mgcap_nl_queue *q)
{
	struct nlattr *tb[MGCAP_QATTR_MAX + 1];

	if (nla_parse_nested(tb, MGCAP_QATTR_MAX, nest, queue_policy) || !tb[MGCAP_QATTR_ID])
		return -1;
	q->id = nla_get_u32(tb[MGCAP_QATTR_ID]);
	if (tb[MGCAP_QATTR_DEVNODE])
		snprintf(q->devnode, sizeof(q->devnode), "%s", nla_get_string(tb[MGCAP_QATTR_DEVNODE]));
	parse_counters(tb, MGCAP_QATTR_CAPTURED, MGCAP_QATTR_COALESCED, &q->counters);
	if (tb[MGCAP_QATTR_NUM_READERS])
		q->num_readers = nla_get_u32(tb[MGCAP_QATTR_NUM_READERS]);
	if (q->num_readers > MGCAP_READERS_MAX)
		return -1;
	if (!tb[MGCAP_QATTR_READERS])
		return q->num_readers ? -1 : 0;
	return parse_readers(tb[MGCAP_QATTR_READERS], q);
}

/* @queues' nests into @d, after those an earlier message of a split dump brought */
static int parse_queues(struct nlattr *queues, struct mgcap_nl_dev *d)
{
	struct nlattr *nest;
	int rem;

	nla_for_each_nested(nest, queues, rem) {
		struct mgcap_nl_queue *q;

		if (d->num_parsed == d->num_queues)
			return -1;
		q = &d->queues[d->num_parsed];
		if (parse_queue(nest, q)) {
			/* the slot empty again: a later part of the dump may fill it */
			free(q->readers);
			memset(q, 0, sizeof(*q));
			return -1;
		}
		d->num_parsed++;
	}
	return 0;
}

static int parse_dev(struct nlattr **tb, struct mgcap_nl_dev *d)
{
	/* first: the caller frees what a failed parse leaves */
	memset(d, 0, sizeof(*d));
	if (!tb[MGCAP_ATTR_IFINDEX] || !tb[MGCAP_ATTR_IFNAME] || !tb[MGCAP_ATTR_NUM_QUEUES])
		return -1;
	d->ifindex = nla_get_u32(tb[MGCAP_ATTR_IFINDEX]);
	snprintf(d->ifname, sizeof(d->ifname), "%s", nla_get_string(tb[MGCAP_ATTR_IFNAME]));
	if (tb[MGCAP_ATTR_MODE])
		d->mode = nla_get_u32(tb[MGCAP_ATTR_MODE]);
	if (tb[MGCAP_ATTR_RING_SIZE])
		d->ring_size = nla_get_u64(tb[MGCAP_ATTR_RING_SIZE]);
	if (tb[MGCAP_ATTR_SNAPLEN])
		d->snaplen = nla_get_u32(tb[MGCAP_ATTR_SNAPLEN]);
	d->autostop = tb[MGCAP_ATTR_AUTOSTOP] != NULL;
	d->keep_coalescing = tb[MGCAP_ATTR_KEEP_COALESCING] != NULL;
	if (tb[MGCAP_ATTR_COALESCING_OFF])
		d->coalescing_off = nla_get_u32(tb[MGCAP_ATTR_COALESCING_OFF]);
	d->num_queues = nla_get_u32(tb[MGCAP_ATTR_NUM_QUEUES]);
	if (d->num_queues > MAX_QUEUES)
		return -1;
	d->queues = calloc(d->num_queues ? d->num_queues : 1, sizeof(*d->queues));
	if (!d->queues)
		return -1;
	return tb[MGCAP_ATTR_QUEUES] ? parse_queues(tb[MGCAP_ATTR_QUEUES], d) : 0;
}

static void free_dev(struct mgcap_nl_dev *d)
{
	uint32_t q;

	for (q = 0; d->queues && q < d->num_queues; q++)
		free(d->queues[q].readers);
	free(d->queues);
}

int mgcap_nl_parse_reply(struct nlmsghdr *nlh, struct mgcap_nl_list *l)
{
	struct nlattr *tb[MGCAP_ATTR_MAX + 1];
	struct mgcap_nl_dev *devs, *last;

	if (genlmsg_parse(nlh, 0, tb, MGCAP_ATTR_MAX, dev_policy))
		return -1;
	/* START's or SET's reply too large to list the queues: the caller asks GET */
	if (!tb[MGCAP_ATTR_QUEUES])
		return 0;
	/* more queues of a device a dump split over several messages */
	last = l->count ? &l->devs[l->count - 1] : NULL;
	if (last && last->num_parsed < last->num_queues && tb[MGCAP_ATTR_IFINDEX] &&
	    nla_get_u32(tb[MGCAP_ATTR_IFINDEX]) == last->ifindex)
		return parse_queues(tb[MGCAP_ATTR_QUEUES], last);
	devs = realloc(l->devs, (l->count + 1) * sizeof(*devs));
	if (!devs)
		return -1;
	l->devs = devs;
	if (parse_dev(tb, &devs[l->count])) {
		free_dev(&devs[l->count]);
		return -1;
	}
	l->count++;
	return 0;
}

static int on_reply(struct nl_msg *msg, void *arg)
{
	struct request *req = arg;

	if (!req->out)
		return NL_OK;
	if (mgcap_nl_parse_reply(nlmsg_hdr(msg), req->out)) {
		req->parse_err = 1;
		return NL_SKIP;
	}
	return NL_OK;
}

int mgcap_nl_request(uint8_t cmd, int dump, mgcap_nl_fill_fn fill, const void *arg,
		     struct mgcap_nl_list *out, struct mgcap_nl_error *e)
{
	struct request req = { .out = out, .e = e };
	struct nl_sock *sk;
	struct nl_msg *msg = NULL;
	int family, one = 1, ret = -1, err;
	size_t i;

	set_error(e, 0, NULL);
	if (out)
		memset(out, 0, sizeof(*out));
	sk = nl_socket_alloc();
	if (!sk) {
		set_error(e, ENOMEM, NULL);
		return -1;
	}
	/*
	 * A reply of many queues and readers exceeds a page (each read is sized
	 * to fit) and libnl's 32 KiB receive buffer (the kernel caps this at
	 * net.core.rmem_max; a dump splits a device over several messages).
	 */
	nl_socket_enable_msg_peek(sk);
	if (genl_connect(sk) || nl_socket_set_buffer_size(sk, 4 << 20, 0)) {
		set_error(e, errno ? errno : EIO, "cannot open a generic netlink socket");
		goto out;
	}
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	family = genl_ctrl_resolve(sk, MGCAP_GENL_NAME);
	if (family < 0) {
		set_error(e, ENOPKG, "the mgcap kernel module is not loaded (modprobe mgcap)");
		goto out;
	}

	msg = nlmsg_alloc();
	if (!msg || !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0,
				 dump ? NLM_F_DUMP : 0, cmd, MGCAP_GENL_VERSION) ||
	    (fill && fill(msg, arg) < 0)) {
		set_error(e, ENOMEM, NULL);
		goto out;
	}

	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_reply, &req);
	nl_socket_modify_err_cb(sk, NL_CB_CUSTOM, on_error, &req);
	if (nl_send_auto(sk, msg) < 0) {
		set_error(e, EIO, "cannot send the request");
		goto out;
	}
	err = nl_recvmsgs_default(sk);
	if (e->err)
		goto out;
	if (err < 0) {
		set_error(e, EIO, nl_geterror(err));
		goto out;
	}
	for (i = 0; out && i < out->count; i++)
		if (out->devs[i].num_parsed != out->devs[i].num_queues)
			req.parse_err = 1;
	if (req.parse_err) {
		set_error(e, EPROTO, "malformed reply from the kernel");
		goto out;
	}
	ret = 0;
out:
	nlmsg_free(msg);
	nl_socket_free(sk);
	if (ret && out)
		mgcap_nl_free_list(out);
	return ret;
}

/* What the typed requests carry; zero or negative fields are left out. */
struct typed_args {
	const char *ifname;
	uint64_t ring_size;
	uint32_t snaplen;
	int mode;
	int autostop;
	int keep_coalescing;
};

static int fill_typed(struct nl_msg *msg, const void *arg)
{
	const struct typed_args *a = arg;

	if (a->ifname && nla_put_string(msg, MGCAP_ATTR_IFNAME, a->ifname))
		return -1;
	if (a->ring_size && nla_put_u64(msg, MGCAP_ATTR_RING_SIZE, a->ring_size))
		return -1;
	if (a->snaplen && nla_put_u32(msg, MGCAP_ATTR_SNAPLEN, a->snaplen))
		return -1;
	if (a->mode >= 0 && nla_put_u32(msg, MGCAP_ATTR_MODE, (uint32_t)a->mode))
		return -1;
	if (a->autostop && nla_put_flag(msg, MGCAP_ATTR_AUTOSTOP))
		return -1;
	if (a->keep_coalescing && nla_put_flag(msg, MGCAP_ATTR_KEEP_COALESCING))
		return -1;
	return 0;
}

/*
 * START and SET succeeded, but their reply listed nothing (it would not fit
 * one message, or the kernel had no memory for it): the listing from GET,
 * or, failing that, none.  The change was made all the same.
 */
static void get_if_unlisted(const char *ifname, struct mgcap_nl_list *out)
{
	struct mgcap_nl_error e;

	if (out && !out->count)
		mgcap_nl_get(ifname, out, &e);
}

int mgcap_nl_start(const char *ifname, const struct mgcap_nl_start *opts,
		   struct mgcap_nl_list *out, struct mgcap_nl_error *e)
{
	struct typed_args a = { ifname, opts->ring_size, opts->snaplen, opts->mode, opts->autostop,
				opts->keep_coalescing };

	if (mgcap_nl_request(MGCAP_CMD_START, 0, fill_typed, &a, out, e))
		return -1;
	get_if_unlisted(ifname, out);
	return 0;
}

int mgcap_nl_start_for_readers(const char *ifname, uint64_t ring_size, struct mgcap_nl_error *e)
{
	struct mgcap_nl_start opts = { .mode = -1, .autostop = 1 };

	if (ring_size)
		opts.ring_size = ring_size < MGCAP_RING_SIZE_MIN ? MGCAP_RING_SIZE_MIN :
				 ring_size > MGCAP_RING_SIZE_MAX ? MGCAP_RING_SIZE_MAX : ring_size;
	/* another reader may have started it meanwhile: as good */
	if (mgcap_nl_start(ifname, &opts, NULL, e) == 0 || e->err == EEXIST)
		return 0;
	return -1;
}

int mgcap_nl_stop(const char *ifname, struct mgcap_nl_error *e)
{
	struct typed_args a = { .ifname = ifname, .mode = -1 };

	return mgcap_nl_request(MGCAP_CMD_STOP, 0, fill_typed, &a, NULL, e);
}

int mgcap_nl_set_mode(const char *ifname, uint32_t mode, struct mgcap_nl_list *out,
		      struct mgcap_nl_error *e)
{
	struct typed_args a = { .ifname = ifname, .mode = (int)mode };

	if (mgcap_nl_request(MGCAP_CMD_SET, 0, fill_typed, &a, out, e))
		return -1;
	get_if_unlisted(ifname, out);
	return 0;
}

/* Keeps @l's device named @ifname alone: 0, or -1 (then @l is empty) if it has none. */
static int keep_only(struct mgcap_nl_list *l, const char *ifname)
{
	size_t i, kept = l->count;

	for (i = 0; i < l->count; i++) {
		if (kept == l->count && !strcmp(l->devs[i].ifname, ifname))
			kept = i;
		else
			free_dev(&l->devs[i]);
	}
	if (kept == l->count) {
		l->count = 0;
		return -1;
	}
	l->devs[0] = l->devs[kept];
	l->count = 1;
	return 0;
}

int mgcap_nl_get(const char *ifname, struct mgcap_nl_list *out, struct mgcap_nl_error *e)
{
	struct typed_args a = { .ifname = ifname, .mode = -1 };

	if (mgcap_nl_request(MGCAP_CMD_GET, ifname == NULL, fill_typed, &a, out, e) == 0)
		return 0;
	/*
	 * One device's reply is one message, whose queues' nest ends at 64 KiB
	 * (some 600 queues, or 128 with four readers each): beyond, the dump
	 * of every capture, in as many messages as it takes, and this one kept.
	 */
	if (!ifname || !out || e->err != EMSGSIZE ||
	    mgcap_nl_request(MGCAP_CMD_GET, 1, NULL, NULL, out, e) < 0)
		return -1;
	if (keep_only(out, ifname) < 0) {
		set_error(e, ENOENT, "device is not captured");
		return -1;
	}
	return 0;
}

void mgcap_nl_free_list(struct mgcap_nl_list *l)
{
	size_t i;

	for (i = 0; i < l->count; i++)
		free_dev(&l->devs[i]);
	free(l->devs);
	l->devs = NULL;
	l->count = 0;
}

const char *mgcap_nl_strerror(const struct mgcap_nl_error *e)
{
	if (e->msg[0])
		return e->msg;
	switch (e->err) {
	case EPERM:
		return "not permitted (needs CAP_NET_ADMIN)";
	case ENODEV:
		return "no such device";
	case ENOENT:
		return "device is not captured";
	case EEXIST:
		return "device is already captured";
	case EBUSY:
		return "device is busy";
	default:
		return strerror(e->err);
	}
}
