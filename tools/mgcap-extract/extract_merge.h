/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mgcap-extract's packets put in time order in bounded memory: they are
 * held until a budget is reached, then sorted and written to a temporary
 * file as a run; at the end, the runs are merged, as many at once as the
 * budget has room to read from, in passes (an external merge sort).  A
 * search of a long range writes a large file, not a large heap.
 *
 * The order is the packets' stamps, and for equal stamps where they are:
 * their file's place among the inputs, then their offset in it.  The
 * output then does not depend on which parts of which files were read, or
 * on the budget.
 */
#ifndef MGDUMP_EXTRACT_MERGE_H
#define MGDUMP_EXTRACT_MERGE_H

#include <stddef.h>
#include <stdint.h>

/* A packet as held and as handed back: its data follows it. */
struct extract_packet {
	uint64_t ts_ns;
	uint64_t offset;	/* in its file */
	uint32_t file;		/* its file's number */
	uint32_t ifid;		/* the caller's, carried */
	uint32_t caplen, wirelen;
	uint32_t epb_flags;	/* its block's (pcapng_epb_flags()): the caller's, carried */
};

/* The largest packet it takes (pcapng readers' limit), and the smallest budget. */
#define EXTRACT_MERGE_CAPLEN_MAX	262144U
#define EXTRACT_MERGE_BUDGET_MIN	(1U << 20)

struct extract_merge;

/*
 * Using at most @budget bytes (EXTRACT_MERGE_BUDGET_MIN at least) of
 * memory, the temporary file's in $TMPDIR (/var/tmp without it); NULL: out
 * of memory.
 */
struct extract_merge *extract_merge_new(size_t budget);

/*
 * Takes a packet (@data: its @p->caplen bytes, EXTRACT_MERGE_CAPLEN_MAX at
 * most): 0, or -1 with errno set (out of memory, or the temporary file
 * could not be made or written; it is then of no more use).
 */
int extract_merge_add(struct extract_merge *m, const struct extract_packet *p,
		      const uint8_t *data);

/* Runs of packets written to the temporary file so far (for the summary and the tests). */
size_t extract_merge_runs(const struct extract_merge *m);

/* Where the temporary file is made (for a message). */
const char *extract_merge_dir(void);

/*
 * Every packet to @emit, in order: 0, -1 with errno set (the temporary
 * file could not be read, or memory), or what @emit returned when it was
 * not 0 (it stops there).
 */
int extract_merge_finish(struct extract_merge *m,
			 int (*emit)(const struct extract_packet *p, const uint8_t *data,
				     void *arg),
			 void *arg);

void extract_merge_free(struct extract_merge *m);

#endif /* MGDUMP_EXTRACT_MERGE_H */
