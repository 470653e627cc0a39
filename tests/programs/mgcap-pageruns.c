// SPDX-License-Identifier: GPL-2.0
/*
 * mgcap-pageruns: how a queue's ring lies in physical memory, as a reader
 * maps it.
 *
 *   mgcap-pageruns NODE
 *
 * Prints "P pages in R runs, the longest L pages": its data pages (the
 * control page left out), and the runs of them whose frames follow each
 * other in the order the mapping has them (a run is one segment of a
 * direct I/O write of the mapping).  Reads /proc/self/pagemap, whose frame
 * numbers only root sees.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "mgcap_reader.h"

#define PAGEMAP_PRESENT	(1ULL << 63)
#define PAGEMAP_PFN	((1ULL << 55) - 1)

/* The frame under the page at @addr, or 0 (with a message) */
static uint64_t page_frame(int pagemap, const void *addr, long page_size)
{
	uint64_t entry;
	off_t at = (off_t)((uintptr_t)addr / (uintptr_t)page_size * sizeof(entry));

	if (pread(pagemap, &entry, sizeof(entry), at) != (ssize_t)sizeof(entry)) {
		perror("mgcap-pageruns: /proc/self/pagemap");
		return 0;
	}
	if (!(entry & PAGEMAP_PRESENT) || !(entry & PAGEMAP_PFN)) {
		fprintf(stderr, "mgcap-pageruns: a page of the mapping is %s\n",
			entry & PAGEMAP_PRESENT ? "present, its frame hidden (not root?)" :
			"not present");
		return 0;
	}
	return entry & PAGEMAP_PFN;
}

int main(int argc, char **argv)
{
	long page_size = sysconf(_SC_PAGESIZE);
	uint64_t pages, runs = 0, run = 0, longest = 0, frame, last = 0, i;
	struct mgcap_reader r;
	char err[256];
	int pagemap;

	if (argc != 2) {
		fprintf(stderr, "usage: mgcap-pageruns NODE\n");
		return 2;
	}
	if (mgcap_reader_open(&r, argv[1], err, sizeof(err)) < 0) {
		fprintf(stderr, "mgcap-pageruns: %s\n", err);
		return 1;
	}
	pagemap = open("/proc/self/pagemap", O_RDONLY);
	if (pagemap < 0) {
		perror("mgcap-pageruns: /proc/self/pagemap");
		return 1;
	}
	pages = r.data_size / (uint64_t)page_size;
	for (i = 0; i < pages; i++) {
		frame = page_frame(pagemap, r.data + i * (uint64_t)page_size, page_size);
		if (!frame)
			return 1;
		if (i && frame == last + 1) {
			run++;
		} else {
			runs++;
			run = 1;
		}
		if (run > longest)
			longest = run;
		last = frame;
	}
	printf("%llu pages in %llu runs, the longest %llu pages\n", (unsigned long long)pages,
	       (unsigned long long)runs, (unsigned long long)longest);
	close(pagemap);
	mgcap_reader_close(&r);
	return 0;
}
