// SPDX-License-Identifier: GPL-2.0-only
/*
 * The real os's advisory locks (lib/os/linux.c) in a directory anyone may
 * write, as /run/lock is: a symbolic link, a hard link or another user's
 * file planted at the lock's name is never opened for writing, followed or
 * truncated; another user holding the lock is named; pmumon's own lock file
 * is taken, noted and released. Another user's file needs root to make
 * (chown): those cases skip without it.
 */
#include "helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOCK "run/lock/pmumon-test.lock"
#define OTHER_UID 4321 /* a user that need not exist */

struct tmp {
	char root[64];
	char lock[128];	  /* the lock file's host path */
	char victim[128]; /* a file of "root's" a planted link points at */
	const struct pm_os_ops *ops;
	void *os;
};

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static const char *get(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static int setup(void **state)
{
	struct tmp *t = calloc(1, sizeof(*t));
	char dir[160];

	assert_non_null(t);
	snprintf(t->root, sizeof(t->root), "/tmp/pmumon-lock-XXXXXX");
	assert_non_null(mkdtemp(t->root));
	snprintf(dir, sizeof(dir), "%s/run", t->root);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(dir, sizeof(dir), "%s/run/lock", t->root);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(chmod(dir, 01777), 0); /* as /run/lock */
	snprintf(t->lock, sizeof(t->lock), "%s/" LOCK, t->root);
	snprintf(t->victim, sizeof(t->victim), "%s/victim", t->root);
	put(t->victim, "precious\n");
	assert_int_equal(pm_os_linux_new(t->root, &t->ops, &t->os), 0);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct tmp *t = *state;
	char path[160];

	t->ops->destroy(t->os);
	unlink(t->lock);
	unlink(t->victim);
	snprintf(path, sizeof(path), "%s/run/lock", t->root);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/run", t->root);
	rmdir(path);
	rmdir(t->root);
	free(t);
	return 0;
}

static bool other_user_file(struct tmp *t, const char *text, mode_t mode)
{
	put(t->lock, text);
	if (chown(t->lock, OTHER_UID, OTHER_UID) < 0)
		return false;
	assert_int_equal(chmod(t->lock, mode), 0);
	return true;
}

/* Our own lock: made, noted with our pid, busy for a second taker, free again after. */
static void test_own_lock(void **state)
{
	struct tmp *t = *state;
	struct pm_lock_info info = { 0 };
	char want[32];
	int h, h2;
	struct stat st;

	h = t->ops->lock(t->os, LOCK, &info);
	assert_true(h >= 0);
	snprintf(want, sizeof(want), "%d\n", (int)getpid());
	assert_string_equal(get(t->lock), want);
	assert_int_equal(stat(t->lock, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	/* OFD locks: a second open file is a second taker, even in this process */
	assert_int_equal(t->ops->lock(t->os, LOCK, &info), -EBUSY);
	assert_int_equal(info.pid, getpid());
	assert_int_equal(info.uid, geteuid());
	assert_int_equal(info.self, geteuid());
	t->ops->unlock(t->os, h);
	/* the file stays, ours: taken again, its old note replaced */
	put(t->lock, "99999999\n");
	h2 = t->ops->lock(t->os, LOCK, &info);
	assert_true(h2 >= 0);
	assert_string_equal(get(t->lock), want);
	t->ops->unlock(t->os, h2);
}

/* A symbolic link at the lock's name: root would truncate whatever it names. */
static void test_symlink_is_not_followed(void **state)
{
	struct tmp *t = *state;
	struct pm_lock_info info = { 0 };

	assert_int_equal(symlink(t->victim, t->lock), 0);
	assert_int_equal(t->ops->lock(t->os, LOCK, &info), -EPERM);
	assert_true(S_ISLNK(info.mode));
	assert_string_equal(get(t->victim), "precious\n");
}

/* A hard link to a file of root's looks like root's own lock file, but for its links. */
static void test_hard_link_is_not_written(void **state)
{
	struct tmp *t = *state;
	struct pm_lock_info info = { 0 };

	assert_int_equal(link(t->victim, t->lock), 0);
	assert_int_equal(t->ops->lock(t->os, LOCK, &info), -EPERM);
	assert_int_equal(info.nlink, 2);
	assert_string_equal(get(t->victim), "precious\n");
}

/* Ours, but anyone may write it: its pid note could be anyone's. */
static void test_writable_by_others(void **state)
{
	struct tmp *t = *state;
	struct pm_lock_info info = { 0 };

	put(t->lock, "1\n");
	assert_int_equal(chmod(t->lock, 0666), 0);
	assert_int_equal(t->ops->lock(t->os, LOCK, &info), -EPERM);
	assert_int_equal(info.mode & 07777, 0666);
	assert_string_equal(get(t->lock), "1\n");
}

/* Another user's file, not held: not ours to truncate, and not a reason to wait. */
static void test_other_users_file(void **state)
{
	struct tmp *t = *state;
	struct pm_lock_info info = { 0 };

	if (!other_user_file(t, "1\n", 0644))
		skip();
	assert_int_equal(t->ops->lock(t->os, LOCK, &info), -EPERM);
	assert_int_equal(info.uid, OTHER_UID);
	assert_int_equal(info.pid, 0);
	assert_string_equal(get(t->lock), "1\n");
}

/* Another user holds a lock on their file with a made-up pid: say whose it is. */
static void test_held_by_other_user(void **state)
{
	struct tmp *t = *state;
	struct pm_lock_info info = { 0 };
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd;

	if (!other_user_file(t, "1\n", 0644))
		skip();
	fd = open(t->lock, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(fcntl(fd, F_OFD_SETLK, &fl), 0);
	assert_int_equal(t->ops->lock(t->os, LOCK, &info), -EBUSY);
	assert_int_equal(info.pid, 1);
	assert_int_equal(info.uid, OTHER_UID);
	assert_string_equal(get(t->lock), "1\n");
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_own_lock, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink_is_not_followed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hard_link_is_not_written, setup, teardown),
		cmocka_unit_test_setup_teardown(test_writable_by_others, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_users_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_held_by_other_user, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
