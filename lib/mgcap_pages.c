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
	mgcap_reader_seek(&pg->r, start);
	if (start % MGCAP_PAGE_SIZE) {
		errno = EPROTO;
		return -1;
	}
	pg->handed = start;
	pg->block_at = start;
	pg->packets = 0;
	pg->bytes = 0;
	return 0;
}

uint64_t mgcap_pages_next(struct mgcap_pages *pg, uint64_t limit, const uint8_t **first)
{
	struct mgcap_reader *r = &pg->r;
	uint64_t end, room, pos = pg->handed & (r->data_size - 1);

	if (r->corrupt)
		return 0;
	/* pairs with the kernel's release store of producer */
	r->head = __atomic_load_n(&r->ctrl->producer, __ATOMIC_ACQUIRE);
	if (r->head - r->tail > r->data_size) {
		mgcap_reader_set_corrupt(r, r->tail);
		return 0;
	}
	end = r->head & ~(uint64_t)(MGCAP_PAGE_SIZE - 1);
	if (limit - pg->handed < end - pg->handed)
		end = limit;
	if (end - pg->handed - 1 >= r->data_size)	/* nothing new, or a limit behind */
		return 0;
	room = r->data_size - pos;
	*first = r->data + pos;
	end = end - pg->handed < room ? end - pg->handed : room;
	pg->handed += end;
	return end;
}

/* Counts the blocks that end at or before ring index @to; 0, or -1 (one does not fit). */
static int count_blocks(struct mgcap_pages *pg, uint64_t to)
{
	struct mgcap_reader *r = &pg->r;

	while (to - pg->block_at >= MGCAP_PCAPNG_BLOCK_MIN && to - pg->block_at <= r->data_size) {
		uint64_t pos = pg->block_at & (r->data_size - 1);
		uint32_t head[2];

		memcpy(head, r->data + pos, sizeof(head));
		/* whole words, within the data area and what the kernel wrote */
		if (head[1] < MGCAP_PCAPNG_BLOCK_MIN || head[1] % 4 ||
		    head[1] > r->data_size - pos || head[1] > r->head - pg->block_at) {
			mgcap_reader_set_corrupt(r, pg->block_at);
			return -1;
		}
		if (head[1] > to - pg->block_at)
			break;	/* it ends in pages not written yet */
		pg->packets += head[0] == MGCAP_PCAPNG_EPB;
		pg->block_at += head[1];
	}
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

int mgcap_pages_fill(struct mgcap_pages *pg, uint64_t *end)
{
	__u64 at;

	if (ioctl(pg->r.fd, MGCAP_IOC_FILL_PAGE, &at))
		return -1;
	*end = at;
	return 0;
}
