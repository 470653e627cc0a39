// SPDX-License-Identifier: BSD-2-Clause
/* mgcap-setmode DEV mirror|drop: the original tool's name for `mgcap set DEV mode M`. */
#include <stdio.h>

#include "commands.h"
#include "options.h"

static const struct tool_option setmode_options[] = {
	TOOL_OPTION_HELP,
	TOOL_OPTION_VERSION,
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
	struct tool_getopt g = { 0 };

	if (tool_getopt(argc, argv, &setmode_help, &g) != -1)
		return 2;	/* getopt said which */
	if (argc - optind != 2) {
		fprintf(stderr, "mgcap-setmode: want DEV and a mode (see mgcap-setmode --help)\n");
		return 2;
	}
	return mgcap_set_mode(argv[optind], argv[optind + 1]);
}
