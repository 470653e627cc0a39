/* SPDX-License-Identifier: BSD-2-Clause */
/* The subcommands of `mgcap`; each returns the exit status. */
#ifndef MGCAP_COMMANDS_H
#define MGCAP_COMMANDS_H

int mgcap_cmd_start(int argc, char **argv);
int mgcap_cmd_stop(int argc, char **argv);
int mgcap_cmd_set(int argc, char **argv);
int mgcap_cmd_show(int argc, char **argv, int json);
/* `mgcap set DEV mode M` and `mgcap-setmode DEV M` both end here */
int mgcap_set_mode(const char *dev, const char *mode);

#endif /* MGCAP_COMMANDS_H */
