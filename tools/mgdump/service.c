/*
 * mgdump's notices to systemd: ready once it reads every queue, alive while
 * its writer goes round.  Built without libsystemd (configure
 * --without-systemd), it tells no one: the unit the package ships
 * (Type=notify, a watchdog) is not for such a build, whose unit wants
 * Type=exec and no WatchdogSec=.
 */
#include "service.h"

#ifdef HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>

void mgdump_service_notify(const char *state)
{
	/* (does nothing without NOTIFY_SOCKET) */
	sd_notify(0, state);
}

uint64_t mgdump_service_watchdog_ns(void)
{
	uint64_t us;

	return sd_watchdog_enabled(0, &us) > 0 ? us * 1000 : 0;
}
#else
void mgdump_service_notify(const char *state)
{
	(void)state;
}

uint64_t mgdump_service_watchdog_ns(void)
{
	return 0;
}
#endif
