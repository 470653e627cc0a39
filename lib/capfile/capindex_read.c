// SPDX-License-Identifier: BSD-2-Clause
/* The index read back (mgcap-extract), every record checked before it is used. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capindex.h"
#include "grown.h"

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
	    h->version != CAPINDEX_VERSION || h->record_align != CAPINDEX_RECORD_ALIGN) {
		snprintf(err, errlen, "%s: not an mgdump index of version %d", path,
			 CAPINDEX_VERSION);
		capindex_release(idx);
		return -1;
	}
	for (at = sizeof(*h); at < (size_t)size;) {
		const struct capindex_record *r = (const void *)(idx->data + at);
		const char *bad = NULL;

		if ((size_t)size - at < sizeof(*r) || r->len < sizeof(*r) || r->len % CAPINDEX_RECORD_ALIGN ||
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
