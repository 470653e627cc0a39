// SPDX-License-Identifier: BSD-2-Clause
/* mgcap-setmode DEV mirror|drop: the original tool's name for `mgcap set DEV mode M`. */
#include <stdio.h>

#include "commands.h"
#include "options.h"

enum { OPT_VERSION = OPT_LONG_ONLY };

static const struct tool_option setmode_options[] = {
	{ 'h', "help", NULL, "show this help" },
	{ OPT_VERSION, "version", NULL, "show the version" },
	{ 0 },
};

static const struct tool_help setmode_help = {
	.name = "mgcap-setmode",
	.synopsis = "DEV mirror|drop",
	.summary = "Sets the mode of DEV's capture: mirror passes each captured packet on to\n"
		   "the stack, drop consumes it.  The same as \"mgcap set DEV mode MODE\".",
	.options = setmode_options,
};

int main(int argc, char **argv)
{
	struct option lo[TOOL_ARRAY_SIZE(setmode_options) + 1];
	char shortopts[3 * TOOL_ARRAY_SIZE(setmode_options) + 2];
	int c;

	tool_getopt_spec(&setmode_help, shortopts, lo);
	while ((c = getopt_long(argc, argv, shortopts, lo, NULL)) != -1) {
		switch (c) {
		case 'h': tool_usage(stdout, &setmode_help); return 0;
		case OPT_VERSION: tool_version(&setmode_help); return 0;
		default: return 2;	/* getopt said which */
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "mgcap-setmode: want DEV and a mode (see mgcap-setmode --help)\n");
		return 2;
	}
	return mgcap_set_mode(argv[optind], argv[optind + 1]);
}
