// SPDX-License-Identifier: BSD-2-Clause
/* The option table: what getopt_long gets and what --help prints from it. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "options.h"
#include "unit.h"

enum { OPT_MERGED = OPT_LONG_ONLY, OPT_CPUS };

static const struct tool_option opts[] = {
	{ 'w', "write", "FILE", "the file", .type = TOOL_OPT_CALLER },
	{ 'q', "quiet", NULL, "no status line", .type = TOOL_OPT_CALLER },
	{ OPT_MERGED, "merged", NULL, "one interface", .type = TOOL_OPT_CALLER },
	{ OPT_CPUS, "a-very-long-option-name", "LIST", "wraps", .type = TOOL_OPT_CALLER },
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

/* A table that parses: each type into its destination, in its range. */
static struct {
	uint32_t snaplen;
	uint64_t bytes, buffer;
	int quiet, odd;
	const char *path;
} parsed;

static int parse_odd(const char *arg, void *dest)
{
	int v = atoi(arg);

	if (v % 2 == 0)
		return -1;
	*(int *)dest = v;
	return 0;
}

static const struct tool_option typed[] = {
	{ 's', "snaplen", "N", "bytes", .type = TOOL_OPT_U32, .dest = &parsed.snaplen,
	  .min = 1, .max = 262144 },
	{ 'C', "file-size", "MB", "millions", .type = TOOL_OPT_U64, .dest = &parsed.bytes,
	  .min = 1, .max = 1000, .scale = 1000000 },
	{ 'B', "buffer", "SIZE", "bytes", .type = TOOL_OPT_SIZE, .dest = &parsed.buffer,
	  .min = 4096, .max = 1ULL << 30 },
	{ 'q', "quiet", NULL, "quiet", .type = TOOL_OPT_FLAG, .dest = &parsed.quiet },
	{ 'w', "write", "FILE", "the file", .type = TOOL_OPT_STRING, .dest = &parsed.path },
	{ 'o', "odd", "N", "an odd number", .type = TOOL_OPT_FUNC, .dest = &parsed.odd,
	  .parse = parse_odd },
	{ 0 },
};

static const struct tool_help typed_help = { .name = "t", .synopsis = "", .summary = "",
					     .options = typed };

/* tool_parse_options() over @args (NULL-terminated): its result, stderr in @err */
static int parse(char *err, size_t errlen, ...)
{
	char *argv[16] = { "t" };
	int argc = 1, ret, saved = dup(2);
	FILE *f = tmpfile();
	va_list ap;

	va_start(ap, errlen);
	while ((argv[argc] = va_arg(ap, char *)) != NULL)
		argc++;
	va_end(ap);
	memset(&parsed, 0, sizeof(parsed));
	optind = 0;		/* getopt starts over */
	opterr = 1;
	fflush(stderr);
	dup2(fileno(f), 2);
	ret = tool_parse_options(argc, argv, &typed_help);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(f);
	err[0] = '\0';
	if (!fgets(err, (int)errlen, f))
		err[0] = '\0';
	fclose(f);
	return ret;
}

static void test_parse_typed(void)
{
	char err[128];

	CU_ASSERT_EQUAL(parse(err, sizeof(err), "-s", "128", "-C", "3", "-B", "8M", "-q",
			      "-w", "out", "--odd", "7", "tcp", NULL), 12);
	CU_ASSERT_EQUAL(parsed.snaplen, 128);
	CU_ASSERT_EQUAL(parsed.bytes, 3000000);
	CU_ASSERT_EQUAL(parsed.buffer, 8ULL << 20);
	CU_ASSERT_EQUAL(parsed.quiet, 1);
	CU_ASSERT_STRING_EQUAL(parsed.path, "out");
	CU_ASSERT_EQUAL(parsed.odd, 7);
	CU_ASSERT_STRING_EQUAL(err, "");
}

static void test_parse_refuses_out_of_range(void)
{
	char err[128];

	CU_ASSERT_EQUAL(parse(err, sizeof(err), "-s", "0", NULL), -1);
	CU_ASSERT_STRING_EQUAL(err, "t: bad value '0' for -s\n");
	CU_ASSERT_EQUAL(parse(err, sizeof(err), "-s", "262145", NULL), -1);
	CU_ASSERT_EQUAL(parse(err, sizeof(err), "-s", "12x", NULL), -1);
	CU_ASSERT_EQUAL(parse(err, sizeof(err), "-s", "-1", NULL), -1);
	CU_ASSERT_EQUAL(parse(err, sizeof(err), "-C", "1001", NULL), -1);
	CU_ASSERT_STRING_EQUAL(err, "t: bad value '1001' for -C\n");
	CU_ASSERT_EQUAL(parse(err, sizeof(err), "-C", "18446744073709551615", NULL), -1);
	CU_ASSERT_EQUAL(parse(err, sizeof(err), "-B", "2K", NULL), -1);
	CU_ASSERT_EQUAL(parse(err, sizeof(err), "--odd", "4", NULL), -1);
	CU_ASSERT_STRING_EQUAL(err, "t: bad value '4' for -o\n");
	CU_ASSERT_EQUAL(parse(err, sizeof(err), "-x", NULL), -1);
	CU_ASSERT_EQUAL(parsed.snaplen, 0);
}

void register_options_tests(void)
{
	static const struct unit_test tests[] = {
		{ "getopt_spec", test_getopt_spec },
		{ "usage", test_usage },
		{ "spelling", test_spelling },
		{ "the table parses each type into its destination", test_parse_typed },
		{ "the table refuses a value out of its range", test_parse_refuses_out_of_range },
	};

	ADD_SUITE("options", tests);
}
