// SPDX-License-Identifier: BSD-2-Clause
/*
 * Receive hardware time stamping through the classic ioctls:
 * ETHTOOL_GET_TS_INFO for what the driver can do, SIOC[GS]HWTSTAMP for what
 * it does.  `on` asks for rx_filter ALL and reports what the driver granted;
 * the setting it replaced is kept so `restore` can give it back (ptp4l, for
 * one, depends on its own filter).
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "hwtstamp.h"
#include "mgcap_hwtstamp.h"
#include "mgcap_netdev.h"

static const char *why(int err)
{
	switch (err) {
	case ENODEV:
		return "no such device";
	case EPERM:
	case EACCES:
		return "not permitted (needs CAP_NET_ADMIN)";
	case EOPNOTSUPP:
	case EINVAL:
	case ERANGE:
		return "hardware time stamping not supported by the driver";
	default:
		return strerror(err);
	}
}

/* " a, b, c": the receive filters @info offers (@with_none: "none" too), or " none" */
static void print_filters(FILE *out, const struct ethtool_ts_info *info, int with_none)
{
	int f, first = 1;

	for (f = 0; f < 32; f++) {
		if ((info->rx_filters & (1U << f)) && (with_none || f != HWTSTAMP_FILTER_NONE)) {
			fprintf(out, "%s %s", first ? "" : ",", mgcap_rx_filter_name(f));
			first = 0;
		}
	}
	fprintf(out, "%s", first ? " none" : "");
}

/* 1 if the NIC stamps some received frames in hardware, never every one (PTP's, say) */
static int stamps_some_only(const struct ethtool_ts_info *info)
{
	return (info->so_timestamping & SOF_TIMESTAMPING_RX_HARDWARE) &&
	       (info->rx_filters & ~(1U << HWTSTAMP_FILTER_NONE)) &&
	       !(info->rx_filters & (1U << HWTSTAMP_FILTER_ALL));
}

/* What show says of a NIC's receive stamps. */
static const char *rx_stamps(const struct ethtool_ts_info *info)
{
	if (mgcap_hwts_rx_capable(info))
		return "supported";
	if (stamps_some_only(info))
		return "some frames only (the receive filters below), not every frame";
	return "not supported";
}

static int show(const char *dev)
{
	struct ethtool_ts_info info;
	struct hwtstamp_config cfg;

	if (mgcap_hwts_info(dev, &info) < 0) {
		fprintf(stderr, "mgcap: %s: cannot read time stamping capabilities: %s\n",
			dev, why(errno));
		return 1;
	}
	printf("%s:\n  hardware receive stamps: %s\n  PTP clock: ", dev, rx_stamps(&info));
	if (info.phc_index >= 0)
		printf("/dev/ptp%d\n", info.phc_index);
	else
		printf("none\n");
	printf("  receive filters:");
	print_filters(stdout, &info, 1);
	printf("\n");
	if (mgcap_hwts_get(dev, &cfg) < 0)
		printf("  current receive filter: unknown (%s)\n", why(errno));
	else
		printf("  current receive filter: %s\n", mgcap_rx_filter_name(cfg.rx_filter));
	return 0;
}

/* `off`: no receive stamps, whatever took them. */
static int switch_off(const char *dev)
{
	struct hwtstamp_config old, cfg;

	if (mgcap_hwts_get(dev, &old) < 0) {
		if (errno == ENODEV) {
			fprintf(stderr, "mgcap: %s: no such device\n", dev);
			return 1;
		}
		/* drivers without SIOCGHWTSTAMP: assume everything off */
		memset(&old, 0, sizeof(old));
	}
	cfg = old;
	cfg.rx_filter = HWTSTAMP_FILTER_NONE;
	if (mgcap_hwts_set(dev, &cfg) < 0) {
		fprintf(stderr, "mgcap: %s: cannot set receive time stamping: %s\n", dev, why(errno));
		return 1;
	}
	printf("%s: receive filter %s (was %s)\n", dev, mgcap_rx_filter_name(cfg.rx_filter),
	       mgcap_rx_filter_name(old.rx_filter));
	return 0;
}

/* `on`: every frame stamped, taken for the user until `restore` (the policy: mgcap_hwtstamp.h). */
static int switch_on(const char *dev)
{
	struct ethtool_ts_info info;
	struct mgcap_hwts_claim c;

	/* a NIC that stamps PTP frames only would refuse ALL with ERANGE */
	if (mgcap_hwts_info(dev, &info) == 0 && stamps_some_only(&info)) {
		fprintf(stderr, "mgcap: %s: the NIC stamps only some received frames, not every one (its receive filters:",
			dev);
		print_filters(stderr, &info, 0);
		fprintf(stderr, ")\n");
		return 1;
	}
	if (mgcap_hwts_take(dev, MGCAP_HWTS_USER, &c) < 0) {
		fprintf(stderr, "mgcap: %s: %s%s\n", dev, errno == ENODEV ? "" :
			"cannot set receive time stamping: ", why(errno));
		return 1;
	}
	if (c.taken && !c.recorded)
		fprintf(stderr, "mgcap: %s: warning: cannot keep the previous setting in %s: %s\n",
			dev, MGCAP_HWTSTAMP_STATE_DIR, strerror(errno));
	printf("%s: receive filter %s (was %s)\n", dev, mgcap_rx_filter_name(c.made.rx_filter),
	       mgcap_rx_filter_name(c.found.rx_filter));
	if (c.made.rx_filter != HWTSTAMP_FILTER_ALL) {
		fprintf(stderr, "mgcap: %s: the driver granted %s, not all: not every packet gets a hardware stamp\n",
			dev, mgcap_rx_filter_name(c.made.rx_filter));
		return 1;
	}
	return 0;
}

/* The name of user @uid, or its number. */
static const char *user_name(uid_t uid, char *buf, size_t len)
{
	struct passwd pw, *found = NULL;
	char pwbuf[1024];

	if (getpwuid_r(uid, &pw, pwbuf, sizeof(pwbuf), &found) == 0 && found)
		snprintf(buf, len, "%s", found->pw_name);
	else
		snprintf(buf, len, "uid %u", (unsigned int)uid);
	return buf;
}

static int restore(const char *dev)
{
	struct hwtstamp_config found;
	char who[64];
	uid_t writer;
	int ret = mgcap_hwts_restore(dev, &found, &writer);

	if (ret == MGCAP_HWTS_RESTORE_FOREIGN) {
		fprintf(stderr, "mgcap: %s: the saved setting was written by %s, not by root or you: "
			"not restored (it says receive filter %s was there; "
			"`mgcap hwtstamp %s off` turns receive stamping off)\n", dev,
			user_name(writer, who, sizeof(who)), mgcap_rx_filter_name(found.rx_filter), dev);
		return 1;
	}
	if (ret == 0) {
		fprintf(stderr, "mgcap: %s: no saved setting to restore (see `mgcap hwtstamp %s on`)\n",
			dev, dev);
		return 1;
	}
	if (ret < 0) {
		fprintf(stderr, "mgcap: %s: cannot restore time stamping: %s\n", dev, why(errno));
		return 1;
	}
	printf("%s: receive filter %s restored\n", dev, mgcap_rx_filter_name(found.rx_filter));
	return 0;
}

int mgcap_cmd_hwtstamp(int argc, char **argv)
{
	const char *dev, *what;

	if (argc != 2) {
		fprintf(stderr, "usage: mgcap hwtstamp DEV on|off|show|restore\n");
		return 2;
	}
	dev = argv[0];
	what = argv[1];
	if (mgcap_check_ifname(dev)) {
		fprintf(stderr, "mgcap: invalid device name '%s'\n", dev);
		return 2;
	}
	if (!strcmp(what, "show"))
		return show(dev);
	if (!strcmp(what, "on"))
		return switch_on(dev);
	if (!strcmp(what, "off"))
		return switch_off(dev);
	if (!strcmp(what, "restore"))
		return restore(dev);
	fprintf(stderr, "mgcap: hwtstamp: unknown action '%s' (on, off, show or restore)\n", what);
	return 2;
}
