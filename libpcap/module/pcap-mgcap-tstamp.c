/*
 * Copyright (c) the mgcap developers.  BSD-2-Clause, as libpcap.
 *
 * The mgcap capture module's time stamps: the NIC's (adapter_unsynced), or
 * the NIC's converted to system time through its clock (adapter), taken at
 * activation and given back at close; what the conversion did, reported.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "pcap-mgcap-int.h"

/*
 * Adapter stamps: the NIC must stamp every received frame (rx_filter ALL),
 * taken for the readers and given back after the last (mgcap_hwtstamp.h).
 * Returns 0, a warning, or an error.
 */
static int setup_adapter_stamps(pcap_t *p, struct mgcap_dev *dev)
{
	struct pcap_mgcap *pm = p->priv;
	struct ethtool_ts_info info;

	if (mgcap_hwts_info(dev->src.ifname, &info) < 0 || !mgcap_hwts_rx_capable(&info))
		return PCAP_WARNING_TSTAMP_TYPE_NOTSUP;
	/* tcpdump exits without pcap_close(): give back at exit() too */
	if (!pm->on_close_list) {
		if (!pcap_do_addexit(p))
			return PCAP_ERROR;
		pcap_add_to_pcaps_to_close(p);
		pm->on_close_list = 1;
	}
	if (mgcap_hwts_take(dev->src.ifname, MGCAP_HWTS_READERS, &dev->hwts) < 0) {
		if (errno == EPERM || errno == EACCES) {
			snprintf(p->errbuf, PCAP_ERRBUF_SIZE,
				 "%s: not permitted to enable hardware time stamping", p->opt.device);
			return PCAP_ERROR_PERM_DENIED;
		}
		return PCAP_WARNING_TSTAMP_TYPE_NOTSUP;
	}
	return dev->hwts.made.rx_filter == HWTSTAMP_FILTER_ALL ? 0 :
	       PCAP_WARNING_TSTAMP_TYPE_NOTSUP;
}

/*
 * Adapter stamps in system time: the NIC's clock, opened now (tcpdump drops
 * its privileges after activation).  Without it, host stamps and a warning
 * that says why.
 */
static int setup_conversion(pcap_t *p)
{
	struct pcap_mgcap *pm = p->priv;
	char err[PCAP_ERRBUF_SIZE - 64];
	size_t i;

	for (i = 0; i < pm->ndevs; i++) {
		if (mgcap_adapter_open(&pm->devs[i].conv, pm->devs[i].src.ifname, err,
				       sizeof(err)) < 0) {
			snprintf(p->errbuf, PCAP_ERRBUF_SIZE, "%s: %s; using host time stamps",
				 p->opt.device, err);
			while (i--)
				mgcap_adapter_close(&pm->devs[i].conv);
			return PCAP_WARNING;
		}
	}
	pm->adapter = 1;
	/* the report at close: tcpdump exits without pcap_close() */
	if (!pm->on_close_list && pcap_do_addexit(p)) {
		pcap_add_to_pcaps_to_close(p);
		pm->on_close_list = 1;
	}
	return 0;
}

int mgcap_tstamp_setup(pcap_t *p, uint32_t *source)
{
	struct pcap_mgcap *pm = p->priv;
	int warning = 0;
	size_t i;

	*source = MGCAP_TSTAMP_SW;
	/* the NIC's stamps only where every device stamps: one kind of stamp a handle */
	if (p->opt.tstamp_type == PCAP_TSTAMP_ADAPTER_UNSYNCED ||
	    p->opt.tstamp_type == PCAP_TSTAMP_ADAPTER) {
		for (i = 0; i < pm->ndevs && !warning; i++)
			warning = setup_adapter_stamps(p, &pm->devs[i]);
		if (warning < 0)
			return warning;
		if (warning == 0)
			*source = MGCAP_TSTAMP_HW_OR_SW;
	}
	if (p->opt.tstamp_type == PCAP_TSTAMP_ADAPTER && *source == MGCAP_TSTAMP_HW_OR_SW) {
		warning = setup_conversion(p);
		*source = warning ? MGCAP_TSTAMP_SW : MGCAP_TSTAMP_HW_AND_SW;
	}
	pm->tstamp_type = *source == MGCAP_TSTAMP_SW ? PCAP_TSTAMP_HOST : p->opt.tstamp_type;
	return warning;
}

/*
 * What the conversion did, on stderr: always when stamps fell back (a
 * capture file cannot say which), and with MGCAP_ADAPTER_STATS set.
 */
static void adapter_report(const struct mgcap_dev *dev)
{
	char line[512];

	if (!dev->conv.fallbacks && !dev->conv.sample_errors && !getenv("MGCAP_ADAPTER_STATS"))
		return;
	mgcap_adapter_describe(&dev->conv, line, sizeof(line));
	fprintf(stderr, "mgcap: %s: adapter stamps: %s\n", dev->src.ifname, line);
}

void mgcap_tstamp_close(pcap_t *p)
{
	struct pcap_mgcap *pm = p->priv;
	size_t i;

	for (i = 0; i < pm->ndevs; i++) {
		struct mgcap_dev *dev = &pm->devs[i];

		if (pm->adapter)
			adapter_report(dev);
		mgcap_adapter_close(&dev->conv);
		if (dev->hwts.taken)
			(void)mgcap_hwts_readers_gone(dev->src.ifname, &dev->hwts);
		dev->hwts.taken = 0;
	}
	pm->adapter = 0;
}
