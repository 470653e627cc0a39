// SPDX-License-Identifier: BSD-2-Clause
/*
 * mgcap-extract: the packets of a time range that a filter takes, out of the
 * files mgdump wrote, as one pcapng in time order.  Where a file has its
 * index (capindex.h), only the spans that may hold such packets are read:
 * those whose stamps meet the range and that hold a flow the filter may
 * take (flowkey_filter()); every packet read is then judged by the range
 * and the filter itself, so what comes out is what a whole scan finds.
 * Its parts: extract.h.
 */
#include <inttypes.h>

#include "extract.h"
#include "extract_time.h"
#include "options.h"

static struct extract run = { .to_ns = UINT64_MAX, .memory = 256ULL << 20 };

static int parse_time(const char *arg, void *dest)
{
	return extract_parse_time(arg, dest);
}

/* -r: one more directory or file */
static int add_input(const char *arg, void *dest)
{
	struct extract *x = dest;

	if (x->ninputs == sizeof(x->inputs) / sizeof(x->inputs[0])) {
		fprintf(stderr, "mgcap-extract: more than %zu -r\n", x->ninputs);
		return -2;
	}
	x->inputs[x->ninputs++] = arg;
	return 0;
}

enum { OPT_FROM = OPT_LONG_ONLY, OPT_TO, OPT_NO_INDEX, OPT_MEMORY };

static const struct tool_option extract_options[] = {
	{ 'r', "read", "DIR|FILE", "mgdump's files in DIR, or FILE; again for more",
	  .type = TOOL_OPT_FUNC, .dest = &run, .parse = add_input },
	{ 'w', "write", "FILE", "the pcapng file to write, - for standard output",
	  .type = TOOL_OPT_STRING, .dest = &run.out },
	{ OPT_FROM, "from", "TIME", "packets stamped at TIME or later (see below)",
	  .type = TOOL_OPT_FUNC, .dest = &run.from_ns, .parse = parse_time },
	{ OPT_TO, "to", "TIME", "packets stamped before TIME",
	  .type = TOOL_OPT_FUNC, .dest = &run.to_ns, .parse = parse_time },
	{ OPT_NO_INDEX, "no-index", NULL, "read every file whole, as if none had an index",
	  .type = TOOL_OPT_FLAG, .dest = &run.no_index },
	{ OPT_MEMORY, "memory", "SIZE", "memory for the packets' order (256M, 1M at least); past "
	  "it, a temporary file", .type = TOOL_OPT_SIZE, .dest = &run.memory,
	  .min = EXTRACT_MERGE_BUDGET_MIN, .max = UINT64_MAX },
	{ 'q', "quiet", NULL, "no summary",
	  .type = TOOL_OPT_FLAG, .dest = &run.quiet },
	TOOL_OPTION_HELP,
	TOOL_OPTION_VERSION,
	{ 0 },
};

static const struct tool_help extract_help = {
	.name = "mgcap-extract",
	.synopsis = "-r DIR|FILE -w FILE|- [--from TIME] [--to TIME] [FILTER...]",
	.summary = "Writes the packets of mgdump's files that were stamped in a time range and\n"
		   "that FILTER (a pcap-filter(7) expression) takes, as one pcapng file in\n"
		   "time order.  Where a file has its index (FILE.idx), only the parts of it\n"
		   "that may hold such packets are read.",
	.options = extract_options,
	.notes = "TIME: seconds since the epoch (1764000000.25), or a date and time in\n"
		 "local time, 2026-11-24T10:00:00, with a fraction of a second if wanted and\n"
		 "Z for UTC.\n"
		 "\n"
		 "Files: every regular file in DIR that is pcapng (its index, .part and\n"
		 "others are passed over).  A file without its index, or whose index is not\n"
		 "its own, is read whole.  The summary, on standard error, says how many\n"
		 "bytes were read against the files' whole size.\n"
		 "\n"
		 "The packets found are put in time order in memory, up to --memory; past\n"
		 "it, they are sorted in runs through a temporary file in $TMPDIR\n"
		 "(/var/tmp without it), as large as what is found, and the runs merged.\n"
		 "\n"
		 "Exit status: 0 when the packets were written, 1 when reading or writing\n"
		 "failed, 2 for bad arguments.",
};

int main(int argc, char **argv)
{
	int first = tool_parse_options(argc, argv, &extract_help), i;
	size_t len = 0;

	if (first < 0)
		return 2;
	if (!run.ninputs || !run.out) {
		fprintf(stderr, "mgcap-extract: %s is needed (see --help)\n", run.ninputs ? "-w" : "-r");
		return 2;
	}
	if (run.from_ns >= run.to_ns) {
		fprintf(stderr, "mgcap-extract: --from is not before --to\n");
		return 2;
	}
	for (i = first; i < argc; i++)
		len += strlen(argv[i]) + 1;
	if (len) {
		run.filter_text = calloc(1, len);
		if (!run.filter_text)
			return 1;
		for (i = first; i < argc; i++) {
			strcat(run.filter_text, argv[i]);
			if (i + 1 < argc)
				strcat(run.filter_text, " ");
		}
		/* a bad filter said before anything is read */
		extract_filter_for(&run, DLT_EN10MB);
	}
	run.found = extract_needed(extract_merge_new(run.memory < SIZE_MAX ? (size_t)run.memory
									  : SIZE_MAX));
	for (i = 0; i < (int)run.ninputs; i++)
		extract_read_input(&run, run.inputs[i]);
	extract_write_output(&run);
	if (!run.quiet) {
		double read = run.bytes_all ? 100.0 * (double)run.bytes_read / (double)run.bytes_all
					    : 0.0;

		fprintf(stderr, "mgcap-extract: %zu packets from %" PRIu64 " files (%" PRIu64
			" by their index); read %" PRIu64 " bytes of %" PRIu64 " (%.3f %%)",
			run.npackets, run.files, run.files_indexed, run.bytes_read, run.bytes_all,
			read);
		if (extract_merge_runs(run.found))
			fprintf(stderr, "; put in order in %zu runs through a temporary file",
				extract_merge_runs(run.found));
		fputc('\n', stderr);
	}
	extract_merge_free(run.found);
	free(run.filter_text);
	return 0;
}
