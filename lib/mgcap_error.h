/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What went wrong in a library call that a program reports in its own words:
 * an errno for the program to act on, and a message naming what failed.
 */
#ifndef MGCAP_ERROR_H
#define MGCAP_ERROR_H

#include <stdarg.h>
#include <stdio.h>

struct mgcap_error {
	int err;		/* errno */
	char msg[224];
};

/* Sets @e (NULL: ignored) and returns -1, so that a failure is one statement. */
__attribute__((format(printf, 3, 4)))
static inline int mgcap_fail(struct mgcap_error *e, int err, const char *fmt, ...)
{
	va_list ap;

	if (e) {
		e->err = err;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
	return -1;
}

#endif /* MGCAP_ERROR_H */
