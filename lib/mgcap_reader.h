/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The consumer side of an mgcap ring (see <linux/mgcap.h>), for user space.
 *
 * mgcap_reader_next() hands out records straight from the mapping; they stay
 * valid until mgcap_reader_release() gives their bytes back to the kernel.
 *
 * The mapping is writable, and a record's lengths are believed only once
 * they fit the ring: a record that does not (which the kernel never writes:
 * a reader of this ring wrote it, or an index it gave back was a lie) ends
 * the reading, and mgcap_reader_corrupt() then says where.
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
	/* ring index of a record that does not fit, or of an impossible index; 0: none */
	uint64_t corrupt_at;
	int corrupt;
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

/* The length the kernel gives @rec: mgcap_rec_len(), computed wide (no caplen wraps it). */
static inline uint64_t mgcap_rec_len_of(const struct mgcap_rec *rec)
{
	/* (without a branch for the stamp) */
	_Static_assert((MGCAP_REC_F_SWTSTAMP << 1) == sizeof(uint64_t), "the stamp's bytes");
	return (((uint64_t)rec->caplen + sizeof(*rec) + MGCAP_REC_ALIGN - 1) &
		~(uint64_t)(MGCAP_REC_ALIGN - 1)) + ((rec->flags & MGCAP_REC_F_SWTSTAMP) << 1);
}

/*
 * Whether @rec, @room bytes before the end of what may be read, is a record
 * as the kernel writes them: its rec_len what its caplen and flags make,
 * within @room.  Once a record, in the read loops: branches the compiler
 * can fold.
 */
static inline int mgcap_rec_fits(const struct mgcap_rec *rec, uint64_t room)
{
	uint64_t len = mgcap_rec_len_of(rec);

	return (rec->rec_len == len) & (len <= room);
}

/*
 * mgcap_rec_fits(), with the length it judged: the record's length where
 * it fits, 0 where not.  A caller that steps past the record by it steps
 * by what was checked, whatever another reader of the ring writes meanwhile.
 */
static inline uint64_t mgcap_rec_fits_len(const struct mgcap_rec *rec, uint64_t room)
{
	uint64_t len = mgcap_rec_len_of(rec);

	return rec->rec_len == len && len <= room ? len : 0;
}

/*
 * The record at @at of a stretch ending at @end, where one is there and
 * fits (*@len its length, read once: the ring is writable by other
 * readers); NULL at the padding, the stretch's end, or one that does not
 * fit, which a reader's next look judges.
 */
static inline const struct mgcap_rec *mgcap_walk_rec(const uint8_t *at, const uint8_t *end,
						     uint64_t *len)
{
	const struct mgcap_rec *rec = mgcap_ring_rec_at(at, end);

	return rec && (*len = mgcap_rec_fits_len(rec, (uint64_t)(end - at))) ? rec : NULL;
}

/*
 * Reading ends at ring index @at: nothing more is handed out (the caller
 * learns it from mgcap_reader_corrupt()).  Always NULL, for the caller to
 * return.  Out of line: the read loops stay small enough to inline.
 */
__attribute__((cold))
const struct mgcap_rec *mgcap_reader_set_corrupt(struct mgcap_reader *r, uint64_t at);

/*
 * Readings ended so in this process, every reader counted: a caller of many
 * readers looks at each only when this changed (read it relaxed).
 */
extern unsigned long mgcap_reader_corruptions;

/* Whether reading ended at a record that does not fit (@at: where), or an impossible index. */
static inline int mgcap_reader_corrupt(const struct mgcap_reader *r, uint64_t *at)
{
	if (r->corrupt && at)
		*at = r->corrupt_at;
	return r->corrupt;
}

/* The next record, or NULL when none is ready (or reading ended: see above). */
static inline const struct mgcap_rec *mgcap_reader_next(struct mgcap_reader *r)
{
	for (;;) {
		const struct mgcap_rec *rec;
		uint64_t skip, pos, room, unread = r->head - r->tail;

		/* nothing unread, or more than the ring holds: one test for both */
		if (unread - 1 >= r->data_size) {
			/* pairs with the kernel's release store of producer */
			if (!unread && !r->corrupt)
				r->head = __atomic_load_n(r->producer, __ATOMIC_ACQUIRE);
			unread = r->head - r->tail;
			if (!unread)
				return NULL;
			if (unread > r->data_size)
				return mgcap_reader_set_corrupt(r, r->tail);
		}
		skip = mgcap_ring_skip_at(r->tail, r->data_size, r->data);
		if (skip) {
			r->tail += skip;	/* (past the producer index: caught above) */
			continue;
		}
		pos = r->tail & (r->data_size - 1);
		rec = (const struct mgcap_rec *)(r->data + pos);
		/* within the data area and before the producer index */
		room = r->data_size - pos;
		if (unread < room)
			room = unread;
		if (!mgcap_rec_fits(rec, room))
			return mgcap_reader_set_corrupt(r, r->tail);
		r->tail += rec->rec_len;
		return rec;
	}
}

/*
 * The unread records up to the producer index or the end of the data area,
 * whichever comes first: a stretch that does not wrap, starting at *@first.
 * Its bytes, or 0 when nothing is unread.  Padding at the end of the data
 * area lies within it: the walk ends where mgcap_ring_rec_at() finds no
 * record.  Walking it (record by record, rec_len apart) is the
 * caller's, each record judged by mgcap_rec_fits() against the bytes left
 * in the stretch (one that does not fit: mgcap_reader_set_corrupt());
 * mgcap_reader_advance() or mgcap_reader_advance_to() then moves the tail
 * past what it took.
 */
static inline uint64_t mgcap_reader_stretch(struct mgcap_reader *r, const uint8_t **first)
{
	uint64_t pos, room, unread;

	if (r->tail == r->head) {
		if (r->corrupt)
			return 0;
		/* pairs with the kernel's release store of producer */
		r->head = __atomic_load_n(r->producer, __ATOMIC_ACQUIRE);
		if (r->tail == r->head)
			return 0;
	}
	pos = r->tail & (r->data_size - 1);
	room = r->data_size - pos;
	unread = r->head - r->tail;
	if (unread > r->data_size) {
		mgcap_reader_set_corrupt(r, r->tail);
		return 0;
	}
	*first = r->data + pos;
	return unread < room ? unread : room;
}

static inline void mgcap_reader_advance(struct mgcap_reader *r, uint64_t bytes)
{
	r->tail += bytes;
}

/*
 * mgcap_reader_advance() up to @at, within the stretch last returned (its
 * start worked out again, so that a walk need not keep it).
 */
static inline void mgcap_reader_advance_to(struct mgcap_reader *r, const uint8_t *at)
{
	r->tail += (uint64_t)(at - (r->data + (r->tail & (r->data_size - 1))));
}

/* Every record handed out so far may be overwritten. */
static inline void mgcap_reader_release(struct mgcap_reader *r)
{
	__atomic_store_n(&r->ctrl->consumer, r->tail, __ATOMIC_RELEASE);
}

/*
 * Reading goes on at ring index @pos (nothing unread before the next look
 * at the producer index): where a record starts, so a multiple of
 * MGCAP_REC_ALIGN, or reading ends there.
 */
static inline void mgcap_reader_seek(struct mgcap_reader *r, uint64_t pos)
{
	r->tail = pos;
	r->head = pos;
	r->gate = pos;
	r->corrupt = 0;
	r->corrupt_at = 0;
	if (pos & (MGCAP_REC_ALIGN - 1))
		mgcap_reader_set_corrupt(r, pos);
}

/* Drops everything unread: reading starts with the next record captured. */
static inline void mgcap_reader_discard(struct mgcap_reader *r)
{
	mgcap_reader_seek(r, __atomic_load_n(&r->ctrl->producer, __ATOMIC_ACQUIRE));
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
