/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The flows an index writer numbers (capindex_write.c, its alone): a table
 * that numbers each flow the first time a file holds it, and in front of
 * it a cache that finds a plain IPv4 frame's flow from its bytes alone,
 * without a key built, hashed or compared.  The cache's look-up is inline:
 * the writer makes it for every packet.
 */
#ifndef MGDUMP_CAPINDEX_FLOWS_H
#define MGDUMP_CAPINDEX_FLOWS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "flowkey.h"

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

struct capindex_flows {
	/* open addressing, a power of two in size, half full at most */
	struct flow_slot *slots;
	uint8_t *used;
	size_t nslots;
	uint32_t nflows;
	struct flow_slot *last;		/* the last packet's (a flow comes in runs) */
	struct plain_v4_slot *plain_v4;	/* two slots a set */
	unsigned int plain_v4_shift;	/* log2 of its sets */
};

/* 0, or -1 (out of memory; capindex_flows_free() then) */
int capindex_flows_init(struct capindex_flows *t);
void capindex_flows_free(struct capindex_flows *t);
/* none numbered (a new file) */
void capindex_flows_forget(struct capindex_flows *t);

/*
 * The flow of @k, numbered the first time (*@added set: the caller writes
 * it down); NULL past CAPINDEX_FLOWS_MAX or out of memory
 */
struct flow_slot *capindex_flows_find(struct capindex_flows *t, const struct flowkey *k,
				      int *added);

/* The frame @f, of flow @k numbered @s, found by the cache from now on if it is plain. */
void capindex_flows_cache(struct capindex_flows *t, const uint8_t *f, const struct flowkey *k,
			  struct flow_slot *s);

static inline uint16_t capindex_load16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t capindex_load64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* the words of the frame @f (38 bytes at least) that a plain_v4_slot keeps */
static inline void plain_v4_words(const uint8_t *f, struct plain_v4_slot *words)
{
	/* bytes 12-19: the type, the IP version and header length */
	static const uint8_t head_mask[8] = { 0xff, 0xff, 0xff, 0, 0, 0, 0, 0 };
	/* bytes 20-27 less the TTL (22) and the checksum (24, 25) */
	static const uint8_t a_mask[8] = { 0xff, 0xff, 0, 0xff, 0, 0, 0xff, 0xff };
	uint64_t mask;

	memcpy(&mask, head_mask, sizeof(mask));
	words->head = capindex_load64(f + 12) & mask;
	memcpy(&mask, a_mask, sizeof(mask));
	words->a = capindex_load64(f + 20) & mask;
	words->b = capindex_load64(f + 28);
	words->c = capindex_load16(f + 36);
}

static inline int plain_v4_same_words(const struct plain_v4_slot *x,
				      const struct plain_v4_slot *y)
{
	return x->a == y->a && x->b == y->b && x->c == y->c && x->head == y->head;
}

/* the cache's set of two slots for a plain frame's @words */
static inline struct plain_v4_slot *plain_v4_set(const struct capindex_flows *t,
						 const struct plain_v4_slot *words)
{
	uint64_t h = (words->a * 0xc2b2ae3d27d4eb4fULL ^ words->b ^ words->c) *
		     0x9e3779b97f4a7c15ULL;

	return &t->plain_v4[2 * (h >> (64 - t->plain_v4_shift))];
}

/* The flow of the frame @f of @caplen bytes if the cache has it, else NULL (the long way). */
static inline struct flow_slot *capindex_flows_cached(const struct capindex_flows *t,
						      const uint8_t *f, uint32_t caplen)
{
	struct plain_v4_slot words, *set;

	if (caplen < 38)
		return NULL;
	plain_v4_words(f, &words);
	set = plain_v4_set(t, &words);
	if (plain_v4_same_words(&set[0], &words))
		return set[0].flow;
	if (plain_v4_same_words(&set[1], &words))
		return set[1].flow;
	return NULL;
}

#endif /* MGDUMP_CAPINDEX_FLOWS_H */
