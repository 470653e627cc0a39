// SPDX-License-Identifier: BSD-2-Clause
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/mgcap.h>

#include "commands.h"
#include "mgcap_netdev.h"
#include "mgcap_nl.h"
#include "parse.h"
#include "show.h"

/* Takes DEV or iproute2's "dev DEV" from the front of argv. */
static const char *take_dev(int *argc, char ***argv, const char *cmd)
{
	const char *dev;

	if (*argc >= 2 && !strcmp((*argv)[0], "dev")) {
		(*argc)--;
		(*argv)++;
	}
	if (*argc < 1) {
		fprintf(stderr, "mgcap: %s: no device given\n", cmd);
		return NULL;
	}
	dev = (*argv)[0];
	(*argc)--;
	(*argv)++;
	if (mgcap_check_ifname(dev)) {
		fprintf(stderr, "mgcap: %s: invalid device name '%s'\n", cmd, dev);
		return NULL;
	}
	return dev;
}

static int report(const char *cmd, const char *dev, const struct mgcap_nl_error *e)
{
	fprintf(stderr, "mgcap: %s %s: %s\n", cmd, dev, mgcap_nl_strerror(e));
	return 1;
}

int mgcap_cmd_start(int argc, char **argv)
{
	struct mgcap_nl_start opts = { .mode = -1 };
	struct mgcap_nl_list l;
	struct mgcap_nl_error e;
	const char *dev = take_dev(&argc, &argv, "start");

	if (!dev)
		return 2;
	for (; argc >= 2; argc -= 2, argv += 2) {
		const char *key = argv[0], *val = argv[1];

		if (!strcmp(key, "ring-size")) {
			if (mgcap_parse_size(val, &opts.ring_size) ||
			    opts.ring_size < MGCAP_RING_SIZE_MIN || opts.ring_size > MGCAP_RING_SIZE_MAX) {
				fprintf(stderr, "mgcap: start %s: bad ring size '%s' (64K to 1G)\n", dev, val);
				return 2;
			}
		} else if (!strcmp(key, "snaplen")) {
			if (mgcap_parse_u32(val, MGCAP_SNAPLEN_MIN, MGCAP_SNAPLEN_MAX, &opts.snaplen)) {
				fprintf(stderr, "mgcap: start %s: bad snaplen '%s' (1 to %u)\n", dev, val,
					MGCAP_SNAPLEN_MAX);
				return 2;
			}
		} else if (!strcmp(key, "mode")) {
			opts.mode = mgcap_parse_mode(val);
			if (opts.mode < 0) {
				fprintf(stderr, "mgcap: start %s: bad mode '%s' (mirror or drop)\n", dev, val);
				return 2;
			}
		} else if (!strcmp(key, "coalescing")) {
			if (strcmp(val, "off") && strcmp(val, "keep")) {
				fprintf(stderr, "mgcap: start %s: bad coalescing '%s' (off or keep)\n",
					dev, val);
				return 2;
			}
			opts.keep_coalescing = !strcmp(val, "keep");
		} else if (!strcmp(key, "sent")) {
			if (strcmp(val, "on") && strcmp(val, "off")) {
				fprintf(stderr, "mgcap: start %s: bad sent '%s' (on or off)\n", dev, val);
				return 2;
			}
			opts.received_only = !strcmp(val, "off");
		} else {
			break;
		}
	}
	if (argc) {
		fprintf(stderr, "mgcap: start %s: unexpected '%s' (ring-size, snaplen, mode, coalescing or sent)\n",
			dev, argv[0]);
		return 2;
	}
	if (mgcap_nl_start(dev, &opts, &l, &e))
		return report("start", dev, &e);
	mgcap_show_table(stdout, &l, NULL);
	mgcap_nl_free_list(&l);
	return 0;
}

int mgcap_cmd_stop(int argc, char **argv)
{
	struct mgcap_nl_error e;
	const char *dev = take_dev(&argc, &argv, "stop");

	if (!dev)
		return 2;
	if (argc) {
		fprintf(stderr, "mgcap: stop %s: unexpected '%s'\n", dev, argv[0]);
		return 2;
	}
	if (mgcap_nl_stop(dev, &e))
		return report("stop", dev, &e);
	return 0;
}

int mgcap_set_mode(const char *dev, const char *mode_name)
{
	struct mgcap_nl_list l;
	struct mgcap_nl_error e;
	int mode = mgcap_parse_mode(mode_name);

	if (mgcap_check_ifname(dev)) {
		fprintf(stderr, "mgcap: set: invalid device name '%s'\n", dev);
		return 2;
	}
	if (mode < 0) {
		fprintf(stderr, "mgcap: set %s: bad mode '%s' (mirror or drop)\n", dev,
			mode_name ? mode_name : "");
		return 2;
	}
	if (mgcap_nl_set_mode(dev, (uint32_t)mode, &l, &e))
		return report("set", dev, &e);
	printf("%s: mode %s\n", dev, mgcap_mode_name(l.count ? l.devs[0].mode : (uint32_t)mode));
	mgcap_nl_free_list(&l);
	return 0;
}

int mgcap_cmd_set(int argc, char **argv)
{
	const char *dev = take_dev(&argc, &argv, "set");

	if (!dev)
		return 2;
	if (argc != 2 || strcmp(argv[0], "mode")) {
		fprintf(stderr, "usage: mgcap set DEV mode mirror|drop\n");
		return 2;
	}
	return mgcap_set_mode(dev, argv[1]);
}

int mgcap_cmd_show(int argc, char **argv, int json)
{
	struct mgcap_phc_status *clocks;
	struct mgcap_nl_list l;
	size_t i;
	struct mgcap_nl_error e;
	const char *dev = NULL;

	if (argc && (!strcmp(argv[0], "-j") || !strcmp(argv[0], "--json"))) {
		json = 1;
		argc--;
		argv++;
	}
	if (argc) {
		dev = take_dev(&argc, &argv, "show");
		if (!dev)
			return 2;
		if (argc) {
			fprintf(stderr, "mgcap: show %s: unexpected '%s'\n", dev, argv[0]);
			return 2;
		}
	}
	if (mgcap_nl_get(dev, &l, &e))
		return report("show", dev ? dev : "", &e);
	clocks = calloc(l.count ? l.count : 1, sizeof(*clocks));
	if (!clocks) {
		fprintf(stderr, "mgcap: show: out of memory\n");
		mgcap_nl_free_list(&l);
		return 1;
	}
	for (i = 0; i < l.count; i++)
		mgcap_phc_measure(l.devs[i].ifname, &clocks[i]);
	if (json)
		mgcap_show_json(stdout, &l, clocks);
	else
		mgcap_show_table(stdout, &l, clocks);
	free(clocks);
	mgcap_nl_free_list(&l);
	return 0;
}
