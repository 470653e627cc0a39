/* SPDX-License-Identifier: BSD-2-Clause */
/* `mgcap hwtstamp DEV on|off|show|restore`: the NIC's receive time stamping. */
#ifndef MGCAP_HWTSTAMP_H
#define MGCAP_HWTSTAMP_H

/* argv: DEV on|off|show|restore; returns the exit status. */
int mgcap_cmd_hwtstamp(int argc, char **argv);

#endif /* MGCAP_HWTSTAMP_H */
