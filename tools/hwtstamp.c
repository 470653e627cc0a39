// SPDX-License-Identifier: BSD-2-Clause
/*
 * Receive hardware time stamping through the classic ioctls:
 * ETHTOOL_GET_TS_INFO for what the driver can do, SIOC[GS]HWTSTAMP for what
 * it does.  `on` asks for rx_filter ALL and reports what the driver granted;
 * the setting it replaced is kept so `restore` can give it back (ptp4l, for
 * one, depends on its own filter).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hwtstamp.h"
#include "mgcap_hwtstamp.h"
#include "parse.h"

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

static void state_path(char *buf, size_t len, const char *dev)
{
	snprintf(buf, len, MGCAP_HWTSTAMP_STATE_DIR "/%s", dev);
}

/* Keeps the first setting replaced; a second `on` must not overwrite it. */
static int save_state(const char *dev, const struct hwtstamp_config *cfg)
{
	char path[128], tmp[140];
	FILE *f;

	state_path(path, sizeof(path), dev);
	if (access(path, F_OK) == 0)
		return 0;
	mkdir("/run/mgcap", 0755);
	mkdir(MGCAP_HWTSTAMP_STATE_DIR, 0755);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return -1;
	fprintf(f, "%d %d %d\n", cfg->flags, cfg->tx_type, cfg->rx_filter);
	if (fclose(f) || rename(tmp, path)) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

static int show(const char *dev)
{
	struct ethtool_ts_info info;
	struct hwtstamp_config cfg;
	int f, first = 1;

	if (mgcap_hwts_info(dev, &info) < 0) {
		fprintf(stderr, "mgcap: %s: cannot read time stamping capabilities: %s\n",
			dev, why(errno));
		return 1;
	}
	printf("%s:\n  hardware receive stamps: %s\n  PTP clock: ", dev,
	       mgcap_hwts_rx_capable(&info) ? "supported" : "not supported");
	if (info.phc_index >= 0)
		printf("/dev/ptp%d\n", info.phc_index);
	else
		printf("none\n");
	printf("  receive filters:");
	for (f = 0; f < 32; f++) {
		if (info.rx_filters & (1U << f)) {
			printf("%s %s", first ? "" : ",", mgcap_rx_filter_name(f));
			first = 0;
		}
	}
	printf("%s\n", first ? " none" : "");
	if (mgcap_hwts_get(dev, &cfg) < 0)
		printf("  current receive filter: unknown (%s)\n", why(errno));
	else
		printf("  current receive filter: %s\n", mgcap_rx_filter_name(cfg.rx_filter));
	return 0;
}

static int set_filter(const char *dev, int rx_filter)
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
	cfg.rx_filter = rx_filter;
	if (mgcap_hwts_set(dev, &cfg) < 0) {
		fprintf(stderr, "mgcap: %s: cannot set receive time stamping: %s\n", dev, why(errno));
		return 1;
	}
	if (rx_filter != HWTSTAMP_FILTER_NONE && save_state(dev, &old) < 0)
		fprintf(stderr, "mgcap: %s: warning: cannot keep the previous setting in %s: %s\n",
			dev, MGCAP_HWTSTAMP_STATE_DIR, strerror(errno));
	printf("%s: receive filter %s (was %s)\n", dev, mgcap_rx_filter_name(cfg.rx_filter),
	       mgcap_rx_filter_name(old.rx_filter));
	if (rx_filter == HWTSTAMP_FILTER_ALL && cfg.rx_filter != HWTSTAMP_FILTER_ALL) {
		fprintf(stderr, "mgcap: %s: the driver granted %s, not all: not every packet gets a hardware stamp\n",
			dev, mgcap_rx_filter_name(cfg.rx_filter));
		return 1;
	}
	return 0;
}

static int restore(const char *dev)
{
	struct hwtstamp_config cfg;
	char path[128];
	FILE *f;
	int n;

	state_path(path, sizeof(path), dev);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "mgcap: %s: no saved setting to restore (see `mgcap hwtstamp %s on`)\n",
			dev, dev);
		return 1;
	}
	memset(&cfg, 0, sizeof(cfg));
	n = fscanf(f, "%d %d %d", &cfg.flags, &cfg.tx_type, &cfg.rx_filter);
	fclose(f);
	if (n != 3) {
		fprintf(stderr, "mgcap: %s: saved setting %s is corrupt\n", dev, path);
		return 1;
	}
	if (mgcap_hwts_set(dev, &cfg) < 0) {
		fprintf(stderr, "mgcap: %s: cannot restore time stamping: %s\n", dev, why(errno));
		return 1;
	}
	unlink(path);
	printf("%s: receive filter %s restored\n", dev, mgcap_rx_filter_name(cfg.rx_filter));
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
		return set_filter(dev, HWTSTAMP_FILTER_ALL);
	if (!strcmp(what, "off"))
		return set_filter(dev, HWTSTAMP_FILTER_NONE);
	if (!strcmp(what, "restore"))
		return restore(dev);
	fprintf(stderr, "mgcap: hwtstamp: unknown action '%s' (on, off, show or restore)\n", what);
	return 2;
}
