/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A tool's command-line options, written once: the table drives getopt_long,
 * the --help text and, through help2man, the man page's OPTIONS section.
 */
#ifndef MGCAP_OPTIONS_H
#define MGCAP_OPTIONS_H

#include <getopt.h>
#include <stdio.h>

struct tool_option {
	int key;		/* the short letter, or OPT_LONG_ONLY + n */
	const char *name;	/* the long name */
	const char *arg;	/* the argument's name; NULL when it takes none */
	const char *help;	/* what it does, one line */
};
/* keys: short letters are below 256; --version and each tool's long-only ones above */
#define TOOL_OPT_VERSION	256
#define OPT_LONG_ONLY		257
/* every tool has these two; tool_getopt() answers them */
#define TOOL_OPTION_HELP	{ 'h', "help", NULL, "show this help" }
#define TOOL_OPTION_VERSION	{ TOOL_OPT_VERSION, "version", NULL, "show the version" }
#define TOOL_OPTIONS_MAX	32

/* A subcommand (mgcap start ...), listed the same way. */
struct tool_command {
	const char *name;
	const char *args;	/* its synopsis after the name */
	const char *help;
};

struct tool_help {
	const char *name;		/* the program's name */
	const char *synopsis;		/* after the name on the usage line */
	const char *summary;		/* one sentence: what the program does */
	const struct tool_command *commands;	/* NULL-terminated, or NULL */
	const struct tool_option *options;	/* key 0 terminates */
	const char *notes;		/* a closing paragraph, or NULL */
	int options_first;		/* options end at the command, as with ip(8) */
};

/* getopt_long's arguments for a tool's options */
struct tool_getopt {
	char shortopts[3 * TOOL_OPTIONS_MAX + 2];
	struct option longopts[TOOL_OPTIONS_MAX + 1];
};

void tool_getopt_spec(const struct tool_help *h, struct tool_getopt *g);

/*
 * getopt_long() over @h's options (@g is filled at the first call): the next
 * key, -1 at the end, '?' for a bad option (getopt said which).  --help and
 * --version are answered here: the text, then exit(0).
 */
int tool_getopt(int argc, char **argv, const struct tool_help *h, struct tool_getopt *g);

/* The --help text. */
void tool_usage(FILE *f, const struct tool_help *h);

/* "-x" or "--name" for a key, as an error message names the option. */
const char *tool_option_spelling(const struct tool_option *opts, int key);

#endif /* MGCAP_OPTIONS_H */
