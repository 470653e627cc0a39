// SPDX-License-Identifier: BSD-2-Clause
/*
 * The stamping records' directory as a member of group mgcap may leave it:
 * links where a record or its new file goes, records of other users, files
 * that are no records.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mgcap_hwts_record.h"
#include "unit.h"

#define MEMBER_UID	65534	/* nobody: a member of the group, not root */

struct records {
	char dir[64];		/* the state directory */
	char victim[96];	/* a file of root's beside it */
	int fd;			/* the directory, locked */
};

static void records_open(struct records *r)
{
	FILE *f;

	snprintf(r->dir, sizeof(r->dir), "/tmp/mgcap-unit-hwts-XXXXXX");
	CU_ASSERT_FATAL(mkdtemp(r->dir) != NULL);
	snprintf(r->victim, sizeof(r->victim), "%s.victim", r->dir);
	f = fopen(r->victim, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs("root's file\n", f);
	fclose(f);
	r->fd = mgcap_hwts_records_lock(r->dir);
	CU_ASSERT_FATAL(r->fd >= 0);
}

static void records_close(struct records *r)
{
	mgcap_hwts_records_unlock(r->fd, 0);
	unit_remove_dir(r->dir);
	unlink(r->victim);
}

static void plant_link(struct records *r, const char *name, const char *target)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", r->dir, name);
	CU_ASSERT_FATAL(symlink(target, path) == 0);
}

static void plant_file(struct records *r, const char *name, const char *text, uid_t owner)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", r->dir, name);
	f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
	CU_ASSERT_FATAL(chown(path, owner, (gid_t)-1) == 0);
}

static int victim_untouched(const struct records *r)
{
	char text[32] = "";
	FILE *f = fopen(r->victim, "r");

	if (!f)
		return 0;
	if (!fgets(text, sizeof(text), f))
		text[0] = '\0';
	fclose(f);
	return !strcmp(text, "root's file\n");
}

/* Names in the directory. */
static int entries(const struct records *r)
{
	DIR *d = opendir(r->dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)) != NULL)
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static struct mgcap_hwts_claim a_claim(void)
{
	struct mgcap_hwts_claim c;

	memset(&c, 0, sizeof(c));
	c.found.rx_filter = 12;		/* a PTP daemon's */
	c.made.rx_filter = 1;		/* all */
	c.owner = 1;
	return c;
}

/* Links planted where the record goes, and at every name of the old new file. */
static void test_write_follows_no_link(void)
{
	struct mgcap_hwts_claim c = a_claim(), back;
	struct records r;
	struct stat st;
	char path[128];
	uid_t writer;

	records_open(&r);
	plant_link(&r, "eth0", r.victim);
	plant_link(&r, "eth0.tmp", r.victim);
	CU_ASSERT_EQUAL(mgcap_hwts_record_write(r.fd, "eth0", &c), 0);
	CU_ASSERT(victim_untouched(&r));
	snprintf(path, sizeof(path), "%s/eth0", r.dir);
	CU_ASSERT_FATAL(lstat(path, &st) == 0);
	CU_ASSERT(S_ISREG(st.st_mode));
	CU_ASSERT_EQUAL(st.st_mode & 07777, 0644);
	CU_ASSERT_EQUAL(mgcap_hwts_record_read(r.fd, "eth0", &back, &writer),
			MGCAP_HWTS_RECORD_TRUSTED);
	CU_ASSERT_EQUAL(back.found.rx_filter, 12);
	CU_ASSERT_EQUAL(back.made.rx_filter, 1);
	CU_ASSERT_EQUAL(back.owner, 1);
	CU_ASSERT(back.recorded && back.taken);
	CU_ASSERT_EQUAL(writer, geteuid());
	/* no new file left behind: the record and the link planted */
	CU_ASSERT_EQUAL(entries(&r), 2);
	records_close(&r);
}

/* A link or a FIFO in the record's place is no record, and is not waited on. */
static void test_read_takes_only_plain_files(void)
{
	struct mgcap_hwts_claim c;
	struct records r;
	char path[128], second[128];
	uid_t writer;

	records_open(&r);
	/* a link to a record of root's elsewhere */
	plant_file(&r, "eth9", "0 0 12 0 0 1 0\n", 0);
	snprintf(path, sizeof(path), "%s/eth9", r.dir);
	plant_link(&r, "eth0", path);
	CU_ASSERT_EQUAL(mgcap_hwts_record_read(r.fd, "eth0", &c, &writer), MGCAP_HWTS_RECORD_NONE);
	snprintf(path, sizeof(path), "%s/eth1", r.dir);
	CU_ASSERT_FATAL(mkfifo(path, 0666) == 0);
	CU_ASSERT_EQUAL(mgcap_hwts_record_read(r.fd, "eth1", &c, &writer), MGCAP_HWTS_RECORD_NONE);
	plant_file(&r, "eth2", "0 0 12\n", geteuid());	/* cut short */
	CU_ASSERT_EQUAL(mgcap_hwts_record_read(r.fd, "eth2", &c, &writer), MGCAP_HWTS_RECORD_NONE);
	/* a file with a second name is another's file, whoever owns it */
	plant_file(&r, "eth3", "0 0 12 0 0 1 0\n", geteuid());
	CU_ASSERT_EQUAL(mgcap_hwts_record_read(r.fd, "eth3", &c, &writer),
			MGCAP_HWTS_RECORD_TRUSTED);
	snprintf(path, sizeof(path), "%s/eth3", r.dir);
	snprintf(second, sizeof(second), "%s/eth3-second", r.dir);
	CU_ASSERT_FATAL(link(path, second) == 0);
	CU_ASSERT_EQUAL(mgcap_hwts_record_read(r.fd, "eth3", &c, &writer), MGCAP_HWTS_RECORD_NONE);
	records_close(&r);
}

/* Another user's record is told apart, with its writer; root's and one's own are not. */
static void test_read_tells_whose(void)
{
	struct mgcap_hwts_claim c;
	struct records r;
	uid_t writer = 0;

	if (geteuid() != 0) {	/* a package build's user: CI runs it as root */
		fprintf(stderr, "hwtstamp records: another user's record not tested: needs root\n");
		return;
	}
	records_open(&r);
	plant_file(&r, "eth0", "0 0 0 0 0 1 0\n", MEMBER_UID);
	CU_ASSERT_EQUAL(mgcap_hwts_record_read(r.fd, "eth0", &c, &writer),
			MGCAP_HWTS_RECORD_FOREIGN);
	CU_ASSERT_EQUAL(writer, MEMBER_UID);
	CU_ASSERT_EQUAL(c.made.rx_filter, 1);
	plant_file(&r, "eth1", "0 0 0 0 0 1 0\n", 0);
	CU_ASSERT_EQUAL(mgcap_hwts_record_read(r.fd, "eth1", &c, &writer),
			MGCAP_HWTS_RECORD_TRUSTED);
	/* root replaces a member's record with its own */
	c = a_claim();
	CU_ASSERT_EQUAL(mgcap_hwts_record_write(r.fd, "eth0", &c), 0);
	CU_ASSERT_EQUAL(mgcap_hwts_record_read(r.fd, "eth0", &c, &writer),
			MGCAP_HWTS_RECORD_TRUSTED);
	CU_ASSERT_EQUAL(writer, 0);
	records_close(&r);
}

/* Names that are no device's reach nothing outside the directory. */
static void test_names_outside_refused(void)
{
	struct mgcap_hwts_claim c = a_claim();
	struct records r;
	uid_t writer;

	records_open(&r);
	CU_ASSERT_EQUAL(mgcap_hwts_record_write(r.fd, "..", &c), -1);
	CU_ASSERT_EQUAL(mgcap_hwts_record_write(r.fd, "../eth0", &c), -1);
	CU_ASSERT_EQUAL(mgcap_hwts_record_write(r.fd, "", &c), -1);
	CU_ASSERT_EQUAL(mgcap_hwts_record_read(r.fd, "..", &c, &writer), MGCAP_HWTS_RECORD_NONE);
	CU_ASSERT_EQUAL(mgcap_hwts_record_read(r.fd, "/etc/passwd", &c, &writer),
			MGCAP_HWTS_RECORD_NONE);
	mgcap_hwts_record_drop(r.fd, "..");
	CU_ASSERT(access(r.dir, F_OK) == 0);
	CU_ASSERT(victim_untouched(&r));
	records_close(&r);
}

/* A directory that is a link is no directory to lock, or to write in. */
static void test_lock_refuses_a_link(void)
{
	char dir[64], link_path[80];

	snprintf(dir, sizeof(dir), "/tmp/mgcap-unit-hwts-XXXXXX");
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(link_path, sizeof(link_path), "%s.link", dir);
	CU_ASSERT_FATAL(symlink(dir, link_path) == 0);
	CU_ASSERT_EQUAL(mgcap_hwts_records_lock(link_path), -1);
	unlink(link_path);
	unit_remove_dir(dir);
}

/* Whoever holds the directory's lock keeps it from a taker 2 s at most. */
static void test_lock_held_is_not_waited_for_forever(void)
{
	struct records r;
	struct timespec t0, t1;
	int held, fd;

	records_open(&r);
	mgcap_hwts_records_unlock(r.fd, 0);
	held = open(r.dir, O_RDONLY | O_DIRECTORY);
	CU_ASSERT_FATAL(held >= 0 && flock(held, LOCK_EX) == 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	fd = mgcap_hwts_records_lock(r.dir);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CU_ASSERT_EQUAL(fd, -1);
	CU_ASSERT_EQUAL(errno, EWOULDBLOCK);
	CU_ASSERT(t1.tv_sec - t0.tv_sec <= 4);
	close(held);
	r.fd = mgcap_hwts_records_lock(r.dir);
	CU_ASSERT(r.fd >= 0);
	records_close(&r);
}

void register_hwts_record_tests(void)
{
	static const struct unit_test tests[] = {
		{ "a record's write follows no link", test_write_follows_no_link },
		{ "only a plain file is a record", test_read_takes_only_plain_files },
		{ "another user's record is foreign", test_read_tells_whose },
		{ "names outside the directory refused", test_names_outside_refused },
		{ "a linked directory is not locked", test_lock_refuses_a_link },
		{ "a held lock is not waited for forever", test_lock_held_is_not_waited_for_forever },
	};

	ADD_SUITE("hwtstamp records", tests);
}
