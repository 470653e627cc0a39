// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include "mgcap_pages.h"

int mgcap_pages_start(struct mgcap_pages *pg, uint32_t interface_id)
{
	struct mgcap_format_req req = { .format = MGCAP_FORMAT_PCAPNG, .interface_id = interface_id };
	uint64_t start;

	if (ioctl(pg->r.fd, MGCAP_IOC_SET_FORMAT, &req))
		return -1;
	/* (the kernel started it empty, at a page boundary) */
	start = __atomic_load_n(&pg->r.ctrl->consumer, __ATOMIC_ACQUIRE);
	if (mgcap_pages_begin(pg, start)) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

int mgcap_pages_begin(struct mgcap_pages *pg, uint64_t start)
{
	mgcap_reader_seek(&pg->r, start);
	pg->handed = start;
	pg->block_at = start;
	pg->block_hdr[1] = 0;
	pg->packets = 0;
	pg->bytes = 0;
	return start % MGCAP_PAGE_SIZE ? -1 : 0;
}

/* The producer index looked at: 0, or -1 where reading ended (or ends: an impossible one). */
static int look(struct mgcap_reader *r)
{
	if (r->corrupt)
		return -1;
	/* pairs with the kernel's release store of producer */
	r->head = __atomic_load_n(&r->ctrl->producer, __ATOMIC_ACQUIRE);
	if (r->head - r->tail > r->data_size) {
		mgcap_reader_set_corrupt(r, r->tail);
		return -1;
	}
	return 0;
}

uint64_t mgcap_pages_next(struct mgcap_pages *pg, uint64_t limit, const uint8_t **first)
{
	struct mgcap_reader *r = &pg->r;
	uint64_t end, room, pos = pg->handed & (r->data_size - 1);

	if (look(r))
		return 0;
	end = r->head & ~(uint64_t)(MGCAP_PAGE_SIZE - 1);
	if (limit - pg->handed < end - pg->handed)
		end = limit;
	/* nothing new, or a limit behind what was handed out: none */
	if (end - pg->handed - 1 >= r->data_size || limit < pg->handed)
		return 0;
	room = r->data_size - pos;
	*first = r->data + pos;
	end = end - pg->handed < room ? end - pg->handed : room;
	pg->handed += end;
	return end;
}

/*
 * The type and length of the block at ring index @at, which the kernel
 * wrote: 0, or -1 where its length is not whole words within the data
 * area and what the kernel wrote (reading ends).
 */
static int block_at(struct mgcap_pages *pg, uint64_t at, uint32_t hdr[2])
{
	struct mgcap_reader *r = &pg->r;
	uint64_t pos = at & (r->data_size - 1);

	memcpy(hdr, r->data + pos, 2 * sizeof(*hdr));
	if (hdr[1] < MGCAP_PCAPNG_BLOCK_MIN || hdr[1] % 4 || hdr[1] > r->data_size - pos ||
	    hdr[1] > r->head - at) {
		mgcap_reader_set_corrupt(r, at);
		return -1;
	}
	return 0;
}

/*
 * How far the blocks looked at may lie before an index up to which the
 * pages are held (a ring's length past the pages given back, at most): the
 * next block to count begins in those pages, or before them by less than a
 * ring's length, where it began in a page given back.
 */
#define BLOCKS_SPAN(pg)	(2 * (pg)->r.data_size)

/* The type and length of the next block to count (its page may be given back): 0, or -1. */
static int next_block(struct mgcap_pages *pg, uint32_t hdr[2])
{
	if (pg->block_hdr[1]) {
		memcpy(hdr, pg->block_hdr, sizeof(pg->block_hdr));
		return 0;
	}
	return block_at(pg, pg->block_at, hdr);
}

/*
 * Counts the blocks that end at or before ring index @to, the pages before
 * it still held; a block begun before @to that ends after it has its
 * header kept, read while its first page is.  0, or -1 (one does not fit).
 */
static int count_blocks(struct mgcap_pages *pg, uint64_t to)
{
	while (to - pg->block_at - 1 < BLOCKS_SPAN(pg)) {
		uint32_t hdr[2];

		if (next_block(pg, hdr))
			return -1;
		if (hdr[1] > to - pg->block_at) {
			/* it ends in pages not written yet */
			memcpy(pg->block_hdr, hdr, sizeof(pg->block_hdr));
			break;
		}
		pg->packets += hdr[0] == MGCAP_PCAPNG_EPB;
		pg->block_at += hdr[1];
		pg->block_hdr[1] = 0;
	}
	return 0;
}

int mgcap_pages_count(struct mgcap_pages *pg, uint64_t to)
{
	return count_blocks(pg, to);
}

int mgcap_pages_cut(struct mgcap_pages *pg, uint64_t end, uint64_t room, uint64_t *cut)
{
	uint64_t at = pg->block_at, tail = pg->r.tail;

	if (look(&pg->r))
		return -1;
	/* (a block that began in the pages given back ends in this file, whatever its length) */
	while (end - at >= MGCAP_PCAPNG_BLOCK_MIN && end - at <= BLOCKS_SPAN(pg)) {
		uint32_t hdr[2];

		if (at == pg->block_at ? next_block(pg, hdr) : block_at(pg, at, hdr))
			return -1;
		if (hdr[1] > end - at || (at >= tail && at + hdr[1] - tail > room))
			break;	/* (ending past @end: not whole there) */
		at += hdr[1];
	}
	*cut = at;
	return 0;
}

int mgcap_pages_done(struct mgcap_pages *pg, uint64_t bytes)
{
	struct mgcap_reader *r = &pg->r;

	if (count_blocks(pg, r->tail + bytes))
		return -1;
	mgcap_reader_advance(r, bytes);
	pg->bytes += bytes;
	mgcap_reader_release(r);
	return 0;
}

int mgcap_pages_drop(struct mgcap_pages *pg, uint64_t to, uint64_t *packets)
{
	struct mgcap_reader *r = &pg->r;
	uint64_t written = pg->packets;

	*packets = 0;
	if (to - r->tail > r->data_size || look(r) || to - r->tail > r->head - r->tail ||
	    count_blocks(pg, to))
		return -1;
	*packets = pg->packets - written;
	pg->packets = written;
	if (to - pg->handed <= r->data_size)
		pg->handed = to;
	mgcap_reader_advance(r, to - r->tail);
	mgcap_reader_release(r);
	return 0;
}

int mgcap_pages_blocks(struct mgcap_pages *pg, uint64_t at, uint64_t before,
		       const uint8_t **first, uint64_t *len)
{
	struct mgcap_reader *r = &pg->r;
	uint64_t end = at;

	*first = r->data + (at & (r->data_size - 1));
	*len = 0;
	if (look(r))
		return -1;
	while (before - end - 1 < r->data_size) {
		struct mgcap_pcapng_epb epb;
		uint32_t hdr[2];

		if (block_at(pg, end, hdr))
			return -1;
		if (hdr[0] == MGCAP_PCAPNG_EPB) {
			/* (an index reads the frame: within its block) */
			if (hdr[1] >= sizeof(epb) + 4)
				memcpy(&epb, r->data + (end & (r->data_size - 1)), sizeof(epb));
			if (hdr[1] < sizeof(epb) + 4 || epb.caplen > hdr[1] - sizeof(epb) - 4) {
				mgcap_reader_set_corrupt(r, end);
				return -1;
			}
		}
		end += hdr[1];
		if (!(end & (r->data_size - 1)))
			break;	/* the data area's end: the next block is at its start */
	}
	*len = end - at;
	return 0;
}

int mgcap_pages_fill(struct mgcap_pages *pg, uint64_t *end)
{
	__u64 at;

	if (ioctl(pg->r.fd, MGCAP_IOC_FILL_PAGE, &at))
		return -1;
	*end = at;
	return 0;
}
