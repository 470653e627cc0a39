// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/sockios.h>

#include "mgcap_hwtstamp.h"
#include "mgcap_hwts_record.h"
#include "mgcap_nl.h"

static int dev_ioctl(const char *dev, unsigned long req, void *data)
{
	struct ifreq ifr;
	int fd, ret, saved;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	ifr.ifr_data = data;
	ret = ioctl(fd, req, &ifr);
	saved = errno;
	close(fd);
	errno = saved;
	return ret;
}

int mgcap_hwts_info(const char *dev, struct ethtool_ts_info *info)
{
	memset(info, 0, sizeof(*info));
	info->cmd = ETHTOOL_GET_TS_INFO;
	return dev_ioctl(dev, SIOCETHTOOL, info);
}

int mgcap_hwts_get(const char *dev, struct hwtstamp_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	return dev_ioctl(dev, SIOCGHWTSTAMP, cfg);
}

int mgcap_hwts_set(const char *dev, struct hwtstamp_config *cfg)
{
	return dev_ioctl(dev, SIOCSHWTSTAMP, cfg);
}

int mgcap_hwts_rx_capable(const struct ethtool_ts_info *info)
{
	return (info->so_timestamping & SOF_TIMESTAMPING_RX_HARDWARE) &&
	       (info->so_timestamping & SOF_TIMESTAMPING_RAW_HARDWARE) &&
	       (info->rx_filters & (1U << HWTSTAMP_FILTER_ALL));
}

static const char *const rx_filter_names[] = {
	[HWTSTAMP_FILTER_NONE] = "none",
	[HWTSTAMP_FILTER_ALL] = "all",
	[HWTSTAMP_FILTER_SOME] = "some",
	[HWTSTAMP_FILTER_PTP_V1_L4_EVENT] = "ptpv1-l4-event",
	[HWTSTAMP_FILTER_PTP_V1_L4_SYNC] = "ptpv1-l4-sync",
	[HWTSTAMP_FILTER_PTP_V1_L4_DELAY_REQ] = "ptpv1-l4-delay-req",
	[HWTSTAMP_FILTER_PTP_V2_L4_EVENT] = "ptpv2-l4-event",
	[HWTSTAMP_FILTER_PTP_V2_L4_SYNC] = "ptpv2-l4-sync",
	[HWTSTAMP_FILTER_PTP_V2_L4_DELAY_REQ] = "ptpv2-l4-delay-req",
	[HWTSTAMP_FILTER_PTP_V2_L2_EVENT] = "ptpv2-l2-event",
	[HWTSTAMP_FILTER_PTP_V2_L2_SYNC] = "ptpv2-l2-sync",
	[HWTSTAMP_FILTER_PTP_V2_L2_DELAY_REQ] = "ptpv2-l2-delay-req",
	[HWTSTAMP_FILTER_PTP_V2_EVENT] = "ptpv2-event",
	[HWTSTAMP_FILTER_PTP_V2_SYNC] = "ptpv2-sync",
	[HWTSTAMP_FILTER_PTP_V2_DELAY_REQ] = "ptpv2-delay-req",
	[HWTSTAMP_FILTER_NTP_ALL] = "ntp-all",
};

const char *mgcap_rx_filter_name(int filter)
{
	if (filter >= 0 && (size_t)filter < sizeof(rx_filter_names) / sizeof(rx_filter_names[0]) &&
	    rx_filter_names[filter])
		return rx_filter_names[filter];
	return "unknown";
}

/* --- the policy: one record a device, under one lock ------------------------ */

static int same_config(const struct hwtstamp_config *a, const struct hwtstamp_config *b)
{
	return a->flags == b->flags && a->tx_type == b->tx_type && a->rx_filter == b->rx_filter;
}

/* The setting now; a driver without SIOCGHWTSTAMP has everything off. */
static int current_config(const char *dev, struct hwtstamp_config *cfg)
{
	if (mgcap_hwts_get(dev, cfg) == 0)
		return 0;
	if (errno == ENODEV)
		return -1;
	memset(cfg, 0, sizeof(*cfg));
	return 0;
}

int mgcap_hwts_take(const char *dev, int owner, struct mgcap_hwts_claim *c)
{
	struct hwtstamp_config now, cfg;
	int dir = mgcap_hwts_records_lock(MGCAP_HWTSTAMP_STATE_DIR), dir_errno = errno;
	int ret = 0, kind;
	uid_t writer;

	memset(c, 0, sizeof(*c));
	if (current_config(dev, &now) < 0) {
		ret = -1;
		goto out;
	}
	kind = mgcap_hwts_record_read(dir, dev, c, &writer);
	/* mgcap's take stands while the setting is still the one it made */
	if (kind == MGCAP_HWTS_RECORD_TRUSTED && same_config(&now, &c->made)) {
		/* the user's `on` outlives the readers */
		if (owner == MGCAP_HWTS_USER && c->owner != MGCAP_HWTS_USER) {
			c->owner = MGCAP_HWTS_USER;
			c->recorded = mgcap_hwts_record_write(dir, dev, c) == 0;
		}
		goto out;
	}
	/* one of ours that no longer holds; another user's is theirs to keep */
	if (kind == MGCAP_HWTS_RECORD_TRUSTED)
		mgcap_hwts_record_drop(dir, dev);
	memset(c, 0, sizeof(*c));
	c->owner = owner;
	c->found = c->made = now;
	if (now.rx_filter == HWTSTAMP_FILTER_ALL)
		goto out;	/* someone else's, as it is */
	cfg = now;
	cfg.rx_filter = HWTSTAMP_FILTER_ALL;
	if (mgcap_hwts_set(dev, &cfg) < 0) {
		ret = -1;
		goto out;
	}
	c->made = cfg;
	c->taken = 1;
	if (dir < 0)
		errno = dir_errno;	/* for the caller to say why it holds the take alone */
	else
		c->recorded = mgcap_hwts_record_write(dir, dev, c) == 0;
out:
	return mgcap_hwts_records_unlock(dir, ret);
}

/* Whether any mgcap reader reads @dev now (a capture without readers has none). */
static int has_readers(const char *dev)
{
	struct mgcap_nl_list l;
	struct mgcap_nl_error e;
	uint32_t readers = 0;
	size_t q;

	if (mgcap_nl_get(dev, &l, &e) < 0)
		return 0;
	for (q = 0; l.count && q < l.devs[0].num_queues; q++)
		readers += l.devs[0].queues[q].num_readers;
	mgcap_nl_free_list(&l);
	return readers != 0;
}

/* Puts @c->found's receive filter back onto @now; 1, or -1 with errno. */
static int give_back(const char *dev, const struct mgcap_hwts_claim *c,
		     const struct hwtstamp_config *now)
{
	struct hwtstamp_config cfg = *now;

	cfg.rx_filter = c->found.rx_filter;
	return mgcap_hwts_set(dev, &cfg) < 0 ? -1 : 1;
}

int mgcap_hwts_readers_gone(const char *dev, const struct mgcap_hwts_claim *c)
{
	struct mgcap_hwts_claim rec;
	struct hwtstamp_config now;
	int dir, ret = 0;
	uid_t writer;

	if (!c->taken)
		return 0;
	/*
	 * Readers counted under the lock: one opening its rings now takes the
	 * lock after them (mgcap_hwts_take()), and finds our record standing.
	 */
	dir = mgcap_hwts_records_lock(MGCAP_HWTSTAMP_STATE_DIR);
	if (has_readers(dev))
		goto out;
	if (!c->recorded) {
		rec = *c;		/* held by this reader alone */
	} else if (mgcap_hwts_record_read(dir, dev, &rec, &writer) != MGCAP_HWTS_RECORD_TRUSTED ||
		   rec.owner != MGCAP_HWTS_READERS) {
		goto out;		/* given back already, the user's, or not ours to act on */
	}
	if (current_config(dev, &now) < 0) {
		ret = -1;
		goto out;
	}
	/* changed by someone else since: theirs now */
	if (same_config(&now, &rec.made))
		ret = give_back(dev, &rec, &now);
	/* kept where the give-back failed: mgcap hwtstamp DEV restore tries again */
	if (rec.recorded && ret >= 0)
		mgcap_hwts_record_drop(dir, dev);
out:
	return mgcap_hwts_records_unlock(dir, ret);
}

int mgcap_hwts_restore(const char *dev, struct hwtstamp_config *found, uid_t *writer)
{
	struct mgcap_hwts_claim rec;
	struct hwtstamp_config now;
	int dir = mgcap_hwts_records_lock(MGCAP_HWTSTAMP_STATE_DIR), ret = 0, kind;

	kind = mgcap_hwts_record_read(dir, dev, &rec, writer);
	if (kind == MGCAP_HWTS_RECORD_NONE)
		goto out;
	*found = rec.found;
	if (kind == MGCAP_HWTS_RECORD_FOREIGN) {
		ret = MGCAP_HWTS_RESTORE_FOREIGN;
		goto out;
	}
	if (current_config(dev, &now) < 0) {
		ret = -1;
		goto out;
	}
	ret = give_back(dev, &rec, &now);
	if (ret > 0)
		mgcap_hwts_record_drop(dir, dev);
out:
	return mgcap_hwts_records_unlock(dir, ret);
}
