// SPDX-License-Identifier: GPL-2.0-only
/*
 * The perf source: counters are perf_event fds. Everything opens disabled
 * and is enabled together afterwards, because ali_drw resets all counters of
 * a PMU whenever an event is opened on it (facts §1.8). Reads ask for
 * TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING (and GROUP for kernel groups) so
 * multiplexed counts can be scaled (facts §0.2, §0.3).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "ctx.h"
#include "pmu.h"
#include "source/counters.h"
#include "source/perf/perf-bpf.h"
#include "source/perf/perf.h"
#include "util/util.h"

/* perf's state in the session: when it last read for a checkpoint. */
struct perf_state {
	uint64_t polled_ns;
	int *cgroup_fd;	       /* per event while opening: its cgroup's directory, -1: none yet */
	char cgroup_root[256]; /* the cgroup2 mount, looked up once ("": not yet) */
	/* the reads inside an interval that measure multiplexed counters' error
	 * (estimate.h): some counter is tracked, when the next is due, its jitter */
	bool tracked, probe; /* probe: one read of all soon after enable finds them */
	uint64_t sub_ns;
	uint64_t jitter;
	size_t n_tracked; /* read units with a tracked counter, as the last read found them */
	struct pm_perf_bpf *bpf; /* the cgroups' counters through BPF (bpf_counters), or NULL */
	/* per counter, of cgroup events only: the kernel's reading its reads are taken from
	 * (cgroup_rebase), and its reading at the last disable; NULL: no cgroup event */
	struct pm_reading *base, *off;
};

#define READ_FORMAT (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)

size_t pm_perf__group_max_for(uint64_t read_format)
{
	size_t fixed = 8, entry = 8; /* nr; each member's value */

	fixed += read_format & PERF_FORMAT_TOTAL_TIME_ENABLED ? 8 : 0;
	fixed += read_format & PERF_FORMAT_TOTAL_TIME_RUNNING ? 8 : 0;
	entry += read_format & PERF_FORMAT_ID ? 8 : 0;
	entry += read_format & PERF_FORMAT_LOST ? 8 : 0;
	/* before 6.7: fixed + entry x n + 8 (the record header) < 16 KiB; from 6.7 the read
	 * size alone <= 16 KiB, which that implies */
	return (16 * 1024 - 1 - 8 - fixed) / entry;
}

size_t pm_perf__group_max(void)
{
	return pm_perf__group_max_for(READ_FORMAT | PERF_FORMAT_GROUP);
}

static const char *pmu_name_of(const struct pm_evinst *in)
{
	return in->pmu ? in->pmu->name : in->device;
}

int pm_perf__paranoid(struct pm_ctx *ctx, int *ret)
{
	char buf[32];

	if (pm_read_file(ctx, "proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf)) < 0)
		return -ENOENT;
	return pm_parse_int_str(buf, ret);
}

/* Why a permission was refused, and what would grant it. */
static void permission_hint(struct pm_session *s, const struct pm_counter *c, char *hint,
			    size_t size)
{
	int paranoid = 0;

	if (pm_perf__paranoid(s->ctx, &paranoid) == 0 && paranoid <= 0)
		snprintf(hint, size,
			 "perf_event_paranoid is %d, so something else refused it: a seccomp "
			 "profile (containers: allow perf_event_open), SELinux, or kernel lockdown",
			 paranoid);
	else if (paranoid > 0)
		snprintf(hint, size,
			 "perf_event_paranoid is %d; %s needs CAP_PERFMON (or root): run as root, "
			 "or 'setcap cap_perfmon+ep pmumon', or allow all users with 'sysctl -w "
			 "kernel.perf_event_paranoid=%d'",
			 paranoid, c->cpu >= 0 ? "system-wide counting" : "this event",
			 c->cpu >= 0 ? 0 : 1);
	else
		snprintf(hint, size, "run as root or grant CAP_PERFMON");
}

/* A breakpoint the kernel refuses (arch_build_bp_info, hw_breakpoint_arch_parse): perf 6.1
 * shows <not supported>; say what the CPU takes. */
static void breakpoint_refused(const struct pm_evinst *in, const struct pm_event *ev,
			       struct pm_diag *d)
{
	pm_diag_set(d, "",
		    "the kernel refuses breakpoint '%s' (type %s%s%s, length %llu): x86 has no "
		    "read-only breakpoints nor r, w and x together, takes lengths 1, 2, 4 and 8 "
		    "at an address aligned to them, and x only with the length of a long",
		    ev->label, in->attr.bp_type & 1 ? "r" : "", in->attr.bp_type & 2 ? "w" : "",
		    in->attr.bp_type & 4 ? "x" : "", (unsigned long long)in->attr.bp_len);
}

/* EINVAL: the PMU refused the attr. */
static void invalid_error(const struct pm_evinst *in, const struct pm_event *ev, int cpu,
			  const char *where, struct pm_diag *d)
{
	bool excl = in->attr.exclude_user || in->attr.exclude_kernel || in->attr.exclude_hv;
	const char *pmu = pmu_name_of(in);
	char hint[128];

	if (in->attr.type == PERF_TYPE_BREAKPOINT) {
		breakpoint_refused(in, ev, d);
		return;
	}
	if (excl)
		snprintf(hint, sizeof(hint), "uncore PMUs reject :u/:k/:h; drop the modifier");
	else if (cpu < 0)
		hint[0] = '\0'; /* and the reason's words */
	else
		snprintf(hint, sizeof(hint), "check the event's terms: ");
	pm_diag_set(d, hint,
		    "PMU '%s' rejected '%s' %s (config 0x%" PRIx64 ", config1 0x%" PRIx64 "): %s",
		    pmu, ev->label, where, (uint64_t)in->attr.config, (uint64_t)in->attr.config1,
		    strerror(EINVAL));
	if (!excl && cpu < 0) {
		pm_diag_reason(d, PM_REASON_SYSTEM_WIDE, pmu, NULL);
	} else if (!excl) {
		char what[160];

		snprintf(what, sizeof(what), "events %s", in->pmu ? in->pmu->family : pmu);
		pm_diag_reason(d, PM_REASON_SEE_LIST, pmu, what);
	}
}

static void perf_open_error(struct pm_session *s, const struct pm_counter *c, int err,
			    struct pm_diag *d)
{
	const struct pm_evinst *in = &s->l->inst[c->inst];
	const struct pm_event *ev = &s->l->ev[c->event];
	const char *pmu = pmu_name_of(in);
	char where[64], hint[512];

	if (c->cpu >= 0)
		snprintf(where, sizeof(where), "on CPU %d", c->cpu);
	else
		snprintf(where, sizeof(where), "for the command");
	hint[0] = '\0';
	switch (err) {
	case -EACCES:
	case -EPERM:
		permission_hint(s, c, hint, sizeof(hint));
		pm_diag_set(d, hint, "no permission to count '%s' %s: %s", ev->label, where,
			    strerror(-err));
		break;
	case -ENOENT:
		pm_diag_set(d, "",
			    "'%s' is not supported by this kernel or CPU (PMU '%s', config 0x%" PRIx64
			    ")",
			    ev->label, pmu, (uint64_t)in->attr.config);
		pm_diag_reason(d, PM_REASON_SEE_LIST, pmu, "");
		break;
	case -EOPNOTSUPP:
		pm_diag_set(d, c->cpu < 0 ? "" : "count it without modifiers",
			    "PMU '%s' does not support '%s' this way (%s)", pmu, ev->label,
			    c->cpu < 0 ? "it cannot follow one task" :
					 "the kernel said EOPNOTSUPP");
		if (c->cpu < 0)
			pm_diag_reason(d, PM_REASON_SYSTEM_WIDE, pmu, NULL);
		break;
	case -EBUSY:
		pm_diag_set(d,
			    "stop the other user (another perf or pmumon, or the NMI watchdog: "
			    "sysctl -w kernel.nmi_watchdog=0) and try again",
			    "the counters of PMU '%s' are in use by someone else (opening '%s' %s: %s)",
			    pmu, ev->label, where, strerror(-err));
		break;
	case -EMFILE:
	case -ENFILE:
		pm_diag_set(d, "raise the limit (ulimit -n 65536) or count fewer events/CPUs",
			    "too many open files while opening '%s' %s", ev->label, where);
		break;
	case -ENODEV:
		if (in->pmu && in->pmu->uncore)
			/* kernel-facts §1.8: a driver may keep a cpumask CPU that went offline */
			pm_diag_set(d,
				    "bring that CPU back online (echo 1 > "
				    "/sys/devices/system/cpu/cpuN/online) or reload the PMU's driver",
				    "PMU '%s' cannot count '%s' %s, the CPU its cpumask names: that CPU "
				    "is offline, or the cpumask went stale after CPU hotplug",
				    pmu, ev->label, where);
		else
			pm_diag_set(d, "count on online CPUs", "PMU '%s' cannot count '%s' %s: %s",
				    pmu, ev->label, where, strerror(-err));
		break;
	case -EINVAL:
		invalid_error(in, ev, c->cpu, where, d);
		break;
	default:
		pm_diag_set(d, NULL, "cannot open '%s' %s on PMU '%s': %s", ev->label, where, pmu,
			    strerror(-err));
	}
	pm_diag_point(d, ev->spec, ev->spec_pos, ev->spec_len);
}

/* The session's one space (user or kernel) on attr, where the PMU can exclude. */
static void only_space(struct pm_session *s, const struct pm_evinst *in,
		       struct perf_event_attr *attr)
{
	const struct pm_pmu *p = in->pmu;

	if (s->opts.space == PM_SPACE_ALL)
		return;
	if ((p && p->traits && p->traits->no_exclude) || (p && p->uncore)) {
		if (!s->warned_space)
			pm_log(s->ctx, PM_LOG_INFO,
			       "PMU %s counts user space and the kernel alike: its events count both",
			       p->name);
		s->warned_space = true;
		return;
	}
	attr->exclude_kernel = s->opts.space == PM_SPACE_USER;
	attr->exclude_user = s->opts.space == PM_SPACE_KERNEL;
}

/*
 * perf's fallback (tools/perf/util/evsel.c, evsel__fallback): with
 * kernel.perf_event_paranoid above 1, an unprivileged user may still count
 * user space. Exclude the kernel and the hypervisor, mark the event :u as
 * perf does, say so once, and let the caller retry.
 */
static bool user_only_fallback(struct pm_session *s, struct pm_counter *c, int err)
{
	struct pm_evinst *in = &s->l->inst[c->inst];
	struct pm_event *ev = &s->l->ev[c->event];
	const struct pm_pmu *p = in->pmu;
	int paranoid = 0;
	char *label;

	if (err != -EACCES || in->attr.exclude_kernel ||
	    (p && p->traits && p->traits->no_exclude) || pm_perf__paranoid(s->ctx, &paranoid) < 0 ||
	    paranoid <= 1)
		return false;
	for (size_t i = ev->first_inst; i < ev->first_inst + ev->n_inst; i++) {
		s->l->inst[i].attr.exclude_kernel = 1;
		s->l->inst[i].attr.exclude_hv = 1;
	}
	if (asprintf(&label, "%s%su", ev->label,
		     strchr(ev->label, '/') || strchr(ev->label, ':') ? "" : ":") < 0)
		return false;
	free(ev->label);
	ev->label = label;
	if (!s->warned_user_only)
		pm_log(s->ctx, PM_LOG_WARN,
		       "kernel.perf_event_paranoid is %d: counting user space only (events marked "
		       "u); counting the kernel too needs CAP_PERFMON or root",
		       paranoid);
	s->warned_user_only = true;
	return true;
}

/*
 * What perf stat turns into <not supported> and goes on (its
 * stat_handle_error: ENOENT, EOPNOTSUPP, ENXIO, ENOSYS), and ENODEV of a
 * core PMU; an uncore PMU that exists but cannot be reached on its cpumask
 * CPU (ENODEV) is a problem to report. Not EINVAL, which perf skips too:
 * here an event asked for gets its diagnosis (a group the PMU cannot hold,
 * a term it refuses). But a breakpoint's EINVAL is the CPU's answer to its
 * type and length, which perf shows as <not supported> too.
 */
static bool unsupported_error(const struct pm_session *s, const struct pm_counter *c, int err)
{
	const struct pm_pmu *p = s->l->inst[c->inst].pmu;

	if (err == -EINVAL && s->l->inst[c->inst].attr.type == PERF_TYPE_BREAKPOINT)
		return true;
	if (err == -ENODEV)
		return !(p && p->uncore);
	return err == -ENOENT || err == -EOPNOTSUPP || err == -ENXIO || err == -ENOSYS;
}

/*
 * A refusal that makes an event a <not supported> row: perf stat's
 * stat_handle_error list; for a default event also EINVAL, as perf has it
 * (an event the user typed with EINVAL stops the run with its diagnosis).
 */
static bool not_supported(const struct pm_session *s, const struct pm_counter *c, int err)
{
	return unsupported_error(s, c, err) || (err == -EINVAL && s->l->ev[c->event].optional);
}

static void close_counter(struct pm_session *s, struct pm_counter *c)
{
	if (c->source != PM_SRC_PERF)
		return;
	if (c->fd >= 0)
		s->ctx->ops->close(s->ctx->os, c->fd);
	c->fd = -1;
	c->open = false;
}

/* An event left out (a default, pm_session_opts.leave_out_unsupported_defaults: no
 * row) or kept as a <not supported> row. */
static void drop_event(struct pm_session *s, size_t event, bool keep_row)
{
	for (size_t k = 0; k < s->n_c; k++) {
		if (s->c[k].event != event)
			continue;
		close_counter(s, &s->c[k]);
		s->c[k].dropped = !keep_row;
		s->c[k].unsupported = keep_row;
	}
}

/* A command's counters (PM_TARGET_TASK) or running threads' (PM_TARGET_THREADS): per task,
 * inherited by its children, never in a kernel group (inherited groups cannot be read). */
static bool task_mode(const struct pm_session *s)
{
	return s->opts.target == PM_TARGET_TASK || s->opts.target == PM_TARGET_THREADS;
}

/* A command's counters start at its exec (enable_on_exec), unless later asked (-D);
 * running threads' (PM_TARGET_THREADS) when enabled, as every other target's. */
static bool starts_at_exec(const struct pm_session *s)
{
	return s->opts.target == PM_TARGET_TASK && !s->opts.task_enable_late;
}

static size_t group_size(const struct pm_session *s, size_t leader)
{
	size_t n = 0;

	for (size_t k = leader; k < s->n_c; k++)
		n += s->c[k].leader == leader && !s->c[k].dropped && !s->c[k].unsupported;
	return n;
}

/* The directory of event's cgroup, opened once while the counters open: an fd, or -errno
 * (said). A cgroup is counted on CPUs: not for a command or threads. */
static int cgroup_fd(struct pm_session *s, size_t event, struct pm_diag *d)
{
	struct perf_state *st = s->state[PM_SRC_PERF];
	const struct pm_event *ev = &s->l->ev[event];
	char path[512];
	int fd;

	if (st->cgroup_fd[event] >= 0)
		return st->cgroup_fd[event];
	if (task_mode(s)) {
		pm_diag_set(d, "",
			    "'%s' is counted in cgroup '%s', which is counted on CPUs, not for "
			    "one task",
			    ev->label, ev->cgroup);
		pm_diag_reason(d, PM_REASON_SYSTEM_WIDE, NULL, NULL);
		return -EINVAL;
	}
	/* once: mountinfo lists every mount, and its kernel time is the open's (bench/attrib.py) */
	if (!st->cgroup_root[0])
		pm_cgroup_root(s->ctx, st->cgroup_root, sizeof(st->cgroup_root));
	snprintf(path, sizeof(path), "%s/%s", st->cgroup_root,
		 ev->cgroup[0] == '/' ? ev->cgroup + 1 : ev->cgroup);
	fd = s->ctx->ops->open(s->ctx->os, path, O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		pm_diag_set(d, "name a directory under the cgroup2 mount (its path there)",
			    "no cgroup '%s' to count '%s' in: /%s: %s", ev->cgroup, ev->label, path,
			    strerror(-fd));
		return fd;
	}
	st->cgroup_fd[event] = fd;
	return fd;
}

static void cgroup_fds_close(struct pm_session *s)
{
	struct perf_state *st = s->state[PM_SRC_PERF];

	for (size_t e = 0; st->cgroup_fd && e < s->l->n_ev; e++)
		if (st->cgroup_fd[e] >= 0)
			s->ctx->ops->close(s->ctx->os, st->cgroup_fd[e]);
	free(st->cgroup_fd);
	st->cgroup_fd = NULL;
}

static int open_one(struct pm_session *s, size_t k)
{
	struct pm_counter *c = &s->c[k];
	const struct pm_evinst *in = &s->l->inst[c->inst];
	struct perf_event_attr attr = in->attr;
	bool leader, group;
	int fd;

	/* a leader that was left out (an unsupported default) leads nobody */
	if (c->leader != k && s->c[c->leader].fd < 0)
		c->leader = k;
	leader = c->leader == k;
	group = !task_mode(s) && group_size(s, c->leader) > 1;

	only_space(s, in, &attr);
	attr.read_format = READ_FORMAT | (group ? PERF_FORMAT_GROUP : 0);
	attr.disabled = leader;
	if (task_mode(s) && !c->cpu_wide)
		attr.inherit = 1;
	if (starts_at_exec(s) && !c->cpu_wide) {
		/* every counter starts at the exec, so members are not enabled earlier */
		attr.disabled = 1;
		attr.enable_on_exec = 1;
	}
	if (s->l->ev[c->event].cgroup) /* opened already (perf_open_all) */
		fd = s->ctx->ops->perf_open(s->ctx->os, &attr,
					    ((struct perf_state *)s->state[PM_SRC_PERF])
						    ->cgroup_fd[c->event],
					    c->cpu, leader ? -1 : s->c[c->leader].fd,
					    PERF_FLAG_PID_CGROUP);
	else
		fd = s->ctx->ops->perf_open(s->ctx->os, &attr,
					    !task_mode(s) || c->cpu_wide	? -1 :
					    s->opts.target == PM_TARGET_THREADS ? c->tid :
										  s->opts.pid,
					    c->cpu, leader ? -1 : s->c[c->leader].fd, 0);
	if (fd == -EINVAL && c->implicit && !leader) {
		/* a kernel that will not group these: read it on its own */
		c->leader = k;
		c->implicit = false;
		return open_one(s, k);
	}
	if (fd < 0)
		return fd;
	c->fd = fd;
	c->open = true;
	c->group_format = leader && group;
	return 0;
}

/*
 * perf's weak group (:W; builtin-stat.c and evlist__reset_weak_group, 6.1):
 * when the kernel refuses a member of a weak group with EINVAL or EBADF (the
 * group can never be on the PMU at once), every event of the group counts on
 * its own, multiplexed. Returns the first counter to open again, or
 * SIZE_MAX when this is no such case.
 */
static size_t weak_group_fallback(struct pm_session *s, size_t k, int err)
{
	const struct pm_counter *c = &s->c[k];
	const struct pm_event *ev = &s->l->ev[c->event];
	size_t first = SIZE_MAX;

	if ((err != -EINVAL && err != -EBADF) || c->leader == k || c->implicit || !ev->weak)
		return SIZE_MAX;
	for (size_t m = 0; m < s->n_c; m++) {
		struct pm_counter *o = &s->c[m];

		if (o->source != PM_SRC_PERF || s->l->ev[o->event].group != ev->group)
			continue;
		close_counter(s, o);
		o->leader = m;
		first = PM_MIN(first, m);
	}
	pm_log(s->ctx, PM_LOG_INFO,
	       "the kernel cannot count the weak group of '%s' at once: each of its events "
	       "counts on its own (:W)",
	       ev->label);
	return first;
}

static int build_read_units(struct pm_session *s)
{
	size_t pos = 0, words = 3;
	int r;

	free(s->ru_idx);
	s->ru_idx = calloc(s->n_c ? s->n_c : 1, sizeof(*s->ru_idx));
	if (!s->ru_idx)
		return -ENOMEM;
	s->n_ru = 0;
	for (size_t k = 0; k < s->n_c; k++) {
		struct pm_read_unit *u;
		size_t n;

		if (s->c[k].leader != k || s->c[k].fd < 0)
			continue;
		n = group_size(s, k);
		r = pm_grow((void **)&s->ru, &s->cap_ru, s->n_ru + 1, sizeof(*u));
		if (r < 0)
			return r;
		if (!s->c[k].group_format) {
			/* each counter is read on its own */
			for (size_t m = k; m < s->n_c; m++) {
				if (s->c[m].leader != k || s->c[m].fd < 0)
					continue;
				r = pm_grow((void **)&s->ru, &s->cap_ru, s->n_ru + 1, sizeof(*u));
				if (r < 0)
					return r;
				u = &s->ru[s->n_ru++];
				*u = (struct pm_read_unit){ .fd = s->c[m].fd,
							    .first = pos,
							    .n = 1 };
				s->ru_idx[pos++] = m;
			}
			continue;
		}
		u = &s->ru[s->n_ru++];
		*u = (struct pm_read_unit){ .fd = s->c[k].fd, .group = true, .first = pos, .n = n };
		for (size_t m = k; m < s->n_c; m++)
			if (s->c[m].leader == k && s->c[m].fd >= 0)
				s->ru_idx[pos++] = m;
		words = PM_MAX(words, 3 + n);
	}
	free(s->readbuf);
	s->readbuf = calloc(words, sizeof(uint64_t));
	s->readbuf_words = words;
	return s->readbuf ? 0 : -ENOMEM;
}

static int perf_open_all(struct pm_session *s, struct pm_diag *reterr);

static void counter_attr(struct pm_session *s, size_t k, struct perf_event_attr *attr)
{
	const struct pm_evinst *in = &s->l->inst[s->c[k].inst];

	*attr = in->attr;
	only_space(s, in, attr);
	attr->read_format = READ_FORMAT;
	attr->disabled = 0;
}

static bool refused(struct pm_session *s, size_t k, int err, struct pm_diag *reterr)
{
	const struct pm_counter *c = &s->c[k];
	const struct pm_event *ev = &s->l->ev[c->event];
	bool leave_out = ev->optional && s->opts.leave_out_unsupported_defaults;
	struct pm_diag why;

	if (!not_supported(s, c, err)) {
		perf_open_error(s, c, err, reterr);
		return false;
	}
	pm_diag__init(&why);
	perf_open_error(s, c, err, &why);
	/* perf prints the <not supported> rows of its defaults and -d sets
	 * without a word; an event the user typed says why */
	pm_log(s->ctx, ev->detailed || ev->optional ? PM_LOG_INFO : PM_LOG_WARN, "%s: %s", why.msg,
	       leave_out ? "left out" : "its row says <not supported>, the other events count");
	drop_event(s, c->event, !leave_out);
	return true;
}

/* what the BPF path of counting in cgroups asks of this source (perf-bpf.h) */
static const struct pm_perf_bpf_ops bpf_ops = { .counter_attr = counter_attr, .refused = refused };

static int perf_open(struct pm_session *s, struct pm_diag *reterr)
{
	struct perf_state *st = calloc(1, sizeof(*st));
	int r;

	s->state[PM_SRC_PERF] = st;
	if (!st)
		return -ENOMEM;
	st->jitter = 0x9e3779b97f4a7c15ull; /* any seed but 0 */
	st->cgroup_fd = malloc((s->l->n_ev + 1) * sizeof(int));
	if (!st->cgroup_fd)
		return -ENOMEM;
	for (size_t e = 0; e < s->l->n_ev; e++)
		st->cgroup_fd[e] = -1;
	/* the cgroups' counters first: each is open after it, without an fd */
	r = s->opts.bpf_counters ? pm_perf_bpf__open(s, &bpf_ops, &st->bpf, reterr) : 0;
	if (r == 0)
		r = perf_open_all(s, reterr);
	/* the kernel holds the cgroups of the counters opened: the directories may go */
	cgroup_fds_close(s);
	return r < 0 ? r : build_read_units(s);
}

static int perf_open_all(struct pm_session *s, struct pm_diag *reterr)
{
	int r;

	for (size_t k = 0; k < s->n_c; k++) {
		struct pm_counter *c = &s->c[k];
		const struct pm_event *ev = &s->l->ev[c->event];

		size_t again;

		if (c->dropped || c->unsupported || c->source != PM_SRC_PERF || c->open)
			continue;
		if (ev->cgroup) {
			r = cgroup_fd(s, c->event, reterr);
			if (r < 0)
				return r;
		}
		r = open_one(s, k);
		if (r < 0 && user_only_fallback(s, c, r))
			r = open_one(s, k);
		if (r == 0)
			continue;
		if (r == -ESRCH && s->opts.target == PM_TARGET_THREADS && s->opts.all_threads) {
			/* a thread of the machine's that exited since it was listed: no row,
			 * as perf's thread_map__remove for its global --per-thread */
			c->dropped = true;
			continue;
		}
		again = weak_group_fallback(s, k, r);
		if (again != SIZE_MAX) {
			k = again - 1; /* the loop's k++ */
			continue;
		}
		if (refused(s, k, r, reterr))
			continue;
		return r;
	}
	return 0;
}

/* PERF_EVENT_IOC_ENABLE or _DISABLE to every leader (cpu_wide_only: to those of a task
 * target's system-wide counters, which no exec enables) */
static int ioctl_leaders(struct pm_session *s, unsigned long req, bool cpu_wide_only)
{
	int r = 0;

	for (size_t k = 0; k < s->n_c; k++) {
		const struct pm_counter *c = &s->c[k];
		int e;

		if (c->fd < 0 || c->leader != k || c->source != PM_SRC_PERF ||
		    (cpu_wide_only && !c->cpu_wide))
			continue;
		e = s->ctx->ops->perf_ioctl(s->ctx->os, c->fd, req, 0);
		if (e < 0 && r == 0) {
			r = e;
			s->failed_device = s->l->inst[c->inst].device;
			pm_session__fail(s, "see dmesg", "the kernel refused %s on PMU %s: %s",
					 req == PERF_EVENT_IOC_ENABLE ? "PERF_EVENT_IOC_ENABLE" :
									"PERF_EVENT_IOC_DISABLE",
					 s->failed_device, strerror(-e));
		}
	}
	return r;
}

static void next_subread(struct perf_state *st, uint64_t now);
static int cgroup_rebase(struct pm_session *s, bool enabled);
static int cgroup_clocks_touch(struct pm_session *s);

static int perf_enable(struct pm_session *s)
{
	struct perf_state *st = s->state[PM_SRC_PERF];
	int r;

	if (st && st->bpf) {
		r = pm_perf_bpf__switch(s, st->bpf, true);
		if (r < 0)
			return r;
	}
	if (st && s->n_ru) { /* a first look at the counters a sub-read after the start */
		st->probe = true;
		next_subread(st, s->ctx->ops->mono_ns(s->ctx->os));
	}
	r = ioctl_leaders(s, PERF_EVENT_IOC_ENABLE, starts_at_exec(s));
	if (r == 0)
		r = cgroup_clocks_touch(s);
	return r < 0 ? r : cgroup_rebase(s, true);
}

static int perf_disable(struct pm_session *s)
{
	struct perf_state *st = s->state[PM_SRC_PERF];
	int r = ioctl_leaders(s, PERF_EVENT_IOC_DISABLE, starts_at_exec(s));

	if (r == 0)
		r = cgroup_rebase(s, false);
	if (st && st->bpf) {
		int e = pm_perf_bpf__switch(s, st->bpf, false);

		r = r < 0 ? r : e;
	}
	return r;
}

/*
 * A read that says the PMU is gone: ENODEV (its driver unregistered it: what
 * the simulator's vanish does), ENXIO (no such device behind it), EIO (the
 * device failed). Its counters are lost from here on: their counts stop at
 * the last good read, their rows are marked lost and partial, and the other
 * PMUs go on (session.c fails the read once nothing counts any more). Any
 * other error is the read's, and fails it whole.
 */
static bool gone(ssize_t err)
{
	return err == -ENODEV || err == -ENXIO || err == -EIO;
}

static void lose_unit(struct pm_session *s, const struct pm_read_unit *ru, int err)
{
	const char *device = s->l->inst[s->c[s->ru_idx[ru->first]].inst].device;
	/* a PMU with one read unit per CPU domain goes away in all of them: say it once */
	bool said = s->failed_device && !strcmp(s->failed_device, device);

	for (size_t m = 0; m < ru->n; m++) {
		struct pm_counter *c = &s->c[s->ru_idx[ru->first + m]];

		c->lost = true;
		c->cur = c->last_good;
	}
	s->lost_err = err;
	s->failed_device = device;
	if (!said)
		pm_log(s->ctx, PM_LOG_WARN,
		       "%s went away (%s): its events are not counted from now on (their counts stop at "
		       "the last good read); %s",
		       device, strerror(-err), pm_session__rest(s));
}

/*
 * A read of a counter the kernel multiplexed goes to its track (made at the
 * first such read): the increments since its last read, which the spread
 * of its error is measured on (estimate.h). Gauges are not scaled, so not
 * tracked.
 */
static void track(struct pm_session *s, struct pm_counter *c, const struct pm_reading *old,
		  uint64_t now)
{
	uint64_t ena = c->last_good.ena - old->ena, run = c->last_good.run - old->run;

	if (!c->track) {
		if (run >= ena || s->l->ev[c->event].snapshot)
			return;
		c->track = pm_track__new(PM_TRACK_INTERLEAVED, s->t_enable_ns);
		if (!c->track)
			return; /* out of memory: its rows say the spread was not measured */
		((struct perf_state *)s->state[PM_SRC_PERF])->tracked = true;
	}
	pm_track__segment(c->track, now, ena, run, c->last_good.val - old->val);
}

/* Does a read unit hold a counter the kernel multiplexed? */
static bool unit_tracked(const struct pm_session *s, const struct pm_read_unit *ru)
{
	for (size_t m = 0; m < ru->n; m++)
		if (s->c[s->ru_idx[ru->first + m]].track)
			return true;
	return false;
}

/* Member m's reading as the kernel gave it in a read unit's buffer. */
static struct pm_reading raw_reading(const struct pm_read_unit *ru, const uint64_t *buf, size_t m)
{
	return ru->group ? (struct pm_reading){ buf[3 + m], buf[1], buf[2] } :
			   (struct pm_reading){ buf[0], buf[1], buf[2] };
}

/* Does a read unit hold a counter of an event counted in a cgroup? */
static bool unit_cgroup(const struct pm_session *s, const struct pm_read_unit *ru)
{
	for (size_t m = 0; m < ru->n; m++)
		if (s->l->ev[s->c[s->ru_idx[ru->first + m]].event].cgroup)
			return true;
	return false;
}

/*
 * A stale cgroup clock (docs/kernel-facts.md 0.6): the CPU's first cgroup event the
 * kernel enables runs on its cgroup's clock, which has not run since the cgroup was
 * last counted on that CPU, and the clock's first update after the enable adds that
 * whole idle spell to the event's enabled and running times (seconds, or hours: the
 * end of the last session that counted it). After every enable, once the clocks are
 * up to date (cgroup_clocks_touch), and after every disable (!enabled), each read unit
 * with a cgroup event is read once: after an enable, what the kernel added since the
 * last disable (or since it was opened: the spell, and the few microseconds since the
 * enable) goes into the counters' base, which their reads are taken from, so the
 * session's intervals and totals count from the enable as the others' do. Not a read
 * of the session's: last_good and cur stay. A unit that fails with its PMU gone is
 * left to the next read; any other failure is returned.
 */
static int cgroup_rebase(struct pm_session *s, bool enabled)
{
	struct perf_state *st = s->state[PM_SRC_PERF];
	uint64_t *buf = s->readbuf;

	for (size_t u = 0; st && u < s->n_ru; u++) {
		const struct pm_read_unit *ru = &s->ru[u];
		size_t want = ru->group ? 3 + ru->n : 3;
		ssize_t n;

		if (!unit_cgroup(s, ru) || s->c[s->ru_idx[ru->first]].lost)
			continue;
		if (!st->base) {
			st->base = calloc(s->n_c, sizeof(*st->base));
			st->off = calloc(s->n_c, sizeof(*st->off));
			if (!st->base || !st->off)
				return -ENOMEM;
		}
		n = s->ctx->ops->read(s->ctx->os, ru->fd, buf, want * sizeof(uint64_t));
		if (gone(n))
			continue;
		if (n < 0)
			return (int)n;
		if ((size_t)n != want * sizeof(uint64_t) || (ru->group && buf[0] != ru->n))
			continue; /* the next read says what is wrong */
		for (size_t m = 0; m < ru->n; m++) {
			size_t k = s->ru_idx[ru->first + m];
			struct pm_reading now = raw_reading(ru, buf, m);

			if (!enabled) {
				st->off[k] = now;
				continue;
			}
			st->base[k].val += now.val - st->off[k].val;
			st->base[k].ena += now.ena - st->off[k].ena;
			st->base[k].run += now.run - st->off[k].run;
		}
	}
	return 0;
}

/*
 * A read brings a stale cgroup clock up to date only while the kernel marks it active
 * (kernel-facts.md 0.6); one it does not (a cgroup switched away from last, or not
 * counted since boot) waits for the CPU's next cgroup switch, or an event installed or
 * removed there (__perf_install_in_context: ctx_time_freeze; __perf_remove_from_context:
 * ctx_time_update). So after enabling, on each CPU with a cgroup counter, a software
 * dummy (which counts nothing) is opened enabled, so installed through that CPU, and
 * closed: the rebase read then finds the spell added. 0, or -ENOMEM; a dummy the kernel
 * refuses leaves that CPU's clock to the read (right while active) or its next switch.
 */
static int cgroup_clocks_touch(struct pm_session *s)
{
	struct perf_event_attr attr = { .type = PERF_TYPE_SOFTWARE,
					.size = sizeof(attr),
					.config = PERF_COUNT_SW_DUMMY,
					.exclude_kernel = 1,
					.exclude_hv = 1 };
	int max = -1;
	bool *done;

	for (size_t k = 0; k < s->n_c; k++)
		if (s->c[k].fd >= 0 && s->l->ev[s->c[k].event].cgroup)
			max = PM_MAX(max, s->c[k].cpu);
	if (max < 0)
		return 0;
	done = calloc((size_t)max + 1, sizeof(*done));
	if (!done)
		return -ENOMEM;
	for (size_t k = 0; k < s->n_c; k++) {
		const struct pm_counter *c = &s->c[k];
		int fd;

		if (c->fd < 0 || !s->l->ev[c->event].cgroup || c->cpu < 0 || c->lost ||
		    done[c->cpu])
			continue;
		done[c->cpu] = true;
		fd = s->ctx->ops->perf_open(s->ctx->os, &attr, -1, c->cpu, -1, 0);
		if (fd >= 0)
			s->ctx->ops->close(s->ctx->os, fd);
	}
	free(done);
	return 0;
}

/*
 * Read every counter into last_good (and cur too when publish); only the
 * read units with a multiplexed counter when tracked_only.
 */
static int read_all(struct pm_session *s, bool publish, bool tracked_only)
{
	const struct pm_os_ops *ops = s->ctx->ops;
	uint64_t *buf = s->readbuf, now = ops->mono_ns(s->ctx->os);
	struct perf_state *st = s->state[PM_SRC_PERF];
	size_t n_tracked = 0;
	int r;

	if (st && st->bpf && !tracked_only) {
		r = pm_perf_bpf__read(s, st->bpf, publish);
		if (r < 0)
			return r;
	}
	for (size_t u = 0; u < s->n_ru; u++) {
		const struct pm_read_unit *ru = &s->ru[u];
		size_t want = ru->group ? 3 + ru->n : 3;
		ssize_t n;

		if (s->c[s->ru_idx[ru->first]].lost)
			continue; /* its PMU went away: nothing more to read */
		if (tracked_only && !unit_tracked(s, ru))
			continue;
		n = ops->read(s->ctx->os, ru->fd, buf, want * sizeof(uint64_t));
		if (gone(n)) {
			lose_unit(s, ru, (int)n);
			continue;
		}
		if (n < 0) {
			s->failed_device = s->l->inst[s->c[s->ru_idx[ru->first]].inst].device;
			return (int)n;
		}
		if ((size_t)n != want * sizeof(uint64_t) || (ru->group && buf[0] != ru->n)) {
			s->failed_device = s->l->inst[s->c[s->ru_idx[ru->first]].inst].device;
			pm_session__fail(s, "check dmesg",
					 "reading PMU %s: the kernel returned a short or "
					 "inconsistent read (%zd bytes)",
					 s->failed_device, n);
			return -EIO;
		}
		for (size_t m = 0; m < ru->n; m++) {
			struct pm_counter *c = &s->c[s->ru_idx[ru->first + m]];
			struct pm_reading old = c->last_good;

			c->last_good = raw_reading(ru, buf, m);
			if (st && st->base) {
				const struct pm_reading *b = &st->base[s->ru_idx[ru->first + m]];

				c->last_good.val -= b->val;
				c->last_good.ena -= b->ena;
				c->last_good.run -= b->run;
			}
			if (publish)
				c->cur = c->last_good;
			track(s, c, &old, now);
		}
		n_tracked += unit_tracked(s, ru);
	}
	if (st)
		st->n_tracked = n_tracked;
	return 0;
}

/*
 * The reads that measure a multiplexed counter's error: one per read unit
 * with such a counter every SUBREAD_NS on average, at times drawn from
 * [0.75, 1.25] x the period so that they do not follow the kernel's
 * rotation (whose wander of running time they measure: estimate.h). With
 * -I 1000, 9 more reads of those units per interval; none of the others.
 * Their cost is bounded: at most SUBREAD_MAX reads a second in all (the
 * period grows with the units to read beyond SUBREAD_MAX / 10; the
 * intervals then widen where traffic changes between reads).
 * docs/bounds.md has what a read costs.
 */
#define SUBREAD_NS 100000000ull
#define SUBREAD_MAX 1000

static void next_subread(struct perf_state *st, uint64_t now)
{
	uint64_t period = PM_MAX(SUBREAD_NS, (uint64_t)st->n_tracked * 1000000000ull / SUBREAD_MAX);

	/* xorshift64: the same times on every run of a simulation */
	st->jitter ^= st->jitter << 13;
	st->jitter ^= st->jitter >> 7;
	st->jitter ^= st->jitter << 17;
	st->sub_ns = now + period * 3 / 4 + st->jitter % (period / 2);
}

static int perf_read(struct pm_session *s)
{
	struct perf_state *st = s->state[PM_SRC_PERF];
	int r = read_all(s, true, false);

	if (st) {
		st->probe = false; /* this read looked at every counter */
		next_subread(st, s->ctx->ops->mono_ns(s->ctx->os));
	}
	return r;
}

/*
 * Checkpoints: between reports (all of them, without -I) the counters are
 * read at least every PERF_CHECKPOINT_NS into last_good only, so that a PMU
 * that goes away keeps its counts up to the last checkpoint, and the totals
 * are the same whether or not intervals were read. One read per read unit
 * per second; none while reports come more often.
 */
#define PERF_CHECKPOINT_NS 1000000000ull

static uint64_t checkpoint_due(const struct pm_session *s, const struct perf_state *st)
{
	return PM_MAX(s->t_now_ns, st->polled_ns) +
	       (s->opts.checkpoint_ns ? s->opts.checkpoint_ns : PERF_CHECKPOINT_NS);
}

static uint64_t perf_next_poll(const struct pm_session *s)
{
	const struct perf_state *st = s->state[PM_SRC_PERF];

	if ((!s->n_ru && !(st && st->bpf)) || !st)
		return UINT64_MAX;
	return st->tracked || st->probe ? PM_MIN(checkpoint_due(s, st), st->sub_ns) :
					  checkpoint_due(s, st);
}

static int perf_poll(struct pm_session *s)
{
	struct perf_state *st = s->state[PM_SRC_PERF];
	uint64_t now = s->ctx->ops->mono_ns(s->ctx->os);
	int r = 0;

	if (!st || (!s->n_ru && !st->bpf) || now < perf_next_poll(s))
		return 0;
	if (now >= checkpoint_due(s, st)) {
		st->polled_ns = now;
		r = read_all(s, false, false);
	} else if (st->probe) {
		r = read_all(s, false, false); /* which counters does the kernel multiplex? */
	} else {
		r = read_all(s, false, true); /* a sub-read: the multiplexed units */
	}
	st->probe = false;
	next_subread(st, now);
	return r;
}

static void perf_close(struct pm_session *s)
{
	/* members before leaders, as perf does */
	struct perf_state *st = s->state[PM_SRC_PERF];

	if (st) {
		pm_perf_bpf__free(s, st->bpf);
		free(st->base);
		free(st->off);
	}
	for (size_t k = s->n_c; k-- > 0;)
		close_counter(s, &s->c[k]);
	free(s->state[PM_SRC_PERF]);
	s->state[PM_SRC_PERF] = NULL;
}

/* perf has no claims: it counts whatever no other source claims. */
const struct pm_source_ops pm_source_perf = {
	.origin = PM_SOURCE_LIVE,
	.cgroups = true,	/* the cgroup's directory fd as pid, PERF_FLAG_PID_CGROUP */
	.batch_sw_reads = true, /* software-context events in read groups pmumon makes */
	.shadow = PM_SOURCE_SHADOW_ATTR,
	.discover = pm_perf__discover,
	.next_poll = perf_next_poll,
	.poll = perf_poll,
	.open = perf_open,
	.enable = perf_enable,
	.disable = perf_disable,
	.read = perf_read,
	.close = perf_close,
	.present = pm_perf__present,
};

/*
 * Whether the kernel opens an event for the calling task, as perf list asks
 * before it lists a hardware, software or cache event (print-events.c
 * is_event_supported: the event on thread 0 of this process, disabled, and
 * again with exclude_kernel when the paranoid setting refuses the kernel).
 * An event a source of pmumon's own counts (msr, hwmon) is countable; a spec
 * that does not resolve is -EINVAL.
 */
int pm_ctx__event_supported(struct pm_ctx *ctx, const char *spec)
{
	struct pm_evlist *l = NULL;
	int r;

	if (!ctx || !spec)
		return -EINVAL;
	r = pm_evlist__new(ctx, &l);
	if (r < 0)
		return r;
	r = pm_evlist__add(l, spec, NULL) < 0 ? -EINVAL : 1;
	for (size_t i = 0; r == 1 && i < l->n_inst; i++) {
		struct perf_event_attr attr = l->inst[i].attr;
		const struct pm_pmu *p = l->inst[i].pmu;
		int fd;

		if (p && (p->source != PM_SRC_PERF || p->cpuless))
			continue;
		if (!ctx->ops->perf_open)
			r = 0;
		attr.disabled = 1;
		fd = r ? ctx->ops->perf_open(ctx->os, &attr, 0, -1, -1, 0) : -ENOSYS;
		if (fd < 0 && r) {
			attr.exclude_kernel = 1;
			fd = ctx->ops->perf_open(ctx->os, &attr, 0, -1, -1, 0);
		}
		if (fd >= 0)
			ctx->ops->close(ctx->os, fd);
		else
			r = 0;
	}
	pm_evlist__free(l);
	return r;
}
