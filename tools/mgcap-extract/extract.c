// SPDX-License-Identifier: BSD-2-Clause
/*
 * mgcap-extract: the packets of a time range that a filter takes, out of the
 * files mgdump wrote, as one pcapng in time order.  Where a file has its
 * index (capindex.h), only the spans that may hold such packets are read:
 * those whose stamps meet the range and that hold a flow the filter may
 * take (flowkey_filter()); every packet read is then judged by the range
 * and the filter itself, so what comes out is what a whole scan finds.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "capindex.h"
#include "extract_merge.h"
#include "extract_time.h"
#include "flowkey.h"
#include "options.h"
#include "pcapng.h"

#define IFS_MAX		256
#define SNAPLEN_MAX	EXTRACT_MERGE_CAPLEN_MAX	/* as much as pcapng readers take of a packet */

static struct {
	const char *inputs[1024];
	size_t ninputs;
	const char *out;
	uint64_t from_ns, to_ns;
	uint64_t memory;
	int no_index, quiet;
} cfg = { .to_ns = UINT64_MAX, .memory = 256ULL << 20 };

/* the output's interfaces: each file's, by name, link type and snaplen */
static struct pcapng_idb_info out_ifs[IFS_MAX];
static size_t nout_ifs;

/* the packets found, until they are written in time order */
static struct extract_merge *found;
static size_t npackets;

/* what was read, against what a whole scan reads */
static uint64_t bytes_read, bytes_all, files, files_indexed;

static char *filter_text;
/* the filter, compiled for each link type met (and for Ethernet, for the flows) */
static struct compiled {
	int linktype;
	struct bpf_program prog;
} compiled[16];
static size_t ncompiled;

/* @p, or the end of the run when there was no memory for it */
static void *needed(void *p)
{
	if (!p) {
		fprintf(stderr, "mgcap-extract: out of memory\n");
		exit(1);
	}
	return p;
}

static const struct bpf_program *filter_for(int linktype)
{
	struct compiled *c;
	pcap_t *dead;
	size_t i;

	for (i = 0; i < ncompiled; i++)
		if (compiled[i].linktype == linktype)
			return &compiled[i].prog;
	if (ncompiled == sizeof(compiled) / sizeof(compiled[0])) {
		fprintf(stderr, "mgcap-extract: files of more than %zu link types\n", ncompiled);
		exit(1);
	}
	c = &compiled[ncompiled];
	dead = pcap_open_dead(linktype, SNAPLEN_MAX);
	if (!dead || pcap_compile(dead, &c->prog, filter_text ? filter_text : "", 1,
				  PCAP_NETMASK_UNKNOWN)) {
		fprintf(stderr, "mgcap-extract: bad filter '%s' for link type %s: %s\n",
			filter_text ? filter_text : "",
			pcap_datalink_val_to_name(linktype) ? pcap_datalink_val_to_name(linktype) : "?",
			dead ? pcap_geterr(dead) : "out of memory");
		exit(2);
	}
	pcap_close(dead);
	c->linktype = linktype;
	ncompiled++;
	return &c->prog;
}

static int parse_time(const char *arg, void *dest)
{
	return extract_parse_time(arg, dest);
}

/* -r: one more directory or file */
static int add_input(const char *arg, void *dest)
{
	(void)dest;
	if (cfg.ninputs == sizeof(cfg.inputs) / sizeof(cfg.inputs[0])) {
		fprintf(stderr, "mgcap-extract: more than %zu -r\n", cfg.ninputs);
		return -2;
	}
	cfg.inputs[cfg.ninputs++] = arg;
	return 0;
}

enum { OPT_FROM = OPT_LONG_ONLY, OPT_TO, OPT_NO_INDEX, OPT_MEMORY };

static const struct tool_option extract_options[] = {
	{ 'r', "read", "DIR|FILE", "mgdump's files in DIR, or FILE; again for more",
	  .type = TOOL_OPT_FUNC, .parse = add_input },
	{ 'w', "write", "FILE", "the pcapng file to write, - for standard output",
	  .type = TOOL_OPT_STRING, .dest = &cfg.out },
	{ OPT_FROM, "from", "TIME", "packets stamped at TIME or later (see below)",
	  .type = TOOL_OPT_FUNC, .dest = &cfg.from_ns, .parse = parse_time },
	{ OPT_TO, "to", "TIME", "packets stamped before TIME",
	  .type = TOOL_OPT_FUNC, .dest = &cfg.to_ns, .parse = parse_time },
	{ OPT_NO_INDEX, "no-index", NULL, "read every file whole, as if none had an index",
	  .type = TOOL_OPT_FLAG, .dest = &cfg.no_index },
	{ OPT_MEMORY, "memory", "SIZE", "memory for the packets' order (256M, 1M at least); past "
	  "it, a temporary file", .type = TOOL_OPT_SIZE, .dest = &cfg.memory,
	  .min = EXTRACT_MERGE_BUDGET_MIN, .max = UINT64_MAX },
	{ 'q', "quiet", NULL, "no summary",
	  .type = TOOL_OPT_FLAG, .dest = &cfg.quiet },
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


/* --- reading ------------------------------------------------------------------ */

struct input {
	const char *path;
	uint32_t number;		/* among the files met: ties of stamps go by it */
	int fd;
	uint64_t size;
	uint32_t out_ifid[IFS_MAX];	/* by the file's interface number */
	int linktype[IFS_MAX];
	uint64_t units_per_s[IFS_MAX];
	size_t nifs;
	uint64_t header_end;		/* where the first packet (or other block) is */
};

static void read_fully(struct input *in, uint8_t *buf, uint64_t offset, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(in->fd, buf + done, len - done, (off_t)(offset + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "mgcap-extract: %s: %s at byte %" PRIu64 "\n", in->path,
				n < 0 ? strerror(errno) : "cut short", offset + done);
			exit(1);
		}
		done += (size_t)n;
	}
	bytes_read += len;
}

static uint32_t out_interface(const struct pcapng_idb_info *info)
{
	size_t i;

	for (i = 0; i < nout_ifs; i++)
		if (!strcmp(out_ifs[i].name, info->name) && out_ifs[i].linktype == info->linktype &&
		    out_ifs[i].snaplen == info->snaplen)
			return (uint32_t)i;
	if (nout_ifs == IFS_MAX) {
		fprintf(stderr, "mgcap-extract: more than %d interfaces\n", IFS_MAX);
		exit(1);
	}
	out_ifs[nout_ifs] = *info;
	return (uint32_t)nout_ifs++;
}

/*
 * The section header and interface blocks at the start of the file: 0, or
 * -1 when it is not pcapng (nothing said; the caller passes it over).
 */
static int read_header(struct input *in)
{
	uint8_t head[12], *block;
	uint64_t at = 0;

	if (in->size < 28)
		return -1;
	read_fully(in, head, 0, 12);
	if (pcapng_block_len(head) < 28 || pcapng_block_len(head) > in->size)
		return -1;
	{
		uint32_t magic;

		memcpy(&magic, head + 8, 4);
		if (pcapng_block_type(head) != PCAPNG_SHB_TYPE)
			return -1;
		if (magic != PCAPNG_BYTE_ORDER_MAGIC) {
			fprintf(stderr, "mgcap-extract: %s: pcapng of the other byte order, not "
				"mgdump's: passed over\n", in->path);
			return -1;
		}
	}
	at = pcapng_block_len(head);
	for (;;) {
		uint32_t len;

		if (at + 8 > in->size)
			break;
		read_fully(in, head, at, 8);
		len = pcapng_block_len(head);
		if (pcapng_block_type(head) != PCAPNG_IDB_TYPE)
			break;
		if (len < 20 || len > 65536 || at + len > in->size || in->nifs == IFS_MAX) {
			fprintf(stderr, "mgcap-extract: %s: a bad interface block at byte %" PRIu64 "\n",
				in->path, at);
			exit(1);
		}
		block = needed(malloc(len));
		read_fully(in, block, at, len);
		{
			struct pcapng_idb_info info;

			if (pcapng_idb_read(block, len, &info)) {
				fprintf(stderr, "mgcap-extract: %s: a bad interface block at byte %" PRIu64
					"\n", in->path, at);
				exit(1);
			}
			in->out_ifid[in->nifs] = out_interface(&info);
			in->linktype[in->nifs] = info.linktype;
			in->units_per_s[in->nifs] = info.units_per_s;
			in->nifs++;
		}
		free(block);
		at += len;
	}
	in->header_end = at;
	return 0;
}

/* the order's failure (errno set): said, and the end of the run */
static void merge_failed(const char *doing)
{
	if (errno == ENOMEM)
		fprintf(stderr, "mgcap-extract: out of memory\n");
	else
		fprintf(stderr, "mgcap-extract: %s in %s: %s\n", doing, extract_merge_dir(),
			strerror(errno));
	exit(1);
}

/* the packet at @epb, at @offset in its file, stamped @ts_ns: found */
static void keep(const struct input *in, const uint8_t *epb, uint64_t offset, uint64_t ts_ns)
{
	struct extract_packet p = {
		.ts_ns = ts_ns,
		.offset = offset,
		.file = in->number,
		.ifid = in->out_ifid[pcapng_epb_ifid(epb)],
		.caplen = pcapng_epb_caplen(epb),
		.wirelen = pcapng_epb_wirelen(epb),
	};

	p.caplen = p.caplen < SNAPLEN_MAX ? p.caplen : SNAPLEN_MAX;
	if (extract_merge_add(found, &p, epb + PCAPNG_EPB_DATA))
		merge_failed("sorting through a temporary file");
}


/* a stamp in an interface's units, in ns (saturating: a stamp past 2554 is late enough) */
static uint64_t to_ns(uint64_t ts, uint64_t units_per_s)
{
	if (units_per_s == 1000000000ULL)
		return ts;
	if (units_per_s < 1000000000ULL && 1000000000ULL % units_per_s == 0) {
		uint64_t scale = 1000000000ULL / units_per_s;

		return ts > UINT64_MAX / scale ? UINT64_MAX : ts * scale;
	}
	return (uint64_t)((long double)ts * 1e9L / (long double)units_per_s);
}

/* The packets of @len bytes of whole blocks read at @offset: each judged by the range and filter. */
static void judge_blocks(const struct input *in, const uint8_t *buf, size_t len, uint64_t offset)
{
	size_t at = 0;

	while (at + 12 <= len) {
		uint32_t blen = pcapng_block_len(buf + at);

		if (blen < 12 || blen % 4 || blen > len - at) {
			fprintf(stderr, "mgcap-extract: %s: a bad block at byte %" PRIu64 "\n", in->path,
				offset + at);
			exit(1);
		}
		if (pcapng_block_type(buf + at) == PCAPNG_EPB_TYPE) {
			const uint8_t *epb = buf + at;
			uint32_t ifid = pcapng_epb_ifid(epb), caplen = pcapng_epb_caplen(epb);
			uint64_t ts;
			struct pcap_pkthdr h;

			if (blen < PCAPNG_EPB_DATA + 4 || caplen > blen - PCAPNG_EPB_DATA - 4 ||
			    ifid >= in->nifs) {
				fprintf(stderr, "mgcap-extract: %s: a bad packet block at byte %" PRIu64
					"\n", in->path, offset + at);
				exit(1);
			}
			ts = to_ns(pcapng_epb_ts(epb), in->units_per_s[ifid]);
			h.caplen = caplen;
			h.len = pcapng_epb_wirelen(epb);
			h.ts.tv_sec = 0;
			h.ts.tv_usec = 0;
			if (ts >= cfg.from_ns && ts < cfg.to_ns &&
			    pcap_offline_filter(filter_for(in->linktype[ifid]), &h,
						epb + PCAPNG_EPB_DATA))
				keep(in, epb, offset + at, ts);
		}
		at += blen;
	}
}

/* what a whole scan reads: the file from its first packet on */
static void read_whole(struct input *in)
{
	uint64_t at = in->header_end;
	size_t cap = 4 << 20;
	uint8_t *buf = needed(malloc(cap));

	while (at < in->size) {
		size_t len = in->size - at < cap ? (size_t)(in->size - at) : cap, whole;

		read_fully(in, buf, at, len);
		whole = pcapng_whole_blocks(buf, len, 0, NULL);
		if (!whole) {
			uint32_t blen = len >= 8 ? pcapng_block_len(buf) : 0;

			/* a block longer than the buffer: a buffer of its size */
			if (blen <= cap || blen > in->size - at || blen > (1U << 30)) {
				fprintf(stderr, "mgcap-extract: %s: a bad block at byte %" PRIu64 "\n",
					in->path, at);
				exit(1);
			}
			bytes_read -= len;
			free(buf);
			cap = blen;
			buf = needed(malloc(cap));
			continue;
		}
		judge_blocks(in, buf, whole, at);
		bytes_read -= len - whole;	/* (read again at the next turn) */
		at += whole;
	}
	free(buf);
}

/* whether a span of @idx may hold packets of the range the filter takes */
static int span_wanted(const struct capindex_span *s, const char *flow_maybe, int all_ns)
{
	uint32_t i;

	if (all_ns && (s->last_ns < cfg.from_ns || s->first_ns >= cfg.to_ns))
		return 0;
	if (!flow_maybe || s->flags & CAPINDEX_SPAN_F_UNINDEXED)
		return 1;
	for (i = 0; i < s->nflows; i++)
		if (flow_maybe[capindex_span_flows(s)[i]])
			return 1;
	return 0;
}

/*
 * The spans of the file that may hold what is asked, read (runs of them
 * that touch, at once) and judged.
 */
static void read_by_index(struct input *in, const struct capindex *idx)
{
	const struct bpf_program *eth = NULL;
	char *flow_maybe = NULL;
	uint8_t *buf = NULL;
	size_t i, j, cap = 0;
	int all_ns = 1, all_ethernet = 1;

	for (i = 0; i < in->nifs; i++) {
		all_ns &= in->units_per_s[i] == 1000000000ULL;
		all_ethernet &= in->linktype[i] == DLT_EN10MB;
	}
	/* (a span with another link type's packets is marked, and read whatever is asked) */
	if (filter_text && all_ethernet) {
		eth = filter_for(DLT_EN10MB);
		flow_maybe = needed(malloc(idx->nflows + 1));
		for (i = 0; i < idx->nflows; i++)
			flow_maybe[i] = flowkey_filter(eth->bf_insns, eth->bf_len, idx->flows[i]) != 0;
	}
	for (i = 0; i < idx->nspans; i = j) {
		const struct capindex_span *s = idx->spans[i];
		uint64_t start = s->offset, end = s->offset + s->length;

		j = i + 1;
		if (!span_wanted(s, flow_maybe, all_ns))
			continue;
		if (end > in->size || start < in->header_end) {
			fprintf(stderr, "mgcap-extract: %s: its index points out of it\n", in->path);
			exit(1);
		}
		/* the wanted spans that follow it in the file, read with it */
		while (j < idx->nspans && idx->spans[j]->offset == end &&
		       span_wanted(idx->spans[j], flow_maybe, all_ns) &&
		       end + idx->spans[j]->length <= in->size && end - start < (64U << 20))
			end += idx->spans[j++]->length;
		if (end - start > cap) {
			cap = (size_t)(end - start);
			free(buf);
			buf = needed(malloc(cap));
		}
		read_fully(in, buf, start, (size_t)(end - start));
		if (pcapng_whole_blocks(buf, (size_t)(end - start), 0, NULL) != end - start) {
			fprintf(stderr, "mgcap-extract: %s: its index points into a block\n", in->path);
			exit(1);
		}
		judge_blocks(in, buf, (size_t)(end - start), start);
	}
	free(buf);
	free(flow_maybe);
}

/*
 * The index of the file at @path (@size bytes), if it has its own: 0 with
 * @idx loaded, 1 when the file is to be read whole, 2 when the index says
 * that nothing in the file is of the time range (only its end was read).
 */
static int file_index(const char *path, uint64_t size, struct capindex *idx)
{
	char name[4200], err[4400];
	struct capindex_end end;
	int rc;

	if (cfg.no_index)
		return 1;
	snprintf(name, sizeof(name), "%s%s", path, CAPINDEX_SUFFIX);
	rc = capindex_load_end(name, &end, err, sizeof(err));
	if (rc == 0 && end.file_bytes != size) {
		snprintf(err, sizeof(err), "%s is of another file (%" PRIu64 " bytes, not %" PRIu64
			 ")", name, end.file_bytes, size);
		rc = -1;
	}
	if (rc == 0) {
		bytes_read += sizeof(struct capindex_header) + sizeof(end);
		if (!end.packets || end.last_ns < cfg.from_ns || end.first_ns >= cfg.to_ns)
			return 2;
		rc = capindex_load(name, idx, err, sizeof(err));
		if (rc == 0 && idx->end.file_bytes != size) {
			capindex_release(idx);
			snprintf(err, sizeof(err), "%s changed while read", name);
			rc = -1;
		}
	}
	if (rc < 0)
		fprintf(stderr, "mgcap-extract: %s; reading %s whole\n", err, path);
	return rc ? 1 : 0;
}

/* @in's file opened, *@st its status */
static void open_input(struct input *in, struct stat *st)
{
	in->fd = open(in->path, O_RDONLY | O_CLOEXEC);
	if (in->fd < 0 || fstat(in->fd, st)) {
		fprintf(stderr, "mgcap-extract: %s: %s\n", in->path, strerror(errno));
		exit(1);
	}
	in->size = (uint64_t)st->st_size;
}

/* whether @path still names the file of status @st */
static int still_named(const char *path, const struct stat *st)
{
	struct stat now;

	return !stat(path, &now) && now.st_ino == st->st_ino && now.st_dev == st->st_dev;
}

static void read_file(const char *path)
{
	static uint32_t files_met;
	struct input in = { .path = path, .number = files_met++ };
	struct capindex idx;
	struct stat st;
	int rc, tries;

	/*
	 * A -W ring may have put a new file and its index under the name
	 * since it was opened: the index is the new one's, not this one's.
	 * Tried again twice; then the file is read whole.
	 */
	for (tries = 0;; tries++) {
		open_input(&in, &st);
		rc = S_ISREG(st.st_mode) ? file_index(path, in.size, &idx) : -1;
		if ((rc != 0 && rc != 2) || still_named(path, &st))
			break;
		if (rc == 0)
			capindex_release(&idx);
		close(in.fd);
		if (tries == 2) {
			open_input(&in, &st);
			rc = 1;
			break;
		}
	}
	if (rc == 2) {
		/* (mgdump's, by its index: what a whole scan reads, this passes by) */
		files++;
		files_indexed++;
		bytes_all += in.size;
		close(in.fd);
		return;
	}
	if (rc < 0 || read_header(&in)) {
		if (rc == 0)
			capindex_release(&idx);
		close(in.fd);
		return;
	}
	files++;
	bytes_all += in.size;
	if (rc == 0) {
		files_indexed++;
		bytes_read += idx.bytes;
		read_by_index(&in, &idx);
		capindex_release(&idx);
	} else {
		read_whole(&in);
	}
	close(in.fd);
}

static int is_sibling(const char *name)
{
	static const char *const suffixes[] = { CAPINDEX_SUFFIX, ".part" };
	size_t i, len = strlen(name);

	for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t n = strlen(suffixes[i]);

		if (len >= n && !strcmp(name + len - n, suffixes[i]))
			return 1;
	}
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int not_hidden(const struct dirent *d)
{
	return d->d_name[0] != '.' && !is_sibling(d->d_name);
}

static void read_input(const char *path)
{
	struct dirent **names;
	struct stat st;
	int n, i;

	if (stat(path, &st)) {
		fprintf(stderr, "mgcap-extract: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	if (!S_ISDIR(st.st_mode)) {
		read_file(path);
		return;
	}
	n = scandir(path, &names, not_hidden, by_name);
	if (n < 0) {
		fprintf(stderr, "mgcap-extract: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	for (i = 0; i < n; i++) {
		char file[4200];

		snprintf(file, sizeof(file), "%s/%s", path, names[i]->d_name);
		read_file(file);
		free(names[i]);
	}
	free(names);
}

/* --- writing ------------------------------------------------------------------ */

/* the output not written, @why: said, and no file cut short left under its name */
static void output_failed(FILE *f, const char *why)
{
	fprintf(stderr, "mgcap-extract: %s: %s\n", cfg.out, why);
	if (f != stdout)
		unlink(cfg.out);
	exit(1);
}

static void put(FILE *f, const uint8_t *p, size_t len)
{
	if (fwrite(p, 1, len, f) != len)
		output_failed(f, strerror(errno));
}

/* the output, and its interfaces' numbers there: each numbered as first used */
struct output {
	FILE *f;
	uint32_t numbered[IFS_MAX];
	uint32_t next;
};

/*
 * A packet in its turn, after its interface's block if it is the first of
 * it: what files were read (which the index decides) does not show.
 */
static int write_packet(const struct extract_packet *p, const uint8_t *data, void *arg)
{
	static uint8_t block[SNAPLEN_MAX + 64];
	struct output *out = arg;
	size_t n;

	if (out->numbered[p->ifid] == UINT32_MAX) {
		const struct pcapng_idb_info *info = &out_ifs[p->ifid];

		out->numbered[p->ifid] = out->next++;
		n = pcapng_idb(block, sizeof(block), info->linktype, info->snaplen, info->name,
			       info->description[0] ? info->description : NULL);
		put(out->f, block, n);
	}
	n = pcapng_epb(block, sizeof(block), out->numbered[p->ifid], p->ts_ns, data, p->caplen,
		       p->wirelen);
	put(out->f, block, n);
	npackets++;
	return 0;
}

static void write_output(void)
{
	struct output out = { .f = strcmp(cfg.out, "-") ? fopen(cfg.out, "we") : stdout };
	uint8_t block[256];
	size_t i;

	if (!out.f) {
		fprintf(stderr, "mgcap-extract: %s: %s\n", cfg.out, strerror(errno));
		exit(1);
	}
	put(out.f, block, pcapng_shb(block, sizeof(block), "mgcap-extract (mgcap)"));
	for (i = 0; i < IFS_MAX; i++)
		out.numbered[i] = UINT32_MAX;
	if (extract_merge_finish(found, write_packet, &out)) {
		int err = errno;

		if (out.f != stdout)
			unlink(cfg.out);
		errno = err;
		merge_failed("sorting through a temporary file");
	}
	if (fflush(out.f) || (out.f != stdout && fclose(out.f)))
		output_failed(out.f, strerror(errno));
}

int main(int argc, char **argv)
{
	int first = tool_parse_options(argc, argv, &extract_help), i;
	size_t len = 0;

	if (first < 0)
		return 2;
	if (!cfg.ninputs || !cfg.out) {
		fprintf(stderr, "mgcap-extract: %s is needed (see --help)\n", cfg.ninputs ? "-w" : "-r");
		return 2;
	}
	if (cfg.from_ns >= cfg.to_ns) {
		fprintf(stderr, "mgcap-extract: --from is not before --to\n");
		return 2;
	}
	for (i = first; i < argc; i++)
		len += strlen(argv[i]) + 1;
	if (len) {
		filter_text = calloc(1, len);
		if (!filter_text)
			return 1;
		for (i = first; i < argc; i++) {
			strcat(filter_text, argv[i]);
			if (i + 1 < argc)
				strcat(filter_text, " ");
		}
		/* a bad filter said before anything is read */
		filter_for(DLT_EN10MB);
	}
	found = needed(extract_merge_new(cfg.memory < SIZE_MAX ? (size_t)cfg.memory : SIZE_MAX));
	for (i = 0; i < (int)cfg.ninputs; i++)
		read_input(cfg.inputs[i]);
	write_output();
	if (!cfg.quiet) {
		fprintf(stderr, "mgcap-extract: %zu packets from %" PRIu64 " files (%" PRIu64
			" by their index); read %" PRIu64 " bytes of %" PRIu64 " (%.3f %%)",
			npackets, files, files_indexed, bytes_read, bytes_all,
			bytes_all ? 100.0 * (double)bytes_read / (double)bytes_all : 0.0);
		if (extract_merge_runs(found))
			fprintf(stderr, "; put in order in %zu runs through a temporary file",
				extract_merge_runs(found));
		fputc('\n', stderr);
	}
	extract_merge_free(found);
	free(filter_text);
	return 0;
}
