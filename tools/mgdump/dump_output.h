/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mgdump's output: one pcapng file, stdout, or a rotation of files by size
 * (-C), by wall-clock time (-G) or both.  Each file is a complete section: a
 * header block, one interface block per source, the packets, and a
 * statistics block per interface at its end.  A file is written as
 * NAME.part, synced and renamed to NAME when complete, so that whatever
 * goes by its name (after a crash, a power loss or a full disk too) is
 * readable to its end; a rotation never takes a name a file has.  Writes
 * are whole blocks; a write that fails is cut back to the last whole block,
 * so a file is never left with a torn block.  A full disk (ENOSPC, EDQUOT)
 * is not the end: the write fails with full set, and the next write tries
 * again; a file closed meanwhile keeps what it has without its statistics,
 * and one that could not be opened or whose header did not fit is started
 * before the next blocks once there is room (or never named, if there never
 * was); a -C -W ring removes the file the current one replaces at once.  A
 * disk full from the first file on is an error all the same.  Beside each
 * file, its index (capindex.h) is written as the file is, and named once
 * the file is; a file whose index could not be written all has none.
 */
#ifndef MGDUMP_OUTPUT_H
#define MGDUMP_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

#include "capindex.h"
#include "paged_writes.h"
/* paged output's unit, the ring's page (MGCAP_PAGE_SIZE): O_DIRECT's alignment anywhere */
#include "mgcap_pages.h"
#include "pcapng.h"

struct dump_interface {
	char name[32];		/* "eth0@2" */
	char description[128];
	uint16_t linktype;
	uint32_t snaplen;
};

struct dump_output {
	const char *path;		/* file, or "-" for stdout; with rotate_seconds, through strftime(3) */
	uint64_t rotate_bytes;		/* 0: no rotation by size (tcpdump's -C, in bytes) */
	uint32_t rotate_seconds;	/* 0: none by time (tcpdump's -G: aligned to the wall clock) */
	/*
	 * -W: with rotate_seconds, the periods written before the output ends
	 * (ended set, at the start of the next); else with rotate_bytes, the
	 * files kept, their names reused.  0: no limit.
	 */
	unsigned int keep;
	const struct dump_interface *ifs;
	size_t nifs;
	/* the counters for a file's closing statistics blocks (NULL: none) */
	void (*collect_stats)(struct pcapng_if_stats *stats, size_t n, void *arg);
	void *collect_arg;
	/* a file complete under its name (NULL: nobody is told) */
	void (*file_done)(const char *path, void *arg);
	void *file_done_arg;
	uint64_t (*clock_ns)(void);	/* the wall clock; NULL: CLOCK_REALTIME */
	/* the index beside each file, NAME.idx (capindex.h); NULL: none */
	struct capindex_writer *capindex;
	/*
	 * Pages (mgdump --per-queue): what is written is a pcapng ring's
	 * whole pages, in which a block may end in the next ones.  Each file
	 * is opened with O_DIRECT where its file system takes it (direct
	 * then set), its header and its statistics each padded with a filler
	 * block to whole pages (MGCAP_PCAPNG_FILLER); a write is never cut,
	 * and the caller ends a file (dump_output_due(), then
	 * dump_output_rotate()) where its pages end with a whole block.  Its
	 * index is begun and ended with the file, but fed by the caller
	 * (capindex_blocks(): it knows where the blocks begin); a file cut
	 * short by a full disk has none.  No standard output.
	 *
	 * dump_output_write() asks for the pages' write, several in flight
	 * (writes, through io_uring where there is one), and the file's end
	 * moves past them at once; dump_output_reap() takes them back, in
	 * order, when they are done, and the caller's pages are written only
	 * then.  Every other call is made with none in flight.
	 */
	int paged;
	int direct;
	struct paged_writes writes;
	/* paged: the queue node whose mapping the pages are in (-1: none), its data */
	int ring_fd;
	const void *ring_data;
	uint64_t ring_size;
	int uring_errno;		/* of io_uring's set-up, where it failed (one write at a time) */
	/*
	 * Paged output: the bytes the next file begins with after its header
	 * (dump_output_lead()), its own copy: 0 bytes but where -C ended a
	 * file inside a page.
	 */
	uint8_t lead[MGCAP_PAGE_SIZE];
	size_t lead_len;
	int fd;
	int ended;			/* -G with -W: the last file is done */
	int rotated_on_request;		/* dump_output_rotate() was called: names numbered */
	unsigned int index;		/* -C: the file being written, of its name's series */
	uint64_t period_end_ns;		/* -G: when the current file's period ends */
	unsigned int periods_done;
	char series[4096];		/* -G: the path through strftime for this period */
	uint64_t file_bytes;
	uint64_t header_bytes;		/* of the current file */
	uint64_t files_done;		/* closed, the last one too */
	uint64_t bytes_total;		/* into every file, blocks of any kind (paged: written) */
	size_t kept;			/* after a failed dump_output_write() */
	int full;			/* it failed for a full disk: a later write may go */
	int start_pending;		/* the current file is not opened or has no header yet */
	char current[4096];		/* the file's name once complete */
	char part[4104];		/* the name it is written under until then */
	char error[8400];
};

/* Opens the first file and writes its header blocks; 0, or -1 with error set. */
int dump_output_open(struct dump_output *o);

/*
 * Writes @len bytes of whole blocks, rotating between blocks when the file
 * would exceed rotate_bytes.  0, or -1 with error set (and full, if for a
 * full disk); kept: how many of the bytes (whole blocks, from the start)
 * are in the output, which is fewer than @len with 0 only when the output
 * ended (ended set).
 */
int dump_output_write(struct dump_output *o, const uint8_t *blocks, size_t len);

/*
 * -G: starts the next period's file if the current one's is over; 0, or -1
 * with error set (and full, if the new file's header did not fit: it is
 * written before the next blocks).
 */
int dump_output_tick(struct dump_output *o);

/*
 * Finishes the current file and starts the next now (SIGHUP; for paged
 * output, also where dump_output_due() says so); 0, or -1 with error set
 * (and full, as dump_output_tick()).
 */
int dump_output_rotate(struct dump_output *o);

/*
 * Paged output: whether the current file is to end before @pending more
 * bytes (-C: they would take it past its size with its statistics, and it
 * has pages of its own; -G: its period is over).  The caller then makes
 * its pages end with a whole block, writes them, and calls
 * dump_output_rotate().
 */
int dump_output_due(const struct dump_output *o, uint64_t pending);

/*
 * Paged output: the writes done since the last call, taken back in order
 * (with @wait, once the oldest is done): *@written, their bytes.  0, or -1
 * with error set (and full, for a full disk) where one failed: the file
 * then ends where it stopped (none is in flight any more), and what came
 * after it is not the file's.
 */
int dump_output_reap(struct dump_output *o, int wait, uint64_t *written);

/*
 * Paged output: the file ends at its first @whole bytes, its last whole
 * block (its writes done, the pages after it cut off), written through the
 * page cache from there on and without its index, which would point past
 * it.  0, or -1 with error set.
 */
int dump_output_cut_back(struct dump_output *o, uint64_t whole);

/*
 * Paged output, after a write failed for a full disk (the file cut back to
 * the pages it had, the last of which may end inside a block): the file
 * ends at its first @whole bytes, its last whole block, written through
 * the page cache from there on (its statistics, where they fit), and is
 * named; the next begins at the next write, where there is room.  0, or -1
 * with error set (full, if the next file could not begin).
 */
int dump_output_end_torn(struct dump_output *o, uint64_t whole);

/*
 * Paged output, where -C ends a file inside a page: @len bytes, whole
 * blocks' ends, and a filler to the page's end, the current file's last
 * page of packets.  0, or -1 with error set (full: the file was cut back
 * to the pages it had).
 */
int dump_output_end_page(struct dump_output *o, const uint8_t *bytes, size_t len);

/*
 * Paged output: @len bytes (less than a page) that the next file begins
 * with after its header, copied: the rest of the page dump_output_end_page()
 * ended the current file in, up to the ring's next page.  Forgotten where
 * the caller drops them (a full disk): len 0.
 */
void dump_output_lead(struct dump_output *o, const uint8_t *bytes, size_t len);

/*
 * Paged output, -C: the bytes the current file takes before its statistics
 * keep it within its size (0 where it is there), with a page of the last
 * bytes, the statistics and a filler after them (DUMP_OUTPUT_END_PAGES).
 */
#define DUMP_OUTPUT_END_PAGES	2
uint64_t dump_output_room(const struct dump_output *o);

/*
 * Writes the closing statistics blocks and closes; 0 (on a full disk too,
 * the file then without its statistics), or -1 with error set.
 */
int dump_output_close(struct dump_output *o);

/*
 * NAME itself, its index, and what a -z compressor makes of NAME: a name
 * with any of these taken is taken, and retention counts and removes them
 * all.
 */
#define DUMP_OUTPUT_SIBLINGS	7
extern const char *const dump_output_siblings[DUMP_OUTPUT_SIBLINGS];

/* The name of file @index, as tcpdump -C / -W name them. */
void dump_output_file_name(char *buf, size_t len, const char *path, unsigned int index,
			   int rotating, unsigned int keep);

#endif /* MGDUMP_OUTPUT_H */
