// SPDX-License-Identifier: BSD-2-Clause
/* The flows an index writer numbers: their table, and the cache in front of it. */
#include <stdlib.h>
#include <string.h>

#include "capindex.h"
#include "capindex_flows.h"

#define PLAIN_V4_SETS_SHIFT_MIN	12
#define PLAIN_V4_SETS_SHIFT_MAX	17	/* 10 MiB */

static size_t plain_v4_size(const struct capindex_flows *t)
{
	return ((size_t)2 << t->plain_v4_shift) * sizeof(*t->plain_v4);
}

int capindex_flows_init(struct capindex_flows *t)
{
	memset(t, 0, sizeof(*t));
	t->nslots = 1024;
	t->slots = malloc(t->nslots * sizeof(*t->slots));
	t->used = calloc(t->nslots, 1);
	t->plain_v4_shift = PLAIN_V4_SETS_SHIFT_MIN;
	t->plain_v4 = malloc(plain_v4_size(t));
	return t->slots && t->used && t->plain_v4 ? 0 : -1;
}

void capindex_flows_free(struct capindex_flows *t)
{
	free(t->slots);
	free(t->used);
	free(t->plain_v4);
}

/*
 * (the cache points into the flows' table: it forgets when they move or
 * go; an empty slot's words are all ones, which no frame's a is, its TTL
 * masked)
 */
static void forget_plain_v4(struct capindex_flows *t)
{
	memset(t->plain_v4, 0xff, plain_v4_size(t));
}

void capindex_flows_forget(struct capindex_flows *t)
{
	memset(t->used, 0, t->nslots);
	forget_plain_v4(t);
	t->nflows = 0;
	t->last = NULL;
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
static void grow_plain_v4(struct capindex_flows *t)
{
	struct plain_v4_slot *bigger;

	if (t->nslots <= (size_t)2 << t->plain_v4_shift ||
	    t->plain_v4_shift >= PLAIN_V4_SETS_SHIFT_MAX)
		return;
	bigger = realloc(t->plain_v4, 2 * plain_v4_size(t));
	if (!bigger)
		return;
	t->plain_v4 = bigger;
	t->plain_v4_shift++;
}

/* twice the slots; 0, or -1 (out of memory: the flows stay as they are) */
static int grow(struct capindex_flows *t)
{
	size_t nslots = t->nslots * 2, i, at;
	struct flow_slot *slots = malloc(nslots * sizeof(*slots));
	uint8_t *used = calloc(nslots, 1);

	if (!slots || !used) {
		free(slots);
		free(used);
		return -1;
	}
	for (i = 0; i < t->nslots; i++) {
		if (!t->used[i])
			continue;
		at = find(slots, used, nslots, &t->slots[i].key);
		slots[at] = t->slots[i];
		used[at] = 1;
	}
	free(t->slots);
	free(t->used);
	t->slots = slots;
	t->used = used;
	t->nslots = nslots;
	t->last = NULL;
	grow_plain_v4(t);
	forget_plain_v4(t);
	return 0;
}

struct flow_slot *capindex_flows_find(struct capindex_flows *t, const struct flowkey *k,
				      int *added)
{
	struct flow_slot *s;
	size_t at;

	*added = 0;
	if (t->last && !memcmp(&t->last->key, k, sizeof(*k)))
		return t->last;
	at = find(t->slots, t->used, t->nslots, k);
	if (!t->used[at]) {
		if (t->nflows >= CAPINDEX_FLOWS_MAX)
			return NULL;
		if (2 * (t->nflows + 1) > t->nslots) {
			if (grow(t))
				return NULL;
			at = find(t->slots, t->used, t->nslots, k);
		}
		s = &t->slots[at];
		t->used[at] = 1;
		s->key = *k;
		s->id = t->nflows++;
		s->in_span = 0;
		*added = 1;
	}
	t->last = &t->slots[at];
	return t->last;
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

void capindex_flows_cache(struct capindex_flows *t, const uint8_t *f, const struct flowkey *k,
			  struct flow_slot *s)
{
	struct plain_v4_slot words, *set;

	if (!is_plain_v4(k))
		return;
	plain_v4_words(f, &words);
	words.flow = s;
	set = plain_v4_set(t, &words);
	set[1] = set[0];
	set[0] = words;
}
