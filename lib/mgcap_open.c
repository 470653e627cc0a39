// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/stat.h>

#include "mgcap_nl.h"
#include "mgcap_open.h"
#include "mgcap_time.h"

/*
 * How long an opener waits for udev to give a new node to the group mgcap
 * (the packages' rule), whoever made it: a member of the group right after
 * root's `mgcap start`, or mgdump@.service's user, which starts captures
 * with CAP_NET_ADMIN alone.  Only while udev has not handled the node yet,
 * which an emulated guest under load took more than 10 s to do.  Below the
 * 30 s a capture started for its readers waits for the first (a refused
 * reader then learns why, before the capture goes).
 */
#define NODE_UDEV_WAIT_MS	25000

/* Keeps @ifname's of the @n nodes at the front of @nodes: their count. */
static int keep_device(struct mgcap_queue_node *nodes, int n, const char *ifname)
{
	int i, kept = 0;

	for (i = 0; i < n; i++)
		if (!strcmp(nodes[i].ifname, ifname))
			nodes[kept++] = nodes[i];
	return kept;
}

/* @ifname's captured queues, or 0 when the module is not loaded (yet); -1 with @e. */
static int list_device(const char *ifname, struct mgcap_queue_node **nodes,
		       struct mgcap_error *e)
{
	int n = mgcap_list_queues(MGCAP_SYSFS_CLASS, mgcap_own_netns(), nodes);

	if (n < 0 && errno == ENOENT)
		return 0;
	if (n < 0)
		return mgcap_fail(e, errno, "listing the mgcap queues in " MGCAP_SYSFS_CLASS ": %s",
				  strerror(errno));
	n = keep_device(*nodes, n, ifname);
	if (!n) {
		free(*nodes);
		*nodes = NULL;
	}
	return n;
}

int mgcap_device_queues(const char *ifname, int start, uint64_t ring_size,
			struct mgcap_queue_node **nodes, int *started, struct mgcap_error *e)
{
	struct mgcap_nl_error nle;
	int n;

	*nodes = NULL;
	if (started)
		*started = 0;
	n = list_device(ifname, nodes, e);
	if (n || !start)
		return n;
	if (if_nametoindex(ifname) == 0)
		return mgcap_fail(e, ENODEV, "no such device %s", ifname);
	/* asking for the netlink family loads the module */
	if (mgcap_nl_start_for_readers(ifname, ring_size, &nle) < 0) {
		if (nle.err == EPERM)
			return mgcap_fail(e, EPERM, "%s is not captured, and starting its capture "
					  "takes CAP_NET_ADMIN (or: mgcap start %s)", ifname, ifname);
		return mgcap_fail(e, nle.err, "cannot start capturing %s: %s", ifname,
				  mgcap_nl_strerror(&nle));
	}
	if (started)
		*started = 1;
	n = list_device(ifname, nodes, e);
	if (n == 0)
		return mgcap_fail(e, ENODEV, "the capture of %s stopped at once", ifname);
	return n;
}

/*
 * Whether udev may still give @devnode to the capture group: udevd runs,
 * the node is still root's alone, as devtmpfs made it (0600; udev changes
 * its group before its mode, so a node of group mgcap and mode 0600 is half
 * done), and it is new: one left as it was for the whole wait has no rule
 * to wait for (a build tree's module without the packages).  (Not udev's
 * database: the record of an earlier node of the same number may still be
 * there, its removal queued behind the new node's.)
 */
static bool udev_pending(const char *devnode)
{
	struct stat st;
	uint64_t made_ns;

	if (access("/run/udev/control", F_OK) || stat(devnode, &st) ||
	    st.st_uid != 0 || (st.st_mode & 0077))
		return false;
	/* (devtmpfs stamps the node's change time when it makes it; udev's chown moves it) */
	made_ns = (uint64_t)st.st_ctim.tv_sec * 1000000000ULL + (uint64_t)st.st_ctim.tv_nsec;
	return mgcap_now_ns(CLOCK_REALTIME) - made_ns < NODE_UDEV_WAIT_MS * 1000000ULL;
}

int mgcap_open_queue(struct mgcap_reader *r, const char *devnode, struct mgcap_error *e)
{
	char err[160];
	int waited_ms;

	for (waited_ms = 0;; waited_ms += 10) {
		/* asked before the open: a refusal after udev was done is final */
		bool pending = udev_pending(devnode);

		if (mgcap_reader_open(r, devnode, err, sizeof(err)) == 0)
			return 0;
		if (!pending || errno != EACCES || waited_ms >= NODE_UDEV_WAIT_MS)
			return mgcap_fail(e, errno, "%s", err);
		usleep(10000);
	}
}
