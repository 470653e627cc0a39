// SPDX-License-Identifier: BSD-2-Clause
/* Source names and finding queues in sysfs (a fake class directory here). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mgcap_source.h"
#include "unit.h"

static void test_names(void)
{
	struct mgcap_source s;
	char err[160];

	CU_ASSERT_EQUAL(mgcap_source_is_ours("mgcap:eth0"), 1);
	CU_ASSERT_EQUAL(mgcap_source_is_ours("eth0"), 0);
	CU_ASSERT_EQUAL(mgcap_source_is_ours("netmap:eth0"), 0);

	CU_ASSERT_EQUAL(mgcap_source_parse("mgcap:eth0", &s, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(s.ifname, "eth0");
	CU_ASSERT(s.all_queues && mgcap_source_has_queue(&s, 700));

	CU_ASSERT_EQUAL(mgcap_source_parse("mgcap:eth0@2", &s, err, sizeof(err)), 0);
	CU_ASSERT(!s.all_queues && mgcap_source_has_queue(&s, 2));
	CU_ASSERT(!mgcap_source_has_queue(&s, 1) && !mgcap_source_has_queue(&s, 3));

	CU_ASSERT_EQUAL(mgcap_source_parse("mgcap:enp3s0f1@1-3,5,9-9", &s, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(s.ifname, "enp3s0f1");
	CU_ASSERT(mgcap_source_has_queue(&s, 1) && mgcap_source_has_queue(&s, 3));
	CU_ASSERT(mgcap_source_has_queue(&s, 5) && mgcap_source_has_queue(&s, 9));
	CU_ASSERT(!mgcap_source_has_queue(&s, 4) && !mgcap_source_has_queue(&s, 0));
	CU_ASSERT(!mgcap_source_has_queue(&s, 5000));

	/* the name the kernel finds the device by (Argus asks it) */
	CU_ASSERT_EQUAL(mgcap_source_is_ours("eth0:mgcap"), 1);
	CU_ASSERT_EQUAL(mgcap_source_is_ours("eth0:mgcap@2"), 1);
	CU_ASSERT_EQUAL(mgcap_source_is_ours("eth0:1"), 0);
	CU_ASSERT_EQUAL(mgcap_source_is_ours("eth0:mgcapx"), 0);
	CU_ASSERT_EQUAL(mgcap_source_is_ours("eth0:mgcap:x"), 0);
	CU_ASSERT_EQUAL(mgcap_source_is_ours(":mgcap"), 0);
	CU_ASSERT_EQUAL(mgcap_source_parse("enp3s0f1:mgcap", &s, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(s.ifname, "enp3s0f1");
	CU_ASSERT(s.all_queues);
	CU_ASSERT_EQUAL(mgcap_source_parse("eth0:mgcap@1-3,5", &s, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(s.ifname, "eth0");
	CU_ASSERT(mgcap_source_has_queue(&s, 3) && mgcap_source_has_queue(&s, 5));
	CU_ASSERT(!s.all_queues && !mgcap_source_has_queue(&s, 4));
}

static void test_bad_names(void)
{
	static const char *const bad[] = {
		"mgcap:", "mgcap:@1", "mgcap:eth0@", "mgcap:eth0@x", "mgcap:eth0@3-1",
		"mgcap:eth0@1,", "mgcap:eth0@1--2", "mgcap:eth0@1024", "mgcap:eth0@-1",
		"mgcap:a/b", "mgcap:a:b", "mgcap:abcdefghijklmnop", "eth0",
		"mgcap:eth0@99999999999999999999",
		"eth0:mgcap@", "eth0:mgcap@x", "abcdefghijklmnop:mgcap", "a/b:mgcap", "mgcap:eth0:mgcap",
	};
	struct mgcap_source s;
	char err[160];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		CU_ASSERT_EQUAL(mgcap_source_parse(bad[i], &s, err, sizeof(err)), -1);
		CU_ASSERT(err[0] != '\0');
	}
}

/* Lists of devices: each its own source, all its queues; bad lists said so. */
static void test_device_lists(void)
{
	static const char *const bad[] = {
		"mgcap:eth0,", "mgcap:,eth0", "mgcap:eth0,,eth1", "mgcap:eth0,eth0",
		"mgcap:eth0,eth1,eth0", "mgcap:a,b,c,d,e,f,g,h,i", "mgcap:eth0,a/b",
		"mgcap:eth0,abcdefghijklmnop", "mgcap:eth0@1,eth1",
	};
	struct mgcap_source s[MGCAP_MAX_DEVICES];
	char err[160];
	size_t n, i;

	CU_ASSERT_EQUAL(mgcap_source_parse_devices("mgcap:eth0,enp3s0f1", s, &n, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_STRING_EQUAL(s[0].ifname, "eth0");
	CU_ASSERT_STRING_EQUAL(s[1].ifname, "enp3s0f1");
	CU_ASSERT(s[0].all_queues && s[1].all_queues);
	/* one device, queues and all, as before */
	CU_ASSERT_EQUAL(mgcap_source_parse_devices("mgcap:eth0@1-3,5", s, &n, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT(mgcap_source_has_queue(&s[0], 5) && !mgcap_source_has_queue(&s[0], 4));
	/* the kernel's spelling names one device: its list is of queues */
	CU_ASSERT_EQUAL(mgcap_source_parse_devices("eth0:mgcap@1,3", s, &n, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT(mgcap_source_has_queue(&s[0], 3) && !mgcap_source_has_queue(&s[0], 2));
	CU_ASSERT_EQUAL(mgcap_source_parse_devices("mgcap:a,b,c,d,e,f,g,h", s, &n, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(n, MGCAP_MAX_DEVICES);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		CU_ASSERT_EQUAL(mgcap_source_parse_devices(bad[i], s, &n, err, sizeof(err)), -1);
		CU_ASSERT(err[0] != '\0');
	}
	mgcap_source_parse_devices("mgcap:eth0,eth1,eth0", s, &n, err, sizeof(err));
	CU_ASSERT_STRING_EQUAL(err, "mgcap:eth0,eth1,eth0: eth0 is listed twice");
}

static void make_node(const char *dir, const char *name, const char *ifname, unsigned int queue,
		      const char *mode, unsigned long long ns)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	CU_ASSERT_FATAL(mkdir(path, 0755) == 0);
#define ATTR(attr, fmt, val) do {						\
	snprintf(path, sizeof(path), "%s/%s/" attr, dir, name);			\
	f = fopen(path, "w");							\
	CU_ASSERT_FATAL(f != NULL);						\
	fprintf(f, fmt "\n", val);						\
	fclose(f);								\
} while (0)
	ATTR("ifname", "%s", ifname);
	ATTR("queue", "%u", queue);
	ATTR("mode", "%s", mode);
	ATTR("netns", "%llu", ns);
#undef ATTR
}

static void test_list_queues(void)
{
	char dir[] = "/tmp/mgcap-unit-XXXXXX";
	struct mgcap_queue_node *nodes;
	int n;

	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	make_node(dir, "mgcap!eth1@1", "eth1", 1, "drop", 7);
	make_node(dir, "mgcap!eth1@0", "eth1", 0, "drop", 7);
	make_node(dir, "mgcap!eth0@10", "eth0", 10, "mirror", 7);
	make_node(dir, "mgcap!eth0@2", "eth0", 2, "mirror", 7);
	make_node(dir, "mgcap!ns9!eth0@0", "eth0", 0, "mirror", 9);

	n = mgcap_list_queues(dir, 7, &nodes);
	CU_ASSERT_EQUAL_FATAL(n, 4);
	CU_ASSERT_STRING_EQUAL(nodes[0].ifname, "eth0");
	CU_ASSERT_EQUAL(nodes[0].queue, 2);	/* numerically, not 10 first */
	CU_ASSERT_STRING_EQUAL(nodes[0].devnode, "/dev/mgcap/eth0@2");
	CU_ASSERT_EQUAL(nodes[1].queue, 10);
	CU_ASSERT_STRING_EQUAL(nodes[2].ifname, "eth1");
	CU_ASSERT_EQUAL(nodes[2].queue, 0);
	CU_ASSERT_STRING_EQUAL(nodes[2].mode, "drop");
	CU_ASSERT_EQUAL(mgcap_count_queues(nodes, n, "eth1"), 2);
	CU_ASSERT_EQUAL(mgcap_count_queues(nodes, n, "eth"), 0);
	CU_ASSERT_EQUAL(mgcap_count_queues(nodes, -1, "eth1"), 0);
	free(nodes);

	n = mgcap_list_queues(dir, 9, &nodes);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT_STRING_EQUAL(nodes[0].devnode, "/dev/mgcap/ns9/eth0@0");
	free(nodes);

	CU_ASSERT_EQUAL(mgcap_list_queues(dir, 8, &nodes), 0);
	CU_ASSERT_PTR_NULL(nodes);
	/* no class directory (no module) and any other failure differ in errno */
	errno = 0;
	CU_ASSERT_EQUAL(mgcap_list_queues("/nonexistent/mgcap", 7, &nodes), -1);
	CU_ASSERT_EQUAL(errno, ENOENT);
	errno = 0;
	CU_ASSERT_EQUAL(mgcap_list_queues("/dev/null", 7, &nodes), -1);
	CU_ASSERT_EQUAL(errno, ENOTDIR);

	unit_remove_dir(dir);
}

void register_source_tests(void)
{
	static const struct unit_test tests[] = {
		{ "names", test_names },
		{ "bad names", test_bad_names },
		{ "device lists", test_device_lists },
		{ "list queues", test_list_queues },
	};

	ADD_SUITE("source", tests);
}
