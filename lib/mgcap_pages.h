/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The consumer side of a pcapng ring (MGCAP_FORMAT_PCAPNG, see
 * <linux/mgcap.h>), for a writer that writes the ring's bytes to a file as
 * they are: whole pages, handed out where they lie in the mapping (to
 * write with O_DIRECT, no copy), and the blocks in them counted as they
 * are given back.
 *
 * The kernel writes every block; what is handed out is what it wrote since
 * the format was set, and a block's length is believed only where it fits
 * the ring (one that does not ends the reading, as mgcap_reader's records).
 */
#ifndef MGCAP_PAGES_H
#define MGCAP_PAGES_H

#include <stddef.h>
#include <stdint.h>

#include "mgcap_reader.h"

/* The unit of everything written: the page the kernel fills to (MGCAP_IOC_FILL_PAGE). */
#define MGCAP_PAGE_SIZE	4096U

struct mgcap_pages {
	struct mgcap_reader r;	/* the ring: its mapping, its indices (tail: handed back) */
	uint64_t handed;	/* ring index up to which pages were handed out */
	uint64_t block_at;	/* ring index of the next block to count */
	/*
	 * Its type and length, read before the page it begins in was given
	 * back (a block that ends in later pages; length 0: not read): the
	 * kernel may write that page again before the block is counted.
	 */
	uint32_t block_hdr[2];
	uint64_t packets;	/* enhanced packet blocks given back */
	uint64_t bytes;		/* pages given back, in bytes */
};

/*
 * The ring of @pg->r (opened and mapped) made a pcapng ring of blocks of
 * interface @interface_id, starting empty: 0, or -1 with errno.
 */
int mgcap_pages_start(struct mgcap_pages *pg, uint32_t interface_id);

/*
 * Reading of @pg->r (attached to a pcapng ring: a synthetic one in tests
 * and benchmarks) begins at ring index @start, a page boundary where the
 * kernel began its blocks: 0, or -1 where it is not one.
 */
int mgcap_pages_begin(struct mgcap_pages *pg, uint64_t start);

/*
 * Whole pages the kernel wrote after those handed out, up to ring index
 * @end at most (UINT64_MAX: none) and not past the end of the data area
 * (the rest comes at the next call): their bytes, with *@first, or 0 where
 * none (or reading ended).
 */
uint64_t mgcap_pages_next(struct mgcap_pages *pg, uint64_t end, const uint8_t **first);

/*
 * The oldest @bytes handed out are written: their blocks counted, and the
 * pages given back to the kernel.  0, or -1 where a block does not fit
 * (reading ends: mgcap_reader_corrupt()).
 */
int mgcap_pages_done(struct mgcap_pages *pg, uint64_t bytes);

/*
 * Where a file may end within @room bytes after the pages given back, at
 * ring index @end at most (where the kernel filled a page, or what it wrote
 * so far): at the last block's end that fits, or at the first block's end
 * where none does (where it ends by @end).  0 with *@cut, or -1 where a
 * block does not fit the ring (reading ends).
 */
int mgcap_pages_cut(struct mgcap_pages *pg, uint64_t end, uint64_t room, uint64_t *cut);

/*
 * The blocks that end at or before ring index @to counted now, before the
 * pages holding them are written and given back (mgcap_pages_done() counts
 * on from there): 0, or -1 where a block does not fit (reading ends).
 */
int mgcap_pages_count(struct mgcap_pages *pg, uint64_t to);

/*
 * The pages up to ring index @to (a page boundary) given back unwritten
 * (a full disk): *@packets gets the enhanced packet blocks that end in them,
 * which are not counted written.  0, or -1 where a block does not fit.
 */
int mgcap_pages_drop(struct mgcap_pages *pg, uint64_t to, uint64_t *packets);

/*
 * The blocks from ring index @at (a block's start, in pages not given
 * back) that begin before ring index @before, as far as they lie together
 * in the mapping (to the data area's end at most; each whole there, as the
 * kernel wrote it): *@first and *@len (0 where none begins before
 * @before), for an index of a file of them.  0, or -1 where a block, or an
 * enhanced packet block's frame, does not fit (reading ends).
 */
int mgcap_pages_blocks(struct mgcap_pages *pg, uint64_t at, uint64_t before,
		       const uint8_t **first, uint64_t *len);

/*
 * The kernel fills the page it writes in (MGCAP_IOC_FILL_PAGE), so that
 * everything captured so far is in whole pages, up to *@end: 0, or -1 with
 * errno (EAGAIN: no room; write what is there, and ask again).
 */
int mgcap_pages_fill(struct mgcap_pages *pg, uint64_t *end);

#endif /* MGCAP_PAGES_H */
