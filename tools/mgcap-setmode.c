// SPDX-License-Identifier: BSD-2-Clause
/* mgcap-setmode DEV mirror|drop: the original tool's name for `mgcap set DEV mode M`. */
#include <stdio.h>

#include "commands.h"

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: mgcap-setmode DEV mirror|drop\n");
		return 2;
	}
	return mgcap_set_mode(argv[1], argv[2]);
}
