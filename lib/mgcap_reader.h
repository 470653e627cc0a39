/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The consumer side of an mgcap ring (see <linux/mgcap.h>), for user space.
 *
 * mgcap_reader_next() hands out records straight from the mapping; they stay
 * valid until mgcap_reader_release() gives their bytes back to the kernel.
 */
#ifndef MGCAP_READER_H
#define MGCAP_READER_H

#include <stddef.h>
#include <stdint.h>
#include <linux/mgcap.h>

struct mgcap_reader {
	int fd;
	void *map;
	size_t map_size;
	struct mgcap_ring_ctrl *ctrl;
	const uint8_t *data;
	uint64_t data_size;
	uint64_t tail;		/* records before this index were handed out */
	uint64_t head;		/* producer index last seen */
	/* where the producer index is read: &ctrl->producer, or &gate */
	const __u64 *producer;
	__u64 gate;
	struct mgcap_queue_info info;
};

/*
 * Attaches @r to the ring in @map (as mapped from a queue device; tests and
 * benchmarks pass synthetic rings).  Returns 0, or -1 with @err set when the
 * mapping is not an mgcap ring of this version.
 */
int mgcap_reader_attach(struct mgcap_reader *r, void *map, size_t map_size,
			char *err, size_t errlen);

/* Opens and maps a queue device (O_RDWR); 0, or -1 with errno and @err set. */
int mgcap_reader_open(struct mgcap_reader *r, const char *path, char *err, size_t errlen);
void mgcap_reader_close(struct mgcap_reader *r);

/* The next record, or NULL when none is ready. */
static inline const struct mgcap_rec *mgcap_reader_next(struct mgcap_reader *r)
{
	for (;;) {
		const struct mgcap_rec *rec;
		uint64_t skip;

		if (r->tail == r->head) {
			/* pairs with the kernel's release store of producer */
			r->head = __atomic_load_n(r->producer, __ATOMIC_ACQUIRE);
			if (r->tail == r->head)
				return NULL;
		}
		skip = mgcap_ring_skip_at(r->tail, r->data_size, r->data);
		if (skip) {
			r->tail += skip;
			continue;
		}
		rec = (const struct mgcap_rec *)(r->data + (r->tail & (r->data_size - 1)));
		r->tail += rec->rec_len;
		return rec;
	}
}

/*
 * The unread records up to the producer index or the end of the data area,
 * whichever comes first: a stretch that does not wrap, starting at *@first.
 * Its bytes, or 0 when nothing is unread.  Padding at the end of the data
 * area lies within it: a record with MGCAP_REC_F_PAD, or fewer bytes than a
 * record header.  Walking it (record by record, rec_len apart) is the
 * caller's; mgcap_reader_advance() then moves the tail past what it took.
 */
static inline uint64_t mgcap_reader_stretch(struct mgcap_reader *r, const uint8_t **first)
{
	uint64_t pos, room, unread;

	if (r->tail == r->head) {
		/* pairs with the kernel's release store of producer */
		r->head = __atomic_load_n(r->producer, __ATOMIC_ACQUIRE);
		if (r->tail == r->head)
			return 0;
	}
	pos = r->tail & (r->data_size - 1);
	room = r->data_size - pos;
	unread = r->head - r->tail;
	*first = r->data + pos;
	return unread < room ? unread : room;
}

static inline void mgcap_reader_advance(struct mgcap_reader *r, uint64_t bytes)
{
	r->tail += bytes;
}

/* Every record handed out so far may be overwritten. */
/* Gives back to the kernel everything before ring index @pos (at most tail). */
static inline void mgcap_reader_release_to(struct mgcap_reader *r, uint64_t pos)
{
	__atomic_store_n(&r->ctrl->consumer, pos, __ATOMIC_RELEASE);
}

static inline void mgcap_reader_release(struct mgcap_reader *r)
{
	__atomic_store_n(&r->ctrl->consumer, r->tail, __ATOMIC_RELEASE);
}

/* Drops everything unread: reading starts with the next record captured. */
static inline void mgcap_reader_discard(struct mgcap_reader *r)
{
	r->head = __atomic_load_n(&r->ctrl->producer, __ATOMIC_ACQUIRE);
	r->tail = r->head;
	r->gate = r->head;
	mgcap_reader_release(r);
}

/*
 * A gated reader hands out only the records captured before the gate last
 * opened, for a caller that must do something after each record was
 * captured and before it is read (adapter stamps: take a clock sample).
 * The hot path pays nothing for it: the producer index is read through a
 * pointer either way.
 */
static inline void mgcap_reader_set_gated(struct mgcap_reader *r, int gated)
{
	r->gate = r->head;
	r->producer = gated ? &r->gate : &r->ctrl->producer;
}

/* Lets through what the kernel captured so far; 1 if that is anything new. */
static inline int mgcap_reader_open_gate(struct mgcap_reader *r)
{
	uint64_t producer = __atomic_load_n(&r->ctrl->producer, __ATOMIC_ACQUIRE);

	if (producer == r->gate)
		return 0;
	r->gate = producer;
	return 1;
}

/* Unread bytes, as of the last look at the producer index. */
static inline uint64_t mgcap_reader_backlog(const struct mgcap_reader *r)
{
	return r->head - r->tail;
}

static inline int mgcap_reader_detached(const struct mgcap_reader *r)
{
	return (__atomic_load_n(&r->ctrl->flags, __ATOMIC_ACQUIRE) & MGCAP_RING_F_DETACHED) != 0;
}

#endif /* MGCAP_READER_H */
