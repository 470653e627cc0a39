/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What mgdump keeps once its capture is open: as tcpdump does, it opens
 * its sources with the privileges it was given, then becomes -Z's user and
 * lets go of every capability it no longer needs (privileges.c says which
 * one it keeps, and why).
 */
#ifndef MGDUMP_PRIVILEGES_H
#define MGDUMP_PRIVILEGES_H

/*
 * Runs as @user from now on (NULL: as who it is), keeping CAP_NET_ADMIN
 * alone where @stamping_owed and it has it; 0, or -1 (it said why).  Before
 * any thread starts: capabilities are a thread's own.
 */
int mgdump_drop_privileges(const char *user, int stamping_owed);

#endif /* MGDUMP_PRIVILEGES_H */
