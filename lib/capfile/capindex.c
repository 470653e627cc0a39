// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capindex.h"
#include "grown.h"
#include "pcapng.h"

#define RECORD_ALIGN	8U

/* A flow the file's index has numbered. */
struct flow_slot {
	struct flowkey key;
	uint32_t id;
	uint32_t in_span;	/* the number (from 1) of the last span that holds it */
};

/*
 * Most frames are IPv4 without options, TCP or UDP (or SCTP, DCCP), and
 * not a fragment after the first.  Their flow is in their bytes 12-37, less the IP
 * header's TOS, length, identification, TTL and checksum: four words,
 * which find the flow's slot through this cache without a key built,
 * hashed or compared.  Those words hold the type, the header's length, the
 * fragment offset and the protocol, so a frame that has a cached frame's
 * words is of that kind too: only a frame the cache misses is looked at
 * (is_plain_v4()).  It goes the long way (flowkey_of(), the flows' table)
 * and, if plain, takes a slot of the cache's set of two it belongs to
 * (the first; the one there moves to the second).  The cache grows with
 * the flows' table, to as many slots, up to a limit.
 */
struct plain_v4_slot {
	uint64_t head, a, b;	/* the frame's bytes 12-19 and 20-27 (both masked), 28-35 */
	uint32_t c;		/* bytes 36-37, as loaded */
	uint32_t pad;
	struct flow_slot *flow;
};

#define PLAIN_V4_SETS_SHIFT_MIN	12
#define PLAIN_V4_SETS_SHIFT_MAX	17	/* 10 MiB */

struct capindex_writer {
	uint8_t is_ethernet[CAPINDEX_IFS_MAX];	/* by interface number */
	uint64_t first_ns, last_ns;		/* of the file's packets so far */
	uint64_t packets;			/* in its spans ended so far */
	size_t nifs;
	FILE *f;
	char part[4200];
	/* the flows: open addressing, a power of two in size, half full at most */
	struct flow_slot *slots;
	uint8_t *used;
	size_t nslots;
	uint32_t nflows;
	struct flow_slot *last;		/* the last packet's (a flow comes in runs) */
	struct plain_v4_slot *plain_v4;	/* two slots a set */
	unsigned int plain_v4_shift;	/* log2 of its sets */
	/* the span being built */
	uint32_t span_no;		/* from 1; 0: none open */
	struct capindex_span span;
	uint32_t *span_flows;
	size_t span_flows_cap;
};

static size_t plain_v4_size(const struct capindex_writer *w)
{
	return ((size_t)2 << w->plain_v4_shift) * sizeof(*w->plain_v4);
}

struct capindex_writer *capindex_writer_new(const uint8_t *is_ethernet, size_t nifs)
{
	struct capindex_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->nifs = nifs < CAPINDEX_IFS_MAX ? nifs : CAPINDEX_IFS_MAX;
	memcpy(w->is_ethernet, is_ethernet, w->nifs);
	w->nslots = 1024;
	w->slots = malloc(w->nslots * sizeof(*w->slots));
	w->used = calloc(w->nslots, 1);
	w->plain_v4_shift = PLAIN_V4_SETS_SHIFT_MIN;
	w->plain_v4 = malloc(plain_v4_size(w));
	w->span_flows_cap = 256;
	w->span_flows = malloc(w->span_flows_cap * sizeof(*w->span_flows));
	if (!w->slots || !w->used || !w->plain_v4 || !w->span_flows) {
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
	free(w->slots);
	free(w->used);
	free(w->plain_v4);
	free(w->span_flows);
	free(w);
}

/*
 * (the cache points into the flows' table: it forgets when they move or
 * go; an empty slot's words are all ones, which no frame's a is, its TTL
 * masked)
 */
static void forget_plain_v4(struct capindex_writer *w)
{
	memset(w->plain_v4, 0xff, plain_v4_size(w));
}

static void forget_flows(struct capindex_writer *w)
{
	memset(w->used, 0, w->nslots);
	forget_plain_v4(w);
	w->nflows = 0;
	w->last = NULL;
	w->span_no = 0;
	w->span.length = 0;
	w->packets = 0;
	w->first_ns = UINT64_MAX;	/* (none yet: the first packet's is both) */
	w->last_ns = 0;
}

int capindex_begin(struct capindex_writer *w, const char *part_path)
{
	struct capindex_header h = { .version = CAPINDEX_VERSION, .record_align = RECORD_ALIGN };

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

static uint64_t hash(const struct flowkey *k)
{
	uint64_t words[(sizeof(*k) + 7) / 8] = { 0 }, h = 0;
	size_t i;

	memcpy(words, k, sizeof(*k));
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		h = (h ^ words[i]) * 0x9e3779b97f4a7c15ULL;
	return h ^ h >> 29;
}

/* where @k is in a table of @nslots, or where it would go */
static size_t find(const struct flow_slot *slots, const uint8_t *used, size_t nslots,
		   const struct flowkey *k)
{
	size_t mask = nslots - 1, i = (size_t)hash(k) & mask;

	while (used[i] && memcmp(&slots[i].key, k, sizeof(*k)))
		i = (i + 1) & mask;
	return i;
}

/* the cache as big as the flows' table, up to its limit (or as it was, out of memory) */
static void grow_plain_v4(struct capindex_writer *w)
{
	struct plain_v4_slot *bigger;

	if (w->nslots <= (size_t)2 << w->plain_v4_shift ||
	    w->plain_v4_shift >= PLAIN_V4_SETS_SHIFT_MAX)
		return;
	bigger = realloc(w->plain_v4, 2 * plain_v4_size(w));
	if (!bigger)
		return;
	w->plain_v4 = bigger;
	w->plain_v4_shift++;
}

/* twice the slots; 0, or -1 (out of memory: the flows stay as they are) */
static int grow(struct capindex_writer *w)
{
	size_t nslots = w->nslots * 2, i, at;
	struct flow_slot *slots = malloc(nslots * sizeof(*slots));
	uint8_t *used = calloc(nslots, 1);

	if (!slots || !used) {
		free(slots);
		free(used);
		return -1;
	}
	for (i = 0; i < w->nslots; i++) {
		if (!w->used[i])
			continue;
		at = find(slots, used, nslots, &w->slots[i].key);
		slots[at] = w->slots[i];
		used[at] = 1;
	}
	free(w->slots);
	free(w->used);
	w->slots = slots;
	w->used = used;
	w->nslots = nslots;
	w->last = NULL;
	grow_plain_v4(w);
	forget_plain_v4(w);
	return 0;
}

/* the flow of @k, numbered and written down the first time; NULL past the limit */
static struct flow_slot *flow(struct capindex_writer *w, const struct flowkey *k)
{
	struct capindex_flow rec = { { CAPINDEX_FLOW, sizeof(rec) }, 0, { 0 } };
	struct flow_slot *s;
	size_t at;

	if (w->last && !memcmp(&w->last->key, k, sizeof(*k)))
		return w->last;
	at = find(w->slots, w->used, w->nslots, k);
	if (!w->used[at]) {
		if (w->nflows >= CAPINDEX_FLOWS_MAX)
			return NULL;
		if (2 * (w->nflows + 1) > w->nslots) {
			if (grow(w))
				return NULL;
			at = find(w->slots, w->used, w->nslots, k);
		}
		s = &w->slots[at];
		w->used[at] = 1;
		s->key = *k;
		s->id = w->nflows++;
		s->in_span = 0;
		rec.id = s->id;
		rec.key = *k;
		put(w, &rec, sizeof(rec));
	}
	w->last = &w->slots[at];
	return w->last;
}

static uint16_t load16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t load64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * Whether a frame of flow @k has its flow in its bytes 12-37 (struct
 * plain_v4_slot): IPv4 without options, four bytes after the header that
 * are the flow's (ports: not a fragment after the first), all captured
 */
static int is_plain_v4(const struct flowkey *k)
{
	return k->ethertype == 0x0800 && k->vihl == 0x45 && k->l4_len == 4;
}

/* the words of the frame @f (38 bytes at least) that a plain_v4_slot keeps */
static void plain_v4_words(const uint8_t *f, struct plain_v4_slot *words)
{
	/* bytes 12-19: the type, the IP version and header length */
	static const uint8_t head_mask[8] = { 0xff, 0xff, 0xff, 0, 0, 0, 0, 0 };
	/* bytes 20-27 less the TTL (22) and the checksum (24, 25) */
	static const uint8_t a_mask[8] = { 0xff, 0xff, 0, 0xff, 0, 0, 0xff, 0xff };
	uint64_t mask;

	memcpy(&mask, head_mask, sizeof(mask));
	words->head = load64(f + 12) & mask;
	memcpy(&mask, a_mask, sizeof(mask));
	words->a = load64(f + 20) & mask;
	words->b = load64(f + 28);
	words->c = load16(f + 36);
}

static int same_words(const struct plain_v4_slot *x, const struct plain_v4_slot *y)
{
	return x->a == y->a && x->b == y->b && x->c == y->c && x->head == y->head;
}

/* the cache's set of two slots for a plain frame's @words */
static struct plain_v4_slot *plain_v4_set(const struct capindex_writer *w,
					  const struct plain_v4_slot *words)
{
	uint64_t h = (words->a * 0xc2b2ae3d27d4eb4fULL ^ words->b ^ words->c) *
		     0x9e3779b97f4a7c15ULL;

	return &w->plain_v4[2 * (h >> (64 - w->plain_v4_shift))];
}

/*
 * The long way, for a frame the cache missed, apart from the short one so
 * as not to weigh on it.  (The flow found, the cache is looked at again:
 * numbering a flow may have grown it.)
 */
__attribute__((noinline))
static struct flow_slot *frame_flow_missed(struct capindex_writer *w, const uint8_t *f,
					   uint32_t caplen)
{
	struct plain_v4_slot words, *set;
	struct flow_slot *s;
	struct flowkey k;

	flowkey_of(f, caplen, &k);
	s = flow(w, &k);
	if (s && is_plain_v4(&k)) {
		plain_v4_words(f, &words);
		words.flow = s;
		set = plain_v4_set(w, &words);
		set[1] = set[0];
		set[0] = words;
	}
	return s;
}

/* the flow of the frame @f of @caplen bytes, as flow() */
static struct flow_slot *frame_flow(struct capindex_writer *w, const uint8_t *f, uint32_t caplen)
{
	struct plain_v4_slot words, *set;

	if (caplen < 38)
		return frame_flow_missed(w, f, caplen);
	plain_v4_words(f, &words);
	set = plain_v4_set(w, &words);
	if (same_words(&set[0], &words))
		return set[0].flow;
	if (same_words(&set[1], &words))
		return set[1].flow;
	return frame_flow_missed(w, f, caplen);
}

/* a span begins at @offset (no packets: no stamps; the first one's is both) */
static void begin_span(struct capindex_writer *w, uint64_t offset)
{
	w->span = (struct capindex_span){ .offset = offset, .first_ns = UINT64_MAX };
}

static void end_span(struct capindex_writer *w)
{
	static const uint8_t zeros[RECORD_ALIGN];
	struct capindex_span *sp = &w->span;
	size_t ids = sp->nflows * sizeof(uint32_t);
	size_t pad = (RECORD_ALIGN - ids % RECORD_ALIGN) % RECORD_ALIGN;

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

/* --- reading ------------------------------------------------------------------ */

int capindex_load(const char *path, struct capindex *idx, char *err, size_t errlen)
{
	const struct capindex_header *h;
	size_t at, cap_flows = 0, cap_spans = 0;
	const struct capindex_span **spans;
	const struct flowkey **flows;
	long size;
	FILE *f;

	memset(idx, 0, sizeof(*idx));
	f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT)
			return 1;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
	    !(idx->data = malloc((size_t)size + 1)) ||
	    fread(idx->data, 1, (size_t)size, f) != (size_t)size) {
		snprintf(err, errlen, "%s: cannot read it", path);
		fclose(f);
		capindex_release(idx);
		return -1;
	}
	fclose(f);
	idx->bytes = (uint64_t)size;
	h = (const struct capindex_header *)idx->data;
	if ((size_t)size < sizeof(*h) || memcmp(h->magic, CAPINDEX_MAGIC, sizeof(h->magic)) ||
	    h->version != CAPINDEX_VERSION || h->record_align != RECORD_ALIGN) {
		snprintf(err, errlen, "%s: not an mgdump index of version %d", path,
			 CAPINDEX_VERSION);
		capindex_release(idx);
		return -1;
	}
	for (at = sizeof(*h); at < (size_t)size;) {
		const struct capindex_record *r = (const void *)(idx->data + at);
		const char *bad = NULL;

		if ((size_t)size - at < sizeof(*r) || r->len < sizeof(*r) || r->len % RECORD_ALIGN ||
		    r->len > (size_t)size - at) {
			bad = "a record cut short or of a bad length";
		} else if (r->type == CAPINDEX_FLOW) {
			const struct capindex_flow *fl = (const void *)r;

			if (r->len != sizeof(*fl) || fl->id != idx->nflows)
				bad = "a flow out of its order";
			else if (!flowkey_valid(&fl->key))
				bad = "a flow no frame has";
			else if (!(flows = mgdump_grown(idx->flows, &cap_flows, idx->nflows + 1,
							   sizeof(*flows), SIZE_MAX)))
				bad = "out of memory";
			if (!bad) {
				idx->flows = flows;
				idx->flows[idx->nflows++] = &fl->key;
			}
		} else if (r->type == CAPINDEX_SPAN) {
			const struct capindex_span *s = (const void *)r;
			size_t i;

			if (r->len < sizeof(*s) ||
			    s->nflows > (r->len - sizeof(*s)) / sizeof(uint32_t))
				bad = "a span of a bad length";
			else if (s->offset > UINT64_MAX - s->length ||
				 (idx->nspans && s->offset < idx->spans[idx->nspans - 1]->offset +
							       idx->spans[idx->nspans - 1]->length))
				bad = "a span out of the file's order";
			for (i = 0; !bad && i < s->nflows; i++)
				if (capindex_span_flows(s)[i] >= idx->nflows)
					bad = "a span with a flow not numbered before it";
			if (!bad && !(spans = mgdump_grown(idx->spans, &cap_spans, idx->nspans + 1,
							   sizeof(*spans), SIZE_MAX)))
				bad = "out of memory";
			if (!bad) {
				idx->spans = spans;
				idx->spans[idx->nspans++] = s;
			}
		} else if (r->type == CAPINDEX_END) {
			const struct capindex_end *e = (const void *)r;

			if (r->len != sizeof(*e) || at + r->len != (size_t)size)
				bad = "an end before the end";
			else
				idx->end = *e;
		}	/* (a record of a type it does not know is for a later version: passed over) */
		if (bad) {
			snprintf(err, errlen, "%s: %s at byte %zu", path, bad, at);
			capindex_release(idx);
			return -1;
		}
		at += r->len;
	}
	if (idx->end.rec.type != CAPINDEX_END) {
		snprintf(err, errlen, "%s: cut short (no end)", path);
		capindex_release(idx);
		return -1;
	}
	/* (in order, none over another: the last ends before the file does) */
	if (idx->nspans && idx->spans[idx->nspans - 1]->offset +
				   idx->spans[idx->nspans - 1]->length > idx->end.file_bytes) {
		snprintf(err, errlen, "%s: a span past the end of its file", path);
		capindex_release(idx);
		return -1;
	}
	return 0;
}

int capindex_load_end(const char *path, struct capindex_end *end, char *err, size_t errlen)
{
	struct capindex_header h;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok;

	if (fd < 0) {
		if (errno == ENOENT)
			return 1;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	ok = fstat(fd, &st) == 0 && (uint64_t)st.st_size >= sizeof(h) + sizeof(*end) &&
	     pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h) &&
	     !memcmp(h.magic, CAPINDEX_MAGIC, sizeof(h.magic)) && h.version == CAPINDEX_VERSION &&
	     pread(fd, end, sizeof(*end), st.st_size - (off_t)sizeof(*end)) ==
		     (ssize_t)sizeof(*end) &&
	     end->rec.type == CAPINDEX_END && end->rec.len == sizeof(*end);
	close(fd);
	if (!ok) {
		snprintf(err, errlen, "%s: not an mgdump index of version %d, or cut short", path,
			 CAPINDEX_VERSION);
		return -1;
	}
	return 0;
}

void capindex_release(struct capindex *idx)
{
	free(idx->data);
	free(idx->flows);
	free(idx->spans);
	memset(idx, 0, sizeof(*idx));
}
