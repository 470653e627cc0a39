// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capindex.h"
#include "pcapng.h"

#define RECORD_ALIGN	8U

struct flow_slot {
	struct flowkey key;
	uint32_t id;
	uint32_t in_span;	/* the number (from 1) of the last span that holds it */
};

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
	w->nslots = 1024;
	w->slots = malloc(w->nslots * sizeof(*w->slots));
	w->used = calloc(w->nslots, 1);
	w->span_flows_cap = 256;
	w->span_flows = malloc(w->span_flows_cap * sizeof(*w->span_flows));
	if (!w->slots || !w->used || !w->span_flows) {
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
	free(w->span_flows);
	free(w);
}

static void forget_flows(struct capindex_writer *w)
{
	memset(w->used, 0, w->nslots);
	w->nflows = 0;
	w->last = NULL;
	w->span_no = 0;
	w->span.length = 0;
	w->packets = 0;
	w->first_ns = w->last_ns = 0;
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

static struct flow_slot *find(struct capindex_writer *w, const struct flowkey *k, size_t *at)
{
	size_t mask = w->nslots - 1, i = (size_t)hash(k) & mask;

	while (w->used[i] && memcmp(&w->slots[i].key, k, sizeof(*k)))
		i = (i + 1) & mask;
	*at = i;
	return w->used[i] ? &w->slots[i] : NULL;
}

/* twice the slots; 0, or -1 (out of memory: the flows stay as they are) */
static int grow(struct capindex_writer *w)
{
	struct capindex_writer bigger = *w;
	size_t i, at;

	bigger.nslots = w->nslots * 2;
	bigger.slots = malloc(bigger.nslots * sizeof(*bigger.slots));
	bigger.used = calloc(bigger.nslots, 1);
	if (!bigger.slots || !bigger.used) {
		free(bigger.slots);
		free(bigger.used);
		return -1;
	}
	for (i = 0; i < w->nslots; i++) {
		if (!w->used[i])
			continue;
		find(&bigger, &w->slots[i].key, &at);
		bigger.slots[at] = w->slots[i];
		bigger.used[at] = 1;
	}
	free(w->slots);
	free(w->used);
	w->slots = bigger.slots;
	w->used = bigger.used;
	w->nslots = bigger.nslots;
	w->last = NULL;
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
	s = find(w, k, &at);
	if (!s) {
		if (w->nflows >= CAPINDEX_FLOWS_MAX)
			return NULL;
		if (2 * (w->nflows + 1) > w->nslots) {
			if (grow(w))
				return NULL;
			find(w, k, &at);
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
	w->last = s;
	return s;
}

static void end_span(struct capindex_writer *w)
{
	static const uint8_t zeros[RECORD_ALIGN];
	size_t ids = w->span.nflows * sizeof(uint32_t);
	size_t pad = (RECORD_ALIGN - ids % RECORD_ALIGN) % RECORD_ALIGN;

	if (!w->span.length)
		return;
	if (w->span.packets && !w->packets) {
		w->first_ns = w->span.first_ns;
		w->last_ns = w->span.last_ns;
	} else if (w->span.packets) {
		w->first_ns = w->span.first_ns < w->first_ns ? w->span.first_ns : w->first_ns;
		w->last_ns = w->span.last_ns > w->last_ns ? w->span.last_ns : w->last_ns;
	}
	w->packets += w->span.packets;
	w->span.rec.type = CAPINDEX_SPAN;
	w->span.rec.len = (uint32_t)(sizeof(w->span) + ids + pad);
	put(w, &w->span, sizeof(w->span));
	put(w, w->span_flows, ids);
	put(w, zeros, pad);
	w->span_no++;
	/* (numbers go on: a flow's in_span tells an older span from the next) */
	w->span.length = 0;
}

static void add_packet(struct capindex_writer *w, const uint8_t *block, int ethernet)
{
	struct capindex_span *sp = &w->span;
	uint64_t ts = pcapng_epb_ts(block);
	struct flowkey k;
	struct flow_slot *s;

	if (!sp->packets++) {
		sp->first_ns = sp->last_ns = ts;
	} else {
		sp->first_ns = ts < sp->first_ns ? ts : sp->first_ns;
		sp->last_ns = ts > sp->last_ns ? ts : sp->last_ns;
	}
	if (!ethernet) {
		sp->flags |= CAPINDEX_SPAN_F_UNINDEXED;
		return;
	}
	flowkey_of(block + PCAPNG_EPB_DATA, pcapng_epb_caplen(block), &k);
	s = flow(w, &k);
	if (!s) {
		sp->flags |= CAPINDEX_SPAN_F_UNINDEXED;
		return;
	}
	if (s->in_span == w->span_no)
		return;
	s->in_span = w->span_no;
	if (sp->nflows == w->span_flows_cap) {
		uint32_t *more = realloc(w->span_flows, 2 * w->span_flows_cap * sizeof(*more));

		if (!more) {
			sp->flags |= CAPINDEX_SPAN_F_UNINDEXED;
			return;
		}
		w->span_flows = more;
		w->span_flows_cap *= 2;
	}
	w->span_flows[sp->nflows++] = s->id;
}

void capindex_blocks(struct capindex_writer *w, uint64_t offset, const uint8_t *blocks,
		     size_t len)
{
	struct capindex_span *sp = &w->span;
	size_t at;

	if (!w->f || !len)
		return;
	/* (blocks not indexed came between: the span so far ends there) */
	if (w->span_no && sp->length && offset != sp->offset + sp->length)
		end_span(w);
	if (!w->span_no)
		w->span_no = 1;
	if (!sp->length) {
		uint32_t no = w->span_no;

		memset(sp, 0, sizeof(*sp));
		sp->offset = offset;
		w->span_no = no;
	}
	/* (mgdump's own blocks, whole) */
	for (at = 0; at + 12 <= len && pcapng_block_len(blocks + at) >= 12;
	     at += pcapng_block_len(blocks + at)) {
		uint32_t type, ifid;

		memcpy(&type, blocks + at, sizeof(type));
		if (type != PCAPNG_EPB_TYPE)
			continue;
		ifid = pcapng_epb_ifid(blocks + at);
		add_packet(w, blocks + at, ifid < w->nifs && w->is_ethernet[ifid]);
	}
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
	end.first_ns = w->first_ns;
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
			else if (idx->nflows == cap_flows) {
				const struct flowkey **more;

				cap_flows = cap_flows ? 2 * cap_flows : 256;
				more = realloc(idx->flows, cap_flows * sizeof(*more));
				if (!more)
					bad = "out of memory";
				else
					idx->flows = more;
			}
			if (!bad)
				idx->flows[idx->nflows++] = &fl->key;
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
			if (!bad && idx->nspans == cap_spans) {
				const struct capindex_span **more;

				cap_spans = cap_spans ? 2 * cap_spans : 256;
				more = realloc(idx->spans, cap_spans * sizeof(*more));
				if (!more)
					bad = "out of memory";
				else
					idx->spans = more;
			}
			if (!bad)
				idx->spans[idx->nspans++] = s;
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
