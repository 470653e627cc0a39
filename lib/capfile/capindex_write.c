// SPDX-License-Identifier: BSD-2-Clause
/*
 * The index written beside its file as mgdump writes the file: the spans
 * its blocks make, the flows each holds (their numbers: capindex_flows.h),
 * its end; under NAME.idx.part until the file is complete.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capindex.h"
#include "capindex_flows.h"
#include "grown.h"
#include "pcapng.h"

struct capindex_writer {
	uint8_t is_ethernet[CAPINDEX_IFS_MAX];	/* by interface number */
	uint64_t first_ns, last_ns;		/* of the file's packets so far */
	uint64_t packets;			/* in its spans ended so far */
	size_t nifs;
	FILE *f;
	char part[4200];
	struct capindex_flows flows;
	/* the span being built */
	uint32_t span_no;		/* from 1; 0: none open */
	struct capindex_span span;
	uint32_t *span_flows;
	size_t span_flows_cap;
};

struct capindex_writer *capindex_writer_new(const uint8_t *is_ethernet, size_t nifs)
{
	struct capindex_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->nifs = nifs < CAPINDEX_IFS_MAX ? nifs : CAPINDEX_IFS_MAX;
	memcpy(w->is_ethernet, is_ethernet, w->nifs);
	w->span_flows_cap = 256;
	w->span_flows = malloc(w->span_flows_cap * sizeof(*w->span_flows));
	if (capindex_flows_init(&w->flows) || !w->span_flows) {
		capindex_writer_free(w);
		return NULL;
	}
	return w;
}

void capindex_writer_free(struct capindex_writer *w)
{
	if (!w)
		return;
	capindex_discard(w);
	capindex_flows_free(&w->flows);
	free(w->span_flows);
	free(w);
}

static void forget_flows(struct capindex_writer *w)
{
	capindex_flows_forget(&w->flows);
	w->span_no = 0;
	w->span.length = 0;
	w->packets = 0;
	w->first_ns = UINT64_MAX;	/* (none yet: the first packet's is both) */
	w->last_ns = 0;
}

int capindex_begin(struct capindex_writer *w, const char *part_path)
{
	struct capindex_header h = {
		.version = CAPINDEX_VERSION, .record_align = CAPINDEX_RECORD_ALIGN
	};

	capindex_discard(w);
	forget_flows(w);
	snprintf(w->part, sizeof(w->part), "%s", part_path);
	w->f = fopen(w->part, "we");
	if (!w->f)
		return -1;
	memcpy(h.magic, CAPINDEX_MAGIC, sizeof(h.magic));
	if (fwrite(&h, sizeof(h), 1, w->f) != 1) {
		capindex_discard(w);
		return -1;
	}
	return 0;
}

/* (a write that fails, for a full disk: the file goes without an index) */
static void put(struct capindex_writer *w, const void *p, size_t len)
{
	if (w->f && fwrite(p, 1, len, w->f) != len)
		capindex_discard(w);
}

/*
 * The long way, for a frame the cache missed, apart from the short one so
 * as not to weigh on it: its flow, numbered and written down the first
 * time; NULL past the limit.  (The flow found, the cache takes it:
 * numbering a flow may have grown the cache.)
 */
__attribute__((noinline))
static struct flow_slot *frame_flow_missed(struct capindex_writer *w, const uint8_t *f,
					   uint32_t caplen)
{
	struct capindex_flow rec = { { CAPINDEX_FLOW, sizeof(rec) }, 0, { 0 } };
	struct flow_slot *s;
	struct flowkey k;
	int added;

	flowkey_of(f, caplen, &k);
	s = capindex_flows_find(&w->flows, &k, &added);
	if (added) {
		rec.id = s->id;
		rec.key = k;
		put(w, &rec, sizeof(rec));
	}
	if (s)
		capindex_flows_cache(&w->flows, f, &k, s);
	return s;
}

/* the flow of the frame @f of @caplen bytes, as frame_flow_missed() */
static struct flow_slot *frame_flow(struct capindex_writer *w, const uint8_t *f, uint32_t caplen)
{
	struct flow_slot *s = capindex_flows_cached(&w->flows, f, caplen);

	return s ? s : frame_flow_missed(w, f, caplen);
}

/* a span begins at @offset (no packets: no stamps; the first one's is both) */
static void begin_span(struct capindex_writer *w, uint64_t offset)
{
	w->span = (struct capindex_span){ .offset = offset, .first_ns = UINT64_MAX };
}

static void end_span(struct capindex_writer *w)
{
	static const uint8_t zeros[CAPINDEX_RECORD_ALIGN];
	struct capindex_span *sp = &w->span;
	size_t ids = sp->nflows * sizeof(uint32_t);
	size_t pad = (CAPINDEX_RECORD_ALIGN - ids % CAPINDEX_RECORD_ALIGN) % CAPINDEX_RECORD_ALIGN;

	if (!sp->length)
		return;
	/* (a span of no packets, only other blocks, has no stamps: 0, and none for the file) */
	if (!sp->packets) {
		sp->first_ns = 0;
	} else {
		w->first_ns = sp->first_ns < w->first_ns ? sp->first_ns : w->first_ns;
		w->last_ns = sp->last_ns > w->last_ns ? sp->last_ns : w->last_ns;
	}
	w->packets += sp->packets;
	sp->rec.type = CAPINDEX_SPAN;
	sp->rec.len = (uint32_t)(sizeof(*sp) + ids + pad);
	put(w, sp, sizeof(*sp));
	put(w, w->span_flows, ids);
	put(w, zeros, pad);
	w->span_no++;
	/* (numbers go on: a flow's in_span tells an older span from the next) */
	sp->length = 0;
}

/* the span holds flow @s (its first packet in it) */
static void span_holds(struct capindex_writer *w, struct flow_slot *s)
{
	struct capindex_span *sp = &w->span;
	uint32_t *ids = mgdump_grown(w->span_flows, &w->span_flows_cap, sp->nflows + 1,
				     sizeof(*ids), SIZE_MAX);

	s->in_span = w->span_no;
	if (!ids) {
		sp->flags |= CAPINDEX_SPAN_F_UNINDEXED;
		return;
	}
	w->span_flows = ids;
	w->span_flows[sp->nflows++] = s->id;
}

void capindex_blocks(struct capindex_writer *w, uint64_t offset, const uint8_t *blocks,
		     size_t len)
{
	struct capindex_span *sp = &w->span;
	uint64_t first_ns, last_ns;
	uint32_t packets;
	size_t at, block_len;

	if (!w->f || !len)
		return;
	/* (blocks not indexed came between: the span so far ends there) */
	if (w->span_no && sp->length && offset != sp->offset + sp->length)
		end_span(w);
	if (!w->span_no)
		w->span_no = 1;
	if (!sp->length)
		begin_span(w, offset);
	/* (kept here, not in *sp, which the frames' bytes might alias) */
	first_ns = sp->first_ns;
	last_ns = sp->last_ns;
	packets = sp->packets;
	/* (mgdump's own blocks, whole) */
	for (at = 0; at + 12 <= len && (block_len = pcapng_block_len(blocks + at)) >= 12;
	     at += block_len) {
		const uint8_t *b = blocks + at;
		struct flow_slot *s = NULL;
		uint32_t type, ifid;
		uint64_t ts;

		/* (not pcapng_block_type(): GCC 12 then lays the loop out 5 instructions longer) */
		memcpy(&type, b, sizeof(type));
		if (type != PCAPNG_EPB_TYPE)
			continue;
		ts = pcapng_epb_ts(b);
		first_ns = ts < first_ns ? ts : first_ns;
		last_ns = ts > last_ns ? ts : last_ns;
		packets++;
		ifid = pcapng_epb_ifid(b);
		/* (a frame not Ethernet has no flow: the span is read for any search) */
		if (ifid < w->nifs && w->is_ethernet[ifid])
			s = frame_flow(w, b + PCAPNG_EPB_DATA, pcapng_epb_caplen(b));
		if (!s)
			sp->flags |= CAPINDEX_SPAN_F_UNINDEXED;
		else if (s->in_span != w->span_no)
			span_holds(w, s);
	}
	sp->first_ns = first_ns;
	sp->last_ns = last_ns;
	sp->packets = packets;
	sp->length += len;
	if (sp->length >= CAPINDEX_SPAN_BYTES ||
	    (sp->packets && sp->last_ns - sp->first_ns >= CAPINDEX_SPAN_NS))
		end_span(w);
}

int capindex_end(struct capindex_writer *w, const char *path, uint64_t file_bytes)
{
	struct capindex_end end = { { CAPINDEX_END, sizeof(end) }, file_bytes, 0, 0, 0 };
	char name[4200];
	int ret = -1;

	if (!w->f)
		return -1;
	end_span(w);
	end.packets = w->packets;
	end.first_ns = w->packets ? w->first_ns : 0;
	end.last_ns = w->last_ns;
	put(w, &end, sizeof(end));
	if (w->f && fflush(w->f) == 0 && fsync(fileno(w->f)) == 0) {
		snprintf(name, sizeof(name), "%s%s", path, CAPINDEX_SUFFIX);
		ret = fclose(w->f);
		w->f = NULL;
		if (ret == 0)
			ret = rename(w->part, name);
	}
	if (ret)
		capindex_discard(w);
	w->part[0] = '\0';
	return ret ? -1 : 0;
}

void capindex_unlink(const char *path)
{
	char name[4200];

	snprintf(name, sizeof(name), "%s%s", path, CAPINDEX_SUFFIX);
	unlink(name);
}

void capindex_discard(struct capindex_writer *w)
{
	if (w->f)
		fclose(w->f);
	w->f = NULL;
	if (w->part[0])
		unlink(w->part);
	w->part[0] = '\0';
}
