/* SPDX-License-Identifier: BSD-2-Clause */
/* `mgcap hwtstamp DEV on|off|show|restore`: the NIC's receive time stamping. */
#ifndef MGCAP_HWTSTAMP_H
#define MGCAP_HWTSTAMP_H

/* Where `on` keeps the setting it replaced, for `restore`. */
#define MGCAP_HWTSTAMP_STATE_DIR "/run/mgcap/hwtstamp"

/* argv: DEV on|off|show|restore; returns the exit status. */
int mgcap_cmd_hwtstamp(int argc, char **argv);

/* The name of an rx_filter value (HWTSTAMP_FILTER_*). */
const char *mgcap_rx_filter_name(int filter);

#endif /* MGCAP_HWTSTAMP_H */
