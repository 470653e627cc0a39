/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A tool's command-line options, written once: the table drives getopt_long,
 * the --help text and, through help2man, the man page's OPTIONS section.
 * An option with a type is parsed by the table too (tool_parse_options()):
 * its value, checked against its range, goes to its destination.
 */
#ifndef MGCAP_OPTIONS_H
#define MGCAP_OPTIONS_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

enum tool_option_type {
	TOOL_OPT_CALLER,	/* tool_getopt() returns it to the caller */
	TOOL_OPT_FLAG,		/* int *dest = 1 */
	TOOL_OPT_STRING,	/* const char **dest = the argument */
	TOOL_OPT_U32,		/* uint32_t *dest, in [min, max], times scale */
	TOOL_OPT_U64,		/* uint64_t *dest, in [min, max], times scale */
	TOOL_OPT_SIZE,		/* uint64_t *dest: "8M", "1G" (mgcap_parse_size), times scale */
	TOOL_OPT_FUNC,		/* parse(argument, dest): 0; -1, a bad value; -2, it said why */
};

struct tool_option {
	int key;		/* the short letter, or OPT_LONG_ONLY + n */
	const char *name;	/* the long name */
	const char *arg;	/* the argument's name; NULL when it takes none */
	const char *help;	/* what it does, one line */
	int type;		/* enum tool_option_type */
	void *dest;
	uint64_t min, max;	/* the value's range, before scale */
	uint64_t scale;		/* what one unit is worth (0: 1) */
	int (*parse)(const char *arg, void *dest);
};
/* keys: short letters are below 256; --version and each tool's long-only ones above */
#define TOOL_OPT_VERSION	256
#define OPT_LONG_ONLY		257
/* every tool has these two; tool_getopt() answers them */
#define TOOL_OPTION_HELP	{ 'h', "help", NULL, "show this help", .type = TOOL_OPT_CALLER }
#define TOOL_OPTION_VERSION	\
	{ TOOL_OPT_VERSION, "version", NULL, "show the version", .type = TOOL_OPT_CALLER }
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

/*
 * Parses every option of @h's table with a type, each into its
 * destination: optind of the first operand, or -1 after saying on stderr
 * which value was bad ("mgdump: bad value 'x' for -s").  Options of type
 * TOOL_OPT_CALLER are not allowed here.
 */
int tool_parse_options(int argc, char **argv, const struct tool_help *h);

/* The --help text. */
void tool_usage(FILE *f, const struct tool_help *h);

/* "-x" or "--name" for a key, as an error message names the option. */
const char *tool_option_spelling(const struct tool_option *opts, int key);

#endif /* MGCAP_OPTIONS_H */
