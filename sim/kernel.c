// SPDX-License-Identifier: GPL-2.0-only
/*
 * The simulated kernel behind the os seam: file descriptors over the vfs,
 * perf_event_open/read/ioctl/close over the perf core (sim/perf.c), the
 * clock, waiting, virtual processes and advisory locks.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sim-internal.h"
#include "util/util.h"

#define FD_BASE 1000		       /* sim fds never look like real ones */
#define SIM_BOOT_NS 1000000000ull      /* the virtual clock starts 1 s after "boot" */
#define SIM_WALL_EPOCH_S 1767225600ull /* 2026-01-01T00:00:00Z: fixed, so output is repeatable */

struct pm_proc {
	pid_t pid;
	double seconds;
	uint64_t start_ns, exit_ns;
	bool started, exited;
	struct pm_proc *real; /* a real command under the real clock */
};

/* Scheduled faults fire as time passes (only a platform's machine has them). */
static void tick(struct pm_sim *sim)
{
	if (sim->machine) {
		sim->machine->run_faults(sim);
		sim->machine->cgroups_tick(sim); /* the scenario's cgroups come and go */
	}
}

static struct sim_fd *fd_get(struct pm_sim *sim, int fd)
{
	if (fd < FD_BASE || (size_t)(fd - FD_BASE) >= sim->n_fds || !sim->fds[fd - FD_BASE].used)
		return NULL;
	return &sim->fds[fd - FD_BASE];
}

int sim_fd_alloc(struct pm_sim *sim, struct sim_fd **ret)
{
	size_t i;

	for (i = 0; i < sim->n_fds; i++)
		if (!sim->fds[i].used)
			break;
	if (i == sim->n_fds) {
		if (sim->n_fds == SIM_MAX_FDS)
			return -EMFILE;
		if (pm_grow((void **)&sim->fds, &sim->cap_fds, sim->n_fds + 1, sizeof(*sim->fds)) <
		    0)
			return -ENOMEM;
		sim->n_fds++;
	}
	sim->fds[i] = (struct sim_fd){ .used = true };
	*ret = &sim->fds[i];
	return FD_BASE + (int)i;
}

int pm_sim__new(struct pm_sim **ret)
{
	struct pm_sim *sim = calloc(1, sizeof(*sim));
	int r;

	if (!sim)
		return -ENOMEM;
	r = sim_vfs__new(&sim->vfs);
	if (r < 0) {
		free(sim);
		return r;
	}
	sim->now_ns = SIM_BOOT_NS;
	sim->next_pid = 10000;
	*ret = sim;
	return 0;
}

void pm_sim__free(struct pm_sim *sim)
{
	if (!sim)
		return;
	if (sim->machine)
		sim->machine->free(sim);
	sim_perf_done(sim);
	if (sim->real_ops)
		sim->real_ops->destroy(sim->real_os);
	free(sim->fds);
	for (size_t i = 0; i < sim->n_locks; i++)
		free(sim->locks[i].path);
	free(sim->locks);
	free(sim->kmods);
	sim_vfs__free(sim->vfs);
	free(sim);
}

int pm_sim__write_file(struct pm_sim *sim, const char *path, const char *text)
{
	return sim_vfs__write_text(sim->vfs, path, text);
}

int pm_sim__load_tree(struct pm_sim *sim, const char *host_dir, const char *path)
{
	return sim_vfs__load_tree(sim->vfs, host_dir, path);
}

int pm_sim__remove(struct pm_sim *sim, const char *path)
{
	return sim_vfs__remove(sim->vfs, path);
}

struct sim_vfs *pm_sim__vfs(struct pm_sim *sim)
{
	return sim->vfs;
}

/* ---- time (the clock itself is in clock.c) ----------------------------------- */

/* Move the virtual clock to t, stopping at each scheduled fault on the way
 * so that it happens at its own time, not at the end of the step. */
static void set_now(struct pm_sim *sim, uint64_t t)
{
	uint64_t f;

	while (!sim->real_clock && sim->machine && sim->machine->next_fault_ns(sim, &f) && f < t &&
	       f > sim->now_ns) {
		sim->now_ns = f;
		tick(sim);
	}
	if (!sim->real_clock && t > sim->now_ns)
		sim->now_ns = t;
	tick(sim);
}

void pm_sim__advance(struct pm_sim *sim, uint64_t ns)
{
	set_now(sim, sim->now_ns + ns);
}

static uint64_t s_mono_ns(void *os)
{
	return pm_sim__now(os);
}

/*
 * The wall clock: under the virtual clock a fixed day plus the virtual time,
 * so that output is the same on every run; under clock=real the machine's
 * own wall clock, as the real os seam's (a demo's samples, its exposition's
 * timestamps and the live page's axis are dated now, not 2026-01-01).
 */
static uint64_t s_wall_ns(void *os)
{
	struct pm_sim *sim = os;
	struct timespec ts;

	if (sim->real_clock && clock_gettime(CLOCK_REALTIME, &ts) == 0)
		return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	return SIM_WALL_EPOCH_S * 1000000000ull + pm_sim__now(os);
}

/* ---- files ------------------------------------------------------------------ */

static int s_open(void *os, const char *path, int flags)
{
	struct pm_sim *sim = os;
	struct sim_node *n;
	struct sim_fd *f;
	int fd;

	tick(sim);
	n = sim_vfs__lookup(sim->vfs, path);
	if (!n)
		return -ENOENT;
	if (sim->ro_sys && (flags & O_ACCMODE) != O_RDONLY && !strncmp(path, "sys/", 4))
		return -EROFS; /* a container's read-only sysfs */
	if ((flags & O_DIRECTORY) && !sim_node__is_dir(n))
		return -ENOTDIR;
	fd = sim_node__open(n, flags);
	if (fd < 0)
		return fd;
	fd = sim_fd_alloc(sim, &f);
	if (fd < 0)
		return fd;
	f->kind = SIM_FD_FILE;
	f->node = n;
	return fd;
}

static ssize_t s_pread(void *os, int fd, void *buf, size_t len, uint64_t off)
{
	struct sim_fd *f = fd_get(os, fd);

	tick(os);
	if (!f)
		return -EBADF;
	if (f->kind == SIM_FD_PERF || !sim_node__can_pread(f->node))
		return -ESPIPE;
	return sim_node__read(f->node, buf, len, off);
}

static ssize_t s_read(void *os, int fd, void *buf, size_t len)
{
	struct sim_fd *f = fd_get(os, fd);
	ssize_t n;

	tick(os);
	if (!f)
		return -EBADF;
	if (f->kind == SIM_FD_PERF)
		return sim_perf_read(os, f->ev, buf, len);
	n = sim_node__read(f->node, buf, len, f->off);
	if (n > 0)
		f->off += (uint64_t)n;
	return n;
}

static ssize_t s_pwrite(void *os, int fd, const void *buf, size_t len, uint64_t off)
{
	struct sim_fd *f = fd_get(os, fd);

	tick(os);
	if (!f)
		return -EBADF;
	if (f->kind == SIM_FD_PERF)
		return -EINVAL;
	if (!sim_node__can_pread(f->node))
		return -ESPIPE;
	return sim_node__write(f->node, buf, len, off);
}

static ssize_t s_write(void *os, int fd, const void *buf, size_t len)
{
	struct sim_fd *f = fd_get(os, fd);
	ssize_t n;

	tick(os);
	if (!f)
		return -EBADF;
	if (f->kind == SIM_FD_PERF)
		return -EINVAL;
	n = sim_node__write(f->node, buf, len, f->off);
	if (n > 0)
		f->off += (uint64_t)n;
	return n;
}

static int s_close(void *os, int fd)
{
	struct sim_fd *f = fd_get(os, fd);

	if (!f)
		return -EBADF;
	if (f->kind == SIM_FD_PERF)
		sim_perf_close(os, f->ev);
	*f = (struct sim_fd){ 0 };
	return 0;
}

static int s_list_dir(void *os, const char *path, pm_os_dir_fn fn, void *userdata)
{
	struct pm_sim *sim = os;
	struct sim_node *n = sim_vfs__lookup(sim->vfs, path);

	if (!n)
		return -ENOENT;
	return sim_node__list(n, fn, userdata);
}

/* ---- perf -------------------------------------------------------------------- */

/* A simulated cgroup's sim.share (0 to 1: the share of the time its tasks run on each
 * CPU) in millionths; no such file: 1, every task. -EINVAL for anything but a number. */
static int cgroup_share(struct sim_node *dir, uint32_t *ret_ppm)
{
	struct sim_node *f = sim_node__child(dir, "sim.share");
	const char *text = f ? sim_node__text(f) : NULL;
	double v;

	if (!text)
		return 0;
	if (pm_parse_double(text, strcspn(text, "\n"), &v) < 0 || !(v >= 0 && v <= 1))
		return -EINVAL;
	*ret_ppm = (uint32_t)(v * 1e6 + 0.5);
	return 0;
}

static int s_perf_open(void *os, struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		       unsigned long flags)
{
	struct pm_sim *sim = os;
	struct sim_event *leader = NULL;
	uint32_t share_ppm = 1000000;
	const struct sim_node *cgroup = NULL;
	struct sim_cg_part *parts = NULL;
	size_t n_parts = 0;
	struct sim_fd *f;
	int fd, r;

	tick(sim);
	if (flags & PERF_FLAG_PID_CGROUP) {
		/* pid is a cgroup directory's fd, counted on a CPU; a simulated cgroup's tasks
		 * run the share of the time its sim.share says (every task: 1) */
		struct sim_fd *cg = fd_get(sim, pid);

		if (!cg || cg->kind != SIM_FD_FILE || !sim_node__is_dir(cg->node))
			return -EBADF;
		if (cpu < 0)
			return -EINVAL;
		r = cgroup_share(cg->node, &share_ppm);
		if (r < 0)
			return r;
		cgroup = cg->node;
		pid = -1;
		/* a scenario's cgroup: its tasks' counts, on the CPUs they run on */
		r = sim->machine ? sim->machine->cgroup_parts(sim, cgroup, cpu, &parts, &n_parts,
							      &share_ppm) :
				   0;
		if (r < 0)
			return r;
	}
	if (group_fd >= 0) {
		struct sim_fd *g = fd_get(sim, group_fd);

		if (!g || g->kind != SIM_FD_PERF)
			return -EBADF;
		leader = g->ev;
		/* "all events in a group must monitor the same cgroup" (kernel/events/core.c,
		 * perf_cgroup_connect: asked only of an event with a cgroup); one without
		 * counts while its group is on, which its leader's cgroup decides */
		if (cgroup && leader->cgroup != cgroup)
			return -EINVAL;
		if (!cgroup)
			share_ppm = leader->share_ppm;
	}
	fd = sim_fd_alloc(sim, &f);
	if (fd < 0) {
		free(parts);
		return fd;
	}
	r = sim_perf_open(sim, attr, pid, cpu, leader, &f->ev);
	if (r < 0) {
		*f = (struct sim_fd){ 0 };
		free(parts);
		return r;
	}
	f->kind = SIM_FD_PERF;
	f->ev->share_ppm = share_ppm;
	f->ev->cgroup = cgroup;
	f->ev->cg_parts = parts;
	f->ev->n_cg_parts = n_parts;
	if (cgroup)
		sim_perf_reschedule(sim, f->ev); /* with its cgroup's groups, not the CPU-wide */
	return fd;
}

static int s_perf_ioctl(void *os, int fd, unsigned long request, unsigned long arg)
{
	struct sim_fd *f = fd_get(os, fd);

	if (!f || f->kind != SIM_FD_PERF)
		return -EBADF;
	return sim_perf_ioctl(os, f->ev, request, arg);
}

/* ---- waiting and processes ---------------------------------------------------- */

/* The mask to wait with, as the real os's: what the caller blocks but catches is let in. */
static const sigset_t *wait_mask(struct pm_sim *sim)
{
	if (!sim->have_wait_mask) {
		pm_wait_sigmask(&sim->wait_mask);
		sim->have_wait_mask = true;
	}
	return &sim->wait_mask;
}

/* Let a pending signal the caller catches run its handler; true if one did. */
static bool deliver_pending_signals(struct pm_sim *sim)
{
	struct timespec zero = { 0 };
	const sigset_t *mask = wait_mask(sim);
	sigset_t pending;
	bool any = false;

	sigpending(&pending);
	for (int sig = 1; sig < NSIG && !any; sig++)
		any = sigismember(&pending, sig) == 1 && sigismember(mask, sig) != 1;
	return any && ppoll(NULL, 0, &zero, mask) < 0 && errno == EINTR;
}

static int real_sleep_until(struct pm_sim *sim, uint64_t deadline)
{
	struct timespec ts, *tsp = NULL;

	if (deadline != UINT64_MAX) {
		uint64_t now = pm_sim__now(sim), left = deadline > now ? deadline - now : 0;

		ts.tv_sec = (time_t)(left / 1000000000ull);
		ts.tv_nsec = (long)(left % 1000000000ull);
		tsp = &ts;
	}
	if (ppoll(NULL, 0, tsp, wait_mask(sim)) < 0 && errno == EINTR)
		return PM_OS_WAKE_SIGNAL;
	return PM_OS_WAKE_DEADLINE;
}

/* A real command (clock=real): the real os waits; its events stop when it exits. */
static int wait_real(struct pm_sim *sim, uint64_t deadline_ns, struct pm_proc *proc,
		     int *ret_status)
{
	uint64_t real_deadline = deadline_ns == UINT64_MAX ? UINT64_MAX :
							     deadline_ns + sim->real_base;
	int r = sim->real_ops->wait(sim->real_os, real_deadline, proc->real, ret_status);

	if (r == PM_OS_WAKE_EXIT) {
		proc->exited = true;
		sim_perf_task_exit(sim, proc->pid);
	}
	tick(sim);
	return r;
}

static int s_wait(void *os, uint64_t deadline_ns, struct pm_proc *proc, int *ret_status)
{
	struct pm_sim *sim = os;
	bool child = proc && proc->started && !proc->exited;

	if (child && proc->real)
		return wait_real(sim, deadline_ns, proc, ret_status);
	if (deliver_pending_signals(sim))
		return PM_OS_WAKE_SIGNAL;
	if (child && proc->exit_ns <= deadline_ns) {
		if (sim->real_clock && real_sleep_until(sim, proc->exit_ns) == PM_OS_WAKE_SIGNAL)
			return PM_OS_WAKE_SIGNAL;
		set_now(sim, proc->exit_ns);
		proc->exited = true;
		sim_perf_task_exit(sim, proc->pid);
		*ret_status = 0; /* sleep exits 0 */
		return PM_OS_WAKE_EXIT;
	}
	if (sim->real_clock || deadline_ns == UINT64_MAX)
		return real_sleep_until(sim, deadline_ns); /* only a signal ends "forever" */
	set_now(sim, deadline_ns);
	return PM_OS_WAKE_DEADLINE;
}

/* "sleep N" with N in seconds (fractions allowed), as coreutils takes it. */
static int parse_sleep(char *const argv[], double *ret)
{
	const char *base;
	double v;

	if (!argv[0] || !argv[1] || argv[2])
		return -EINVAL;
	base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	if (strcmp(base, "sleep") != 0)
		return -EINVAL;
	if (pm_parse_double(argv[1], strlen(argv[1]), &v) < 0 || v < 0 || v > 1e7)
		return -EINVAL;
	*ret = v;
	return 0;
}

static int s_proc_prepare(void *os, char *const argv[], struct pm_proc **ret_proc)
{
	struct pm_sim *sim = os;
	struct pm_proc *p;
	double secs;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	/* `sleep N` is simulated: it sets the run's duration */
	if (parse_sleep(argv, &secs) == 0) {
		p->pid = sim->next_pid++;
		p->seconds = secs;
		*ret_proc = p;
		return 0;
	}
	/* anything else runs for real, which only the real clock can follow */
	if (!sim->real_clock) {
		free(p);
		return -EOPNOTSUPP;
	}
	if (!sim->real_ops) {
		int r = pm_os_linux_new("/", &sim->real_ops, &sim->real_os);

		if (r < 0) {
			free(p);
			return r;
		}
	}
	{
		int r = sim->real_ops->proc_prepare(sim->real_os, argv, &p->real);

		if (r < 0) {
			free(p);
			return r;
		}
	}
	p->pid = sim->real_ops->proc_pid(sim->real_os, p->real);
	*ret_proc = p;
	return 0;
}

static pid_t s_proc_pid(void *os, const struct pm_proc *proc)
{
	return proc->pid;
}

static int s_proc_start(void *os, struct pm_proc *proc)
{
	struct pm_sim *sim = os;

	if (proc->real) {
		int r = sim->real_ops->proc_start(sim->real_os, proc->real);

		if (r < 0)
			return r;
		proc->started = true;
		sim_perf_exec(sim, proc->pid);
		return 0;
	}
	proc->started = true;
	proc->start_ns = pm_sim__now(sim);
	proc->exit_ns = proc->start_ns + (uint64_t)(proc->seconds * 1e9 + 0.5);
	sim_perf_exec(sim, proc->pid);
	return 0;
}

static int s_proc_exec_errno(void *os, const struct pm_proc *proc)
{
	struct pm_sim *sim = os;

	return proc->real ? sim->real_ops->proc_exec_errno(sim->real_os, proc->real) : 0;
}

static int s_proc_kill(void *os, struct pm_proc *proc, int sig)
{
	struct pm_sim *sim = os;

	if (proc->real)
		return sim->real_ops->proc_kill(sim->real_os, proc->real, sig);
	if (proc->started && !proc->exited)
		proc->exit_ns = pm_sim__now(os); /* dies now; wait() reaps it */
	return 0;
}

static void s_proc_free(void *os, struct pm_proc *proc)
{
	struct pm_sim *sim = os;

	if (proc && proc->real)
		sim->real_ops->proc_free(sim->real_os, proc->real);
	free(proc);
}

/* ---- locks -------------------------------------------------------------------- */

static struct sim_lock *lock_find(struct pm_sim *sim, const char *path)
{
	for (size_t i = 0; i < sim->n_locks; i++)
		if (!strcmp(sim->locks[i].path, path))
			return &sim->locks[i];
	return NULL;
}

static struct sim_lock *lock_add(struct pm_sim *sim, const char *path)
{
	struct sim_lock *l;

	if (pm_grow((void **)&sim->locks, &sim->cap_locks, sim->n_locks + 1, sizeof(*l)) < 0)
		return NULL;
	l = &sim->locks[sim->n_locks];
	*l = (struct sim_lock){ .path = strdup(path) };
	if (!l->path)
		return NULL;
	sim->n_locks++;
	/* the lock file is there for anyone to see, as lx_lock's (its pid note aside) */
	if (!sim_vfs__lookup(sim->vfs, path) && sim_vfs__write_text(sim->vfs, path, "") < 0)
		return NULL;
	return l;
}

int pm_sim__lock_file(struct pm_sim *sim, const char *path, uid_t owner, unsigned mode,
		      pid_t holder)
{
	struct sim_lock *l = lock_find(sim, path);

	if (!l && !(l = lock_add(sim, path)))
		return -ENOMEM;
	l->owner = owner;
	l->mode = mode;
	l->holder = holder;
	return 0;
}

static const char *user_name(uid_t uid)
{
	return uid == 0 ? "root" : uid == 65534 ? "nobody" : "";
}

/* The rules of lib/os/linux.c's lx_lock, on files that exist only here. */
static int s_lock(void *os, const char *path, struct pm_lock_info *reterr_info)
{
	struct pm_sim *sim = os;
	struct pm_lock_info info = { .self = sim->uid };
	struct sim_lock *l = lock_find(sim, path);
	bool trusted;

	if (!l) {
		l = lock_add(sim, path);
		if (!l)
			return -ENOMEM;
		l->owner = sim->uid;
		l->mode = S_IFREG | 0644;
	}
	if (!l->mode)
		return -EROFS; /* as lx_lock where /run is read-only */
	trusted = S_ISREG(l->mode) && (l->owner == sim->uid || l->owner == 0) &&
		  !(l->mode & (S_IWGRP | S_IWOTH));
	if (trusted && !l->holder && (l->owner == sim->uid || sim->uid == 0)) {
		l->holder = getpid();
		return (int)(l - sim->locks);
	}
	info.uid = l->owner;
	info.mode = l->mode;
	info.nlink = 1;
	snprintf(info.user, sizeof(info.user), "%s", user_name(l->owner));
	if (S_ISREG(l->mode) && l->holder) {
		info.pid = l->holder;
		*reterr_info = info;
		return -EBUSY;
	}
	if (!trusted) {
		*reterr_info = info;
		return -EPERM;
	}
	return -EACCES; /* root's, and we are not root */
}

static int s_lock_holder(void *os, const char *path, struct pm_lock_info *ret_info)
{
	struct pm_sim *sim = os;
	struct sim_lock *l = lock_find(sim, path);

	if (!l || !S_ISREG(l->mode) || !l->holder)
		return 0;
	*ret_info = (struct pm_lock_info){ .pid = l->holder,
					   .uid = l->owner,
					   .self = sim->uid,
					   .mode = l->mode,
					   .nlink = 1 };
	snprintf(ret_info->user, sizeof(ret_info->user), "%s", user_name(l->owner));
	return -EBUSY;
}

static void s_unlock(void *os, int handle)
{
	struct pm_sim *sim = os;

	if (handle < 0 || (size_t)handle >= sim->n_locks)
		return;
	sim->locks[handle].holder = 0; /* the file stays */
}

static void s_destroy(void *os)
{
	pm_sim__free(os);
}

static const struct pm_os_ops sim_ops = {
	.name = "sim",
	.open = s_open,
	.read = s_read,
	.pread = s_pread,
	.write = s_write,
	.pwrite = s_pwrite,
	.close = s_close,
	.list_dir = s_list_dir,
	.perf_open = s_perf_open,
	.perf_ioctl = s_perf_ioctl,
	.mono_ns = s_mono_ns,
	.wall_ns = s_wall_ns,
	.wait = s_wait,
	.proc_prepare = s_proc_prepare,
	.proc_pid = s_proc_pid,
	.proc_start = s_proc_start,
	.proc_exec_errno = s_proc_exec_errno,
	.proc_kill = s_proc_kill,
	.proc_free = s_proc_free,
	.lock = s_lock,
	.unlock = s_unlock,
	.lock_holder = s_lock_holder,
	.destroy = s_destroy,
};

const struct pm_os_ops *pm_sim__ops(void)
{
	return &sim_ops;
}
