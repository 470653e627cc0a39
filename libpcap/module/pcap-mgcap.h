/*
 * mgcap capture module for libpcap: per-receive-queue rings with hardware
 * time stamps (see README.mgcap).
 */
#ifndef PCAP_MGCAP_H
#define PCAP_MGCAP_H

pcap_t *pcap_mgcap_create(const char *device, char *ebuf, int *is_ours);
/* whether @device names an mgcap source (mgcap:DEV or DEV:mgcap, with queues) */
int pcap_mgcap_is_source(const char *device);
int pcap_mgcap_findalldevs(pcap_if_list_t *devlistp, char *errbuf);

/* for mgcap's tools: see MGCAP_TSTAMP_REPORT_SYMBOL in mgcap_adapter.h */
PCAP_API int pcap_mgcap_tstamp_report(pcap_t *p, char *buf, size_t len);
/* for mgcap's tools: see MGCAP_COALESCED_SYMBOL in mgcap_adapter.h */
PCAP_API int64_t pcap_mgcap_coalesced(pcap_t *p);
/* for mgcap's tools: see MGCAP_DIRECTION_SYMBOL in mgcap_adapter.h */
PCAP_API int pcap_mgcap_direction(pcap_t *p);

#endif /* PCAP_MGCAP_H */
