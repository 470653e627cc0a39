// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mgcap_hwts_record.h"
#include "mgcap_netdev.h"

/* found (flags, tx_type, rx_filter), made (the same), owner */
#define RECORD_FORMAT	"%d %d %d %d %d %d %d\n"
#define RECORD_FIELDS	7
#define RECORD_MAX	128
/* the lock waited for at most this long: 2 s */
#define LOCK_TRIES	200
#define LOCK_WAIT_US	10000

int mgcap_hwts_records_lock(const char *dir)
{
	char parent[256];
	char *slash;
	int fd, tries;

	/* as root without the packages; theirs (tmpfiles.d) is the group's */
	snprintf(parent, sizeof(parent), "%s", dir);
	slash = strrchr(parent, '/');
	if (slash && slash != parent) {
		*slash = '\0';
		(void)mkdir(parent, 0755);
	}
	(void)mkdir(dir, 0755);
	/* the directory itself is the lock: no lock file for anyone to plant */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	/*
	 * Anyone who can open it can hold it: waited for a while (a take and a
	 * give-back last milliseconds), never forever
	 */
	for (tries = 0; flock(fd, LOCK_EX | LOCK_NB) < 0; tries++) {
		if (errno != EWOULDBLOCK || tries >= LOCK_TRIES) {
			int saved = errno;

			close(fd);
			errno = saved;
			return -1;
		}
		usleep(LOCK_WAIT_US);
	}
	return fd;
}

int mgcap_hwts_records_unlock(int dirfd, int ret)
{
	int saved = errno;

	if (dirfd >= 0)
		close(dirfd);
	errno = saved;
	return ret;
}

/* A device's record is named after it; "." and ".." are not devices. */
static int record_name_ok(const char *dev)
{
	return !mgcap_check_ifname(dev) && strcmp(dev, ".") && strcmp(dev, "..");
}

int mgcap_hwts_record_read(int dirfd, const char *dev, struct mgcap_hwts_claim *c,
			   uid_t *writer)
{
	char text[RECORD_MAX];
	struct stat st;
	ssize_t n;
	int fd, fields;

	memset(c, 0, sizeof(*c));
	if (dirfd < 0 || !record_name_ok(dev))
		return MGCAP_HWTS_RECORD_NONE;
	/* never a link, and never a FIFO or device to hang on */
	fd = openat(dirfd, dev, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return MGCAP_HWTS_RECORD_NONE;
	/* a second link would be someone else's file, whatever its owner */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
		close(fd);
		return MGCAP_HWTS_RECORD_NONE;
	}
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return MGCAP_HWTS_RECORD_NONE;
	text[n] = '\0';
	fields = sscanf(text, RECORD_FORMAT, &c->found.flags, &c->found.tx_type,
			&c->found.rx_filter, &c->made.flags, &c->made.tx_type, &c->made.rx_filter,
			&c->owner);
	if (fields != RECORD_FIELDS) {
		memset(c, 0, sizeof(*c));
		return MGCAP_HWTS_RECORD_NONE;
	}
	c->taken = c->recorded = 1;
	*writer = st.st_uid;
	return st.st_uid == 0 || st.st_uid == geteuid() ? MGCAP_HWTS_RECORD_TRUSTED :
							  MGCAP_HWTS_RECORD_FOREIGN;
}

/*
 * A new file for a record: a name no device can have (longer than any
 * interface name), created here and now, never an existing file or link.
 */
static int create_new(int dirfd, char *name, size_t len)
{
	int tries, fd = -1;

	for (tries = 0; tries < 8 && fd < 0; tries++) {
		unsigned long long salt;

		if (getrandom(&salt, sizeof(salt), 0) != sizeof(salt))
			return -1;
		snprintf(name, len, ".mgcap-new-%016llx", salt);
		fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0 && errno != EEXIST)
			return -1;
	}
	/* readable by all (what the NIC had is no secret), whatever the umask */
	if (fd >= 0 && fchmod(fd, 0644) < 0) {
		int saved = errno;

		close(fd);
		unlinkat(dirfd, name, 0);
		errno = saved;
		return -1;
	}
	return fd;
}

int mgcap_hwts_record_write(int dirfd, const char *dev, const struct mgcap_hwts_claim *c)
{
	char text[RECORD_MAX], name[32];
	int fd, len, saved;
	ssize_t written;

	if (dirfd < 0 || !record_name_ok(dev)) {
		errno = EINVAL;
		return -1;
	}
	len = snprintf(text, sizeof(text), RECORD_FORMAT, c->found.flags, c->found.tx_type,
		       c->found.rx_filter, c->made.flags, c->made.tx_type, c->made.rx_filter,
		       c->owner);
	fd = create_new(dirfd, name, sizeof(name));
	if (fd < 0)
		return -1;
	written = write(fd, text, (size_t)len);
	if (written != len) {
		if (written >= 0)
			errno = ENOSPC;
		goto fail;
	}
	if (close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	/* replaces the name, whatever it was (a link too), never what it pointed to */
	if (renameat(dirfd, name, dirfd, dev) == 0)
		return 0;
	fd = -1;
fail:
	saved = errno;
	if (fd >= 0)
		close(fd);
	unlinkat(dirfd, name, 0);
	errno = saved;
	return -1;
}

void mgcap_hwts_record_drop(int dirfd, const char *dev)
{
	if (dirfd >= 0 && record_name_ok(dev))
		(void)unlinkat(dirfd, dev, 0);
}
