/* SPDX-License-Identifier: BSD-2-Clause */
/* Client side of the "mgcap" generic netlink family (libnl-genl-3). */
#ifndef MGCAP_NL_H
#define MGCAP_NL_H

#include <stddef.h>
#include <stdint.h>
#include <net/if.h>

struct mgcap_nl_counters {
	uint64_t captured;
	uint64_t bytes;
	uint64_t dropped;
	uint64_t fill;
	uint64_t high_water;
	uint64_t coalesced;	/* received records of several wire frames (MGCAP_REC_F_COALESCED) */
	uint64_t sent;		/* records of frames the device sent (MGCAP_REC_F_SENT) */
};

/* One program reading a queue (see MGCAP_RATTR_* for what it counts). */
struct mgcap_nl_reader {
	uint32_t pid;
	char comm[16];
	uint32_t snaplen;
	struct mgcap_nl_counters counters;
	uint64_t filtered;		/* rejected by its filter in the kernel */
	uint32_t filter_len;		/* that filter's instructions; 0: none */
	uint64_t out_of_order;		/* handed out after a newer record, as it counts */
	int hidden;			/* pid to filter left out: asked without CAP_NET_ADMIN */
};

struct mgcap_nl_queue {
	uint32_t id;
	char devnode[64];
	struct mgcap_nl_counters counters;	/* the capture's own ring */
	uint32_t num_readers;
	struct mgcap_nl_reader *readers;	/* num_readers entries, malloc()ed */
};

/* One captured device, as the kernel reported it. */
struct mgcap_nl_dev {
	uint32_t ifindex;
	char ifname[IF_NAMESIZE];
	uint32_t mode;
	uint64_t ring_size;
	uint32_t snaplen;
	int autostop;			/* stops when its last reader closes */
	int keep_coalescing;		/* started to leave its GRO and LRO as they were */
	int received_only;		/* started without the frames it sends */
	uint32_t coalescing_off;	/* MGCAP_COALESCING_*: turned off while captured */
	uint32_t num_queues;
	struct mgcap_nl_queue *queues;	/* num_queues entries, malloc()ed */
	uint32_t num_parsed;		/* of them received (a dump may split a device) */
};

/* A list of captured devices; mgcap_nl_free_list() frees it. */
struct mgcap_nl_list {
	struct mgcap_nl_dev *devs;
	size_t count;
};

/* Where a request failed: errno and the kernel's own words, if it gave any. */
struct mgcap_nl_error {
	int err;
	char msg[256];
};

/* start options: 0 means the kernel's default */
struct mgcap_nl_start {
	uint64_t ring_size;
	uint32_t snaplen;
	int mode;		/* -1: default */
	int autostop;		/* stop once the last reader of every queue closed */
	int keep_coalescing;	/* leave the device's GRO and LRO on */
	int received_only;	/* not the frames it sends */
};

int mgcap_nl_start(const char *ifname, const struct mgcap_nl_start *opts,
		   struct mgcap_nl_list *out, struct mgcap_nl_error *e);
/*
 * A capture for readers of a device nobody captures (mirror mode; the
 * kernel stops it after its last reader): what opening mgcap:DEV does.
 * @ring_size 0 is the kernel's default, else it is brought within the
 * limits.  0 when it runs (started here or already), or -1 with @e.
 */
int mgcap_nl_start_for_readers(const char *ifname, uint64_t ring_size, struct mgcap_nl_error *e);
int mgcap_nl_stop(const char *ifname, struct mgcap_nl_error *e);
int mgcap_nl_set_mode(const char *ifname, uint32_t mode, struct mgcap_nl_list *out,
		      struct mgcap_nl_error *e);
/* @ifname NULL: every captured device of this network namespace */
int mgcap_nl_get(const char *ifname, struct mgcap_nl_list *out, struct mgcap_nl_error *e);
void mgcap_nl_free_list(struct mgcap_nl_list *l);
/* What one device of a list holds (mgcap_nl_free_list() frees every one). */
void mgcap_nl_free_dev(struct mgcap_nl_dev *d);

/*
 * Any request: @fill adds the attributes (0, or <0 when the message is too
 * small).  The typed functions above are built on it; tests use it to send
 * what the tools never would.
 */
struct nl_msg;
typedef int (*mgcap_nl_fill_fn)(struct nl_msg *msg, const void *arg);
int mgcap_nl_request(uint8_t cmd, int dump, mgcap_nl_fill_fn fill, const void *arg,
		     struct mgcap_nl_list *out, struct mgcap_nl_error *e);

/*
 * One reply of the family (START's, SET's, GET's or a part of a dump) into
 * @l: a device added, or more queues of its last one where a dump split
 * it.  -1 where the reply is not what the family sends: an attribute of the
 * wrong size, a count beyond what the kernel can have, more queues or
 * readers than it counted; @l stays whole for mgcap_nl_free_list().  The
 * request functions use it; a fuzzer feeds it bytes (mgcap_nl_reply.c).
 */
struct nlmsghdr;
int mgcap_nl_parse_reply(struct nlmsghdr *nlh, struct mgcap_nl_list *l);

/* The kernel's extack message for @e, else a description of its errno. */
const char *mgcap_nl_strerror(const struct mgcap_nl_error *e);

#endif /* MGCAP_NL_H */
