// SPDX-License-Identifier: BSD-2-Clause
/*
 * mgcap: control the mgcap kernel module.  Its commands and options:
 * mgcap_commands and mgcap_options below.  DEV may also be written
 * "dev DEV", as with iproute2.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "hwtstamp.h"
#include "options.h"
#include "peek.h"

static const struct tool_command mgcap_commands[] = {
	{ "start",
	  "DEV [ring-size SIZE] [snaplen N] [mode mirror|drop] [coalescing off|keep] [sent on|off]",
	  "capture DEV, the frames it receives and those it sends (sent off: received only): "
	  "a ring of SIZE bytes (K, M, G) per receive queue; GRO and LRO off" },
	{ "stop", "DEV", "stop capturing DEV; its readers see the end" },
	{ "set", "DEV mode mirror|drop", "pass captured packets on to the stack, or consume them" },
	{ "show", "[DEV]", "devices captured, their queues, readers and counters" },
	{ "hwtstamp", "DEV on|off|show|restore", "the NIC's receive time stamping" },
	{ "peek", "DEV[@QUEUE] [count N]", "print records of a queue as they arrive (it takes them)" },
	{ NULL },
};

static const struct tool_option mgcap_options[] = {
	{ 'j', "json", NULL, "show prints JSON", .type = TOOL_OPT_CALLER },
	TOOL_OPTION_HELP,
	TOOL_OPTION_VERSION,
	{ 0 },
};

static const struct tool_help mgcap_help = {
	.name = "mgcap",
	.synopsis = "[OPTION...] COMMAND [ARG...]",
	.summary = "Controls mgcap, the capture of every received packet with its hardware\n"
		   "time stamp into rings that tcpdump, Wireshark and mgdump read.",
	.commands = mgcap_commands,
	.options = mgcap_options,
	.notes = "DEV may also be written \"dev DEV\", as with ip(8).",
	.options_first = 1,
};

int main(int argc, char **argv)
{
	struct tool_getopt g = { 0 };
	int json = 0, c;
	const char *cmd;

	while ((c = tool_getopt(argc, argv, &mgcap_help, &g)) != -1) {
		if (c != 'j')
			return 2;	/* getopt said which */
		json = 1;
	}
	argc -= optind;
	argv += optind;
	if (!argc) {
		fprintf(stderr, "mgcap: no command (see mgcap --help)\n");
		return 2;
	}
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
	if (!strcmp(cmd, "help")) {
		tool_usage(stdout, &mgcap_help);
		return 0;
	}
	fprintf(stderr, "mgcap: unknown command '%s' (see mgcap --help)\n", cmd);
	return 2;
}
