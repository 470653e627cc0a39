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
#define OPT_LONG_ONLY	256

#define TOOL_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

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

/*
 * getopt_long's short option string and long options for @h; the arrays
 * must hold 3 bytes and one entry per option, plus two.
 */
void tool_getopt_spec(const struct tool_help *h, char *shortopts, struct option *longopts);

/* The --help text. */
void tool_usage(FILE *f, const struct tool_help *h);

/* "-x" or "--name" for a key, as an error message names the option. */
const char *tool_option_spelling(const struct tool_option *opts, int key);

/* "PROGRAM (mgcap) VERSION" */
void tool_version(const struct tool_help *h);

#endif /* MGCAP_OPTIONS_H */
