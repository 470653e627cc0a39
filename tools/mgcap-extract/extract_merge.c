// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "extract_merge.h"
#include "grown.h"

/* a packet as held in memory and in a run: its header, its data, padding to 8 */
static size_t record_size(const struct extract_packet *p)
{
	return sizeof(*p) + (((size_t)p->caplen + 7) & ~(size_t)7);
}

#define RECORD_MAX	(sizeof(struct extract_packet) + EXTRACT_MERGE_CAPLEN_MAX)
/* what a run is read and written through; one grows to a record larger */
#define RUN_BUFFER	(64U << 10)

/* a packet held: what it is sorted by, and where its record is */
struct held {
	uint64_t ts_ns, offset;
	uint32_t file;
	size_t at;
};

struct run {
	uint64_t offset, length;	/* in the temporary file */
};

struct extract_merge {
	size_t budget;
	uint8_t *arena;			/* the held packets' records */
	size_t used, cap;
	struct held *held;
	size_t nheld, cap_held;
	int tmp_fd;			/* the runs, one after another (-1: none yet) */
	uint64_t tmp_bytes;
	struct run *runs;
	size_t nruns, cap_runs;
	size_t spilled;			/* runs of packets held (not of runs merged) */
};

struct extract_merge *extract_merge_new(size_t budget)
{
	struct extract_merge *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->budget = budget > EXTRACT_MERGE_BUDGET_MIN ? budget : EXTRACT_MERGE_BUDGET_MIN;
	m->tmp_fd = -1;
	return m;
}

void extract_merge_free(struct extract_merge *m)
{
	if (!m)
		return;
	if (m->tmp_fd >= 0)
		close(m->tmp_fd);
	free(m->arena);
	free(m->held);
	free(m->runs);
	free(m);
}

size_t extract_merge_runs(const struct extract_merge *m)
{
	return m->spilled;
}

const char *extract_merge_dir(void)
{
	const char *dir = getenv("TMPDIR");

	/* (on disk: /tmp may be memory) */
	return dir && *dir ? dir : "/var/tmp";
}

static int held_before(const struct held *a, const struct held *b)
{
	if (a->ts_ns != b->ts_ns)
		return a->ts_ns < b->ts_ns;
	return a->file != b->file ? a->file < b->file : a->offset < b->offset;
}

static int by_time(const void *a, const void *b)
{
	return held_before(a, b) ? -1 : held_before(b, a);
}

static int write_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			errno = n < 0 ? errno : ENOSPC;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* --- runs written: records through a buffer to the temporary file's end ---------- */

struct run_out {
	struct extract_merge *m;
	uint8_t *buf;		/* RUN_BUFFER */
	size_t len;
	struct run run;
};

static int run_begin(struct extract_merge *m, struct run_out *o)
{
	char path[4096];

	if (m->tmp_fd < 0) {
		snprintf(path, sizeof(path), "%s/mgcap-extract.XXXXXX", extract_merge_dir());
		m->tmp_fd = mkostemp(path, O_CLOEXEC);
		if (m->tmp_fd < 0)
			return -1;
		unlink(path);
	}
	*o = (struct run_out){ .m = m, .run = { .offset = m->tmp_bytes } };
	o->buf = malloc(RUN_BUFFER);
	return o->buf ? 0 : -1;
}

static int run_flush(struct run_out *o)
{
	if (write_all(o->m->tmp_fd, o->buf, o->len))
		return -1;
	o->len = 0;
	return 0;
}

/* the record at @p (its packet, its data after it) into the run */
static int run_put(struct run_out *o, const struct extract_packet *p)
{
	size_t len = record_size(p);

	if (o->len + len > RUN_BUFFER && run_flush(o))
		return -1;
	if (len > RUN_BUFFER) {
		if (write_all(o->m->tmp_fd, (const uint8_t *)p, len))
			return -1;
	} else {
		memcpy(o->buf + o->len, p, len);
		o->len += len;
	}
	o->run.length += len;
	return 0;
}

/* the run complete, listed; 0, or -1 (the run is not) */
static int run_end(struct run_out *o, int ok)
{
	struct extract_merge *m = o->m;
	struct run *runs;

	ok = ok && !run_flush(o);
	free(o->buf);
	if (!ok)
		return -1;
	runs = mgdump_grown(m->runs, &m->cap_runs, m->nruns + 1, sizeof(*m->runs), SIZE_MAX);
	if (!runs)
		return -1;
	m->runs = runs;
	m->runs[m->nruns++] = o->run;
	m->tmp_bytes += o->run.length;
	return 0;
}

/* the held packets, sorted, to the temporary file as a run */
static int spill(struct extract_merge *m)
{
	struct run_out o;
	size_t i;
	int ok = 1;

	if (run_begin(m, &o))
		return -1;
	qsort(m->held, m->nheld, sizeof(*m->held), by_time);
	for (i = 0; ok && i < m->nheld; i++)
		ok = !run_put(&o, (const struct extract_packet *)(m->arena + m->held[i].at));
	if (run_end(&o, ok))
		return -1;
	m->spilled++;
	m->used = 0;
	m->nheld = 0;
	return 0;
}

int extract_merge_add(struct extract_merge *m, const struct extract_packet *p,
		      const uint8_t *data)
{
	size_t len = record_size(p), pad = len - sizeof(*p) - p->caplen;
	uint8_t *arena;
	struct held *h;

	if (p->caplen > EXTRACT_MERGE_CAPLEN_MAX) {
		errno = EINVAL;
		return -1;
	}
	/* (the records and what they are sorted by, within the budget) */
	if (m->nheld && m->used + len + (m->nheld + 1) * sizeof(*h) > m->budget && spill(m))
		return -1;
	arena = mgdump_grown(m->arena, &m->cap, m->used + len, 1, m->budget);
	if (!arena)
		return -1;
	m->arena = arena;
	h = mgdump_grown(m->held, &m->cap_held, m->nheld + 1, sizeof(*h), m->budget / sizeof(*h));
	if (!h)
		return -1;
	m->held = h;
	memcpy(m->arena + m->used, p, sizeof(*p));
	memcpy(m->arena + m->used + sizeof(*p), data, p->caplen);
	memset(m->arena + m->used + sizeof(*p) + p->caplen, 0, pad);
	h = &m->held[m->nheld++];
	h->ts_ns = p->ts_ns;
	h->offset = p->offset;
	h->file = p->file;
	h->at = m->used;
	m->used += len;
	return 0;
}

/* --- the runs merged ----------------------------------------------------------- */

struct cursor {
	uint64_t at, end;	/* the run's bytes not yet buffered, in the temporary file */
	uint8_t *buf;
	size_t cap, pos, len;	/* buffered: [pos, len) */
	struct held next;	/* its next packet's order (at: where it is in buf) */
};

/* at least @need bytes buffered past pos (or what is left of the run): 0, or -1 */
static int cursor_fill(int fd, struct cursor *c, size_t need)
{
	uint8_t *buf;

	memmove(c->buf, c->buf + c->pos, c->len - c->pos);
	c->len -= c->pos;
	c->pos = 0;
	buf = mgdump_grown(c->buf, &c->cap, need, 1, need);
	if (!buf)
		return -1;
	c->buf = buf;
	while (c->len < need && c->at < c->end) {
		size_t want = c->cap - c->len;
		ssize_t n;

		if (want > c->end - c->at)
			want = (size_t)(c->end - c->at);
		n = pread(fd, c->buf + c->len, want, (off_t)c->at);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			errno = n < 0 ? errno : EIO;
			return -1;
		}
		c->len += (size_t)n;
		c->at += (uint64_t)n;
	}
	return 0;
}

/* the cursor's next packet whole in its buffer: 1; 0 at its run's end; -1 */
static int cursor_next(int fd, struct cursor *c)
{
	const struct extract_packet *p;

	if (c->len - c->pos < sizeof(*p) && cursor_fill(fd, c, sizeof(*p)))
		return -1;
	if (c->len == c->pos)
		return 0;
	if (c->len - c->pos < sizeof(*p)) {
		errno = EIO;
		return -1;
	}
	p = (const struct extract_packet *)(c->buf + c->pos);
	if (c->len - c->pos < record_size(p)) {
		if (cursor_fill(fd, c, record_size(p)))
			return -1;
		p = (const struct extract_packet *)(c->buf + c->pos);
		if (c->len - c->pos < record_size(p)) {
			errno = EIO;
			return -1;
		}
	}
	c->next.ts_ns = p->ts_ns;
	c->next.offset = p->offset;
	c->next.file = p->file;
	c->next.at = c->pos;
	return 1;
}

/* the heap of cursors (by their next packet), from @i down */
static void sift_down(struct cursor **heap, size_t n, size_t i)
{
	for (;;) {
		size_t least = i, l = 2 * i + 1, r = l + 1;
		struct cursor *t;

		if (l < n && held_before(&heap[l]->next, &heap[least]->next))
			least = l;
		if (r < n && held_before(&heap[r]->next, &heap[least]->next))
			least = r;
		if (least == i)
			return;
		t = heap[i];
		heap[i] = heap[least];
		heap[least] = t;
		i = least;
	}
}

/* @count runs from the @first, their packets to @emit in order: 0, -1, or what emit said */
static int merge_runs(struct extract_merge *m, size_t first, size_t count,
		      int (*emit)(const struct extract_packet *, const uint8_t *, void *),
		      void *arg)
{
	struct cursor *cursors = calloc(count, sizeof(*cursors));
	struct cursor **heap = calloc(count, sizeof(*heap));
	size_t i, n = 0;
	int ret = -1;

	if (!cursors || !heap)
		goto out;
	for (i = 0; i < count; i++) {
		struct cursor *c = &cursors[i];
		int more;

		c->at = m->runs[first + i].offset;
		c->end = c->at + m->runs[first + i].length;
		c->buf = mgdump_grown(NULL, &c->cap, RUN_BUFFER, 1, RUN_BUFFER);
		if (!c->buf)
			goto out;
		more = cursor_next(m->tmp_fd, c);
		if (more < 0)
			goto out;
		if (more)
			heap[n++] = c;
	}
	for (i = n / 2; i-- > 0;)
		sift_down(heap, n, i);
	ret = 0;
	while (n) {
		struct cursor *c = heap[0];
		const struct extract_packet *p = (const void *)(c->buf + c->next.at);
		int more;

		ret = emit(p, (const uint8_t *)(p + 1), arg);
		if (ret)
			break;
		c->pos += record_size(p);
		more = cursor_next(m->tmp_fd, c);
		if (more < 0) {
			ret = -1;
			break;
		}
		if (!more)
			heap[0] = heap[--n];
		sift_down(heap, n, 0);
	}
out:
	for (i = 0; cursors && i < count; i++)
		free(cursors[i].buf);
	free(cursors);
	free(heap);
	return ret;
}

static int into_run(const struct extract_packet *p, const uint8_t *data, void *arg)
{
	(void)data;	/* (it follows p, as in every record) */
	return run_put(arg, p);
}

int extract_merge_finish(struct extract_merge *m,
			 int (*emit)(const struct extract_packet *p, const uint8_t *data,
				     void *arg),
			 void *arg)
{
	size_t i, fan_in, first = 0;
	int ret;

	if (!m->nruns) {
		if (m->nheld)
			qsort(m->held, m->nheld, sizeof(*m->held), by_time);
		for (i = 0; i < m->nheld; i++) {
			const struct extract_packet *p = (const void *)(m->arena + m->held[i].at);

			ret = emit(p, (const uint8_t *)(p + 1), arg);
			if (ret)
				return ret;
		}
		return 0;
	}
	/* (what is held is one run more; then the memory is the merge's) */
	if (m->nheld && spill(m))
		return -1;
	free(m->arena);
	free(m->held);
	m->arena = NULL;
	m->held = NULL;
	m->cap = m->cap_held = 0;
	/* as many runs at once as have room for a record of the largest each, and a run's writing */
	fan_in = (m->budget - RUN_BUFFER) / RECORD_MAX;
	fan_in = fan_in > 2 ? fan_in : 2;
	while (m->nruns - first > fan_in) {
		struct run_out o;

		if (run_begin(m, &o))
			return -1;
		ret = merge_runs(m, first, fan_in, into_run, &o);
		if (run_end(&o, !ret))
			return -1;
		first += fan_in;
	}
	return merge_runs(m, first, m->nruns - first, emit, arg);
}
