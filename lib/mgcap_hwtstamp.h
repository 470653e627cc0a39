/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A NIC's receive time stamping, through the classic ioctls: what it can do
 * (ETHTOOL_GET_TS_INFO) and what it does (SIOC[GS]HWTSTAMP); and the one
 * policy by which any part of mgcap takes it and gives it back.
 */
#ifndef MGCAP_HWTSTAMP_LIB_H
#define MGCAP_HWTSTAMP_LIB_H

#include <sys/types.h>
#include <linux/ethtool.h>
#include <linux/net_tstamp.h>

/* Each returns 0, or -1 with errno set (ENODEV, EPERM, EOPNOTSUPP...). */
int mgcap_hwts_info(const char *dev, struct ethtool_ts_info *info);
int mgcap_hwts_get(const char *dev, struct hwtstamp_config *cfg);
/* @cfg in: the request; out: what the driver granted */
int mgcap_hwts_set(const char *dev, struct hwtstamp_config *cfg);

/* 1 if the NIC can stamp every received frame in hardware (rx_filter ALL) */
int mgcap_hwts_rx_capable(const struct ethtool_ts_info *info);

/* The name of an rx_filter value (HWTSTAMP_FILTER_*). */
const char *mgcap_rx_filter_name(int filter);

/*
 * Taking and giving back.  mgcap takes a NIC's stamping for every received
 * frame (rx_filter ALL), for its readers (adapter stamps) or for the user
 * (`mgcap hwtstamp DEV on`), and records the setting it found and the one
 * it made in MGCAP_HWTSTAMP_STATE_DIR/DEV: one record a device, whoever in
 * mgcap took it.  The readers' give-back happens when the last mgcap reader
 * of the device has gone, whichever reader and whichever process that is;
 * it never undoes the user's `on`.  Only the part mgcap changed goes back,
 * and only while the setting is still in full (flags, tx_type, rx_filter)
 * the one it made: once someone else changed it (a PTP daemon turning TX
 * stamping on), it is theirs.  The user's `restore` gives back the receive
 * filter found, keeping what others set since.
 *
 * A record is acted on only by root or by the user who wrote it, and only
 * root's by everyone (mgcap_hwts_record.h): the directory is the group
 * mgcap's, so a member could have written any record, and root must not
 * put a receive filter a member chose onto a NIC.  Root leaves the setting
 * a member's record speaks of as it is, for its writer or an administrator
 * to give back (`restore` shows what the record says); where root takes
 * the stamping itself (the setting was not ALL), its own record replaces
 * the member's.
 */
#define MGCAP_HWTSTAMP_STATE_DIR "/run/mgcap/hwtstamp"

enum mgcap_hwts_owner {
	MGCAP_HWTS_READERS,	/* given back after the last reader */
	MGCAP_HWTS_USER,	/* given back by `mgcap hwtstamp DEV restore` */
};

/*
 * A take: what was found and what was made.  @recorded: in the state file;
 * where it could not be written (no permission for the state directory),
 * the taker holds it alone and gives it back itself.
 */
struct mgcap_hwts_claim {
	struct hwtstamp_config found, made;
	int owner;		/* enum mgcap_hwts_owner */
	int taken;		/* this take changed the setting, or mgcap had before */
	int recorded;
};

/*
 * rx_filter ALL on @dev, taken for @owner: 0 with @c (c->made.rx_filter is
 * what the driver granted; nothing is taken where it was ALL already and
 * not by mgcap), or -1 with errno (setting it failed; nothing changed).
 */
int mgcap_hwts_take(const char *dev, int owner, struct mgcap_hwts_claim *c);

/*
 * The give-back after a reader of @dev closed, by the policy above: 1 if
 * the setting went back, 0 if nothing was owed now, -1 with errno.  @c: the
 * reader's claim, used where it was not recorded.
 */
int mgcap_hwts_readers_gone(const char *dev, const struct mgcap_hwts_claim *c);

/*
 * The user's give-back: @found gets what is put back.  1 if it went back,
 * 0 if there is no record (nothing to restore), -1 with errno, or
 * MGCAP_HWTS_RESTORE_FOREIGN: the record is user *@writer's, not the
 * caller's or root's, and nothing was done (@found: what it says).
 */
#define MGCAP_HWTS_RESTORE_FOREIGN	2
int mgcap_hwts_restore(const char *dev, struct hwtstamp_config *found, uid_t *writer);

#endif /* MGCAP_HWTSTAMP_LIB_H */
