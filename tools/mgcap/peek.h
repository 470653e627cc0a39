/* SPDX-License-Identifier: BSD-2-Clause */
/* `mgcap peek DEV[@QUEUE] [count N]`: print captured records, one per line. */
#ifndef MGCAP_PEEK_H
#define MGCAP_PEEK_H

#include <stddef.h>
#include <linux/mgcap.h>

int mgcap_cmd_peek(int argc, char **argv);

/* One line describing @rec (time, queue, lengths, addresses) into @buf. */
void mgcap_peek_format(char *buf, size_t len, const struct mgcap_rec *rec);

#endif /* MGCAP_PEEK_H */
