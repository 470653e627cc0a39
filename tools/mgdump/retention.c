// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "dump_output.h"
#include "grown.h"
#include "retention.h"

static uint64_t now_s(const struct retention *rt)
{
	return rt->clock_s ? rt->clock_s() : (uint64_t)time(NULL);
}

/*
 * How many of file @f's names are there (itself, and what a -z command made
 * of it), with their bytes in *@bytes; 0: nothing is left of it.
 */
static int measure(const struct retained_file *f, uint64_t *bytes)
{
	int found = 0;
	size_t i;

	*bytes = 0;
	for (i = 0; i < DUMP_OUTPUT_SIBLINGS; i++) {
		char where[4200];
		struct stat st;

		snprintf(where, sizeof(where), "%s%s", f->path, dump_output_siblings[i]);
		if (stat(where, &st) == 0 && S_ISREG(st.st_mode)) {
			*bytes += (uint64_t)st.st_size;
			found++;
		}
	}
	return found;
}

/* The list rewritten whole, then renamed over the old one. */
static void save(struct retention *rt)
{
	char tmp[sizeof(rt->list) + 8];
	int failed, err;
	FILE *f;
	size_t i;

	snprintf(tmp, sizeof(tmp), "%s.new", rt->list);
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "mgdump: %s: %s\n", tmp, strerror(errno));
		return;
	}
	for (i = 0; i < rt->n; i++)
		fprintf(f, "%" PRIu64 " %s\n", rt->files[i].done_s, rt->files[i].path);
	/* on the disk before its name: a crash leaves the old list or the new, whole */
	/* (a write that failed on the way leaves only the error flag: EIO) */
	errno = EIO;
	failed = fflush(f) || ferror(f) || fsync(fileno(f));
	err = errno;
	if (fclose(f) && !failed) {
		failed = 1;
		err = errno;
	}
	if (!failed && rename(tmp, rt->list)) {
		failed = 1;
		err = errno;
	}
	if (failed) {
		/* (a full disk: the list in memory goes on, the one on it stays as it was) */
		unlink(tmp);
		fprintf(stderr, "mgdump: %s: %s\n", rt->list, strerror(err));
	}
}

static void forget(struct retention *rt, size_t i)
{
	free(rt->files[i].path);
	memmove(rt->files + i, rt->files + i + 1, (rt->n - i - 1) * sizeof(*rt->files));
	rt->n--;
}

static int add(struct retention *rt, const char *path, uint64_t done_s, uint64_t bytes)
{
	struct retained_file *files;
	char *copy;
	size_t i;

	/* a name written again (a -C -W ring): the newer file is the one kept */
	for (i = 0; i < rt->n; i++) {
		if (!strcmp(rt->files[i].path, path)) {
			forget(rt, i);
			break;
		}
	}

	files = mgdump_grown(rt->files, &rt->cap, rt->n + 1, sizeof(*files), SIZE_MAX);
	if (!files)
		return -1;
	rt->files = files;
	copy = strdup(path);
	if (!copy)
		return -1;
	rt->files[rt->n].path = copy;
	rt->files[rt->n].done_s = done_s;
	rt->files[rt->n].bytes = bytes;
	rt->n++;
	return 0;
}

/* The oldest file removed from the disk, with what a -z command made of it, and from the list. */
static void remove_oldest(struct retention *rt)
{
	const struct retained_file *f = &rt->files[0];
	int removed = 0;
	size_t i;

	for (i = 0; i < DUMP_OUTPUT_SIBLINGS; i++) {
		char where[4200];
		struct stat st;

		snprintf(where, sizeof(where), "%s%s", f->path, dump_output_siblings[i]);
		if (stat(where, &st) || !S_ISREG(st.st_mode))
			continue;
		if (unlink(where) == 0) {
			removed = 1;
			rt->removed_bytes += (uint64_t)st.st_size;
		} else if (errno != ENOENT) {
			fprintf(stderr, "mgdump: removing %s: %s\n", where, strerror(errno));
		}
	}
	/* (a file and its index are one file removed) */
	rt->removed += (uint64_t)removed;
	forget(rt, 0);
}

/* The files' bytes as they are now (a -z command may have compressed some): one pass. */
static uint64_t remeasure(struct retention *rt)
{
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < rt->n; i++) {
		measure(&rt->files[i], &rt->files[i].bytes);
		total += rt->files[i].bytes;
	}
	return total;
}

uint64_t retention_bytes(const struct retention *rt)
{
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < rt->n; i++)
		total += rt->files[i].bytes;
	return total;
}

/* The size limit in bytes: the smaller of --max-disk's bytes and its share; 0: none. */
static uint64_t size_limit(const struct retention *rt)
{
	uint64_t limit = rt->max_bytes;
	char dir[sizeof(rt->list)];
	struct statvfs fs;

	if (rt->max_percent) {
		snprintf(dir, sizeof(dir), "%s", rt->list);
		if (statvfs(dirname(dir), &fs) == 0) {
			uint64_t share = (uint64_t)fs.f_blocks * fs.f_frsize / 100 * rt->max_percent;

			if (!limit || share < limit)
				limit = share;
		}
	}
	return limit;
}

static int expire(struct retention *rt)
{
	size_t before = rt->n;

	while (rt->n && rt->max_age_s && rt->files[0].done_s + rt->max_age_s <= now_s(rt))
		remove_oldest(rt);
	return rt->n != before;
}

void retention_expire(struct retention *rt)
{
	if (expire(rt))
		save(rt);
}

void retention_apply(struct retention *rt)
{
	uint64_t limit = size_limit(rt), total;
	int changed = expire(rt);

	total = limit ? remeasure(rt) : 0;
	while (rt->n && limit && total > limit) {
		total -= rt->files[0].bytes;
		remove_oldest(rt);
		changed = 1;
	}
	if (changed)
		save(rt);
}

void retention_file_done(const char *path, void *arg)
{
	struct retention *rt = arg;
	struct retained_file file = { .path = (char *)path };
	uint64_t bytes;

	measure(&file, &bytes);
	if (add(rt, path, now_s(rt), bytes)) {
		fprintf(stderr, "mgdump: %s: out of memory\n", path);
		return;
	}
	save(rt);
	retention_apply(rt);
}

int retention_open(struct retention *rt, const char *path)
{
	char copy[sizeof(rt->list)], line[4200];
	char *dir, *base;
	size_t n;
	FILE *f;

	if (snprintf(copy, sizeof(copy), "%s", path) >= (int)sizeof(copy)) {
		snprintf(rt->error, sizeof(rt->error), "%s: too long", path);
		return -1;
	}
	base = strrchr(copy, '/');
	dir = base ? copy : ".";
	if (base)
		*base++ = '\0';
	else
		base = copy;
	if (snprintf(rt->list, sizeof(rt->list), "%s/.%s.files", *dir ? dir : "/", base) >=
	    (int)sizeof(rt->list)) {
		snprintf(rt->error, sizeof(rt->error), "%s: too long", path);
		return -1;
	}
	f = fopen(rt->list, "r");
	while (f && fgets(line, sizeof(line), f)) {
		struct retained_file file;
		uint64_t done_s, bytes;
		char *name;

		n = strlen(line);
		if (n && line[n - 1] == '\n')
			line[--n] = '\0';
		done_s = strtoull(line, &name, 10);
		if (*name++ != ' ')
			continue;
		file.path = name;
		if (measure(&file, &bytes) && add(rt, name, done_s, bytes)) {
			fclose(f);
			snprintf(rt->error, sizeof(rt->error), "%s: out of memory", rt->list);
			return -1;
		}
	}
	if (f)
		fclose(f);
	else if (errno != ENOENT) {
		snprintf(rt->error, sizeof(rt->error), "%s: %s", rt->list, strerror(errno));
		return -1;
	}
	save(rt);
	retention_apply(rt);
	return 0;
}

void retention_free(struct retention *rt)
{
	size_t i;

	for (i = 0; i < rt->n; i++)
		free(rt->files[i].path);
	free(rt->files);
	rt->files = NULL;
	rt->n = rt->cap = 0;
}
