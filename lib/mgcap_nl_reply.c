// SPDX-License-Identifier: BSD-2-Clause
/*
 * The "mgcap" family's replies into struct mgcap_nl_list: every attribute
 * checked against its policy before it is read, a dump split over several
 * messages joined again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <linux/mgcap.h>

#include "mgcap_nl.h"

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
	[MGCAP_ATTR_RECEIVED_ONLY] = { .type = NLA_FLAG },
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
	[MGCAP_QATTR_SENT] = { .type = NLA_U64 },
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
	[MGCAP_RATTR_SENT] = { .type = NLA_U64 },
};

/* a record's queue is a u16: no capture has more queues than that */
#define MAX_QUEUES 65536

/*
 * The counters of a queue's or a reader's nest: five of consecutive types
 * from @captured on, and @coalesced and the sent records after it.
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
	if (tb[coalesced + 1])
		c->sent = nla_get_u64(tb[coalesced + 1]);
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
	d->received_only = tb[MGCAP_ATTR_RECEIVED_ONLY] != NULL;
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

void mgcap_nl_free_dev(struct mgcap_nl_dev *d)
{
	uint32_t q;

	for (q = 0; d->queues && q < d->num_queues; q++)
		free(d->queues[q].readers);
	free(d->queues);
	d->queues = NULL;
	d->num_queues = 0;
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
		mgcap_nl_free_dev(&devs[l->count]);
		return -1;
	}
	l->count++;
	return 0;
}

void mgcap_nl_free_list(struct mgcap_nl_list *l)
{
	size_t i;

	for (i = 0; i < l->count; i++)
		mgcap_nl_free_dev(&l->devs[i]);
	free(l->devs);
	l->devs = NULL;
	l->count = 0;
}
