// SPDX-License-Identifier: GPL-2.0-only
/*
 * The real machine behind the os seam. Files are opened relative to a root
 * directory fd, so a fixture tree can stand in for /sys and /proc; perf,
 * clock, wait, process and lock operations are the kernel's own.
 *
 * A root other than "/" confines every path to it, as chroot would: an
 * absolute symlink inside the tree (sys/x -> /etc/passwd) means the tree's
 * own etc/passwd, and ".." stops at the root, for reads, writes and
 * directory listings alike. openat2(RESOLVE_IN_ROOT) does that where the
 * kernel has it (Linux 5.6+); elsewhere (ENOSYS, a seccomp profile that
 * refuses it) the path is walked here, one component at a time with
 * O_NOFOLLOW, symlink targets resolved from the root.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pmumon/os.h"
#include "util/util.h"

#if __has_include(<linux/openat2.h>) && defined(SYS_openat2)
#include <linux/openat2.h>
#define HAVE_OPENAT2 1
#else
#define HAVE_OPENAT2 0
#endif

struct os_linux {
	int root_fd;
	bool confined;	 /* the root is not "/": no path may leave it */
	bool no_openat2; /* confined by the walk below, not by the kernel */
	bool have_wait_mask;
	sigset_t wait_mask; /* the caller's mask at its first wait, less what it catches */
};

struct pm_proc {
	pid_t pid;
	int go_fd;  /* write end: the child execs when it reads EOF or a byte */
	int err_fd; /* read end: the child reports exec's errno here */
	int pidfd;
	int exec_errno;
	bool reaped;
};

static int os_root(void *os)
{
	return ((struct os_linux *)os)->root_fd;
}

#define MAX_SYMLINKS 40 /* the kernel's MAXSYMLINKS */
#define MAX_DEPTH 256

/*
 * Open path inside the root without the kernel's help: each component is
 * looked at without following it; a symlink's target takes its place in
 * what is left to walk, from the root when absolute; ".." at the root stays
 * there. Only the last component is opened with the caller's flags, and
 * with O_NOFOLLOW, so nothing outside the tree is ever opened.
 */
/*
 * A symbolic link met on the walk: the rest of the path becomes its target
 * then what followed it (*todo replaced); an absolute target starts again
 * from the root, never the machine's. 0 or -errno.
 */
static int follow_link(int *dir, size_t *depth, const char *name, const char *end, char **todo)
{
	char target[PATH_MAX], *next;
	ssize_t n = readlinkat(dir[*depth], name, target, sizeof(target));

	if (n < 0 || (size_t)n >= sizeof(target))
		return n < 0 ? -errno : -ENAMETOOLONG;
	target[n] = '\0';
	if (target[0] == '/')
		while (*depth > 0)
			close(dir[(*depth)--]);
	if (asprintf(&next, "%s%s", target, end) < 0)
		return -ENOMEM;
	free(*todo);
	*todo = next;
	return 0;
}

static int open_in_root_walk(int root_fd, const char *path, int flags, mode_t mode)
{
	int dir[MAX_DEPTH]; /* dir[0] is the root (not ours), dir[depth] where we are */
	size_t depth = 0;
	int links = 0, r;
	char *todo = strdup(path), *p;

	dir[0] = root_fd;
	if (!todo)
		return -ENOMEM;
	p = todo;
	for (;;) {
		char name[NAME_MAX + 1];
		const char *end, *rest;
		bool last, follow;
		struct stat st;
		size_t len;

		while (*p == '/')
			p++;
		if (!*p) { /* "dir/" or "dir/..": the directory itself */
			r = openat(dir[depth], ".", flags | O_CLOEXEC | O_NOCTTY, mode);
			r = r < 0 ? -errno : r;
			break;
		}
		end = strchrnul(p, '/');
		len = (size_t)(end - p);
		if (len > NAME_MAX) {
			r = -ENAMETOOLONG;
			break;
		}
		memcpy(name, p, len);
		name[len] = '\0';
		for (rest = end; *rest == '/'; rest++)
			;
		last = !*rest;
		if (!strcmp(name, ".")) {
			p = (char *)end;
			continue;
		}
		if (!strcmp(name, "..")) {
			if (depth > 0)
				close(dir[depth--]);
			p = (char *)end;
			continue;
		}
		follow = !last ||
			 !((flags & O_NOFOLLOW) || ((flags & O_CREAT) && (flags & O_EXCL)));
		if (follow && fstatat(dir[depth], name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISLNK(st.st_mode)) {
			r = ++links > MAX_SYMLINKS ? -ELOOP :
						     follow_link(dir, &depth, name, end, &todo);
			if (r < 0)
				break;
			p = todo;
			continue;
		}
		if (last) {
			r = openat(dir[depth], name, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
				   mode);
			r = r < 0 ? -errno : r;
			break;
		}
		if (depth + 1 == MAX_DEPTH) {
			r = -ENAMETOOLONG;
			break;
		}
		r = openat(dir[depth], name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (r < 0) {
			r = -errno;
			break;
		}
		dir[++depth] = r;
		p = (char *)end;
	}
	while (depth > 0)
		close(dir[depth--]);
	free(todo);
	return r;
}

/* Open a path relative to the root, never outside it when the root is a tree. */
static int open_in_root(struct os_linux *l, const char *path, int flags, mode_t mode)
{
	int fd;

	if (!path || path[0] == '/')
		return -EINVAL;
	if (!path[0])
		return -ENOENT;
	if (!(flags & (O_CREAT | O_TMPFILE)))
		mode = 0; /* openat2 refuses a mode it would not use */
	if (!l->confined) {
		fd = openat(l->root_fd, path, flags | O_CLOEXEC | O_NOCTTY, mode);
		return fd < 0 ? -errno : fd;
	}
#if HAVE_OPENAT2
	if (!l->no_openat2) {
		struct open_how how = {
			/* openat2 refuses O_NOCTTY beside O_PATH, where open ignores it */
			.flags = (uint64_t)(flags | O_CLOEXEC | (flags & O_PATH ? 0 : O_NOCTTY)),
			.mode = mode,
			.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
		};

		int tries = 0;

		do /* EAGAIN: a rename or mount raced the lookup; look again */
			fd = (int)syscall(SYS_openat2, l->root_fd, path, &how, sizeof(how));
		while (fd < 0 && errno == EAGAIN && ++tries < 8);
		if (fd >= 0 || errno != ENOSYS)
			return fd < 0 ? -errno : fd;
		l->no_openat2 = true; /* the probe passed, yet it is gone: walk from now on */
	}
#endif
	return open_in_root_walk(l->root_fd, path, flags, mode);
}

static int lx_open(void *os, const char *path, int flags)
{
	return open_in_root(os, path, flags, 0);
}

static ssize_t lx_read(void *os, int fd, void *buf, size_t len)
{
	ssize_t n;

	do
		n = read(fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

static ssize_t lx_pread(void *os, int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t n = pread(fd, buf, len, (off_t)off);

	return n < 0 ? -errno : n;
}

static ssize_t lx_write(void *os, int fd, const void *buf, size_t len)
{
	ssize_t n = write(fd, buf, len);

	return n < 0 ? -errno : n;
}

static ssize_t lx_pwrite(void *os, int fd, const void *buf, size_t len, uint64_t off)
{
	ssize_t n = pwrite(fd, buf, len, (off_t)off);

	return n < 0 ? -errno : n;
}

static int lx_close(void *os, int fd)
{
	return close(fd) < 0 ? -errno : 0;
}

static int lx_list_dir(void *os, const char *path, pm_os_dir_fn fn, void *userdata)
{
	struct dirent *de;
	DIR *d;
	int fd, r = 0;

	fd = lx_open(os, path, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return fd;
	d = fdopendir(fd);
	if (!d) {
		r = -errno;
		close(fd);
		return r;
	}
	while ((de = readdir(d))) {
		bool is_dir;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (de->d_type == DT_UNKNOWN || de->d_type == DT_LNK) {
			struct os_linux *l = os;
			struct stat st;
			char *child;

			/* sysfs devices are symlinks to directories: follow them, inside the root */
			if (!l->confined) {
				is_dir = fstatat(dirfd(d), de->d_name, &st, 0) == 0 &&
					 S_ISDIR(st.st_mode);
			} else if (asprintf(&child, "%s/%s", path, de->d_name) < 0) {
				r = -ENOMEM;
				break;
			} else {
				int cfd = open_in_root(l, child, O_PATH, 0);

				free(child);
				is_dir = cfd >= 0 && fstat(cfd, &st) == 0 && S_ISDIR(st.st_mode);
				if (cfd >= 0)
					close(cfd);
			}
		} else {
			is_dir = de->d_type == DT_DIR;
		}
		if (fn(de->d_name, is_dir, userdata))
			break;
	}
	closedir(d);
	return r;
}

static int lx_perf_open(void *os, struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			unsigned long flags)
{
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd,
			  flags | PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
}

static int lx_perf_ioctl(void *os, int fd, unsigned long request, unsigned long arg)
{
	return ioctl(fd, request, arg) < 0 ? -errno : 0;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t lx_mono_ns(void *os)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static uint64_t lx_wall_ns(void *os)
{
	return clock_ns(CLOCK_REALTIME);
}

#define POLL_CHILD_NS 10000000ull /* without a pidfd, look for the child's exit this often */

static int proc_reap(struct pm_proc *p, int *ret_status)
{
	int status;
	pid_t r;

	if (p->reaped)
		return 0;
	r = waitpid(p->pid, &status, WNOHANG);
	if (r < 0 && errno == ECHILD) {
		/* reaped behind our back (SIGCHLD ignored): gone, its status unknown */
		p->reaped = true;
		*ret_status = 0;
		return 1;
	}
	if (r < 0)
		return -errno;
	if (r == 0)
		return 0;
	p->reaped = true;
	*ret_status = status;
	return 1;
}

static int lx_wait(void *os, uint64_t deadline_ns, struct pm_proc *proc, int *ret_status)
{
	struct os_linux *l = os;
	struct pollfd pfd = { .fd = -1, .events = POLLIN };
	struct timespec ts, *tsp = NULL;
	uint64_t wake = deadline_ns;
	int r;

	/* the child may have exited before we got here */
	if (proc && !proc->reaped) {
		r = proc_reap(proc, ret_status);
		if (r != 0)
			return r < 0 ? r : PM_OS_WAKE_EXIT;
		pfd.fd = proc->pidfd;
		if (pfd.fd < 0) {
			uint64_t poll_at = lx_mono_ns(os) + POLL_CHILD_NS;

			wake = PM_MIN(wake, poll_at);
		}
	}
	if (wake != UINT64_MAX) {
		uint64_t now = lx_mono_ns(os), left = wake > now ? wake - now : 0;

		ts.tv_sec = (time_t)(left / 1000000000ull);
		ts.tv_nsec = (long)(left % 1000000000ull);
		tsp = &ts;
	}
	/*
	 * The signals the caller blocks but catches are deliverable only while
	 * we wait; the rest keeps the caller's mask. Taken once (syscalls per
	 * interval otherwise).
	 */
	if (!l->have_wait_mask) {
		pm_wait_sigmask(&l->wait_mask);
		l->have_wait_mask = true;
	}
	r = ppoll(&pfd, pfd.fd >= 0 ? 1 : 0, tsp, &l->wait_mask);
	if (r < 0)
		return errno == EINTR ? PM_OS_WAKE_SIGNAL : -errno;
	if (proc && !proc->reaped) {
		r = proc_reap(proc, ret_status);
		if (r != 0)
			return r < 0 ? r : PM_OS_WAKE_EXIT;
	}
	return PM_OS_WAKE_DEADLINE;
}

static void close_pipes(int go[2], int err[2])
{
	for (int i = 0; i < 2; i++) {
		if (go[i] >= 0)
			close(go[i]);
		if (err[i] >= 0)
			close(err[i]);
	}
}

static int lx_proc_prepare(void *os, char *const argv[], struct pm_proc **ret_proc)
{
	int go[2] = { -1, -1 }, err[2] = { -1, -1 };
	struct pm_proc *p;
	int r;

	if (!argv || !argv[0])
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->pidfd = -1;
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0) {
		r = -errno;
		close_pipes(go, err);
		free(p);
		return r;
	}
	p->pid = fork();
	if (p->pid < 0) {
		r = -errno;
		close_pipes(go, err);
		free(p);
		return r;
	}
	if (p->pid == 0) {
		static const int reset[] = { SIGINT, SIGTERM, SIGPIPE, SIGCHLD };
		sigset_t none;
		char c;
		int e;

		/* the command gets the signal state it would have had without us */
		for (size_t i = 0; i < PM_ARRAY_SIZE(reset); i++)
			signal(reset[i], SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		close(go[1]);
		close(err[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(127); /* the parent gave up before starting us */
		execvp(argv[0], argv);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(e == ENOENT ? 127 : 126);
	}
	close(go[0]);
	close(err[1]);
	p->go_fd = go[1];
	p->err_fd = err[0];
	/* Linux 5.3+; without it (older kernels, seccomp) wait() polls for the exit */
	p->pidfd = (int)syscall(SYS_pidfd_open, p->pid, 0);
	*ret_proc = p;
	return 0;
}

static pid_t lx_proc_pid(void *os, const struct pm_proc *proc)
{
	return proc->pid;
}

static int lx_proc_start(void *os, struct pm_proc *proc)
{
	char c = 'x';
	ssize_t n;
	int e;

	if (write(proc->go_fd, &c, 1) != 1)
		return -errno;
	close(proc->go_fd);
	proc->go_fd = -1;
	/* EOF when exec succeeded (the pipe is close-on-exec), else its errno */
	n = read(proc->err_fd, &e, sizeof(e));
	if (n == (ssize_t)sizeof(e))
		proc->exec_errno = e;
	close(proc->err_fd);
	proc->err_fd = -1;
	return 0;
}

static int lx_proc_exec_errno(void *os, const struct pm_proc *proc)
{
	return proc->exec_errno;
}

static int lx_proc_kill(void *os, struct pm_proc *proc, int sig)
{
	if (proc->reaped)
		return 0;
	/* through the pidfd a recycled pid can never be hit */
	if (proc->pidfd >= 0 && syscall(SYS_pidfd_send_signal, proc->pidfd, sig, NULL, 0) == 0)
		return 0;
	return kill(proc->pid, sig) < 0 ? -errno : 0;
}

static void lx_proc_free(void *os, struct pm_proc *proc)
{
	if (!proc)
		return;
	if (!proc->reaped) {
		/* never started or still running: stop it, and leave no zombie behind */
		lx_proc_kill(os, proc, SIGKILL);
		waitpid(proc->pid, NULL, 0);
	}
	if (proc->go_fd >= 0)
		close(proc->go_fd);
	if (proc->err_fd >= 0)
		close(proc->err_fd);
	if (proc->pidfd >= 0)
		close(proc->pidfd);
	free(proc);
}

/* Who the file's owner is, for a lock pmumon cannot take or will not trust. */
static void lock_describe(const struct stat *st, struct pm_lock_info *info)
{
	struct passwd pw, *found = NULL;
	char buf[1024];

	info->uid = st->st_uid;
	info->mode = (unsigned)st->st_mode;
	info->nlink = (unsigned)st->st_nlink;
	if (getpwuid_r(st->st_uid, &pw, buf, sizeof(buf), &found) == 0 && found)
		snprintf(info->user, sizeof(info->user), "%s", found->pw_name);
}

/* Made by us or root, ours alone: the only lock file pmumon writes to. */
static bool lock_trusted(const struct stat *st, uid_t self)
{
	return S_ISREG(st->st_mode) && st->st_nlink == 1 &&
	       (st->st_uid == self || st->st_uid == 0) && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* Someone holds it: their pid from the note in the file. */
static int lock_busy(int fd, const struct stat *st, struct pm_lock_info *info)
{
	char buf[32];
	ssize_t got = pread(fd, buf, sizeof(buf) - 1, 0);
	int holder = 0;

	buf[got > 0 ? got : 0] = '\0';
	pm_rtrim(buf);
	if (pm_parse_int_str(buf, &holder) < 0 || holder < 0)
		holder = 0; /* unknown */
	info->pid = (pid_t)holder;
	lock_describe(st,
		      info); /* only its owner (or root) can hold a file no one else may write */
	return -EBUSY;
}

/*
 * The lock's directory (path's), made if missing (0755), opened: its fd;
 * -EPERM (*info: the directory's) unless it is a directory, not a link, of
 * ours or root's that no one else may write — in one anyone may write
 * (/run/lock is 1777) another user could plant the lock's name first, as a
 * directory, a link or a file held forever; or -errno. *ret_name: the
 * file's name in it.
 */
static int lock_dir(void *os, const char *path, struct pm_lock_info *info, const char **ret_name)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX], *name;
	struct stat st;
	int fd, parent, r;

	if (!slash || (size_t)(slash - path) >= sizeof(dir) || !slash[1])
		return -EINVAL;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	fd = open_in_root(os, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
	if (fd == -ENOENT) {
		/* made here, 0755 whatever the umask: others may read the holders' pids */
		name = strrchr(dir, '/');
		if (name)
			*name = '\0';
		parent = name ? open_in_root(os, dir, O_RDONLY | O_DIRECTORY, 0) : os_root(os);
		if (name)
			*name++ = '/';
		else
			name = dir;
		if (parent < 0)
			return parent;
		r = mkdirat(parent, name, 0755) == 0 ? 1 : errno == EEXIST ? 0 : -errno;
		/* one made meanwhile (EEXIST) is looked at below as any other */
		fd = r < 0 ? r :
			     openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd == -1)
			fd = -errno;
		else if (r == 1 && fchmod(fd, 0755) < 0) {
			/* stricter than asked is as safe */
		}
		if (parent != os_root(os))
			close(parent);
	}
	if (fd == -ELOOP || fd == -ENOTDIR) {
		/* a link, or no directory: what is there is described and refused */
		if (fstatat(os_root(os), dir, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return fd;
		lock_describe(&st, info);
		info->dir = true;
		return -EPERM;
	}
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	if ((st.st_uid != info->self && st.st_uid != 0) || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		close(fd);
		lock_describe(&st, info);
		info->dir = true;
		return -EPERM;
	}
	*ret_name = slash + 1;
	return fd;
}

/*
 * In a directory only its owner may write (lock_dir), and still: never
 * follow a link, create with O_EXCL, and use (and truncate) an existing
 * file only once fstat says it is ours or root's, a regular file with one
 * link that no one else may write, and the lock is ours.
 */
static int lx_lock(void *os, const char *path, struct pm_lock_info *reterr_info)
{
	const int flags = O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	struct pm_lock_info info = { .self = geteuid() };
	const char *name = NULL;
	struct stat st;
	char buf[32];
	int fd, r, n, dfd;
	bool writable = true;

	if (!path || path[0] == '/')
		return -EINVAL; /* relative to the root, like every other path */
	/* inside the root like every other path: no directory link leads out of it */
	dfd = lock_dir(os, path, &info, &name);
	if (dfd < 0) {
		if (dfd == -EPERM)
			*reterr_info = info;
		return dfd;
	}
	fd = openat(dfd, name, O_RDWR | O_CREAT | O_EXCL | flags, 0644);
	if (fd < 0 && errno == EEXIST)
		fd = openat(dfd, name, O_RDWR | flags);
	if (fd < 0 && errno == EACCES) {
		/* another user's (or root's, and we are not root): look at it only */
		fd = openat(dfd, name, O_RDONLY | flags);
		writable = false;
	}
	if (fd < 0) {
		r = -errno;
		/* a link, or a directory, at the lock's name: described, refused */
		if ((r == -ELOOP || r == -EISDIR) &&
		    fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			lock_describe(&st, &info);
			*reterr_info = info;
			r = -EPERM;
		}
		close(dfd);
		return r;
	}
	close(dfd);
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto fail;
	}
	if (writable && lock_trusted(&st, info.self)) {
		if (fcntl(fd, F_OFD_SETLK, &fl) == 0) {
			/* ours, and locked: now the pid note may replace what was there */
			n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
			if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, (size_t)n, 0) != n) {
				/* the lock holds even if the pid note cannot be written */
			}
			return fd;
		}
		r = errno == EAGAIN || errno == EACCES ? lock_busy(fd, &st, &info) : -errno;
		goto out;
	}
	/* held by someone? (F_OFD_GETLK tests without taking it, on any open file) */
	if (S_ISREG(st.st_mode) && fcntl(fd, F_OFD_GETLK, &fl) == 0 && fl.l_type != F_UNLCK) {
		r = lock_busy(fd, &st, &info);
	} else if (!lock_trusted(&st, info.self)) {
		lock_describe(&st, &info);
		r = -EPERM;
	} else {
		r = -EACCES; /* root's, and we may not write it */
	}
out:
	if (r == -EBUSY || r == -EPERM)
		*reterr_info = info;
fail:
	close(fd);
	return r;
}

static int lx_lock_holder(void *os, const char *path, struct pm_lock_info *ret_info)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	struct pm_lock_info info = { .self = geteuid() };
	struct stat st;
	int fd, r = 0;

	fd = open_in_root(os, path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0);
	if (fd < 0)
		return fd == -ENOENT || fd == -ELOOP ? 0 : fd; /* none, or a link: no holder */
	/* F_OFD_GETLK tests without taking it, on any open file */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && fcntl(fd, F_OFD_GETLK, &fl) == 0 &&
	    fl.l_type != F_UNLCK) {
		r = lock_busy(fd, &st, &info);
		*ret_info = info;
	}
	close(fd);
	return r;
}

static void lx_unlock(void *os, int handle)
{
	if (handle >= 0) {
		if (ftruncate(handle, 0) < 0) {
			/* a stale pid note is harmless: the lock dies with the fd */
		}
		close(handle);
	}
}

static void lx_destroy(void *os)
{
	struct os_linux *l = os;

	if (!l)
		return;
	if (l->root_fd >= 0)
		close(l->root_fd);
	free(l);
}

static const struct pm_os_ops linux_ops = {
	.name = "linux",
	.open = lx_open,
	.read = lx_read,
	.pread = lx_pread,
	.write = lx_write,
	.pwrite = lx_pwrite,
	.close = lx_close,
	.list_dir = lx_list_dir,
	.perf_open = lx_perf_open,
	.perf_ioctl = lx_perf_ioctl,
	.mono_ns = lx_mono_ns,
	.wall_ns = lx_wall_ns,
	.wait = lx_wait,
	.proc_prepare = lx_proc_prepare,
	.proc_pid = lx_proc_pid,
	.proc_start = lx_proc_start,
	.proc_exec_errno = lx_proc_exec_errno,
	.proc_kill = lx_proc_kill,
	.proc_free = lx_proc_free,
	.lock = lx_lock,
	.unlock = lx_unlock,
	.destroy = lx_destroy,
	.lock_holder = lx_lock_holder,
};

int pm_os_linux_new(const char *root, const struct pm_os_ops **ret_ops, void **ret_os)
{
	struct os_linux *l;

	if (!ret_ops || !ret_os)
		return -EINVAL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->root_fd = open(root && *root ? root : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (l->root_fd < 0) {
		int r = -errno;

		free(l);
		return r;
	}
	{
		struct stat st, sys_root;

		/* the machine's own root needs no confining: plain openat, as ever */
		l->confined = fstat(l->root_fd, &st) < 0 || stat("/", &sys_root) < 0 ||
			      st.st_dev != sys_root.st_dev || st.st_ino != sys_root.st_ino;
	}
#if HAVE_OPENAT2
	if (l->confined) {
		/* may the root be opened through openat2? If not (ENOSYS: before Linux
		 * 5.6; EPERM: a seccomp profile that does not know it), walk paths here */
		struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
					.resolve = RESOLVE_IN_ROOT };
		int fd = (int)syscall(SYS_openat2, l->root_fd, ".", &how, sizeof(how));

		if (fd >= 0)
			close(fd);
		l->no_openat2 = fd < 0;
	}
#else
	l->no_openat2 = true;
#endif
	*ret_ops = &linux_ops;
	*ret_os = l;
	return 0;
}
