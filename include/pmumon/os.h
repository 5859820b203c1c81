/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The os seam: every access pmumon makes to the machine goes through one
 * table of operations owned by the context. The real implementation
 * (pm_os_linux_new) talks to the kernel under a root directory; the
 * simulator (sim/) implements the same table with a fake kernel, and tests
 * may wrap either. No other code calls these syscalls directly, but for one
 * exception: the BPF path of pm_session_opts.bpf_counters, whose bpf() calls
 * libbpf makes itself (there is no bpf entry here); it runs on the "linux" os
 * only and refuses any other by name (its perf events still go through
 * perf_open).
 *
 * Conventions: every operation returns a count or 0 on success and -errno on
 * failure. Paths are relative to the os root and never start with '/'.
 */
#ifndef PMUMON_OS_H
#define PMUMON_OS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifndef PM_API /* as in pmumon/pmumon.h: an exported function */
#define PM_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

struct perf_event_attr;
struct pm_proc;

/* A lock pmumon could not take (pm_os_ops.lock): who holds it, or whose file it is. */
struct pm_lock_info {
	pid_t pid;	/* -EBUSY: the holder, as the pid note in the file says (0: unknown) */
	uid_t uid;	/* the file's owner: on -EBUSY, the holder's user */
	uid_t self;	/* the user pmumon runs as (effective uid) */
	char user[64];	/* uid's name ("" unknown) */
	unsigned mode;	/* the file's st_mode: type and permission bits */
	unsigned nlink; /* its hard links */
	bool dir;	/* -EPERM: what is not trusted is the lock's directory (uid, mode: its) */
};

/* Called once per directory entry; return non-zero to stop the listing. */
typedef int (*pm_os_dir_fn)(const char *name, bool is_dir, void *userdata);

/* What pm_os_ops.wait() came back for. */
enum pm_os_wake {
	PM_OS_WAKE_DEADLINE = 0, /* the deadline passed */
	PM_OS_WAKE_EXIT = 1,	 /* the child process exited */
	PM_OS_WAKE_SIGNAL = 2,	 /* a signal the caller catches (SIGINT, SIGTERM, ...) arrived */
};

struct pm_os_ops {
	const char *name; /* "linux", "sim", ... for messages */

	/* Files, relative to the root. open() flags are O_RDONLY/O_WRONLY/O_RDWR. */
	int (*open)(void *os, const char *path, int flags);
	ssize_t (*read)(void *os, int fd, void *buf, size_t len);
	ssize_t (*pread)(void *os, int fd, void *buf, size_t len, uint64_t off);
	ssize_t (*write)(void *os, int fd, const void *buf, size_t len);
	ssize_t (*pwrite)(void *os, int fd, const void *buf, size_t len, uint64_t off);
	int (*close)(void *os, int fd);
	/* Calls fn for each entry but "." and "..", in no particular order. */
	int (*list_dir)(void *os, const char *path, pm_os_dir_fn fn, void *userdata);

	/* perf_event_open(2); the result is an fd for read(), ioctl and close(). */
	int (*perf_open)(void *os, struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			 unsigned long flags);
	int (*perf_ioctl)(void *os, int fd, unsigned long request, unsigned long arg);

	/* Clocks, nanoseconds: monotonic (intervals) and wall (timestamps). */
	uint64_t (*mono_ns)(void *os);
	uint64_t (*wall_ns)(void *os);

	/*
	 * Sleep until the monotonic deadline (UINT64_MAX: no deadline), a child
	 * started with proc_start() exits, or a signal the caller catches
	 * arrives: a signal the caller blocks and catches with a handler is
	 * deliverable while waiting (so it can block it everywhere else); other
	 * signals keep the mask the caller had at its first wait, which is when
	 * both are taken. *ret_status gets the wait status on PM_OS_WAKE_EXIT
	 * (0 if the child was reaped elsewhere). Returns a pm_os_wake value or
	 * -errno.
	 */
	int (*wait)(void *os, uint64_t deadline_ns, struct pm_proc *proc, int *ret_status);

	/*
	 * Child processes: proc_prepare() forks a child that waits before its
	 * exec so counters can be attached to its pid; proc_start() lets it run.
	 * A child that cannot exec exits with status 127 (126: not executable)
	 * and pm_proc_exec_errno() tells why.
	 */
	int (*proc_prepare)(void *os, char *const argv[], struct pm_proc **ret_proc);
	pid_t (*proc_pid)(void *os, const struct pm_proc *proc);
	int (*proc_start)(void *os, struct pm_proc *proc);
	int (*proc_exec_errno)(void *os, const struct pm_proc *proc);
	int (*proc_kill)(void *os, struct pm_proc *proc, int sig);
	void (*proc_free)(void *os, struct pm_proc *proc);

	/*
	 * Advisory lock named by a path relative to the root, in a directory
	 * only its owner may write (/run/pmumon, 0755 root's): the directory is
	 * made (0755) if missing, and refused unless it is a directory (not a
	 * link) of ours or root's that no one else may write; the file is
	 * created if needed, never through a symbolic link, and a file pmumon
	 * did not make is never truncated. Returns a lock handle (>= 0);
	 * -EBUSY when a process holds it (*reterr_info: its pid and user);
	 * -EPERM when the directory or the file is there but pmumon will not
	 * trust it (*reterr_info: dir, and a symbolic link, not a regular file
	 * or directory, more than one link, owned by a user neither ours nor
	 * root, or writable by group or others); or another -errno (the
	 * directory cannot be made or written, a file of root's we cannot
	 * write).
	 */
	int (*lock)(void *os, const char *path, struct pm_lock_info *reterr_info);
	void (*unlock)(void *os, int handle);

	void (*destroy)(void *os);

	/*
	 * Whether a process holds the advisory lock at path, looked at without
	 * taking it or making anything (an older pmumon's, in the /run/lock
	 * anyone may write): 0 when none does or there is no such file;
	 * -EBUSY with *ret_info (its pid, the file's owner) when one does. May
	 * be NULL (an os that cannot tell).
	 */
	int (*lock_holder)(void *os, const char *path, struct pm_lock_info *ret_info);
};

/* The real machine, with files under root ("/" or a fixture tree). */
PM_API int pm_os_linux_new(const char *root, const struct pm_os_ops **ret_ops, void **ret_os);

#ifdef __cplusplus
}
#endif
#endif
