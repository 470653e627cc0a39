/* SPDX-License-Identifier: BSD-2-Clause */
/* `mgcap show`: the captured devices as a table for people or as JSON. */
#ifndef MGCAP_SHOW_H
#define MGCAP_SHOW_H

#include <stdio.h>

#include "mgcap_nl.h"
#include "mgcap_phc.h"

/* @clocks: each device's clock (l->count of them), or NULL: not measured */
void mgcap_show_table(FILE *f, const struct mgcap_nl_list *l,
		      const struct mgcap_phc_status *clocks);
void mgcap_show_json(FILE *f, const struct mgcap_nl_list *l,
		     const struct mgcap_phc_status *clocks);

#endif /* MGCAP_SHOW_H */
