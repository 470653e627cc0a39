// SPDX-License-Identifier: BSD-2-Clause
/*
 * The files asked for: a directory's pcapng files in the order of their
 * names, or a file; for each, its own index if it has one (a -W ring may
 * have replaced the file since), else the file is read whole.
 */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <unistd.h>

#include "extract.h"

/*
 * The index of the file at @path (@size bytes), if it has its own: 0 with
 * @idx loaded, 1 when the file is to be read whole, 2 when the index says
 * that nothing in the file is of the time range (only its end was read).
 */
static int file_index(struct extract *x, const char *path, uint64_t size, struct capindex *idx)
{
	char name[4200], err[4400];
	struct capindex_end end;
	int rc;

	if (x->no_index)
		return 1;
	snprintf(name, sizeof(name), "%s%s", path, CAPINDEX_SUFFIX);
	rc = capindex_load_end(name, &end, err, sizeof(err));
	if (rc == 0 && end.file_bytes != size) {
		snprintf(err, sizeof(err), "%s is of another file (%" PRIu64 " bytes, not %" PRIu64
			 ")", name, end.file_bytes, size);
		rc = -1;
	}
	if (rc == 0) {
		x->bytes_read += sizeof(struct capindex_header) + sizeof(end);
		if (!end.packets || end.last_ns < x->from_ns || end.first_ns >= x->to_ns)
			return 2;
		rc = capindex_load(name, idx, err, sizeof(err));
		if (rc == 0 && idx->end.file_bytes != size) {
			capindex_release(idx);
			snprintf(err, sizeof(err), "%s changed while read", name);
			rc = -1;
		}
	}
	if (rc < 0)
		fprintf(stderr, "mgcap-extract: %s; reading %s whole\n", err, path);
	return rc ? 1 : 0;
}

/* @in's file opened, *@st its status */
static void open_input(struct input *in, struct stat *st)
{
	in->fd = open(in->path, O_RDONLY | O_CLOEXEC);
	if (in->fd < 0 || fstat(in->fd, st)) {
		fprintf(stderr, "mgcap-extract: %s: %s\n", in->path, strerror(errno));
		exit(1);
	}
	in->size = (uint64_t)st->st_size;
}

/* whether @path still names the file of status @st */
static int still_named(const char *path, const struct stat *st)
{
	struct stat now;

	return !stat(path, &now) && now.st_ino == st->st_ino && now.st_dev == st->st_dev;
}

static void read_file(struct extract *x, const char *path)
{
	static uint32_t files_met;
	struct input in = { .x = x, .path = path, .number = files_met++ };
	struct capindex idx;
	struct stat st;
	int rc, tries;

	/*
	 * A -W ring may have put a new file and its index under the name
	 * since it was opened: the index is the new one's, not this one's.
	 * Tried again twice; then the file is read whole.
	 */
	for (tries = 0;; tries++) {
		open_input(&in, &st);
		rc = S_ISREG(st.st_mode) ? file_index(x, path, in.size, &idx) : -1;
		if ((rc != 0 && rc != 2) || still_named(path, &st))
			break;
		if (rc == 0)
			capindex_release(&idx);
		close(in.fd);
		if (tries == 2) {
			open_input(&in, &st);
			rc = 1;
			break;
		}
	}
	if (rc == 2) {
		/* (mgdump's, by its index: what a whole scan reads, this passes by) */
		x->files++;
		x->files_indexed++;
		x->bytes_all += in.size;
		close(in.fd);
		return;
	}
	if (rc < 0 || extract_read_header(&in)) {
		if (rc == 0)
			capindex_release(&idx);
		close(in.fd);
		return;
	}
	x->files++;
	x->bytes_all += in.size;
	if (rc == 0) {
		x->files_indexed++;
		x->bytes_read += idx.bytes;
		extract_read_by_index(&in, &idx);
		capindex_release(&idx);
	} else {
		extract_read_whole(&in);
	}
	close(in.fd);
}

static int is_sibling(const char *name)
{
	static const char *const suffixes[] = { CAPINDEX_SUFFIX, ".part" };
	size_t i, len = strlen(name);

	for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t n = strlen(suffixes[i]);

		if (len >= n && !strcmp(name + len - n, suffixes[i]))
			return 1;
	}
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int not_hidden(const struct dirent *d)
{
	return d->d_name[0] != '.' && !is_sibling(d->d_name);
}

void extract_read_input(struct extract *x, const char *path)
{
	struct dirent **names;
	struct stat st;
	int n, i;

	if (stat(path, &st)) {
		fprintf(stderr, "mgcap-extract: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	if (!S_ISDIR(st.st_mode)) {
		read_file(x, path);
		return;
	}
	n = scandir(path, &names, not_hidden, by_name);
	if (n < 0) {
		fprintf(stderr, "mgcap-extract: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	for (i = 0; i < n; i++) {
		char file[4200];

		snprintf(file, sizeof(file), "%s/%s", path, names[i]->d_name);
		read_file(x, file);
		free(names[i]);
	}
	free(names);
}
