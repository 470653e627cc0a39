// SPDX-License-Identifier: GPL-2.0
/*
 * mgcap ring memory: the pages a ring is made of, mapped in order into the
 * kernel (where the hook writes records) and into each reader's mapping.
 *
 * The data pages come in physically contiguous runs of up to 64 KiB, split
 * into pages of their own.  A reader may write the ring's pages to a file as
 * they lie in its mapping (mgdump --per-queue, with O_DIRECT): a run is then
 * one segment of the write, one scatter-gather entry and one descriptor at
 * the device, where vmalloc()'s scattered pages were one each.  64 KiB is the
 * block layer's default largest segment (BLK_MAX_SEGMENT_SIZE): longer runs
 * would gain little at most devices, and cost the allocator more.  A run the
 * allocator cannot give at once falls back to shorter ones, down to single
 * pages: never a reclaim or compaction for a long run.  (Not being
 * vmalloc()'s, the rings count in neither VmallocUsed nor a memory cgroup's
 * vmalloc figure; a further reader's pages are its cgroup's kernel memory.)
 */
#include <linux/bvec.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "mgcap.h"

#define MGCAP_RING_RUN_ORDER	4	/* 64 KiB with 4 KiB pages */

/* Pages [@from, @to) of @mem, each its own order-0 page, back to the allocator. */
static void mgcap_ring_mem_put_pages(struct mgcap_ring_mem *mem, unsigned int from,
				     unsigned int to)
{
	while (from < to) {
		__free_page(mem->pages[from++]);
		/* (a GiB is 262,144 pages: as vfree() does) */
		cond_resched();
	}
}

/*
 * A run of 1 << @order pages, zeroed, if one is free now; for order 0, one
 * page as @gfp allows.  A long run takes no reclaim, no compaction, no
 * warning and none of the reserves (the high-order atomic one keeps
 * receive buffers coming while the ring is made), as a transparent huge
 * page's light attempt.
 */
static struct page *mgcap_ring_mem_run(unsigned int order, gfp_t gfp)
{
	if (order)
		gfp = (gfp & ~(__GFP_RECLAIM | __GFP_RETRY_MAYFAIL)) | __GFP_NOWARN |
		      __GFP_NOMEMALLOC;
	return alloc_pages(gfp, order);
}

/*
 * @nr pages from @first on, in runs as long as the allocator gives at once
 * (at most 1 << @max_order pages; each run tries the longest again, as a
 * run may be missing for a moment): 0, or -ENOMEM with none of them kept,
 * also when the task is killed on the way.
 */
static int mgcap_ring_mem_fill(struct mgcap_ring_mem *mem, unsigned int first,
			       unsigned int nr, unsigned int max_order, gfp_t gfp)
{
	unsigned int i = first, end = first + nr, order = 0, j;
	struct page *run;

	while (i < end) {
		run = NULL;
		if (!fatal_signal_pending(current)) {
			order = min_t(unsigned int, max_order, ilog2(end - i));
			while (!(run = mgcap_ring_mem_run(order, gfp)) && order)
				order--;
		}
		if (!run) {
			mgcap_ring_mem_put_pages(mem, first, i);
			return -ENOMEM;
		}
		/* each page with its own count: mapped and pinned one by one */
		if (order)
			split_page(run, order);
		for (j = 0; j < 1U << order; j++, i++) {
			mem->pages[i] = run + j;
			mem->run_left[i] = (1U << order) - j;
		}
		cond_resched();
	}
	return 0;
}

/*
 * @size bytes (whole pages), zeroed, into @mem: the first page alone (the
 * control page), the rest in runs.  @gfp: as for the pages themselves
 * (__GFP_ACCOUNT charges them to the caller's memory cgroup).  0, or -ENOMEM.
 */
int mgcap_ring_mem_alloc(struct mgcap_ring_mem *mem, size_t size, gfp_t gfp)
{
	unsigned int nr = size >> PAGE_SHIFT;

	gfp |= __GFP_ZERO;
	mem->nr_pages = nr;
	mem->pages = kvmalloc_array(nr, sizeof(*mem->pages), gfp & ~__GFP_ZERO);
	mem->run_left = kvmalloc(nr, gfp & ~__GFP_ZERO);
	if (!mem->pages || !mem->run_left)
		goto free_array;
	if (mgcap_ring_mem_fill(mem, 0, 1, 0, gfp))
		goto free_array;
	if (mgcap_ring_mem_fill(mem, 1, nr - 1, MGCAP_RING_RUN_ORDER, gfp))
		goto free_first;
	mem->addr = vmap(mem->pages, nr, VM_MAP, PAGE_KERNEL);
	if (mem->addr)
		return 0;
	mgcap_ring_mem_put_pages(mem, 1, nr);
free_first:
	mgcap_ring_mem_put_pages(mem, 0, 1);
free_array:
	kvfree(mem->run_left);
	kvfree(mem->pages);
	return -ENOMEM;
}

/*
 * What mgcap_ring_mem_alloc() took.  A page something else still holds (see
 * mgcap_ring_mem_held()) stays that holder's until it lets go.
 */
void mgcap_ring_mem_free(struct mgcap_ring_mem *mem)
{
	vunmap(mem->addr);
	mgcap_ring_mem_put_pages(mem, 0, mem->nr_pages);
	kvfree(mem->run_left);
	kvfree(mem->pages);
}

/* Every page of @mem into @vma, from its start (the caller checked the size). */
int mgcap_ring_mem_map(const struct mgcap_ring_mem *mem, struct vm_area_struct *vma)
{
	unsigned long nr = mem->nr_pages;

	return vm_insert_pages(vma, vma->vm_start, mem->pages, &nr);
}

/*
 * Whether anything but the ring itself holds one of its pages (each has one
 * reference, its own, while nothing maps it): a reference taken through a
 * mapping (get_user_pages(): an O_DIRECT or FUSE read into it still in
 * flight, a vmsplice()) outlives the mapping and its file, and whoever
 * took it could write into the ring while the next reader reads it.
 */
bool mgcap_ring_mem_held(const struct mgcap_ring_mem *mem)
{
	unsigned int i;

	for (i = 0; i < mem->nr_pages; i++)
		if (page_count(mem->pages[i]) != 1)
			return true;
	return false;
}

/*
 * The vectors of @nr data pages of @mem from data page @first on (wrapping
 * at the data area's end), one a run, into @bv unless it is NULL: how many.
 * A run's pages are one allocation's, split, so they follow each other both
 * as the block layer sees them (the frame numbers) and as a vector's reader
 * steps through them (the struct pages); no run crosses the data area's end.
 */
static unsigned int mgcap_ring_mem_bvecs(const struct mgcap_ring_mem *mem, unsigned int first,
					 unsigned int nr, struct bio_vec *bv)
{
	unsigned int data_pages = mem->nr_pages - 1, at = first, n = 0, len;

	/* (a run's length must fit run_left's byte) */
	BUILD_BUG_ON((1U << MGCAP_RING_RUN_ORDER) > U8_MAX);
	for (; nr; nr -= len, n++) {
		len = min_t(unsigned int, nr, mem->run_left[1 + at]);
		if (bv)
			bvec_set_page(&bv[n], mem->pages[1 + at], len << PAGE_SHIFT, 0);
		at += len;
		if (at == data_pages)
			at = 0;
	}
	return n;
}

/*
 * @nr data pages of @mem from data page @first on (wrapping at the data
 * area's end) written to @file at @pos, from the pages themselves, one
 * vector a run: the vectors are counted first, so that where the allocator
 * gave whole runs they take a sixteenth of what one a page would (one a
 * page at worst).  The bytes written, or an error, as vfs_iter_write().
 */
ssize_t mgcap_ring_mem_write(const struct mgcap_ring_mem *mem, unsigned int first,
			     unsigned int nr, struct file *file, loff_t pos)
{
	unsigned int nvec = mgcap_ring_mem_bvecs(mem, first, nr, NULL);
	struct iov_iter iter;
	struct bio_vec *bv;
	ssize_t ret;

	bv = kvmalloc_array(nvec, sizeof(*bv), GFP_KERNEL_ACCOUNT);
	if (!bv)
		return -ENOMEM;
	mgcap_ring_mem_bvecs(mem, first, nr, bv);
	iov_iter_bvec(&iter, ITER_SOURCE, bv, nvec, (size_t)nr << PAGE_SHIFT);
	ret = mgcap_vfs_iter_write(file, &iter, &pos);
	kvfree(bv);
	return ret;
}
