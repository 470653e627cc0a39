// SPDX-License-Identifier: BSD-2-Clause
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "parse.h"

/* the column where descriptions start, as in GNU tools' --help */
#define HELP_COLUMN	26

static int is_short(int key)
{
	return key < TOOL_OPT_VERSION;
}

void tool_getopt_spec(const struct tool_help *h, struct tool_getopt *g)
{
	const struct tool_option *opts;
	char *shortopts = g->shortopts;
	struct option *longopts = g->longopts;

	if (h->options_first)
		*shortopts++ = '+';
	for (opts = h->options; opts->key; opts++, longopts++) {
		assert(longopts < g->longopts + TOOL_OPTIONS_MAX);
		if (is_short(opts->key)) {
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

int tool_getopt(int argc, char **argv, const struct tool_help *h, struct tool_getopt *g)
{
	int c;

	if (!g->longopts[0].name)
		tool_getopt_spec(h, g);
	c = getopt_long(argc, argv, g->shortopts, g->longopts, NULL);
	if (c == 'h') {
		tool_usage(stdout, h);
		exit(0);
	}
	if (c == TOOL_OPT_VERSION) {
		printf("%s (mgcap) %s\n", h->name, PACKAGE_VERSION);
		exit(0);
	}
	return c;
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
		if (is_short(o->key))
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
		if (is_short(key))
			snprintf(s, sizeof(s), "-%c", key);
		else
			snprintf(s, sizeof(s), "--%s", opts->name);
		return s;
	}
	return "?";
}

/* @o's value from @arg into its destination: 0, or -1 when it is bad. */
static int parse_value(const struct tool_option *o, const char *arg)
{
	uint64_t scale = o->scale ? o->scale : 1, v;
	char *end;

	switch (o->type) {
	case TOOL_OPT_FLAG:
		*(int *)o->dest = 1;
		return 0;
	case TOOL_OPT_STRING:
		*(const char **)o->dest = arg;
		return 0;
	case TOOL_OPT_FUNC:
		return o->parse(arg, o->dest);
	case TOOL_OPT_SIZE:
		if (mgcap_parse_size(arg, &v))
			return -1;
		break;
	case TOOL_OPT_U32:
	case TOOL_OPT_U64:
		if (*arg < '0' || *arg > '9')
			return -1;
		errno = 0;
		v = strtoull(arg, &end, 10);
		if (errno || *end)
			return -1;
		break;
	default:
		return -1;
	}
	if (v < o->min || v > o->max || v > UINT64_MAX / scale)
		return -1;
	if (o->type == TOOL_OPT_U32)
		*(uint32_t *)o->dest = (uint32_t)(v * scale);
	else
		*(uint64_t *)o->dest = v * scale;
	return 0;
}

int tool_parse_options(int argc, char **argv, const struct tool_help *h)
{
	struct tool_getopt g = { 0 };
	const struct tool_option *o;
	int c, ret;

	while ((c = tool_getopt(argc, argv, h, &g)) != -1) {
		for (o = h->options; o->key && o->key != c; o++)
			;
		if (!o->key)
			return -1;	/* getopt said which */
		assert(o->type != TOOL_OPT_CALLER);
		ret = parse_value(o, optarg);
		if (ret == -2)
			return -1;	/* the option's parser said why */
		if (ret) {
			fprintf(stderr, "%s: bad value '%s' for %s\n", h->name, optarg,
				tool_option_spelling(h->options, c));
			return -1;
		}
	}
	return optind;
}
