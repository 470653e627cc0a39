/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A ring in mgcap's format, filled by a user-space producer that follows
 * the same placement rules as the kernel (<linux/mgcap.h>), for testing and
 * benchmarking the reader without a kernel.
 */
#ifndef MGCAP_SYNTHETIC_RING_H
#define MGCAP_SYNTHETIC_RING_H

#include <stddef.h>
#include <stdint.h>
#include <linux/mgcap.h>

struct synthetic_ring {
	void *map;
	size_t map_size;
	struct mgcap_ring_ctrl *ctrl;
	uint8_t *data;
	uint64_t head;
	uint64_t dropped;
};

/* @data_size: a power of two.  0 on success. */
int synthetic_ring_init(struct synthetic_ring *s, uint64_t data_size, uint32_t queue);
void synthetic_ring_free(struct synthetic_ring *s);

/* Appends one record; -1 (and counts a drop) when the ring is full. */
int synthetic_ring_put(struct synthetic_ring *s, const uint8_t *frame, uint32_t caplen,
		       uint32_t wirelen, uint16_t queue, uint16_t flags, uint64_t tstamp_ns);

/* As a reader of MGCAP_TSTAMP_HW_AND_SW sees it: @sw_tstamp_ns after the frame. */
int synthetic_ring_put_both(struct synthetic_ring *s, const uint8_t *frame, uint32_t caplen,
			    uint32_t wirelen, uint16_t queue, uint16_t flags, uint64_t tstamp_ns,
			    uint64_t sw_tstamp_ns);

/*
 * A pcapng ring's (MGCAP_FORMAT_PCAPNG): an enhanced packet block of
 * interface @ifid, its direction inbound; -1 (and a drop counted) when the
 * ring is full.
 */
int synthetic_ring_put_epb(struct synthetic_ring *s, const uint8_t *frame, uint32_t caplen,
			   uint32_t wirelen, uint32_t ifid, uint64_t tstamp_ns);

/* A pcapng ring's MGCAP_IOC_FILL_PAGE: 0 with *@end, or -1 (no room). */
int synthetic_ring_fill_page(struct synthetic_ring *s, uint64_t *end);

#endif /* MGCAP_SYNTHETIC_RING_H */
