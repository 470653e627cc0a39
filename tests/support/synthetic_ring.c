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

/* A filler block of @len bytes at free-running index @at, zeros within. */
static void put_filler(struct synthetic_ring *s, uint64_t at, uint32_t len)
{
	uint8_t *p = s->data + (at & (s->ctrl->data_size - 1));
	uint32_t type = MGCAP_PCAPNG_FILLER;

	memset(p, 0, len);
	memcpy(p, &type, 4);
	memcpy(p + 4, &len, 4);
	memcpy(p + len - 4, &len, 4);
}

int synthetic_ring_put_epb(struct synthetic_ring *s, const uint8_t *frame, uint32_t caplen,
			   uint32_t wirelen, uint32_t ifid, uint64_t tstamp_ns)
{
	uint64_t size = s->ctrl->data_size;
	uint64_t tail = __atomic_load_n(&s->ctrl->consumer, __ATOMIC_ACQUIRE);
	uint32_t len = mgcap_pcapng_epb_len(caplen, MGCAP_PCAPNG_EPB_INBOUND);
	uint16_t opt[2] = { MGCAP_PCAPNG_OPT_EPB_FLAGS, 4 };
	uint32_t inbound = MGCAP_PCAPNG_EPB_INBOUND, end_opt = MGCAP_PCAPNG_OPT_ENDOFOPT;
	uint64_t skip = mgcap_pcapng_skip_before(s->head, size, len);
	struct mgcap_pcapng_epb epb = { MGCAP_PCAPNG_EPB, len, ifid, (uint32_t)(tstamp_ns >> 32),
					(uint32_t)tstamp_ns, caplen, wirelen };
	uint8_t *p;

	if (s->head - tail + skip + len > size) {
		s->dropped++;
		return -1;
	}
	if (skip)
		put_filler(s, s->head, (uint32_t)skip);
	s->head += skip;
	p = s->data + (s->head & (size - 1));
	memset(p, 0, len);
	memcpy(p, &epb, sizeof(epb));
	memcpy(p + sizeof(epb), frame, caplen);
	p += len - MGCAP_PCAPNG_EPB_FLAGS_BYTES - 4;
	memcpy(p, opt, 4);
	memcpy(p + 4, &inbound, 4);
	memcpy(p + 8, &end_opt, 4);
	memcpy(p + 12, &len, 4);
	s->head += len;
	__atomic_store_n(&s->ctrl->producer, s->head, __ATOMIC_RELEASE);
	return 0;
}

int synthetic_ring_fill_page(struct synthetic_ring *s, uint64_t *end)
{
	uint64_t tail = __atomic_load_n(&s->ctrl->consumer, __ATOMIC_ACQUIRE);
	uint32_t len = mgcap_pcapng_filler_len(s->head, PAGE);

	if (s->head - tail + len > s->ctrl->data_size)
		return -1;
	if (len)
		put_filler(s, s->head, len);
	s->head += len;
	__atomic_store_n(&s->ctrl->producer, s->head, __ATOMIC_RELEASE);
	*end = s->head;
	return 0;
}
