// SPDX-License-Identifier: BSD-2-Clause
/*
 * A file's packets read, whole or the spans its index points to, and each
 * judged by the range and the filter: what both take is kept for the
 * output.
 */
#include <inttypes.h>
#include <unistd.h>

#include "extract.h"
#include "flowkey.h"

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
	in->x->bytes_read += len;
}

static uint32_t out_interface(struct extract *x, const struct pcapng_idb_info *info)
{
	const struct pcapng_idb_info *ifs = x->out_ifs;
	size_t i;

	for (i = 0; i < x->nout_ifs; i++)
		if (!strcmp(ifs[i].name, info->name) && ifs[i].linktype == info->linktype &&
		    ifs[i].snaplen == info->snaplen)
			return (uint32_t)i;
	if (x->nout_ifs == IFS_MAX) {
		fprintf(stderr, "mgcap-extract: more than %d interfaces\n", IFS_MAX);
		exit(1);
	}
	x->out_ifs[x->nout_ifs] = *info;
	return (uint32_t)x->nout_ifs++;
}

int extract_read_header(struct input *in)
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
		block = extract_needed(malloc(len));
		read_fully(in, block, at, len);
		{
			struct pcapng_idb_info info;

			if (pcapng_idb_read(block, len, &info)) {
				fprintf(stderr, "mgcap-extract: %s: a bad interface block at byte %" PRIu64
					"\n", in->path, at);
				exit(1);
			}
			in->out_ifid[in->nifs] = out_interface(in->x, &info);
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
		/* (the output's block flags what the recording's did: the direction) */
		.epb_flags = pcapng_epb_flags(epb),
	};

	p.caplen = p.caplen < SNAPLEN_MAX ? p.caplen : SNAPLEN_MAX;
	if (extract_merge_add(in->x->found, &p, epb + PCAPNG_EPB_DATA))
		extract_order_failed("sorting through a temporary file");
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
			if (ts >= in->x->from_ns && ts < in->x->to_ns &&
			    pcap_offline_filter(extract_filter_for(in->x, in->linktype[ifid]), &h,
						epb + PCAPNG_EPB_DATA))
				keep(in, epb, offset + at, ts);
		}
		at += blen;
	}
}

void extract_read_whole(struct input *in)
{
	uint64_t at = in->header_end;
	size_t cap = 4 << 20;
	uint8_t *buf = extract_needed(malloc(cap));

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
			in->x->bytes_read -= len;
			free(buf);
			cap = blen;
			buf = extract_needed(malloc(cap));
			continue;
		}
		judge_blocks(in, buf, whole, at);
		in->x->bytes_read -= len - whole;	/* (read again at the next turn) */
		at += whole;
	}
	free(buf);
}

/* whether a span of @idx may hold packets of the range the filter takes */
static int span_wanted(const struct extract *x, const struct capindex_span *s,
		       const char *flow_maybe, int all_ns)
{
	uint32_t i;

	if (all_ns && (s->last_ns < x->from_ns || s->first_ns >= x->to_ns))
		return 0;
	if (!flow_maybe || s->flags & CAPINDEX_SPAN_F_UNINDEXED)
		return 1;
	for (i = 0; i < s->nflows; i++)
		if (flow_maybe[capindex_span_flows(s)[i]])
			return 1;
	return 0;
}

void extract_read_by_index(struct input *in, const struct capindex *idx)
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
	if (in->x->filter_text && all_ethernet) {
		eth = extract_filter_for(in->x, DLT_EN10MB);
		flow_maybe = extract_needed(malloc(idx->nflows + 1));
		for (i = 0; i < idx->nflows; i++)
			flow_maybe[i] = flowkey_filter(eth->bf_insns, eth->bf_len, idx->flows[i]) != 0;
	}
	for (i = 0; i < idx->nspans; i = j) {
		const struct capindex_span *s = idx->spans[i];
		uint64_t start = s->offset, end = s->offset + s->length;

		j = i + 1;
		if (!span_wanted(in->x, s, flow_maybe, all_ns))
			continue;
		if (end > in->size || start < in->header_end) {
			fprintf(stderr, "mgcap-extract: %s: its index points out of it\n", in->path);
			exit(1);
		}
		/* the wanted spans that follow it in the file, read with it */
		while (j < idx->nspans && idx->spans[j]->offset == end &&
		       span_wanted(in->x, idx->spans[j], flow_maybe, all_ns) &&
		       end + idx->spans[j]->length <= in->size && end - start < (64U << 20))
			end += idx->spans[j++]->length;
		if (end - start > cap) {
			cap = (size_t)(end - start);
			free(buf);
			buf = extract_needed(malloc(cap));
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
