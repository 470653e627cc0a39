/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Capture source names and where their queues are.
 *
 *   mgcap:eth0          every receive queue of eth0
 *   mgcap:eth0@2        queue 2
 *   mgcap:eth0@1-3,5    queues 1, 2, 3 and 5 (PF_RING's syntax)
 *   mgcap:eth0,eth1     every receive queue of both devices, as one stream
 *                       (a list of devices takes no queues)
 *   eth0:mgcap          the same as mgcap:eth0, and eth0:mgcap@2 as
 *                       mgcap:eth0@2: for programs that ask the kernel about
 *                       their sources by name (Argus), which looks a name
 *                       up only to its first ':' (IPv4 address labels),
 *                       and so finds eth0, where "mgcap:eth0" finds nothing
 *
 * Captures are found in sysfs (/sys/class/mgcap, see <linux/mgcap.h>), so
 * readers need no netlink; only those of the caller's network namespace
 * count.
 */
#ifndef MGCAP_SOURCE_H
#define MGCAP_SOURCE_H

#include <stddef.h>
#include <stdint.h>
#include <net/if.h>

#define MGCAP_SOURCE_PREFIX	"mgcap:"
#define MGCAP_SOURCE_SUFFIX	":mgcap"
#define MGCAP_MAX_QUEUES	1024
#define MGCAP_SYSFS_CLASS	"/sys/class/mgcap"

struct mgcap_source {
	char ifname[IF_NAMESIZE];
	int all_queues;				/* no "@" part */
	uint8_t queues[MGCAP_MAX_QUEUES / 8];	/* bitmap, when !all_queues */
};

/* 1 if @name is an mgcap source name (has the prefix or the suffix), else 0. */
int mgcap_source_is_ours(const char *name);

/* Parses @name; 0, or -1 with @err saying what is wrong. */
int mgcap_source_parse(const char *name, struct mgcap_source *src, char *err, size_t errlen);

int mgcap_source_has_queue(const struct mgcap_source *src, unsigned int queue);

#define MGCAP_MAX_DEVICES	8

/*
 * Parses @name into its devices, each a source of its own: @srcs gets
 * *@n of them (at most MGCAP_MAX_DEVICES).  0, or -1 with @err saying what
 * is wrong (a bad or repeated device, too many).
 */
int mgcap_source_parse_devices(const char *name, struct mgcap_source *srcs, size_t *n,
			       char *err, size_t errlen);

/* One captured queue of this namespace, as found in sysfs. */
struct mgcap_queue_node {
	char ifname[IF_NAMESIZE];
	unsigned int queue;
	char mode[8];		/* "mirror" or "drop" */
	char devnode[128];	/* /dev/mgcap/... */
};

/*
 * Every captured queue whose device is in namespace @netns_inum, sorted by
 * device name then queue.  @sysfs_class is MGCAP_SYSFS_CLASS (tests pass a
 * directory of their own).  Returns the count (*out malloc()ed, may be NULL
 * when 0), or -1 with errno set: ENOENT when the class does not exist (the
 * module is not loaded).
 */
int mgcap_list_queues(const char *sysfs_class, uint64_t netns_inum,
		      struct mgcap_queue_node **out);

/* How many of the @n queues in @nodes are @ifname's (0 when @n < 0). */
int mgcap_count_queues(const struct mgcap_queue_node *nodes, int n, const char *ifname);

/* The inode number of the caller's network namespace, or 0. */
uint64_t mgcap_own_netns(void);

#endif /* MGCAP_SOURCE_H */
