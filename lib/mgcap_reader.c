// SPDX-License-Identifier: BSD-2-Clause
/* Opening, checking and mapping an mgcap queue device. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mgcap_reader.h"

int mgcap_reader_attach(struct mgcap_reader *r, void *map, size_t map_size,
			char *err, size_t errlen)
{
	struct mgcap_ring_ctrl *ctrl = map;

	if (map_size < sizeof(*ctrl) || ctrl->magic != MGCAP_RING_MAGIC) {
		snprintf(err, errlen, "not an mgcap ring (bad magic)");
		return -1;
	}
	if (ctrl->version != MGCAP_RING_VERSION) {
		snprintf(err, errlen, "mgcap ring version %u, this program knows %u",
			 ctrl->version, MGCAP_RING_VERSION);
		return -1;
	}
	/* (no sum: a data_size and data_offset near 2^64 would wrap it) */
	if (ctrl->data_size == 0 || (ctrl->data_size & (ctrl->data_size - 1)) ||
	    ctrl->data_size >= map_size || ctrl->data_offset != map_size - ctrl->data_size ||
	    ctrl->data_offset < sizeof(*ctrl)) {
		snprintf(err, errlen, "mgcap ring with an inconsistent layout");
		return -1;
	}
	r->map = map;
	r->map_size = map_size;
	r->ctrl = ctrl;
	r->data = (const uint8_t *)map + ctrl->data_offset;
	r->data_size = ctrl->data_size;
	/*
	 * Where the kernel put the consumer index: at the last reader's close,
	 * past what it left unread (a synthetic ring: where its reader stopped)
	 */
	r->producer = &ctrl->producer;
	mgcap_reader_seek(r, __atomic_load_n(&ctrl->consumer, __ATOMIC_ACQUIRE));
	return 0;
}

unsigned long mgcap_reader_corruptions;

const struct mgcap_rec *mgcap_reader_set_corrupt(struct mgcap_reader *r, uint64_t at)
{
	__atomic_fetch_add(&mgcap_reader_corruptions, 1, __ATOMIC_RELAXED);
	r->corrupt = 1;
	r->corrupt_at = at;
	r->head = r->tail;	/* every look then goes through the producer's path */
	return NULL;
}

/* What a failed open of a queue device means for a reader. */
static const char *open_error(int err)
{
	switch (err) {
	case EBUSY:
		return "queue has as many readers as the module allows "
		       "(/sys/module/mgcap/parameters/max_readers; the last place is kept "
		       "for CAP_NET_ADMIN)";
	case ENOMEM:
		return "no memory for another reader's ring (mgcap's rings take at most half "
		       "of the RAM, those of readers without CAP_NET_ADMIN a quarter of that)";
	default:
		return strerror(err);
	}
}

/* Who may open @path, for a refused reader to be told. */
static void access_error(const char *path, char *err, size_t errlen)
{
	struct group grp, *found = NULL;
	char buf[1024];
	struct stat st;

	if (stat(path, &st) == 0 && st.st_gid != 0 &&
	    getgrgid_r(st.st_gid, &grp, buf, sizeof(buf), &found) == 0 && found)
		snprintf(err, errlen, "%s: permission denied: only root and group %s may read it",
			 path, found->gr_name);
	else
		snprintf(err, errlen, "%s: permission denied: only root may read it", path);
}

int mgcap_reader_open(struct mgcap_reader *r, const char *path, char *err, size_t errlen)
{
	void *map;
	int saved;

	memset(r, 0, sizeof(*r));
	r->fd = open(path, O_RDWR | O_CLOEXEC);
	if (r->fd < 0) {
		saved = errno;
		if (saved == EACCES)
			access_error(path, err, errlen);
		else
			snprintf(err, errlen, "%s: %s", path, open_error(saved));
		errno = saved;
		return -1;
	}
	/* a module loaded before this program was built answers the first INFO only */
	if (ioctl(r->fd, MGCAP_IOC_INFO, &r->info) < 0 &&
	    (errno != ENOTTY || ioctl(r->fd, MGCAP_IOC_INFO_V1, &r->info) < 0)) {
		saved = errno;
		snprintf(err, errlen, "%s: not an mgcap queue device: %s", path, strerror(saved));
		goto fail;
	}
	map = mmap(NULL, r->info.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	if (map == MAP_FAILED) {
		saved = errno;
		snprintf(err, errlen, "%s: cannot map the ring: %s", path, strerror(saved));
		goto fail;
	}
	if (mgcap_reader_attach(r, map, r->info.mmap_size, err, errlen) < 0) {
		munmap(map, r->info.mmap_size);
		saved = EPROTO;
		goto fail;
	}
	return 0;

fail:
	close(r->fd);
	r->fd = -1;
	errno = saved;
	return -1;
}

void mgcap_reader_close(struct mgcap_reader *r)
{
	if (r->map)
		munmap(r->map, r->map_size);
	if (r->fd >= 0)
		close(r->fd);
	r->map = NULL;
	r->fd = -1;
}
