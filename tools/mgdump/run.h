/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What every part of mgdump looks at, at the bottom of the tool (it sees
 * nothing above it): when the run started, whether it stops, whether a
 * new file is asked for (both set in signal handlers too), and the
 * writer's sleep and wake-up.
 */
#ifndef MGDUMP_RUN_H
#define MGDUMP_RUN_H

#include <signal.h>
#include <stdint.h>

extern volatile sig_atomic_t stopping;		/* mgdump_request_stop() */
extern volatile sig_atomic_t rotate_requested;	/* SIGHUP: a new file now */
extern uint64_t start_ns;

/* A reader put blocks in its buffer: the writer wakes, if it sleeps. */
void mgdump_wake_writer(void);

/*
 * The writer sleeps until a reader wakes it, or @ms at most: unless
 * @nothing_to_do(), asked once the writer is seen asleep (so that no
 * wake-up is lost), says there is something to do.
 */
void mgdump_writer_sleep(unsigned int ms, int (*nothing_to_do)(void));

#endif /* MGDUMP_RUN_H */
