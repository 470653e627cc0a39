// SPDX-License-Identifier: BSD-2-Clause
/* mgdump's --max-disk and --max-age over real files in a scratch directory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "retention.h"
#include "unit.h"

static uint64_t fake_s;

static uint64_t fake_clock(void)
{
	return fake_s;
}

static void make_file(const char *dir, const char *name, size_t bytes)
{
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	while (bytes--)
		fputc('x', f);
	fclose(f);
}

/* @dir's files, sorted, on one line */
static void listing(const char *dir, char *out, size_t len)
{
	char cmd[700];
	FILE *p;
	size_t n;

	snprintf(cmd, sizeof(cmd), "ls -A %s | sort | tr '\\n' ' '", dir);
	p = popen(cmd, "r");
	CU_ASSERT_FATAL(p != NULL);
	n = fread(out, 1, len - 1, p);
	out[n] = '\0';
	pclose(p);
}

/* The files made and finished one by one: name i at second 10 * i. */
static void finish(struct retention *rt, const char *dir, int first, int last, size_t bytes)
{
	char name[16], path[600];
	int i;

	for (i = first; i <= last; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		make_file(dir, name, bytes);
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		fake_s = 10ULL * (uint64_t)i;
		retention_file_done(path, rt);
	}
}

static void test_size_limit_removes_the_oldest_of_its_own(void)
{
	char dir[] = "/tmp/mgcap-ret-XXXXXX", tmpl[600], ls[1024];
	struct retention rt = { .max_bytes = 3000, .clock_s = fake_clock };

	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	make_file(dir, "not-mine", 5000);
	snprintf(tmpl, sizeof(tmpl), "%s/f%%s", dir);
	CU_ASSERT_FATAL(retention_open(&rt, tmpl) == 0);
	finish(&rt, dir, 0, 4, 1000);
	listing(dir, ls, sizeof(ls));
	CU_ASSERT_STRING_EQUAL(ls, ".f%s.files f2 f3 f4 not-mine ");
	CU_ASSERT_EQUAL(rt.removed, 2);
	CU_ASSERT_EQUAL(retention_bytes(&rt), 3000);
	retention_free(&rt);
	unit_remove_dir(dir);
}

static void test_age_limit(void)
{
	char dir[] = "/tmp/mgcap-ret-XXXXXX", tmpl[600], ls[1024];
	struct retention rt = { .max_age_s = 25, .clock_s = fake_clock };

	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(tmpl, sizeof(tmpl), "%s/f", dir);
	CU_ASSERT_FATAL(retention_open(&rt, tmpl) == 0);
	finish(&rt, dir, 0, 3, 10);	/* at 30 s: f0 is 30 s old, f1 20 s */
	listing(dir, ls, sizeof(ls));
	CU_ASSERT_STRING_EQUAL(ls, ".f.files f1 f2 f3 ");
	fake_s = 46;			/* f1 and f2 are past 25 s */
	retention_expire(&rt);
	listing(dir, ls, sizeof(ls));
	CU_ASSERT_STRING_EQUAL(ls, ".f.files f3 ");
	retention_free(&rt);
	unit_remove_dir(dir);
}

/*
 * A restart knows the earlier run's files from the list, follows one a -z
 * command compressed, forgets one removed by hand, and applies a smaller
 * limit at once.
 */
static void test_restart_knows_its_files(void)
{
	char dir[] = "/tmp/mgcap-ret-XXXXXX", tmpl[600], ls[1024], cmd[700];
	struct retention rt = { .max_bytes = 100000, .clock_s = fake_clock };

	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(tmpl, sizeof(tmpl), "%s/f", dir);
	CU_ASSERT_FATAL(retention_open(&rt, tmpl) == 0);
	finish(&rt, dir, 0, 3, 1000);
	retention_free(&rt);
	/* f1 compressed, f0 half compressed when a crash came, f2 removed by hand */
	snprintf(cmd, sizeof(cmd), "cd %s && mv f1 f1.gz && head -c 500 f0 >f0.gz && rm f2", dir);
	CU_ASSERT_FATAL(system(cmd) == 0);
	rt = (struct retention){ .max_bytes = 1500, .clock_s = fake_clock };
	CU_ASSERT_FATAL(retention_open(&rt, tmpl) == 0);
	CU_ASSERT_EQUAL(rt.n, 1);
	listing(dir, ls, sizeof(ls));
	CU_ASSERT_STRING_EQUAL(ls, ".f.files f3 ");
	CU_ASSERT_EQUAL(rt.removed, 2);		/* f0 (and f0.gz), then f1.gz */
	retention_free(&rt);
	unit_remove_dir(dir);
}

void register_retention_tests(void)
{
	static const struct unit_test tests[] = {
		{ "size limit removes the oldest of its own", test_size_limit_removes_the_oldest_of_its_own },
		{ "age limit", test_age_limit },
		{ "a restart knows its files", test_restart_knows_its_files },
	};

	ADD_SUITE("retention", tests);
}
