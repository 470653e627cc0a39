/* What mgdump tells the service manager that runs it (Type=notify). */
#ifndef MGDUMP_SERVICE_H
#define MGDUMP_SERVICE_H

#include <stdint.h>

/* "READY=1", "STOPPING=1", "WATCHDOG=1": nothing without a manager to tell */
void mgdump_service_notify(const char *state);
/* How often the manager wants to hear "WATCHDOG=1", in ns; 0: never. */
uint64_t mgdump_service_watchdog_ns(void);

#endif
