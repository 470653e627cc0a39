// SPDX-License-Identifier: BSD-2-Clause
#include <string.h>
#include <sys/mman.h>

#include "blockring.h"

#define PAD_MARKER 0xFFFFFFFFU	/* no block type; "continue at the start" */

uint8_t *blockring_alloc(uint64_t size)
{
	/*
	 * Faulted in now, not while packets arrive: a page fault in the
	 * reader is time the kernel ring has to cover.
	 */
	void *buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	return buf == MAP_FAILED ? NULL : buf;
}

void blockring_attach(struct blockring *r, uint8_t *buf, uint64_t size)
{
	memset(r, 0, sizeof(*r));
	r->buf = buf;
	r->size = size & ~(uint64_t)3;
}

int blockring_init(struct blockring *r, uint64_t size)
{
	uint8_t *buf = blockring_alloc(size);

	if (!buf)
		return -1;
	blockring_attach(r, buf, size);
	return 0;
}

void blockring_unmap(uint8_t *buf, uint64_t size)
{
	munmap(buf, size);
}

void blockring_free(struct blockring *r)
{
	if (r->buf)
		blockring_unmap(r->buf, r->size);
	r->buf = NULL;
}

uint8_t *blockring_reserve(struct blockring *r, uint32_t len)
{
	uint64_t tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
	uint64_t pos = r->head_pos, room = r->size - pos, skip = len > room ? room : 0;

	if (len > r->size || r->head - tail + skip + len > r->size) {
		/* the writer thread reads it for the status line and statistics */
		__atomic_store_n(&r->dropped, r->dropped + 1, __ATOMIC_RELAXED);
		return NULL;
	}
	if (skip) {
		uint32_t marker = PAD_MARKER;

		memcpy(r->buf + pos, &marker, 4);
	}
	r->skip = skip;		/* published with the block, by commit */
	return r->buf + (skip ? 0 : pos);
}

void blockring_commit(struct blockring *r, uint32_t len)
{
	uint64_t head = r->head + r->skip + len;
	uint64_t used = head - __atomic_load_n(&r->tail, __ATOMIC_RELAXED);

	if (used > r->high_water)
		__atomic_store_n(&r->high_water, used, __ATOMIC_RELAXED);
	/* a skip wrapped the block to the start; a block ending at the end wraps too */
	r->head_pos = (r->skip ? 0 : r->head_pos) + len;
	if (r->head_pos == r->size)
		r->head_pos = 0;
	r->skip = 0;
	/* the block (and a pad marker before it) is complete before head moves */
	__atomic_store_n(&r->head, head, __ATOMIC_RELEASE);
}

static size_t blocks_before_marker(const uint8_t *p, uint64_t len)
{
	uint64_t off = 0;

	while (off < len) {
		uint32_t type, block_len;

		memcpy(&type, p + off, 4);
		if (type == PAD_MARKER)
			break;
		memcpy(&block_len, p + off + 4, 4);
		off += block_len;
	}
	return (size_t)off;
}

size_t blockring_peek(struct blockring *r, const uint8_t **data)
{
	uint64_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);

	for (;;) {
		uint64_t pos = r->tail % r->size, end;
		uint32_t type;

		if (r->tail == head)
			return 0;
		memcpy(&type, r->buf + pos, 4);
		if (type == PAD_MARKER) {
			__atomic_store_n(&r->tail, r->tail + (r->size - pos), __ATOMIC_RELEASE);
			continue;
		}
		/* complete blocks up to head or the end of the buffer; a pad marker stops it */
		end = head - r->tail < r->size - pos ? head - r->tail : r->size - pos;
		*data = r->buf + pos;
		return blocks_before_marker(r->buf + pos, end);
	}
}

void blockring_release(struct blockring *r, size_t len)
{
	__atomic_store_n(&r->tail, r->tail + len, __ATOMIC_RELEASE);
}

uint64_t blockring_fill(const struct blockring *r)
{
	return __atomic_load_n(&r->head, __ATOMIC_ACQUIRE) - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
}
