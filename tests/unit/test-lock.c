// SPDX-License-Identifier: GPL-2.0-only
/*
 * The real os's advisory locks (lib/os/linux.c), in a directory only its
 * owner may write (/run/pmumon): made 0755 when missing, refused when it is
 * a link, not a directory, another user's or writable by others (as
 * /run/lock is, where anyone could plant the lock's name first). In it
 * still, a symbolic link, a hard link or another user's file at the lock's
 * name is never opened for writing, followed or truncated; another user
 * holding the lock is named; pmumon's own lock file is taken, noted and
 * released. An older pmumon's lock in /run/lock is looked at without being
 * taken or made (lock_holder). Another user's file needs root to make
 * (chown): those cases skip without it.
 */
#include "helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOCK "run/pmumon/test.lock"
#define OLD "run/lock/pmumon-test.lock"
#define OTHER_UID 4321 /* a user that need not exist */

struct tmp {
	char root[64];
	char dir[128];	  /* the lock directory's host path */
	char lock[128];	  /* the lock file's host path */
	char old[128];	  /* an older pmumon's lock's */
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
	snprintf(t->dir, sizeof(t->dir), "%s/run/pmumon", t->root);
	snprintf(t->lock, sizeof(t->lock), "%s/" LOCK, t->root);
	snprintf(t->old, sizeof(t->old), "%s/" OLD, t->root);
	snprintf(t->victim, sizeof(t->victim), "%s/victim", t->root);
	put(t->victim, "precious\n");
	assert_int_equal(pm_os_linux_new(t->root, &t->ops, &t->os), 0);
	*state = t;
	return 0;
}

/* The same, the lock directory made as systemd-tmpfiles makes it (0755). */
static int setup_dir(void **state)
{
	struct tmp *t;

	setup(state);
	t = *state;
	assert_int_equal(mkdir(t->dir, 0755), 0);
	return 0;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static int teardown(void **state)
{
	struct tmp *t = *state;

	t->ops->destroy(t->os);
	assert_int_equal(nftw(t->root, remove_one, 16, FTW_DEPTH | FTW_PHYS), 0);
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

/* A directory at the lock's name: refused as what it is, not a failure to say in passing. */
static void test_directory_at_the_name(void **state)
{
	struct tmp *t = *state;
	struct pm_lock_info info = { 0 };

	assert_int_equal(mkdir(t->lock, 0755), 0);
	assert_int_equal(t->ops->lock(t->os, LOCK, &info), -EPERM);
	assert_true(S_ISDIR(info.mode));
	assert_false(info.dir); /* the file's name, not the lock's directory */
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

/* The directory made when missing: 0755 whatever the umask, the lock in it. */
static void test_dir_made(void **state)
{
	struct tmp *t = *state;
	struct pm_lock_info info = { 0 };
	struct stat st;
	mode_t old = umask(077);
	int h = t->ops->lock(t->os, LOCK, &info);

	umask(old);
	assert_true(h >= 0);
	assert_int_equal(lstat(t->dir, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0755);
	assert_int_equal(st.st_uid, geteuid());
	t->ops->unlock(t->os, h);
}

/* A directory at the lock directory's name that others may write, or a link, or a file:
 * refused as the directory (info.dir), nothing made in it or through it. */
static void test_dir_not_trusted(void **state)
{
	struct tmp *t = *state;
	struct pm_lock_info info = { 0 };
	char elsewhere[160];
	struct stat st;

	/* as /run/lock: anyone could have made the lock's name first */
	assert_int_equal(mkdir(t->dir, 0755), 0);
	assert_int_equal(chmod(t->dir, 01777), 0);
	assert_int_equal(t->ops->lock(t->os, LOCK, &info), -EPERM);
	assert_true(info.dir);
	assert_int_equal(info.mode & 07777, 01777);
	assert_int_equal(lstat(t->lock, &st), -1);
	assert_int_equal(chmod(t->dir, 0775), 0); /* a group's */
	info = (struct pm_lock_info){ 0 };
	assert_int_equal(t->ops->lock(t->os, LOCK, &info), -EPERM);
	assert_true(info.dir);
	assert_int_equal(rmdir(t->dir), 0);
	/* a link to a directory of ours */
	snprintf(elsewhere, sizeof(elsewhere), "%s/elsewhere", t->root);
	assert_int_equal(mkdir(elsewhere, 0755), 0);
	assert_int_equal(symlink(elsewhere, t->dir), 0);
	info = (struct pm_lock_info){ 0 };
	assert_int_equal(t->ops->lock(t->os, LOCK, &info), -EPERM);
	assert_true(info.dir && S_ISLNK(info.mode));
	snprintf(elsewhere, sizeof(elsewhere), "%s/elsewhere/test.lock", t->root);
	assert_int_equal(lstat(elsewhere, &st), -1);
	assert_int_equal(unlink(t->dir), 0);
	/* a file */
	put(t->dir, "x\n");
	info = (struct pm_lock_info){ 0 };
	assert_int_equal(t->ops->lock(t->os, LOCK, &info), -EPERM);
	assert_true(info.dir && S_ISREG(info.mode));
	assert_string_equal(get(t->dir), "x\n");
}

/* Another user's directory, however strict its mode: not ours to trust. */
static void test_dir_of_other_user(void **state)
{
	struct tmp *t = *state;
	struct pm_lock_info info = { 0 };

	if (chown(t->dir, OTHER_UID, OTHER_UID) < 0)
		skip();
	assert_int_equal(t->ops->lock(t->os, LOCK, &info), -EPERM);
	assert_true(info.dir);
	assert_int_equal(info.uid, OTHER_UID);
}

/* An older pmumon's lock in /run/lock: its holder seen, nothing taken or made. */
static void test_old_lock_holder(void **state)
{
	struct tmp *t = *state;
	struct pm_lock_info info = { 0 };
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	struct stat st;
	int fd;

	assert_int_equal(t->ops->lock_holder(t->os, OLD, &info), 0);
	assert_int_equal(lstat(t->old, &st), -1); /* not made */
	put(t->old, "4242\n");
	assert_int_equal(t->ops->lock_holder(t->os, OLD, &info), 0); /* no one holds it */
	fd = open(t->old, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(fcntl(fd, F_OFD_SETLK, &fl), 0);
	assert_int_equal(t->ops->lock_holder(t->os, OLD, &info), -EBUSY);
	assert_int_equal(info.pid, 4242);
	assert_int_equal(info.uid, geteuid());
	assert_string_equal(get(t->old), "4242\n"); /* looked at, not written */
	close(fd);
	assert_int_equal(unlink(t->old), 0);
	/* a link there is no holder's */
	assert_int_equal(symlink(t->victim, t->old), 0);
	assert_int_equal(t->ops->lock_holder(t->os, OLD, &info), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_own_lock, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink_is_not_followed, setup_dir, teardown),
		cmocka_unit_test_setup_teardown(test_hard_link_is_not_written, setup_dir, teardown),
		cmocka_unit_test_setup_teardown(test_writable_by_others, setup_dir, teardown),
		cmocka_unit_test_setup_teardown(test_directory_at_the_name, setup_dir, teardown),
		cmocka_unit_test_setup_teardown(test_other_users_file, setup_dir, teardown),
		cmocka_unit_test_setup_teardown(test_held_by_other_user, setup_dir, teardown),
		cmocka_unit_test_setup_teardown(test_dir_made, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dir_not_trusted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dir_of_other_user, setup_dir, teardown),
		cmocka_unit_test_setup_teardown(test_old_lock_holder, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
