/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --max-disk and --max-age: mgdump's own finished files kept under a size
 * (bytes, or a share of their file system's size) and an age, the oldest
 * removed first.  Never a file mgdump did not write, never the one being
 * written: the files exceed the size by that one at most.  Which files are
 * mgdump's is a list beside them (DIR/.NAME.files, NAME the last part of
 * the -w template), so a restarted mgdump knows its earlier runs' files.  A
 * -z command that compresses a file is followed: NAME.gz, .xz, .zst, .bz2
 * or .lz4 counts with it and goes with it.  With -z, a file is retention's
 * once its command has ended, never while it runs.
 */
#ifndef MGDUMP_RETENTION_H
#define MGDUMP_RETENTION_H

#include <stddef.h>
#include <stdint.h>

struct retention {
	uint64_t max_bytes;		/* 0: none */
	uint32_t max_percent;		/* of the file system's size; 0: none */
	uint64_t max_age_s;		/* 0: none */
	uint64_t (*clock_s)(void);	/* wall-clock seconds; NULL: time() */
	char list[4200];
	struct retained_file {
		char *path;		/* as finished; the file may be a compressed sibling now */
		uint64_t done_s;
		uint64_t bytes;		/* its siblings' too, as last measured */
	} *files;
	size_t n, cap;
	uint64_t removed, removed_bytes;	/* by this run (a file with its siblings: one) */
	char error[4400];
};

/*
 * Reads the list for the -w template @path (files gone are left out) and
 * applies the limits; 0, or -1 with error set.
 */
int retention_open(struct retention *rt, const char *path);

/* A finished file (a dump_output file_done callback; @arg: the retention). */
void retention_file_done(const char *path, void *arg);

/* Applies the limits now: files past the age, then the oldest over the size. */
void retention_apply(struct retention *rt);

/* Applies the age alone (cheap: once a second while files are few and long). */
void retention_expire(struct retention *rt);

/* The bytes of the files kept, as last measured. */
uint64_t retention_bytes(const struct retention *rt);

void retention_free(struct retention *rt);

#endif /* MGDUMP_RETENTION_H */
