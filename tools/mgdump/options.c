// SPDX-License-Identifier: BSD-2-Clause
/* mgdump's options: one table parses them, prints --help and makes the man page. */
#include <pcap/pcap.h>
#include <pwd.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mgcap_netdev.h"
#include "mgdump.h"
#include "options.h"
#include "parse.h"

/* (-B's default is applied after the options: --per-queue refuses -B given) */
#define MGDUMP_BUFFER_DEFAULT (256ULL << 20)

struct mgdump_config cfg = { .snaplen = MGDUMP_SNAPLEN_MAX, .writer_cpu = -1, .tstamp = -1 };

/* -i: DEV, or mgcap:DEV (its capture started where nobody captures it) */
static int parse_device(const char *arg, void *dest)
{
	struct mgdump_config *c = dest;
	const char *dev = arg;
	size_t k;

	if (c->ndevs == MGCAP_MAX_DEVICES) {
		fprintf(stderr, "mgdump: more than %d devices (-i)\n", MGCAP_MAX_DEVICES);
		return -2;
	}
	if (!strncmp(dev, MGCAP_SOURCE_PREFIX, strlen(MGCAP_SOURCE_PREFIX))) {
		dev += strlen(MGCAP_SOURCE_PREFIX);
		c->mgcap_only[c->ndevs] = 1;
		if (mgcap_check_ifname(dev)) {
			fprintf(stderr, "mgdump: -i mgcap:DEV takes a device name, not '%s'\n", dev);
			return -2;
		}
	}
	for (k = 0; k < c->ndevs; k++) {
		if (!strcmp(c->devs[k], dev)) {
			fprintf(stderr, "mgdump: -i %s given twice\n", dev);
			return -2;
		}
	}
	c->devs[c->ndevs++] = dev;
	return 0;
}

/* --cpus: a comma-separated list of CPUs */
static int parse_cpus(const char *arg, void *dest)
{
	struct mgdump_config *c = dest;
	char *copy = strdup(arg), *tok, *save = NULL;
	uint32_t cpu;

	c->ncpus = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (mgcap_parse_u32(tok, 0, CPU_SETSIZE - 1, &cpu) || c->ncpus == MAX_READERS) {
			free(copy);
			return -1;
		}
		c->cpus[c->ncpus++] = (int)cpu;
	}
	free(copy);
	return c->ncpus ? 0 : -1;
}

static int parse_cpu(const char *arg, void *dest)
{
	uint32_t cpu;

	if (mgcap_parse_u32(arg, 0, CPU_SETSIZE - 1, &cpu))
		return -1;
	*(int *)dest = (int)cpu;
	return 0;
}

static int parse_tstamp(const char *arg, void *dest)
{
	int type = pcap_tstamp_type_name_to_val(arg);

	if (type != PCAP_TSTAMP_HOST && type != PCAP_TSTAMP_ADAPTER &&
	    type != PCAP_TSTAMP_ADAPTER_UNSYNCED)
		return -1;
	*(int *)dest = type;
	return 0;
}

/* --max-disk: bytes ("500G"), or a share of the file system ("80%") */
static int parse_max_disk(const char *arg, void *dest)
{
	struct mgdump_config *c = dest;
	size_t len = strlen(arg);
	uint32_t percent;

	if (len > 1 && arg[len - 1] == '%') {
		char number[8];

		if (len > sizeof(number))
			return -1;
		memcpy(number, arg, len - 1);
		number[len - 1] = '\0';
		if (mgcap_parse_u32(number, 1, 100, &percent))
			return -1;
		c->max_disk_percent = percent;
		return 0;
	}
	return mgcap_parse_size(arg, &c->max_disk_bytes) || !c->max_disk_bytes ? -1 : 0;
}

/* -s: 0 or more than libpcap keeps is the whole frame, as to tcpdump and dumpcap */
static int parse_snaplen(const char *arg, void *dest)
{
	uint32_t snaplen;

	if (mgcap_parse_u32(arg, 0, UINT32_MAX, &snaplen))
		return -1;
	*(uint32_t *)dest = !snaplen || snaplen > MGDUMP_SNAPLEN_MAX ? MGDUMP_SNAPLEN_MAX : snaplen;
	return 0;
}

static int parse_max_age(const char *arg, void *dest)
{
	return mgcap_parse_duration(arg, dest) || !*(uint64_t *)dest ? -1 : 0;
}

enum { OPT_CPUS = OPT_LONG_ONLY, OPT_WRITER_CPU, OPT_MERGED, OPT_TSTAMP, OPT_DURATION,
       OPT_MAX_DISK, OPT_MAX_AGE, OPT_STATS, OPT_PROMETHEUS, OPT_INDEX, OPT_PER_QUEUE };

static const struct tool_option mgdump_options[] = {
	{ 'i', "interface", "DEV", "DEV's mgcap queues, else the libpcap device; mgcap:DEV starts a capture; again for more",
	  .type = TOOL_OPT_FUNC, .dest = &cfg, .parse = parse_device },
	{ 'w', "write", "FILE", "the pcapng file to write, - for standard output",
	  .type = TOOL_OPT_STRING, .dest = &cfg.path },
	{ 'G', "rotate-seconds", "SECONDS", "a new file every SECONDS of the wall clock, aligned to its multiples; FILE through strftime(3)",
	  .type = TOOL_OPT_U32, .dest = &cfg.rotate_seconds, .min = 1, .max = 31622400 },
	{ 'C', "file-size", "MB", "a new file every MB million bytes: FILE, FILE1, FILE2, ...",
	  .type = TOOL_OPT_U64, .dest = &cfg.rotate_bytes, .min = 1, .max = 1000000,
	  .scale = 1000000 },	/* tcpdump's -C unit */
	{ 'W', "file-count", "N", "with -G, stop after N periods; with -C alone, keep at most N files, reusing their names",
	  .type = TOOL_OPT_U32, .dest = &cfg.keep, .min = 1, .max = 100000 },
	{ 'z', "postrotate", "COMMAND", "run COMMAND FILE for every finished file, one at a time",
	  .type = TOOL_OPT_STRING, .dest = &cfg.postrotate },
	{ OPT_MAX_DISK, "max-disk", "SIZE|N%", "keep this mgdump's files under SIZE (500G) or N % of their file system, removing the oldest",
	  .type = TOOL_OPT_FUNC, .dest = &cfg, .parse = parse_max_disk },
	{ OPT_MAX_AGE, "max-age", "AGE", "remove mgdump's files older than AGE (90s, 15m, 12h, 7d, 2w)",
	  .type = TOOL_OPT_FUNC, .dest = &cfg.max_age_s, .parse = parse_max_age },
	{ OPT_INDEX, "index", NULL, "an index beside each file, FILE.idx, for mgcap-extract(1)",
	  .type = TOOL_OPT_FLAG, .dest = &cfg.index },
	{ 's', "snaplen", "SNAPLEN", "bytes kept of each packet (default, and 0: all of it, 262144)",
	  .type = TOOL_OPT_FUNC, .dest = &cfg.snaplen, .parse = parse_snaplen },
	{ 'p', "no-promiscuous-mode", NULL, "leave the device out of promiscuous mode",
	  .type = TOOL_OPT_FLAG, .dest = &cfg.no_promisc },
	{ 'n', "numeric", NULL, "accepted, as tcpdump's -n: mgdump looks up no names",
	  .type = TOOL_OPT_FLAG, .dest = &cfg.numeric },
	{ 'Z', "relinquish-privileges", "USER", "once the capture is open, run as USER (its uid, gid and groups), as tcpdump's -Z",
	  .type = TOOL_OPT_STRING, .dest = &cfg.user },
	{ 'c', "count", "COUNT", "stop after COUNT packets",
	  .type = TOOL_OPT_U64, .dest = &cfg.count, .min = 1, .max = UINT32_MAX },
	{ OPT_DURATION, "duration", "SECONDS", "stop after SECONDS seconds",
	  .type = TOOL_OPT_U32, .dest = &cfg.duration_s, .min = 1, .max = 10000000 },
	{ 'B', "buffer-size", "MiB", "buffer between the readers and the writer, in MiB as dumpcap's -B (default 256)",
	  .type = TOOL_OPT_U64, .dest = &cfg.buffer_bytes, .min = 1, .max = 65536,
	  .scale = 1 << 20 },
	{ 'd', "decapsulate", NULL, "write the frame inside ERSPAN packets (types I, II, III)",
	  .type = TOOL_OPT_FLAG, .dest = &cfg.decap },
	{ OPT_CPUS, "cpus", "LIST", "CPUs for the reader threads, one per queue, round robin",
	  .type = TOOL_OPT_FUNC, .dest = &cfg, .parse = parse_cpus },
	{ OPT_WRITER_CPU, "writer-cpu", "N", "the CPU for the writer thread",
	  .type = TOOL_OPT_FUNC, .dest = &cfg.writer_cpu, .parse = parse_cpu },
	{ OPT_MERGED, "merged", NULL, "one interface a device, all in time-stamp order",
	  .type = TOOL_OPT_FLAG, .dest = &cfg.merged },
	{ OPT_PER_QUEUE, "per-queue", NULL, "each queue to a file of its own, FILE.DEV@N, as the kernel wrote it: no copy (see below)",
	  .type = TOOL_OPT_FLAG, .dest = &cfg.per_queue },
	{ OPT_TSTAMP, "tstamp", "TYPE", "time stamps: adapter, adapter_unsynced or host (see below)",
	  .type = TOOL_OPT_FUNC, .dest = &cfg.tstamp, .parse = parse_tstamp },
	{ 'q', "quiet", NULL, "no status line",
	  .type = TOOL_OPT_FLAG, .dest = &cfg.quiet },
	{ OPT_STATS, "stats", "FILE", "the counters as JSON in FILE, replaced every 5 s and at the end",
	  .type = TOOL_OPT_STRING, .dest = &cfg.stats_path },
	{ OPT_PROMETHEUS, "prometheus", "FILE", "the same in Prometheus' text format (node_exporter's textfile collector)",
	  .type = TOOL_OPT_STRING, .dest = &cfg.prometheus_path },
	TOOL_OPTION_HELP,
	TOOL_OPTION_VERSION,
	{ 0 },
};

static const struct tool_help mgdump_help = {
	.name = "mgdump",
	.synopsis = "-i DEV -w FILE|- [OPTION...] [FILTER...]",
	.summary = "Records every packet of a device to pcapng: one reader thread per receive\n"
		   "queue, a large buffer, one writer thread.  FILTER is a pcap-filter(7)\n"
		   "expression.",
	.options = mgdump_options,
	.notes = "Time stamps: adapter is the NIC's clock converted to system time, the\n"
		 "default where the NIC has a clock (PHC); adapter_unsynced is its raw time,\n"
		 "the default for other mgcap devices; host is the kernel's.  Each interface's\n"
		 "description says which it got, and its statistics what the conversion did.\n"
		 "\n"
		 "Several -i read several mgcap devices, such as the two ports of a tap: each\n"
		 "queue its own interface, or with --merged each device, and then all of them\n"
		 "in the order of their stamps (in system time with adapter stamps).\n"
		 "\n"
		 "Direction: an mgcap device's capture holds the frames it sends beside those\n"
		 "it receives (each in the interface of the queue numbered as its transmit\n"
		 "queue), but with adapter_unsynced stamps or after mgcap start DEV sent\n"
		 "off.  Each packet's block says which in its epb_flags, inbound or\n"
		 "outbound (tshark's frame.packet_flags_direction), mgcap-extract(1) keeps\n"
		 "them, and the summary, --stats and --prometheus count the sent apart.\n"
		 "Packets of another source, or taken out of ERSPAN (-d), have no flags.\n"
		 "\n"
		 "Files: each is written as FILE.part and renamed to FILE once complete\n"
		 "(synced, its statistics at the end), so every file under its name is whole;\n"
		 "a rotation never takes a name a file already has.  SIGHUP starts a new\n"
		 "file.  With -G, FILE may hold strftime(3) conversions, such as\n"
		 "eth0-%Y%m%d-%H%M%S.pcapng, in local time at the start of its period.\n"
		 "A full disk does not end the run: what has no room is dropped and counted\n"
		 "(the summary, --stats, the statistics blocks), a write is tried again each\n"
		 "second, and a file closed meanwhile is whole without its statistics; a ring\n"
		 "of files (-C with -W) removes the file it is replacing at once.  A disk\n"
		 "full before the first file starts is an error.\n"
		 "\n"
		 "One copy (--per-queue): each queue of each mgcap device to a file of its\n"
		 "own, FILE with .DEV@N put before its extension, or .DEV@N.pcapng after a\n"
		 "name without one (cap.pcapng or cap: cap.eth0@2.pcapng), each with a thread\n"
		 "of its own.  The kernel writes each frame once, into the queue's ring, as\n"
		 "the enhanced packet block the file holds, with the stamp the file records\n"
		 "(adapter stamps converted to system time by the kernel, on a line the\n"
		 "thread renews from the NIC's clock every 0.1 s); the thread has the module\n"
		 "write the ring's pages to the file as they lie in it, from the ring's own\n"
		 "memory, with O_DIRECT where the file system takes it (not tmpfs before\n"
		 "Linux 6.6), several writes in flight (io_uring), each page given back to\n"
		 "the ring once written.  Nothing in user space copies a packet's bytes\n"
		 "(--index reads their headers).  A page holds filler blocks where the blocks\n"
		 "leave it (a type pcapng's readers skip), so the files are whole pages; a\n"
		 "quiet queue's packets reach the disk within a second.  The ring is the only\n"
		 "buffer (-B is refused): size it for the bursts the disk does not take at\n"
		 "once (mgcap start DEV ring-size SIZE).  -C keeps each file within its size;\n"
		 "-G, -W, SIGHUP, -z, --index (beside each file), --max-disk, --max-age (over\n"
		 "every queue's files), --stats, --prometheus and the service's watchdog work\n"
		 "as below; -w -, --merged, -c, -d, -B, --writer-cpu and a filter expression\n"
		 "do not go with it.  A full disk ends a queue's file at its last whole\n"
		 "block, and what comes is dropped and counted until there is room.\n"
		 "mergecap(1) makes the queues' files one, in time order; mgcap-extract(1)\n"
		 "reads them, by their indexes, in time order.\n"
		 "\n"
		 "With --index, FILE.idx beside each file says where each tenth of a second\n"
		 "and each flow is in it, so that mgcap-extract(1) finds a time range and a\n"
		 "filter's packets reading only the parts of the files that may hold them.\n"
		 "It costs the writer 64 to 70 instructions a packet (one flow, a thousand\n"
		 "in turn): 8 to 9 % more than the rest of a 64-byte packet's recording,\n"
		 "which is why it is asked for.\n"
		 "\n"
		 "Privileges: once its capture is open, mgdump lets go of every capability\n"
		 "but CAP_NET_ADMIN, kept where it took a NIC's time stamping for adapter\n"
		 "stamps, to give it back at the end; as root with -Z, it runs as USER from\n"
		 "then on, its files and their -z commands too (a member of the group\n"
		 "mgcap, to give the stamping back: another leaves it to mgcap hwtstamp DEV\n"
		 "restore).  -z commands and the removal of old files get no capability.\n"
		 "\n"
		 "Exit status: 0 when it stopped as asked (-c, -W with -G, --duration,\n"
		 "SIGINT, SIGTERM), 1 when capturing or writing failed, 2 for bad arguments.",
};

/* A CPU given with --cpus or --writer-cpu must be one this process may use. */
static int check_cpu(int cpu, const char *option)
{
	cpu_set_t allowed;

	if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0 && CPU_ISSET(cpu, &allowed))
		return 0;
	fprintf(stderr, "mgdump: CPU %d (%s) is not available to this process\n", cpu, option);
	return -1;
}

/* The operands: the filter expression, its words joined by spaces. */
static int join_filter(int argc, char **argv, int first)
{
	static char filter[4096];
	size_t used = 0;
	int i;

	filter[0] = '\0';
	for (i = first; i < argc; i++) {
		int n = snprintf(filter + used, sizeof(filter) - used, "%s%s", used ? " " : "",
				 argv[i]);

		if (n < 0 || (size_t)n >= sizeof(filter) - used) {
			fprintf(stderr, "mgdump: filter too long\n");
			return -1;
		}
		used += (size_t)n;
	}
	cfg.filter = filter[0] ? filter : NULL;
	return 0;
}

/*
 * tcpdump's and dumpcap's options that mean something else here, or
 * nothing: refused with what to type instead.
 */
static const struct {
	const char *option, *instead;
} foreign_options[] = {
	{ "-F", "mgdump writes pcapng; give the filter after the options: mgdump -i DEV -w FILE 'tcp port 80'" },
	{ "-r", "mgdump records; to read a file: tcpdump -r FILE, or mgcap-extract FILE" },
	{ "-b", "for dumpcap's ring buffer: -C MB (file size), -G SECONDS (duration), -W N (files)" },
	{ "-a", "for dumpcap's autostop: -c COUNT, --duration SECONDS, -C MB -W 1" },
	{ "-P", "mgdump writes pcapng only" },
	{ "-K", "mgdump does not check checksums; it records frames as they came" },
	{ "-y", "mgdump records each device's own link type" },
	{ "-j", "mgdump's time stamps: --tstamp adapter, adapter_unsynced or host" },
};

static int refuse_foreign(int argc, char **argv)
{
	size_t k;
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		for (k = 0; k < sizeof(foreign_options) / sizeof(foreign_options[0]); k++)
			if (!strcmp(argv[i], foreign_options[k].option)) {
				fprintf(stderr, "mgdump: %s is not mgdump's: %s\n", argv[i],
					foreign_options[k].instead);
				return -1;
			}
	return 0;
}

/* What does not go with --per-queue: refused, by name, with why. */
static int refuse_with_per_queue(void)
{
	const char *what = !strcmp(cfg.path, "-") ?
		"-w -: --per-queue writes a file for each queue" : cfg.merged ?
		"--merged makes one file, in time order; --per-queue a file for each queue" :
		cfg.decap ? "-d takes frames apart, which one copy cannot: it goes without --per-queue" :
		cfg.count ? "-c counts in one order, which the queues' files do not have: "
			    "--duration ends a run of --per-queue" :
		cfg.writer_cpu >= 0 ? "--writer-cpu: --per-queue's writers are its queues' threads, "
				      "placed by --cpus" :
		cfg.buffer_bytes ? "-B: --per-queue writes from the rings, its only buffer: size "
				   "them (mgcap start DEV ring-size SIZE)" :
		cfg.filter ? "a filter expression does not go with --per-queue: the kernel's filter "
			     "lets a frame whose VLAN tag the NIC took out through unjudged, and one "
			     "copy has no filter of its own to judge it" : NULL;

	if (!what)
		return 0;
	fprintf(stderr, "mgdump: %s\n", what);
	return -1;
}

int mgdump_parse_args(int argc, char **argv)
{
	int first, i;

	if (refuse_foreign(argc, argv))
		return -1;
	first = tool_parse_options(argc, argv, &mgdump_help);
	if (first < 0)
		return -1;
	if (!cfg.ndevs || !cfg.path) {
		fprintf(stderr, "mgdump: %s\n",
			!cfg.ndevs ? "no device (-i DEV)" : "no output (-w FILE or -w -)");
		return -1;
	}
	if (cfg.keep && !cfg.rotate_bytes && !cfg.rotate_seconds) {
		fprintf(stderr, "mgdump: -W needs -C or -G\n");
		return -1;
	}
	if ((cfg.rotate_bytes || cfg.rotate_seconds || cfg.postrotate || cfg.max_disk_bytes ||
	     cfg.max_disk_percent || cfg.max_age_s || cfg.index) && !strcmp(cfg.path, "-")) {
		fprintf(stderr, "mgdump: %s writes files, not standard output\n",
			cfg.postrotate ? "-z" : cfg.rotate_seconds ? "-G" : cfg.rotate_bytes ? "-C" :
			cfg.index ? "--index" : cfg.max_age_s ? "--max-age" : "--max-disk");
		return -1;
	}
	if ((cfg.max_disk_bytes || cfg.max_disk_percent || cfg.max_age_s) &&
	    !cfg.rotate_bytes && !cfg.rotate_seconds) {
		fprintf(stderr, "mgdump: %s needs files to remove: -C or -G\n",
			cfg.max_age_s ? "--max-age" : "--max-disk");
		return -1;
	}
	if (cfg.max_disk_bytes && cfg.rotate_bytes && cfg.max_disk_bytes < 2 * cfg.rotate_bytes) {
		fprintf(stderr, "mgdump: --max-disk below two -C files would remove each file as it "
			"is finished\n");
		return -1;
	}
	if ((cfg.max_disk_bytes || cfg.max_disk_percent || cfg.max_age_s) &&
	    strpbrk(cfg.path, "\n\r")) {
		fprintf(stderr, "mgdump: a file name with a line break cannot be listed for "
			"--max-disk or --max-age\n");
		return -1;
	}
	if (cfg.keep && cfg.rotate_bytes && !cfg.rotate_seconds &&
	    (cfg.max_disk_bytes || cfg.max_disk_percent || cfg.max_age_s)) {
		fprintf(stderr, "mgdump: -W keeps a ring of files; --max-disk and --max-age go with -G "
			"or -C alone\n");
		return -1;
	}
	if (cfg.user && !getpwnam(cfg.user)) {
		fprintf(stderr, "mgdump: -Z %s: no such user\n", cfg.user);
		return -1;
	}
	if (join_filter(argc, argv, first))
		return -1;
	if (cfg.per_queue && refuse_with_per_queue())
		return -1;
	if (!cfg.buffer_bytes)
		cfg.buffer_bytes = MGDUMP_BUFFER_DEFAULT;
	for (i = 0; i < cfg.ncpus; i++)
		if (check_cpu(cfg.cpus[i], "--cpus"))
			return -1;
	if (cfg.writer_cpu >= 0 && check_cpu(cfg.writer_cpu, "--writer-cpu"))
		return -1;
	return 0;
}
