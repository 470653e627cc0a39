// SPDX-License-Identifier: BSD-2-Clause
/*
 * mgcap: control the mgcap kernel module.
 *
 *   mgcap start DEV [ring-size SIZE] [snaplen N] [mode mirror|drop]
 *   mgcap stop DEV
 *   mgcap set DEV mode mirror|drop
 *   mgcap [-j] show [DEV]
 *   mgcap hwtstamp DEV on|off|show|restore
 *   mgcap peek DEV[@QUEUE] [count N]
 *
 * DEV may also be written "dev DEV", as with iproute2.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "hwtstamp.h"
#include "peek.h"

static int usage(FILE *f, int status)
{
	fputs("usage: mgcap start DEV [ring-size SIZE] [snaplen N] [mode mirror|drop]\n"
	      "       mgcap stop DEV\n"
	      "       mgcap set DEV mode mirror|drop\n"
	      "       mgcap [-j] show [DEV]\n"
	      "       mgcap hwtstamp DEV on|off|show|restore\n"
	      "       mgcap peek DEV[@QUEUE] [count N]\n"
	      "SIZE takes K, M or G (KiB, MiB, GiB); DEV may be given as \"dev DEV\".\n", f);
	return status;
}

int main(int argc, char **argv)
{
	int json = 0;
	const char *cmd;

	argc--;
	argv++;
	while (argc && argv[0][0] == '-') {
		if (!strcmp(argv[0], "-j") || !strcmp(argv[0], "--json")) {
			json = 1;
		} else if (!strcmp(argv[0], "-h") || !strcmp(argv[0], "--help")) {
			return usage(stdout, 0);
		} else {
			fprintf(stderr, "mgcap: unknown option '%s'\n", argv[0]);
			return usage(stderr, 2);
		}
		argc--;
		argv++;
	}
	if (!argc)
		return usage(stderr, 2);
	cmd = argv[0];
	argc--;
	argv++;
	if (!strcmp(cmd, "start"))
		return mgcap_cmd_start(argc, argv);
	if (!strcmp(cmd, "stop"))
		return mgcap_cmd_stop(argc, argv);
	if (!strcmp(cmd, "set"))
		return mgcap_cmd_set(argc, argv);
	if (!strcmp(cmd, "show") || !strcmp(cmd, "status"))
		return mgcap_cmd_show(argc, argv, json);
	if (!strcmp(cmd, "hwtstamp"))
		return mgcap_cmd_hwtstamp(argc, argv);
	if (!strcmp(cmd, "peek"))
		return mgcap_cmd_peek(argc, argv);
	if (!strcmp(cmd, "help"))
		return usage(stdout, 0);
	fprintf(stderr, "mgcap: unknown command '%s'\n", cmd);
	return usage(stderr, 2);
}
