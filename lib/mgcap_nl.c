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
	int received_only;
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
	if (a->received_only && nla_put_flag(msg, MGCAP_ATTR_RECEIVED_ONLY))
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
				opts->keep_coalescing, opts->received_only };

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
			mgcap_nl_free_dev(&l->devs[i]);
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
