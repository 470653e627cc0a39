// SPDX-License-Identifier: BSD-2-Clause
#include <stdint.h>
#include <string.h>

#include "mgtestnic/mgtestnic_frame.h"
#include "peek.h"
#include "unit.h"

static union {
	struct mgcap_rec rec;
	uint8_t bytes[sizeof(struct mgcap_rec) + 256];
} r;

static void test_udp_frame(void)
{
	char line[256];

	memset(&r, 0, sizeof(r));
	mgt_build_frame(r.rec.data, 128, 0, 2, 5, 1);
	r.rec.caplen = r.rec.wirelen = 128;
	r.rec.queue = 2;
	r.rec.flags = MGCAP_REC_F_HWTSTAMP;
	r.rec.tstamp_ns = 1700000000000005002ULL;
	mgcap_peek_format(line, sizeof(line), &r.rec);
	CU_ASSERT_STRING_EQUAL(line, "1700000000.000005002 hw q2 len 128 cap 128  "
			       "02:6d:67:73:00:02 > 02:6d:67:74:00:00 "
			       "IPv4 198.51.100.2 > 198.51.100.1 UDP 10002 > 5555");
}

static void test_vlan_and_short(void)
{
	char line[256];
	uint8_t frame[128];

	memset(&r, 0, sizeof(r));
	mgt_build_frame(frame, 128, 0, 0, 0, 1);
	memcpy(r.rec.data, frame, 12);
	memcpy(r.rec.data + 12, "\x81\x00\x00\x0a", 4);
	memcpy(r.rec.data + 16, frame + 12, 116);
	r.rec.caplen = 18;	/* snaplen cut inside the IP header */
	r.rec.wirelen = 132;
	r.rec.tstamp_ns = 999999999;
	mgcap_peek_format(line, sizeof(line), &r.rec);
	CU_ASSERT_STRING_EQUAL(line, "0.999999999 sw q0 len 132 cap 18  "
			       "02:6d:67:73:00:00 > 02:6d:67:74:00:00 vlan 10");
	r.rec.caplen = 10;
	mgcap_peek_format(line, sizeof(line), &r.rec);
	CU_ASSERT_STRING_EQUAL(line, "0.999999999 sw q0 len 132 cap 10");
	/* several wire frames merged before the capture */
	r.rec.flags = MGCAP_REC_F_COALESCED;
	mgcap_peek_format(line, sizeof(line), &r.rec);
	CU_ASSERT_STRING_EQUAL(line, "0.999999999 sw q0 len 132 cap 10 coalesced");
	/* a large send of a segmentation offload, sent by the device */
	r.rec.flags = MGCAP_REC_F_COALESCED | MGCAP_REC_F_SENT;
	mgcap_peek_format(line, sizeof(line), &r.rec);
	CU_ASSERT_STRING_EQUAL(line, "0.999999999 sw q0 len 132 cap 10 coalesced sent");
	r.rec.flags = 0;
	/* a line too small for the text is cut, not overrun */
	mgcap_peek_format(line, 8, &r.rec);
	CU_ASSERT_STRING_EQUAL(line, "0.99999");
}

void register_peek_tests(void)
{
	static const struct unit_test tests[] = {
		{ "udp frame", test_udp_frame },
		{ "vlan and short frames", test_vlan_and_short },
	};

	ADD_SUITE("peek", tests);
}
