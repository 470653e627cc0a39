// SPDX-License-Identifier: BSD-2-Clause
/*
 * Least privilege once the capture is open (privileges.h).
 *
 * Opening takes CAP_NET_ADMIN (starting a capture over generic netlink,
 * GENL_ADMIN_PERM; taking a NIC's time stamping, SIOCSHWTSTAMP) and
 * CAP_NET_RAW (a packet socket for promiscuous mode), or root.  Afterwards
 * mgdump opens nothing that takes a privilege: it never reopens a source,
 * the kernel stops a capture it started after its last reader, and the
 * promiscuous membership goes with its socket.  One thing is left: the last
 * reader of a NIC whose stamping an mgcap reader took for adapter stamps
 * gives it back when it closes (lib/mgcap_hwtstamp.h), with SIOCSHWTSTAMP,
 * which takes CAP_NET_ADMIN.  So CAP_NET_ADMIN is kept, in the effective
 * and permitted sets alone, where it had it and stamping may be owed; and
 * nothing else.  Neither inheritable nor ambient (the kernel clears ambient
 * with them), and the bounding set is emptied where it may be: -z commands
 * and the removal of old files (which run in mgdump or its children) get no
 * capability, whoever mgdump runs as.
 *
 * The give-back also reads the record of the take in the records' directory
 * (/run/mgcap/hwtstamp, the group mgcap's with the packages): -Z's user
 * must be able to open it, as a member of mgcap can.  Another user leaves
 * the stamping to `mgcap hwtstamp DEV restore`.  A record root wrote stays
 * after the give-back (the directory is sticky), harmless: the next take
 * finds it no longer holds and replaces it.
 */
#include <cap-ng.h>
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "privileges.h"

int mgdump_drop_privileges(const char *user, int stamping_owed)
{
	struct passwd *pw = NULL;
	int keep_admin, may_bound, rc;

	if (user) {
		errno = 0;
		pw = getpwnam(user);
		if (!pw) {
			fprintf(stderr, "mgdump: -Z %s: %s\n", user,
				errno ? strerror(errno) : "no such user");
			return -1;
		}
	}
	if (capng_get_caps_process()) {
		fprintf(stderr, "mgdump: cannot read its capabilities\n");
		return -1;
	}
	keep_admin = stamping_owed && capng_have_capability(CAPNG_PERMITTED, CAP_NET_ADMIN);
	/* emptying the bounding set takes CAP_SETPCAP (root has it; a unit's user, not) */
	may_bound = capng_have_capability(CAPNG_EFFECTIVE, CAP_SETPCAP);
	capng_clear(CAPNG_SELECT_BOTH);
	if (keep_admin)
		capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED, CAP_NET_ADMIN);
	if (pw && (pw->pw_uid != getuid() || pw->pw_uid != geteuid() || pw->pw_gid != getgid() ||
		   pw->pw_gid != getegid())) {
		/* its gid, then its groups (initgroups(3)), then its uid; capabilities as above */
		rc = capng_change_id((int)pw->pw_uid, (int)pw->pw_gid,
				     CAPNG_INIT_SUPP_GRP | (may_bound ? CAPNG_CLEAR_BOUNDING : 0));
		if (rc) {
			fprintf(stderr, "mgdump: -Z %s: cannot become %s (%s)\n", user, user,
				geteuid() ? "that takes root" : "capng_change_id failed");
			return -1;
		}
		return 0;
	}
	/* the bounding set first, while CAP_SETPCAP is still there to empty it */
	if ((may_bound && capng_apply(CAPNG_SELECT_BOUNDS)) || capng_apply(CAPNG_SELECT_CAPS)) {
		fprintf(stderr, "mgdump: cannot let go of its capabilities: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}
