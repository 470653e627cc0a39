// SPDX-License-Identifier: BSD-2-Clause
/*
 * libmgcap-ifflags.so: for programs that ask the kernel about their capture
 * source by name.  Argus 3.0.8, for one, calls SIOCGIFFLAGS on the name it
 * was given and drops the source when that fails, as it does for
 * "mgcap:eth0", which is no kernel interface.  Preloaded (mgcap-run with
 * MGCAP_ARGUS_IFFLAGS=1), this answers interface ioctls on "mgcap:DEV[@Q]"
 * with those of DEV.  Nothing else changes.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <string.h>
#include <sys/ioctl.h>
#include <net/if.h>
#include <linux/sockios.h>

#define PREFIX "mgcap:"

static int is_interface_query(unsigned long req)
{
	switch (req) {
	case SIOCGIFFLAGS:
	case SIOCGIFADDR:
	case SIOCGIFNETMASK:
	case SIOCGIFBRDADDR:
	case SIOCGIFMTU:
	case SIOCGIFHWADDR:
	case SIOCGIFINDEX:
		return 1;
	default:
		return 0;
	}
}

int ioctl(int fd, unsigned long req, ...)
{
	static int (*real_ioctl)(int, unsigned long, ...);
	struct ifreq *ifr;
	char saved[IFNAMSIZ], *at;
	va_list ap;
	void *arg;
	int ret;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!real_ioctl)
		real_ioctl = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");

	ifr = arg;
	if (!is_interface_query(req) || !ifr ||
	    strncmp(ifr->ifr_name, PREFIX, sizeof(PREFIX) - 1))
		return real_ioctl(fd, req, arg);

	memcpy(saved, ifr->ifr_name, IFNAMSIZ);
	memmove(ifr->ifr_name, saved + sizeof(PREFIX) - 1, IFNAMSIZ - (sizeof(PREFIX) - 1));
	memset(ifr->ifr_name + IFNAMSIZ - (sizeof(PREFIX) - 1), 0, sizeof(PREFIX) - 1);
	at = memchr(ifr->ifr_name, '@', IFNAMSIZ);
	if (at)
		memset(at, 0, (size_t)(ifr->ifr_name + IFNAMSIZ - at));
	ret = real_ioctl(fd, req, arg);
	memcpy(ifr->ifr_name, saved, IFNAMSIZ);
	return ret;
}
