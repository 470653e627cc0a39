// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/sockios.h>

#include "mgcap_hwtstamp.h"
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

static void record_path(char *buf, size_t len, const char *dev)
{
	snprintf(buf, len, MGCAP_HWTSTAMP_STATE_DIR "/%s", dev);
}

/* The state directory's lock, held while a record is read and acted on; -1: none. */
static int lock_records(void)
{
	int fd;

	/*
	 * The packages make the directory writable by the group mgcap
	 * (tmpfiles.d), for its members' captures with CAP_NET_ADMIN but no
	 * root; the lock file of another member is locked read-only.
	 */
	(void)mkdir("/run/mgcap", 0755);
	(void)mkdir(MGCAP_HWTSTAMP_STATE_DIR, 0755);
	fd = open(MGCAP_HWTSTAMP_STATE_DIR "/.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0664);
	if (fd < 0 && errno == EACCES)
		fd = open(MGCAP_HWTSTAMP_STATE_DIR "/.lock", O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && flock(fd, LOCK_EX) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Lets the lock go, keeping errno for the caller: @ret. */
static int unlock_records(int fd, int ret)
{
	int saved = errno;

	if (fd >= 0)
		close(fd);
	errno = saved;
	return ret;
}

/* @dev's record: 1 with @c, 0 when there is none (or it is unreadable). */
static int read_record(const char *dev, struct mgcap_hwts_claim *c)
{
	char path[64 + IF_NAMESIZE];
	FILE *f;
	int n;

	record_path(path, sizeof(path), dev);
	f = fopen(path, "r");
	if (!f)
		return 0;
	memset(c, 0, sizeof(*c));
	n = fscanf(f, "%d %d %d %d %d %d %d", &c->found.flags, &c->found.tx_type,
		   &c->found.rx_filter, &c->made.flags, &c->made.tx_type, &c->made.rx_filter,
		   &c->owner);
	fclose(f);
	c->taken = c->recorded = n == 7;
	return n == 7;
}

static int write_record(const char *dev, const struct mgcap_hwts_claim *c)
{
	char path[64 + IF_NAMESIZE], tmp[80 + IF_NAMESIZE];
	FILE *f;

	record_path(path, sizeof(path), dev);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return -1;
	fprintf(f, "%d %d %d %d %d %d %d\n", c->found.flags, c->found.tx_type, c->found.rx_filter,
		c->made.flags, c->made.tx_type, c->made.rx_filter, c->owner);
	if (fclose(f) || rename(tmp, path)) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

static void drop_record(const char *dev)
{
	char path[64 + IF_NAMESIZE];

	record_path(path, sizeof(path), dev);
	(void)unlink(path);
}

int mgcap_hwts_take(const char *dev, int owner, struct mgcap_hwts_claim *c)
{
	struct hwtstamp_config now, cfg;
	int lock = lock_records(), ret = 0;

	memset(c, 0, sizeof(*c));
	if (current_config(dev, &now) < 0) {
		ret = -1;
		goto out;
	}
	/* mgcap's take stands while the setting is still the one it made */
	if (read_record(dev, c) && same_config(&now, &c->made)) {
		/* the user's `on` outlives the readers */
		if (owner == MGCAP_HWTS_USER && c->owner != MGCAP_HWTS_USER) {
			c->owner = MGCAP_HWTS_USER;
			c->recorded = write_record(dev, c) == 0;
		}
		goto out;
	}
	drop_record(dev);
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
	c->recorded = lock >= 0 && write_record(dev, c) == 0;
out:
	return unlock_records(lock, ret);
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
	int lock, ret = 0;

	if (!c->taken)
		return 0;
	/*
	 * Readers counted under the lock: one opening its rings now takes the
	 * lock after them (mgcap_hwts_take()), and finds our record standing.
	 */
	lock = lock_records();
	if (has_readers(dev))
		goto out;
	if (!c->recorded) {
		rec = *c;		/* held by this reader alone */
	} else if (!read_record(dev, &rec) || rec.owner != MGCAP_HWTS_READERS) {
		goto out;		/* given back already, or the user's */
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
		drop_record(dev);
out:
	return unlock_records(lock, ret);
}

int mgcap_hwts_restore(const char *dev, struct hwtstamp_config *found)
{
	struct mgcap_hwts_claim rec;
	struct hwtstamp_config now;
	int lock = lock_records(), ret = 0;

	if (!read_record(dev, &rec))
		goto out;
	*found = rec.found;
	if (current_config(dev, &now) < 0) {
		ret = -1;
		goto out;
	}
	ret = give_back(dev, &rec, &now);
	if (ret > 0)
		drop_record(dev);
out:
	return unlock_records(lock, ret);
}
