/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mgdump's buffer between one reader thread and the writer: a single-
 * producer, single-consumer ring of whole pcapng blocks.  The reader formats
 * blocks in place; the writer write()s them straight from the ring.  A block
 * never wraps: a pad marker sends the writer back to the start.
 */
#ifndef MGDUMP_BLOCKRING_H
#define MGDUMP_BLOCKRING_H

#include <stddef.h>
#include <stdint.h>

struct blockring {
	uint8_t *buf;
	uint64_t size;		/* a multiple of 4 */
	uint64_t head;		/* producer: bytes ever reserved, free-running */
	uint64_t tail;		/* consumer: bytes ever released */
	uint64_t head_pos;	/* producer: head % size, kept without a division */
	uint64_t skip;		/* producer: padding before the reserved block */
	uint64_t high_water;	/* most bytes in use, reader-side */
	uint64_t dropped;	/* blocks that found no room */
};

/*
 * A ring with memory of its own: 0, or -1; blockring_free() gives it back
 * (never for an attached ring: its memory is the caller's).
 */
int blockring_init(struct blockring *r, uint64_t size);
void blockring_free(struct blockring *r);

/*
 * Memory for rings, faulted in (NULL: none), of which blockring_attach()
 * makes a ring of @size bytes at @buf; blockring_unmap() gives it back.
 */
uint8_t *blockring_alloc(uint64_t size);
void blockring_attach(struct blockring *r, uint8_t *buf, uint64_t size);
void blockring_unmap(uint8_t *buf, uint64_t size);

/* Producer: room for @len bytes (a multiple of 4), or NULL (and a drop counted). */
uint8_t *blockring_reserve(struct blockring *r, uint32_t len);
/* Producer: the @len bytes reserved are complete. */
void blockring_commit(struct blockring *r, uint32_t len);

/* Consumer: the contiguous run of complete blocks at the tail (0: none). */
size_t blockring_peek(struct blockring *r, const uint8_t **data);
/* Consumer: @len bytes of the run are done with. */
void blockring_release(struct blockring *r, size_t len);

uint64_t blockring_fill(const struct blockring *r);

#endif /* MGDUMP_BLOCKRING_H */
