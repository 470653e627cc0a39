// SPDX-License-Identifier: BSD-2-Clause
/* The option table: what getopt_long gets and what --help prints from it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "unit.h"

enum { OPT_MERGED = OPT_LONG_ONLY, OPT_CPUS };

static const struct tool_option opts[] = {
	{ 'w', "write", "FILE", "the file" },
	{ 'q', "quiet", NULL, "no status line" },
	{ OPT_MERGED, "merged", NULL, "one interface" },
	{ OPT_CPUS, "a-very-long-option-name", "LIST", "wraps" },
	{ 0 },
};

static const struct tool_help help = {
	.name = "t", .synopsis = "-w FILE", .summary = "Tests.", .options = opts,
};

static void test_getopt_spec(void)
{
	struct tool_getopt g;
	struct option *lo = g.longopts;
	struct tool_help first = help;

	tool_getopt_spec(&help, &g);
	CU_ASSERT_STRING_EQUAL(g.shortopts, "w:q");
	CU_ASSERT_STRING_EQUAL(lo[0].name, "write");
	CU_ASSERT_EQUAL(lo[0].has_arg, required_argument);
	CU_ASSERT_EQUAL(lo[0].val, 'w');
	CU_ASSERT_EQUAL(lo[1].has_arg, no_argument);
	CU_ASSERT_EQUAL(lo[2].val, OPT_MERGED);
	CU_ASSERT_EQUAL(lo[3].has_arg, required_argument);
	CU_ASSERT_PTR_NULL(lo[4].name);
	CU_ASSERT_EQUAL(lo[4].val, 0);

	first.options_first = 1;
	tool_getopt_spec(&first, &g);
	CU_ASSERT_STRING_EQUAL(g.shortopts, "+w:q");
}

static void test_usage(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	tool_usage(f, &help);
	fclose(f);
	CU_ASSERT_STRING_EQUAL(text,
		"Usage: t -w FILE\n"
		"Tests.\n"
		"\n"
		"Options:\n"
		"  -w, --write FILE        the file\n"
		"  -q, --quiet             no status line\n"
		"      --merged            one interface\n"
		"      --a-very-long-option-name LIST\n"
		"                          wraps\n");
	free(text);
}

static void test_spelling(void)
{
	CU_ASSERT_STRING_EQUAL(tool_option_spelling(opts, 'w'), "-w");
	CU_ASSERT_STRING_EQUAL(tool_option_spelling(opts, OPT_MERGED), "--merged");
	CU_ASSERT_STRING_EQUAL(tool_option_spelling(opts, 'x'), "?");
}

void register_options_tests(void)
{
	static const struct unit_test tests[] = {
		{ "getopt_spec", test_getopt_spec },
		{ "usage", test_usage },
		{ "spelling", test_spelling },
	};

	ADD_SUITE("options", tests);
}
