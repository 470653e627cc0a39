// SPDX-License-Identifier: BSD-2-Clause
#include <stdlib.h>
#include <string.h>

#include "synthetic_ring.h"

#define PAGE 4096

int synthetic_ring_init(struct synthetic_ring *s, uint64_t data_size, uint32_t queue)
{
	memset(s, 0, sizeof(*s));
	s->map_size = PAGE + data_size;
	s->map = aligned_alloc(PAGE, s->map_size);
	if (!s->map)
		return -1;
	memset(s->map, 0, s->map_size);
	s->ctrl = s->map;
	s->data = (uint8_t *)s->map + PAGE;
	s->ctrl->magic = MGCAP_RING_MAGIC;
	s->ctrl->version = MGCAP_RING_VERSION;
	s->ctrl->queue = queue;
	s->ctrl->data_offset = PAGE;
	s->ctrl->data_size = data_size;
	return 0;
}

void synthetic_ring_free(struct synthetic_ring *s)
{
	free(s->map);
	s->map = NULL;
}

/* A record; with @sw_tstamp nonzero, the kernel's stamp after the frame too. */
static int put(struct synthetic_ring *s, const uint8_t *frame, uint32_t caplen, uint32_t wirelen,
	       uint16_t queue, uint16_t flags, uint64_t tstamp_ns, uint64_t sw_tstamp_ns)
{
	uint64_t size = s->ctrl->data_size;
	uint64_t tail = __atomic_load_n(&s->ctrl->consumer, __ATOMIC_ACQUIRE);
	uint32_t rec_len;
	uint64_t skip;
	struct mgcap_rec *rec;

	if (sw_tstamp_ns)
		flags |= MGCAP_REC_F_SWTSTAMP;
	rec_len = mgcap_rec_len(caplen, flags);
	skip = mgcap_ring_skip_before(s->head, size, rec_len);
	if (s->head - tail + skip + rec_len > size) {
		s->dropped++;
		return -1;
	}
	if (skip >= sizeof(*rec)) {
		rec = (struct mgcap_rec *)(s->data + (s->head & (size - 1)));
		memset(rec, 0, sizeof(*rec));
		rec->rec_len = (uint32_t)skip;
		rec->flags = MGCAP_REC_F_PAD;
	}
	s->head += skip;
	rec = (struct mgcap_rec *)(s->data + (s->head & (size - 1)));
	rec->rec_len = rec_len;
	rec->caplen = caplen;
	rec->wirelen = wirelen;
	rec->queue = queue;
	rec->flags = flags;
	rec->tstamp_ns = tstamp_ns;
	memcpy(rec->data, frame, caplen);
	memset(rec->data + caplen, 0, rec_len - sizeof(*rec) - caplen);
	if (sw_tstamp_ns)
		memcpy((uint8_t *)rec + MGCAP_REC_SWTSTAMP_OFF(caplen), &sw_tstamp_ns, 8);
	s->head += rec_len;
	__atomic_store_n(&s->ctrl->producer, s->head, __ATOMIC_RELEASE);
	return 0;
}

int synthetic_ring_put(struct synthetic_ring *s, const uint8_t *frame, uint32_t caplen,
		       uint32_t wirelen, uint16_t queue, uint16_t flags, uint64_t tstamp_ns)
{
	return put(s, frame, caplen, wirelen, queue, flags, tstamp_ns, 0);
}

int synthetic_ring_put_both(struct synthetic_ring *s, const uint8_t *frame, uint32_t caplen,
			    uint32_t wirelen, uint16_t queue, uint16_t flags, uint64_t tstamp_ns,
			    uint64_t sw_tstamp_ns)
{
	return put(s, frame, caplen, wirelen, queue, flags, tstamp_ns, sw_tstamp_ns);
}
