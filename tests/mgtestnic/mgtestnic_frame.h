/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The frames and hardware time stamps the mgtestnic driver generates.
 *
 * Included by the driver and by the test programs that check captures, so
 * both sides derive every byte and every nanosecond from the same code.
 *
 * Frame of @len bytes (no FCS) from queue Q with sequence number S:
 *   Ethernet  dst = mgt_dev_mac(device), src 02:6d:67:73:00:Q, IPv4
 *   IPv4      198.51.100.2 -> 198.51.100.1, UDP, DF, id = S & 0xffff
 *   UDP       sport 10000 + Q + 100 * (S % flows), dport MGT_UDP_PORT, checksum 0
 *             (flows > 1 spreads one queue over several RPS CPUs)
 *   payload   S (big-endian u64), Q (big-endian u16), then mgt_pattern()
 *
 * With the device's PHC stamping (phc_stamps), the stamp is the PHC's time
 * and the 8 payload bytes at MGT_TRUTH_OFF hold, in place of the pattern,
 * the system time (CLOCK_REALTIME, big-endian ns) read at the same instant:
 * what an adapter stamp converted to system time must come out as.
 */
#ifndef MGTESTNIC_FRAME_H
#define MGTESTNIC_FRAME_H

#include <linux/types.h>

#define MGT_FRAME_MIN		60U
#define MGT_FRAME_MAX		4096U	/* one page of frags when non-linear */
#define MGT_HDR_LEN		42U	/* Ethernet + IPv4 + UDP */
#define MGT_UDP_PORT		5555U
#define MGT_IP_DST		0xc6336401U	/* 198.51.100.1 */
#define MGT_IP_SRC		0xc6336402U	/* 198.51.100.2 */
#define MGT_TS_BASE_NS		1700000000000000000ULL
#define MGT_TS_STEP_NS		1000ULL
#define MGT_TRUTH_OFF		(MGT_HDR_LEN + 10)

/*
 * The device's frame_len MGT_FRAME_LEN_IMIX ("imix" in sysfs): a queue's
 * frames take the simple IMIX's sizes in turn, in every 12 seven of 60
 * bytes, four of 590 and one of 1514 (64, 594 and 1518 on the wire, with
 * the FCS), interleaved as a link mixes them.
 */
#define MGT_FRAME_LEN_IMIX	0U

/* Length of frame @seq of a queue whose device has @frame_len set */
static inline __u32 mgt_frame_len(__u32 frame_len, __u64 seq)
{
	static const __u16 imix[12] = { 60, 590, 60, 60, 590, 60, 1514, 60, 590, 60, 60, 590 };

	return frame_len == MGT_FRAME_LEN_IMIX ? imix[(__u32)(seq % 12)] : frame_len;
}

/* Hardware stamp of frame S of queue Q: distinct and ordered by (S, Q). */
static inline __u64 mgt_hwtstamp(__u16 queue, __u64 seq)
{
	return MGT_TS_BASE_NS + seq * MGT_TS_STEP_NS + queue;
}

static inline void mgt_dev_mac(__u8 mac[6], __u32 dev_index)
{
	mac[0] = 0x02;
	mac[1] = 0x6d;
	mac[2] = 0x67;
	mac[3] = 0x74;
	mac[4] = (dev_index >> 8) & 0xff;
	mac[5] = dev_index & 0xff;
}

static inline __u8 mgt_pattern(__u16 queue, __u64 seq, __u32 offset)
{
	return (seq * 131 + queue * 29 + offset * 7) & 0xff;
}

static inline void mgt_put16(__u8 *p, __u32 v)
{
	p[0] = (v >> 8) & 0xff;
	p[1] = v & 0xff;
}

static inline void mgt_put32(__u8 *p, __u32 v)
{
	mgt_put16(p, v >> 16);
	mgt_put16(p + 2, v);
}

static inline void mgt_put_truth(__u8 *frame, __u64 sys_ns)
{
	mgt_put32(frame + MGT_TRUTH_OFF, (__u32)(sys_ns >> 32));
	mgt_put32(frame + MGT_TRUTH_OFF + 4, (__u32)sys_ns);
}

static inline __u64 mgt_get_truth(const __u8 *frame)
{
	__u64 v = 0;
	__u32 i;

	for (i = 0; i < 8; i++)
		v = v << 8 | frame[MGT_TRUTH_OFF + i];
	return v;
}

static inline __u16 mgt_ip_csum(const __u8 *hdr, __u32 len)
{
	__u32 sum = 0, i;

	for (i = 0; i < len; i += 2)
		sum += (__u32)hdr[i] << 8 | hdr[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)~sum;
}

/* Writes the @len bytes of frame (@queue, @seq); MGT_FRAME_MIN <= len <= MGT_FRAME_MAX. */
static inline void mgt_build_frame(__u8 *f, __u32 len, __u32 dev_index, __u16 queue, __u64 seq,
				   __u32 flows)
{
	__u8 *ip = f + 14, *udp = f + 34, *pl = f + MGT_HDR_LEN;
	__u32 i;

	mgt_dev_mac(f, dev_index);
	f[6] = 0x02;
	f[7] = 0x6d;
	f[8] = 0x67;
	f[9] = 0x73;
	mgt_put16(f + 10, queue);
	mgt_put16(f + 12, 0x0800);

	ip[0] = 0x45;
	ip[1] = 0;
	mgt_put16(ip + 2, len - 14);
	mgt_put16(ip + 4, (__u32)(seq & 0xffff));
	mgt_put16(ip + 6, 0x4000);
	ip[8] = 64;
	ip[9] = 17;
	mgt_put16(ip + 10, 0);
	mgt_put32(ip + 12, MGT_IP_SRC);
	mgt_put32(ip + 16, MGT_IP_DST);
	mgt_put16(ip + 10, mgt_ip_csum(ip, 20));

	mgt_put16(udp, 10000U + queue + 100U * (__u32)(seq % (flows ? flows : 1)));
	mgt_put16(udp + 2, MGT_UDP_PORT);
	mgt_put16(udp + 4, len - 34);
	mgt_put16(udp + 6, 0);

	mgt_put32(pl, (__u32)(seq >> 32));
	mgt_put32(pl + 4, (__u32)seq);
	mgt_put16(pl + 8, queue);
	for (i = MGT_HDR_LEN + 10; i < len; i++)
		f[i] = mgt_pattern(queue, seq, i);
}

/*
 * The frame as a capture shows it: with @vlan_tci nonzero, the tag the
 * driver offloads is back after the addresses, as mgcap re-inserts it.
 * @wire holds MGT_FRAME_MAX + 4 bytes.  Returns the wire length.
 */
static inline __u32 mgt_build_wire_frame(__u8 *wire, __u32 len, __u32 dev_index, __u16 queue,
					 __u64 seq, __u32 flows, __u16 vlan_tci)
{
	__u32 i;

	if (!vlan_tci) {
		mgt_build_frame(wire, len, dev_index, queue, seq, flows);
		return len;
	}
	/* build 4 bytes in, then move the addresses forward over the gap */
	mgt_build_frame(wire + 4, len, dev_index, queue, seq, flows);
	for (i = 0; i < 12; i++)
		wire[i] = wire[i + 4];
	mgt_put16(wire + 12, 0x8100);
	mgt_put16(wire + 14, vlan_tci);
	return len + 4;
}

#ifndef __KERNEL__
#include <stdlib.h>
#include <string.h>

/* The checkers' --frame-len: "imix" or a length the driver takes; 0 if neither */
static inline int mgt_parse_frame_len(const char *s, __u32 *frame_len)
{
	char *end;
	unsigned long v;

	if (!strcmp(s, "imix")) {
		*frame_len = MGT_FRAME_LEN_IMIX;
		return 1;
	}
	v = strtoul(s, &end, 0);
	if (*s < '0' || *s > '9' || *end || v < MGT_FRAME_MIN || v > MGT_FRAME_MAX)
		return 0;
	*frame_len = (__u32)v;
	return 1;
}
#endif

#endif /* MGTESTNIC_FRAME_H */
