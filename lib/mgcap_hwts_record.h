/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The records of mgcap's takes of a NIC's time stamping (the policy that
 * writes and reads them: mgcap_hwtstamp.h), one file a device in a state
 * directory.
 *
 * The directory may be writable by others than the caller: the packages
 * make /run/mgcap/hwtstamp the group mgcap's (sticky, so that no member
 * removes or replaces another's record).  So nothing here follows a path a
 * member could have planted (every name is opened relative to the
 * directory, without following a link, and a record is written to a new
 * file of its own and renamed into place), and a record counts as the
 * caller's only where root or the caller itself wrote it: one written by
 * another user is reported as foreign, for the caller to tell, never to
 * act on.
 */
#ifndef MGCAP_HWTS_RECORD_H
#define MGCAP_HWTS_RECORD_H

#include <sys/types.h>

#include "mgcap_hwtstamp.h"

/*
 * The state directory @dir (created where absent), locked against the
 * other processes that read and act on its records: its descriptor, or -1
 * with errno where it cannot be had, or not within 2 s (anyone who may
 * open the directory may hold it: EWOULDBLOCK).  The caller then holds
 * its take alone.
 */
int mgcap_hwts_records_lock(const char *dir);

/* Lets the lock go (@dirfd may be -1), keeping errno for the caller: @ret. */
int mgcap_hwts_records_unlock(int dirfd, int ret);

enum mgcap_hwts_record_kind {
	MGCAP_HWTS_RECORD_NONE,		/* none, or not a record */
	MGCAP_HWTS_RECORD_TRUSTED,	/* root's or the caller's */
	MGCAP_HWTS_RECORD_FOREIGN,	/* another user's: @writer */
};

/*
 * @dev's record: its kind, with @c filled (found, made, owner; recorded and
 * taken set) where it is not NONE and @writer its file's owner.
 */
int mgcap_hwts_record_read(int dirfd, const char *dev, struct mgcap_hwts_claim *c,
			   uid_t *writer);

/* Writes @c as @dev's record, replacing the one there; 0, or -1 with errno. */
int mgcap_hwts_record_write(int dirfd, const char *dev, const struct mgcap_hwts_claim *c);

/* Removes @dev's record, where the caller may. */
void mgcap_hwts_record_drop(int dirfd, const char *dev);

#endif /* MGCAP_HWTS_RECORD_H */
