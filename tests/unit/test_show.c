// SPDX-License-Identifier: BSD-2-Clause
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "show.h"
#include "unit.h"

typedef void show_fn(FILE *, const struct mgcap_nl_list *, const struct mgcap_phc_status *);

static char *render_clocks(show_fn *fn, const struct mgcap_nl_list *l,
			   const struct mgcap_phc_status *clocks)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fn(f, l, clocks);
	fclose(f);
	return buf;
}

static char *render(show_fn *fn, const struct mgcap_nl_list *l)
{
	return render_clocks(fn, l, NULL);
}

static struct mgcap_nl_reader sample_readers[2] = {
	{ .pid = 42, .comm = "tcp\"dump", .snaplen = 96,
	  .counters = { .captured = 10, .bytes = 640, .dropped = 2, .fill = 48, .high_water = 96,
			.coalesced = 4, .sent = 6 },
	  .filtered = 7, .filter_len = 12, .out_of_order = 5 },
	{ .pid = 43, .comm = "mgdump", .snaplen = 262144, .counters = { .captured = 12 } },
};

static void sample(struct mgcap_nl_list *l, struct mgcap_nl_dev *d, struct mgcap_nl_queue *q)
{
	memset(d, 0, sizeof(*d));
	memset(q, 0, 2 * sizeof(*q));
	snprintf(d->ifname, sizeof(d->ifname), "%s", "we\"ird\\0");
	d->ifindex = 7;
	d->mode = 1;
	d->ring_size = 8 << 20;
	d->snaplen = 96;
	d->num_queues = 2;
	d->queues = q;
	q[0].id = 0;
	snprintf(q[0].devnode, sizeof(q[0].devnode), "/dev/mgcap/x@0");
	q[0].counters.captured = 18446744073709551615ULL;
	q[0].counters.bytes = 5;
	q[1].id = 1;
	q[1].counters.dropped = 3;
	q[1].counters.coalesced = 2;
	q[0].counters.sent = 8;
	q[1].counters.sent = 1;
	d->coalescing_off = 0x3;	/* gro, lro */
	q[1].num_readers = 2;
	q[1].readers = sample_readers;
	l->devs = d;
	l->count = 1;
}

static void test_json(void)
{
	struct mgcap_nl_list l;
	struct mgcap_nl_dev d;
	struct mgcap_nl_queue q[2];
	char *out;

	sample(&l, &d, q);
	out = render(mgcap_show_json, &l);
	CU_ASSERT_STRING_EQUAL(out,
		"[{\"dev\":\"we\\\"ird\\\\0\",\"ifindex\":7,\"mode\":\"drop\",\"ring_size\":8388608,"
		"\"snaplen\":96,\"autostop\":false,\"keep_coalescing\":false,"
		"\"received_only\":false,"
		"\"coalescing_off\":[\"gro\",\"lro\"],\"queues\":[{\"queue\":0,"
		"\"devnode\":\"/dev/mgcap/x@0\",\"captured\":18446744073709551615,\"bytes\":5,"
		"\"dropped\":0,\"fill\":0,\"high_water\":0,\"coalesced\":0,\"sent\":8,"
		"\"readers\":[]},"
		"{\"queue\":1,\"devnode\":\"\",\"captured\":0,\"bytes\":0,\"dropped\":3,\"fill\":0,"
		"\"high_water\":0,\"coalesced\":2,\"sent\":1,\"readers\":["
		"{\"pid\":42,\"comm\":\"tcp\\\"dump\",\"snaplen\":96,\"captured\":10,\"bytes\":640,"
		"\"dropped\":2,\"fill\":48,\"high_water\":96,\"coalesced\":4,\"sent\":6,"
		"\"filter_len\":12,\"filtered\":7,\"out_of_order\":5},"
		"{\"pid\":43,\"comm\":\"mgdump\",\"snaplen\":262144,\"captured\":12,\"bytes\":0,"
		"\"dropped\":0,\"fill\":0,\"high_water\":0,\"coalesced\":0,\"sent\":0,\"filter_len\":0,"
		"\"filtered\":0,\"out_of_order\":0}]}]}]\n");
	free(out);

	l.count = 0;
	out = render(mgcap_show_json, &l);
	CU_ASSERT_STRING_EQUAL(out, "[]\n");
	free(out);
}

static void test_table(void)
{
	struct mgcap_nl_list l;
	struct mgcap_nl_dev d;
	struct mgcap_nl_queue q[2];
	char *out;

	sample(&l, &d, q);
	out = render(mgcap_show_table, &l);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, ": mode drop, 2 queues, ring 8192 KiB, snaplen 96\n"));
	/* what it turned off, and the coalesced records of every queue */
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n  coalescing: gro, lro off while captured;"
					   " 2 records of coalesced frames\n"));
	/* the sent records of every queue */
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n  directions: received and sent; 9 records of sent"
					   " frames\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "18446744073709551615"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "/dev/mgcap/x@0"));
	/* queue 1: two readers, each with its own counts on a line of its own */
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n      1              0                  0            3"
					   "            0            0       2  \n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n                    10                640            2"
					   "           48           96          pid 42 tcp\"dump,"
					   " snaplen 96, filter 12 insns, filtered out 7,"
					   " out of order 5\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, " pid 43 mgdump, snaplen 262144, filter 0 insns, filtered out 0,"
					   " out of order 0\n"));
	free(out);
	l.count = 0;
	out = render(mgcap_show_table, &l);
	CU_ASSERT_STRING_EQUAL(out, "no captured devices\n");
	free(out);

	/* started for a reader */
	l.count = 1;
	d.autostop = 1;
	out = render(mgcap_show_table, &l);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "snaplen 96, stops with its last reader\n"));
	free(out);
	out = render(mgcap_show_json, &l);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, ",\"autostop\":true,"));
	free(out);

	/* kept on request; nothing to turn off */
	d.keep_coalescing = 1;
	d.coalescing_off = 0;
	q[1].counters.coalesced = 1;
	out = render(mgcap_show_table, &l);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n  coalescing: left as it was (coalescing keep);"
					   " 1 record of coalesced frames\n"));
	free(out);
	out = render(mgcap_show_json, &l);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, ",\"keep_coalescing\":true,\"received_only\":false,"
					   "\"coalescing_off\":[],"));
	free(out);
	d.keep_coalescing = 0;
	out = render(mgcap_show_table, &l);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n  coalescing: none turned off by mgcap;"));
	free(out);

	/* started without the frames it sends */
	d.received_only = 1;
	out = render(mgcap_show_table, &l);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n  directions: received frames only (sent off)\n"));
	free(out);
	out = render(mgcap_show_json, &l);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, ",\"received_only\":true,"));
	free(out);
}

/* The sample with queue 1 read by @reader alone, rendered by @fn. */
static char *render_one_reader(show_fn *fn, struct mgcap_nl_reader *reader)
{
	struct mgcap_nl_list l;
	struct mgcap_nl_dev d;
	struct mgcap_nl_queue q[2];

	sample(&l, &d, q);
	q[1].num_readers = 1;
	q[1].readers = reader;
	return render(fn, &l);
}

/* A reader the asker's pid namespace cannot see: how it reads, not who it is. */
static void test_reader_outside_pid_namespace(void)
{
	struct mgcap_nl_reader outside = {
		.pid = 0, .snaplen = 80, .filter_len = 4, .counters = { .captured = 5 } };
	char *out = render_one_reader(mgcap_show_table, &outside);

	CU_ASSERT_PTR_NOT_NULL(strstr(out, "          a process outside this pid namespace, snaplen 80,"
					   " filter 4 insns, filtered out 0, out of order 0\n"));
	CU_ASSERT_PTR_NULL(strstr(out, " pid 0"));
	free(out);
}

/* Asked without CAP_NET_ADMIN: a reader's counters, not who it is or how it reads. */
static void test_hidden_reader(void)
{
	struct mgcap_nl_reader hidden = { .hidden = 1, .counters = { .captured = 5 },
					  .out_of_order = 3 };
	char *out = render_one_reader(mgcap_show_table, &hidden);

	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n                     5                  0            0"
					   "            0            0          out of order 3\n"));
	CU_ASSERT_PTR_NULL(strstr(out, " pid "));
	free(out);
	out = render_one_reader(mgcap_show_json, &hidden);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"readers\":[{\"captured\":5,\"bytes\":0,\"dropped\":0,"
					   "\"fill\":0,\"high_water\":0,\"coalesced\":0,\"sent\":0,"
					   "\"out_of_order\":3}]}]}]\n"));
	free(out);
}

/* The device's clock: measured, missing, or unreadable. */
static void test_clock(void)
{
	static const struct mgcap_phc_status measured = {
		.index = 3, .method = MGCAP_PHC_EXTENDED, .offset_ns = -37000001234LL,
		.freq_ppb = 49987.4, .freq_unc_ppb = 412.0, .window_ns = 830,
	}, none = { .index = -1 }, refused = { .index = 0, .err = 13 };
	struct mgcap_nl_list l;
	struct mgcap_nl_dev d;
	struct mgcap_nl_queue q[2];
	char *out;

	sample(&l, &d, q);
	out = render_clocks(mgcap_show_table, &l, &measured);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "snaplen 96\n  clock: /dev/ptp3, -37.000001234 s from "
					   "system time, +50.0 ppm (+-0.4), by PTP_SYS_OFFSET_EXTENDED,"
					   " window 830 ns\n"));
	free(out);
	out = render_clocks(mgcap_show_json, &l, &measured);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"out_of_order\":0}]}],\"clock\":{\"phc\":\"/dev/ptp3\",\"method\":"
					   "\"PTP_SYS_OFFSET_EXTENDED\",\"offset_ns\":-37000001234,"
					   "\"freq_ppb\":49987.4,\"freq_unc_ppb\":412.0,"
					   "\"window_ns\":830}}]\n"));
	free(out);
	out = render_clocks(mgcap_show_table, &l, &none);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n  clock: none named by the NIC"));
	free(out);
	out = render_clocks(mgcap_show_json, &l, &none);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, ",\"clock\":null}]\n"));
	free(out);
	out = render_clocks(mgcap_show_table, &l, &refused);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n  clock: /dev/ptp0 cannot be read: Permission denied\n"));
	free(out);
	out = render_clocks(mgcap_show_json, &l, &refused);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, ",\"clock\":{\"phc\":\"/dev/ptp0\","
					   "\"error\":\"Permission denied\"}}]\n"));
	free(out);
}

void register_show_tests(void)
{
	static const struct unit_test tests[] = {
		{ "json", test_json },
		{ "table", test_table },
		{ "readers' details left out", test_hidden_reader },
		{ "a reader outside the pid namespace", test_reader_outside_pid_namespace },
		{ "the NIC's clock", test_clock },
	};

	ADD_SUITE("show", tests);
}
