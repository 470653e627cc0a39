// SPDX-License-Identifier: BSD-2-Clause
#include <stdio.h>
#include <string.h>

#include "options.h"

/* the column where descriptions start, as in GNU tools' --help */
#define HELP_COLUMN	26

void tool_getopt_spec(const struct tool_help *h, char *shortopts, struct option *longopts)
{
	const struct tool_option *opts;

	if (h->options_first)
		*shortopts++ = '+';
	for (opts = h->options; opts->key; opts++, longopts++) {
		if (opts->key < OPT_LONG_ONLY) {
			*shortopts++ = (char)opts->key;
			if (opts->arg)
				*shortopts++ = ':';
		}
		*longopts = (struct option){ opts->name, opts->arg ? required_argument : no_argument,
					     NULL, opts->key };
	}
	*shortopts = '\0';
	*longopts = (struct option){ 0 };
}

static void item(FILE *f, const char *left, const char *help)
{
	int width = fprintf(f, "  %s", left);

	if (width >= HELP_COLUMN - 1) {
		fputc('\n', f);
		width = 0;
	}
	fprintf(f, "%*s%s\n", HELP_COLUMN - width, "", help);
}

void tool_usage(FILE *f, const struct tool_help *h)
{
	const struct tool_command *c;
	const struct tool_option *o;
	char left[96];

	fprintf(f, "Usage: %s %s\n%s\n", h->name, h->synopsis, h->summary);
	if (h->commands) {
		fputs("\nCommands:\n", f);
		for (c = h->commands; c->name; c++) {
			snprintf(left, sizeof(left), "%s%s%s", c->name, *c->args ? " " : "", c->args);
			item(f, left, c->help);
		}
	}
	fputs("\nOptions:\n", f);
	for (o = h->options; o->key; o++) {
		if (o->key < OPT_LONG_ONLY)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", o->key, o->name,
				 o->arg ? " " : "", o->arg ? o->arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", o->name,
				 o->arg ? " " : "", o->arg ? o->arg : "");
		item(f, left, o->help);
	}
	if (h->notes)
		fprintf(f, "\n%s\n", h->notes);
}

const char *tool_option_spelling(const struct tool_option *opts, int key)
{
	static char s[64];

	for (; opts->key; opts++) {
		if (opts->key != key)
			continue;
		if (key < OPT_LONG_ONLY)
			snprintf(s, sizeof(s), "-%c", key);
		else
			snprintf(s, sizeof(s), "--%s", opts->name);
		return s;
	}
	return "?";
}

void tool_version(const struct tool_help *h)
{
	printf("%s (mgcap) %s\n", h->name, PACKAGE_VERSION);
}
