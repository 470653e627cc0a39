// SPDX-License-Identifier: BSD-2-Clause
/* What was found, written as one pcapng file in time order. */
#include <unistd.h>

#include "extract.h"

/* the output not written, @why: said, and no file cut short left under its name */
static void output_failed(const struct extract *x, FILE *f, const char *why)
{
	fprintf(stderr, "mgcap-extract: %s: %s\n", x->out, why);
	if (f != stdout)
		unlink(x->out);
	exit(1);
}

static void put(const struct extract *x, FILE *f, const uint8_t *p, size_t len)
{
	if (fwrite(p, 1, len, f) != len)
		output_failed(x, f, strerror(errno));
}

/* the output, and its interfaces' numbers there: each numbered as first used */
struct output {
	struct extract *x;
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
		const struct pcapng_idb_info *info = &out->x->out_ifs[p->ifid];

		out->numbered[p->ifid] = out->next++;
		n = pcapng_idb(block, sizeof(block), info->linktype, info->snaplen, info->name,
			       info->description[0] ? info->description : NULL);
		put(out->x, out->f, block, n);
	}
	n = pcapng_epb(block, sizeof(block), out->numbered[p->ifid], p->ts_ns, data, p->caplen,
		       p->wirelen, p->epb_flags);
	put(out->x, out->f, block, n);
	out->x->npackets++;
	return 0;
}

void extract_write_output(struct extract *x)
{
	struct output out = { .x = x, .f = strcmp(x->out, "-") ? fopen(x->out, "we") : stdout };
	uint8_t block[256];
	size_t i;

	if (!out.f) {
		fprintf(stderr, "mgcap-extract: %s: %s\n", x->out, strerror(errno));
		exit(1);
	}
	put(x, out.f, block, pcapng_shb(block, sizeof(block), "mgcap-extract (mgcap)"));
	for (i = 0; i < IFS_MAX; i++)
		out.numbered[i] = UINT32_MAX;
	if (extract_merge_finish(x->found, write_packet, &out)) {
		int err = errno;

		if (out.f != stdout)
			unlink(x->out);
		errno = err;
		extract_order_failed("sorting through a temporary file");
	}
	if (fflush(out.f) || (out.f != stdout && fclose(out.f)))
		output_failed(x, out.f, strerror(errno));
}
