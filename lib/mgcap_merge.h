/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Several queue rings read as one stream in time-stamp order (ties by
 * queue): mgcap_order.h over rings.  Records handed out stay in their rings
 * (zero copy) until mgcap_merge_release().
 */
#ifndef MGCAP_MERGE_H
#define MGCAP_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "mgcap_order.h"
#include "mgcap_reader.h"

struct mgcap_merge_queue {
	struct mgcap_reader r;
	const struct mgcap_rec *next;	/* looked at, not yet handed out */
	uint64_t next_key;		/* its place in the order (its stamp, or the key's) */
	uint64_t next_end;		/* ring index just past @next */
	uint64_t next_seen;		/* monotonic ns when @next was first visible */
	uint64_t done;			/* ring index just past the last handed out */
	uint64_t last_ts;		/* key of the last record handed out */
	uint64_t head_seen;		/* producer index at the last look ... */
	uint64_t head_seen_at;		/* ... and when it was taken */
};

struct mgcap_merge {
	struct mgcap_merge_queue *q;
	size_t n;
	/*
	 * The order: each record's stamp, or (when set) what @key makes of it,
	 * such as stamps of several NICs' clocks in system time.  A queue's keys
	 * must not decrease, as its stamps do not.
	 */
	uint64_t (*key)(void *arg, size_t queue, const struct mgcap_rec *rec);
	void *key_arg;
	struct mgcap_order order;	/* order.hold_ns: how long a record may wait */
};

/*
 * @queues[i].r must be attached (mgcap_reader_open/attach); the merge reads
 * from where each reader stands.  @hold_ns 0: never hold back.  0, or -1
 * (out of memory); mgcap_merge_free() frees what it allocated.
 */
int mgcap_merge_init(struct mgcap_merge *m, struct mgcap_merge_queue *queues, size_t n,
		     uint64_t hold_ns);
void mgcap_merge_free(struct mgcap_merge *m);

/*
 * The next record in stamp order, or NULL.  With NULL, *@wait_ns says how
 * long until a held-back record may go (0: nothing is held back, there is
 * just nothing to read).  @now_ns is CLOCK_MONOTONIC.  *@queue gets the
 * index of the queue the record came from, and q[*@queue].last_ts its key.
 */
const struct mgcap_rec *mgcap_merge_next(struct mgcap_merge *m, uint64_t now_ns,
					 size_t *queue, uint64_t *wait_ns);

/*
 * Order never costs a frame: once a ring holds this share of its size
 * (1/MGCAP_MERGE_FILL_MARK), nothing is held back for the order.  It is
 * the share at which the libpcap module has the kernel wake its reader, so
 * a merged read drains its rings when a lone queue's read would be woken.
 */
#define MGCAP_MERGE_FILL_MARK	4

/* Sets m->order.rush where a ring is past the fill mark; once a read. */
void mgcap_merge_check_fill(struct mgcap_merge *m);

/*
 * Give back to the kernel every record handed out so far; a record looked
 * at but not handed out stays.
 */
void mgcap_merge_release(struct mgcap_merge *m);

#endif /* MGCAP_MERGE_H */
