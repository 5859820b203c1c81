// SPDX-License-Identifier: GPL-2.0-only
/*
 * The real os under --root DIR: every path stays inside the tree. A fixture
 * tree in a temporary directory has absolute and relative symlinks that
 * point out of it; reads must see the tree's own files (or fail), writes
 * must never reach the file outside, directory listings judge a link by
 * what it names inside the tree. Run twice: through openat2
 * (RESOLVE_IN_ROOT), and in a child where a seccomp filter makes openat2
 * fail with ENOSYS, as on Linux < 5.6, so the fallback walk is tested for
 * real.
 */
#include "helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmumon/os.h"

static char base[64];

static void put(const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", base, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void dir(const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", base, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

static void link_to(const char *target, const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", base, rel);
	assert_int_equal(symlink(target, path), 0);
}

static char *host_text(const char *rel)
{
	static char buf[256];
	char path[256];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", base, rel);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static int make_tree(void **state)
{
	char target[256];

	snprintf(base, sizeof(base), "/tmp/pmumon-root-XXXXXX");
	assert_non_null(mkdtemp(base));
	put("outside.txt", "the machine's\n");
	dir("outdir");
	dir("root");
	dir("root/etc");
	put("root/etc/passwd", "the tree's own\n");
	dir("root/dev");
	dir("root/dev/hw");
	put("root/dev/hw/event0", "0x0\n");
	dir("root/sys");
	dir("root/sys/devices");
	link_to("/etc/passwd", "root/sys/x");			      /* absolute: the tree's */
	link_to("../../../../../../../../etc/passwd", "root/sys/up"); /* ".." stops at the root */
	link_to("/sys/x", "root/sys/chain");			      /* a link to a link */
	link_to("/sys/loop", "root/sys/loop");
	snprintf(target, sizeof(target), "%s/outside.txt", base);
	link_to(target, "root/sys/w"); /* the real path of a file outside */
	link_to("../../outside.txt", "root/sys/wrel");
	snprintf(target, sizeof(target), "%s/outdir", base);
	link_to(target, "root/sys/devices/out"); /* a directory outside */
	link_to("/etc", "root/sys/devices/in");	 /* the tree's etc */
	link_to("/dev/hw", "root/sys/hw");	 /* a device directory, as sysfs links them */
	snprintf(target, sizeof(target), "%s/outdir", base);
	link_to(target, "root/run"); /* the lock directory, a link out of the tree */
	return 0;
}

static int remove_tree(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	return system(cmd);
}

static const char *read_text(const struct pm_os_ops *ops, void *os, const char *path, char *buf,
			     size_t size)
{
	int fd = ops->open(os, path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = ops->read(os, fd, buf, size - 1);
	ops->close(os, fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

struct listing {
	bool out_seen, out_dir, in_seen, in_dir;
};

static int list_fn(const char *name, bool is_dir, void *ud)
{
	struct listing *l = ud;

	if (!strcmp(name, "out")) {
		l->out_seen = true;
		l->out_dir = is_dir;
	} else if (!strcmp(name, "in")) {
		l->in_seen = true;
		l->in_dir = is_dir;
	}
	return 0;
}

static int find_event0(const char *name, bool is_dir, void *ud)
{
	*(bool *)ud |= !strcmp(name, "event0") && !is_dir;
	return 0;
}

/* Every check on one os under the tree's root: NULL, or what went wrong. */
static const char *check_confined(const struct pm_os_ops *ops, void *os)
{
	static const char *const own[] = { "sys/x", "sys/up", "sys/chain", "../etc/passwd",
					   "sys/../../../etc/passwd" };
	static char msg[256];
	struct listing l = { 0 };
	char buf[256];
	bool found = false;
	int fd;

	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
		const char *got = read_text(ops, os, own[i], buf, sizeof(buf));

		if (!got || strcmp(got, "the tree's own\n") != 0) {
			snprintf(msg, sizeof(msg),
				 "read '%s': got '%s', want the tree's etc/passwd", own[i],
				 got ? got : "(an error)");
			return msg;
		}
	}
	/* writes through links out of the tree: refused, or inside it; never outside */
	for (int i = 0; i < 2; i++) {
		const char *path = i ? "sys/wrel" : "sys/w";

		fd = ops->open(os, path, O_WRONLY);
		if (fd >= 0) {
			ops->write(os, fd, "pwned\n", 6);
			ops->close(os, fd);
		}
		if (!host_text("outside.txt") ||
		    strcmp(host_text("outside.txt"), "the machine's\n")) {
			snprintf(msg, sizeof(msg),
				 "a write to '%s' changed the file outside the root", path);
			return msg;
		}
	}
	if ((fd = ops->open(os, "sys/loop", O_RDONLY)) != -ELOOP) {
		snprintf(msg, sizeof(msg), "sys/loop: %d, want -ELOOP", fd);
		return msg;
	}
	/* a write through a link that stays inside works, and lands inside */
	fd = ops->open(os, "sys/hw/event0", O_WRONLY);
	if (fd < 0 || ops->write(os, fd, "0x4d\n", 5) != 5)
		return "cannot write sys/hw/event0 through the tree's own link";
	ops->close(os, fd);
	if (strcmp(host_text("root/dev/hw/event0"), "0x4d\n") != 0)
		return "the write to sys/hw/event0 did not reach the tree's dev/hw/event0";
	put("root/dev/hw/event0", "0x0\n");
	/* listings: a link is a directory if what it names in the tree is one */
	if (ops->list_dir(os, "sys/devices", list_fn, &l) < 0 || !l.out_seen || !l.in_seen)
		return "cannot list sys/devices";
	if (l.out_dir)
		return "sys/devices/out names a directory outside the root, listed as a directory";
	if (!l.in_dir)
		return "sys/devices/in names the tree's etc, a directory, listed as none";
	if (ops->list_dir(os, "sys/hw", find_event0, &found) < 0 || !found)
		return "cannot list sys/hw, a link to the tree's dev/hw";
	/* a lock file is a path like any other: never created through a link out */
	{
		struct pm_lock_info info;
		int h = ops->lock(os, "run/pmumon-test.lock", &info);
		char out[128];

		if (h >= 0)
			ops->unlock(os, h);
		snprintf(out, sizeof(out), "%s/outdir/pmumon-test.lock", base);
		if (access(out, F_OK) == 0) {
			unlink(out);
			return "the lock file was created outside the root, through run -> outdir";
		}
	}
	return NULL;
}

static void *new_os(const struct pm_os_ops **ret_ops)
{
	char root[128];
	void *os = NULL;

	snprintf(root, sizeof(root), "%s/root", base);
	if (pm_os_linux_new(root, ret_ops, &os) < 0)
		return NULL;
	return os;
}

static void test_root_confines(void **state)
{
	const struct pm_os_ops *ops;
	void *os = new_os(&ops);
	const char *err;

	assert_non_null(os);
	err = check_confined(ops, os);
	ops->destroy(os);
	if (err)
		fail_msg("%s", err);
}

/* The same on a kernel without openat2: the fallback walk. */
static void test_root_confines_without_openat2(void **state)
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		struct sock_filter filter[] = {
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};
		struct sock_fprog prog = { .len = sizeof(filter) / sizeof(filter[0]),
					   .filter = filter };
		const struct pm_os_ops *ops;
		const char *err;
		void *os;

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0 ||
		    syscall(SYS_openat2, AT_FDCWD, ".", NULL, 0) >= 0 || errno != ENOSYS)
			_exit(77); /* no seccomp here: nothing to say about the fallback */
		os = new_os(&ops);
		if (!os)
			_exit(2);
		err = check_confined(ops, os);
		ops->destroy(os);
		if (err)
			fprintf(stderr, "without openat2: %s\n", err);
		_exit(err ? 1 : 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		skip();
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* "/" is the machine's own root: paths are the machine's, as ever. */
static void test_system_root(void **state)
{
	const struct pm_os_ops *ops;
	void *os = NULL;
	char buf[64];

	assert_int_equal(pm_os_linux_new("/", &ops, &os), 0);
	assert_non_null(read_text(ops, os, "proc/self/stat", buf, sizeof(buf)));
	assert_int_equal(ops->open(os, "/proc/self/stat", O_RDONLY), -EINVAL);
	assert_int_equal(ops->open(os, "", O_RDONLY), -ENOENT);
	ops->destroy(os);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_root_confines),
		cmocka_unit_test(test_root_confines_without_openat2),
		cmocka_unit_test(test_system_root),
	};

	return cmocka_run_group_tests(tests, make_tree, remove_tree);
}
