// SPDX-License-Identifier: GPL-2.0-only
/*
 * pmumon doctor (docs/doctor.md): what this machine can count and, for what
 * it cannot, why and the fix. Every check reads files through the os seam
 * (so each runs on the simulator too); nothing is programmed, and no
 * counter is opened: another tool counting meanwhile is not disturbed.
 * The rules it applies are in docs/kernel-facts.md 0.5.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "db/pack.h"
#include "pmu.h"
#include "source/perf/perf.h"
#include "source/source.h"
#include "topo.h"
#include "util/util.h"

#define CAP_SYS_ADMIN 21 /* include/uapi/linux/capability.h */
#define CAP_PERFMON 38

struct findings {
	struct pm_finding *f;
	size_t n, cap;
	int err;
};

static void add(struct findings *fs, enum pm_verdict v, const char *topic, const char *fix,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void add(struct findings *fs, enum pm_verdict v, const char *topic, const char *fix,
		const char *fmt, ...)
{
	struct pm_finding *f;
	va_list ap;

	if (fs->err || pm_grow((void **)&fs->f, &fs->cap, fs->n + 1, sizeof(*f)) < 0) {
		fs->err = -ENOMEM;
		return;
	}
	f = &fs->f[fs->n++];
	*f = (struct pm_finding){ .verdict = v };
	snprintf(f->topic, sizeof(f->topic), "%s", topic);
	snprintf(f->fix, sizeof(f->fix), "%s", fix ? fix : "");
	f->fix_at = -1;
	va_start(ap, fmt);
	vsnprintf(f->what, sizeof(f->what), fmt, ap);
	va_end(ap);
}

/* The last finding's fix ends with the reason's words (fix ends with its connector). */
static void add_reason(struct findings *fs, enum pm_reason reason, const char *subject)
{
	struct pm_finding *f = fs->err || !fs->n ? NULL : &fs->f[fs->n - 1];

	if (!f || reason == PM_REASON_NONE)
		return;
	f->reason = reason;
	snprintf(f->subject, sizeof(f->subject), "%s", subject ? subject : "");
	f->fix_at = pm_reason_append(f->fix, sizeof(f->fix), reason, subject);
}

/* ---- who pmumon runs as ------------------------------------------------------------ */

static bool has_cap(const struct pm_doctor_who *w, int cap)
{
	return pm_doctor_who__has(w, cap);
}

static bool perfmon(const struct pm_doctor_who *w)
{
	return has_cap(w, CAP_PERFMON) || has_cap(w, CAP_SYS_ADMIN);
}

/* The second field of "Uid:" and the hex "CapEff:" of /proc/self/status. */
static struct pm_doctor_who read_who(struct pm_ctx *ctx)
{
	struct pm_doctor_who w = { .uid = -1 };
	char buf[4096], *s;

	if (pm_read_file(ctx, "proc/self/status", buf, sizeof(buf)) < 0)
		return w;
	s = strstr(buf, "\nUid:");
	if (s && sscanf(s + 5, "%*d %ld", &w.uid) != 1)
		w.uid = -1;
	s = strstr(buf, "\nCapEff:");
	w.caps_known = s && sscanf(s + 8, "%" SCNx64, &w.caps) == 1;
	return w;
}

/* Docker's and podman's marks (/.dockerenv, /run/.containerenv). */
static bool in_container(struct pm_ctx *ctx)
{
	return pm_path_exists(ctx, ".dockerenv") || pm_path_exists(ctx, "run/.containerenv");
}

static void privileges(struct pm_ctx *ctx, const struct pm_doctor_who *w, bool container,
		       struct findings *fs)
{
	const char *where = container ? " in a container" : "";
	int paranoid;

	if (w->uid == 0)
		add(fs, PM_VERDICT_OK, "user", NULL, "running as root%s", where);
	else if (perfmon(w))
		add(fs, PM_VERDICT_OK, "user", NULL, "running as uid %ld with %s%s", w->uid,
		    has_cap(w, CAP_PERFMON) ? "CAP_PERFMON" : "CAP_SYS_ADMIN", where);
	else if (w->uid > 0)
		add(fs, PM_VERDICT_OK, "user", NULL,
		    "running as uid %ld without CAP_PERFMON or CAP_SYS_ADMIN%s", w->uid, where);
	if (pm_perf__paranoid(ctx, &paranoid) < 0) {
		add(fs, PM_VERDICT_WARNING, "perf", "check that /proc is mounted",
		    "cannot read /proc/sys/kernel/perf_event_paranoid");
		return;
	}
	if (perfmon(w) || paranoid <= 0)
		add(fs, PM_VERDICT_OK, "perf", NULL,
		    "perf_event_paranoid is %d: %s may count system-wide, uncore PMUs included",
		    paranoid, perfmon(w) ? "this user" : "every user");
	else
		add(fs, PM_VERDICT_PROBLEM, "perf",
		    /* in a container the sysctl is the host's, and a file capability cannot
		     * exceed the container's bounding set: the capability comes at its start */
		    container ?
			    "start the container with CAP_PERFMON (docker, podman: --cap-add "
			    "PERFMON; Kubernetes: securityContext.capabilities.add: [PERFMON]), or "
			    "on the host allow every user: sysctl -w "
			    "kernel.perf_event_paranoid=0 (a container cannot set it)" :
			    "run as root, or give pmumon CAP_PERFMON (setcap cap_perfmon+ep on "
			    "its binary; AmbientCapabilities=CAP_PERFMON in a unit), or allow "
			    "every user: sysctl -w kernel.perf_event_paranoid=0",
		    "perf_event_paranoid is %d and this user lacks CAP_PERFMON: no system-wide or "
		    "uncore counting%s",
		    paranoid,
		    paranoid > 2 ? ", and this kernel refuses unprivileged perf altogether" :
		    paranoid > 1 ? ", nor of the kernel" :
				   "");
}

/*
 * perf_event_open at all: a software clock of this process, user space only,
 * opened disabled and closed (no hardware counter is touched). What the
 * paranoid level allows, a seccomp profile, SELinux or a kernel without
 * perf events may still refuse.
 */
static void perf_works(struct pm_ctx *ctx, struct findings *fs)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE,
				     .size = sizeof(a),
				     .config = PERF_COUNT_SW_TASK_CLOCK,
				     .disabled = 1,
				     .exclude_kernel = 1,
				     .exclude_hv = 1 };
	int fd = ctx->ops->perf_open(ctx->os, &a, 0, -1, -1, 0);

	if (fd >= 0) {
		ctx->ops->close(ctx->os, fd);
		return;
	}
	add(fs, PM_VERDICT_PROBLEM, "perf",
	    "in a container, allow the system call (docker: --security-opt seccomp=PROFILE "
	    "with perf_event_open, or --privileged); check the audit log for SELinux denials",
	    "perf_event_open is refused even for this process's own clock (%s): a seccomp "
	    "profile, SELinux, or a kernel without perf events",
	    strerror(-fd));
}

/* "none [integrity] confidentiality": the bracketed one, "" unknown. */
static void lockdown(struct pm_ctx *ctx, struct findings *fs)
{
	char buf[128], *open, *close;

	if (pm_read_file(ctx, "sys/kernel/security/lockdown", buf, sizeof(buf)) < 0)
		return; /* no lockdown LSM: nothing locked */
	open = strchr(buf, '[');
	close = open ? strchr(open, ']') : NULL;
	if (!close)
		return;
	*close = '\0';
	if (!strcmp(open + 1, "none"))
		add(fs, PM_VERDICT_OK, "lockdown", NULL, "kernel lockdown is off");
	else
		add(fs, PM_VERDICT_WARNING, "lockdown",
		    "count through perf PMUs (amd_uncore rather than the msr source); lockdown "
		    "lasts until a reboot without it (Secure Boot turns it on)",
		    "kernel lockdown is '%s': writes to MSRs, debugfs and PCI config space are "
		    "refused, so the msr and sideband sources cannot program counters",
		    open + 1);
}

/* ---- drivers ----------------------------------------------------------------------- */

/* Is the kernel module loaded (or built in with parameters): /sys/module/NAME? */
static bool module_loaded(struct pm_ctx *ctx, const char *module)
{
	char dir[160];

	snprintf(dir, sizeof(dir), "sys/module/%s", module);
	return pm_path_exists(ctx, dir);
}

/* Does a modules list (modules.dep, modules.builtin) have file, compressed or not? */
static bool module_listed(struct pm_ctx *ctx, const char *list, const char *file)
{
	const struct pm_os_ops *ops = ctx->ops;
	size_t n = strlen(file), have = 0;
	char buf[8192 + 256];
	bool found = false;
	int fd = ops->open(ctx->os, list, 0); /* O_RDONLY */

	if (fd < 0)
		return false;
	for (;;) {
		ssize_t got = ops->read(ctx->os, fd, buf + have, sizeof(buf) - 1 - have);
		char *line = buf, *nl;

		if (got <= 0)
			break;
		have += (size_t)got;
		buf[have] = '\0';
		while (!found && (nl = strchr(line, '\n'))) {
			/* "kernel/.../msr.ko: deps", or "msr.ko.xz:", "msr.ko.zst:" */
			found = !strncmp(line, file, n) && strchr(":.\n", line[n]);
			line = nl + 1;
		}
		if (found)
			break;
		have -= (size_t)(line - buf);
		memmove(buf, line, have);
		if (have > sizeof(buf) / 2)
			have = 0; /* a line longer than any module path: not one */
	}
	ops->close(ctx->os, fd);
	return found;
}

static void drivers(struct pm_ctx *ctx, bool vm, struct findings *fs)
{
	char rel[128], dep[256], builtin[256];
	bool have_rel = pm_read_file(ctx, "proc/sys/kernel/osrelease", rel, sizeof(rel)) > 0;

	snprintf(dep, sizeof(dep), "lib/modules/%s/modules.dep", have_rel ? rel : "?");
	snprintf(builtin, sizeof(builtin), "lib/modules/%s/modules.builtin", have_rel ? rel : "?");
	for (size_t i = 0; pm_db__driver(ctx->db, i); i++) {
		const struct pm_driver_def *d = pm_db__driver(ctx->db, i);
		bool loaded = module_loaded(ctx, d->module), built_in;
		bool alt = d->alt && module_loaded(ctx, d->alt);
		enum pm_verdict missing;
		char fix[320], other[96] = "";

		if (alt)
			snprintf(other, sizeof(other),
				 "; pmumon counts the same through %s instead", d->alt);
		/* another module may do the same */
		missing = alt ? PM_VERDICT_WARNING : PM_VERDICT_PROBLEM;
		built_in = !loaded && module_listed(ctx, builtin, d->file);
		if (loaded || built_in) {
			add(fs, PM_VERDICT_OK, "driver", NULL, "%s is %s: %s", d->module,
			    loaded ? "loaded" : "built in", d->gives ? d->gives : d->config);
		} else if (vm) {
			/* a guest is given no uncore counters: loading it there gives nothing */
			add(fs, PM_VERDICT_OK, "driver", NULL,
			    "%s is not loaded, and would give nothing here (%s): a virtual machine "
			    "is not given those counters; count on the host",
			    d->module, d->gives ? d->gives : d->config);
		} else if (module_listed(ctx, dep, d->file)) {
			snprintf(fix, sizeof(fix),
				 "modprobe %s (and list it in /etc/modules to load "
				 "it at boot)",
				 d->module);
			add(fs, missing, "driver", fix,
			    "%s is not loaded (this kernel has it as a module); it gives %s%s",
			    d->module, d->gives ? d->gives : d->config, other);
		} else {
			snprintf(fix, sizeof(fix), "boot a kernel built with %s=m or =y",
				 d->config);
			add(fs, missing, "driver", fix,
			    "%s is not in this kernel (%s); it gives %s%s", d->module,
			    have_rel ? "neither loaded, built in, nor in modules.dep" :
				       "and /proc/sys/kernel/osrelease is unreadable",
			    d->gives ? d->gives : d->config, other);
		}
		if ((loaded || built_in) && d->path && !pm_path_exists(ctx, d->path)) {
			struct pm_names names = { 0 };
			bool debugfs = pm_str_has_prefix(d->path, "sys/kernel/debug/") &&
				       (pm_list_names(ctx, "sys/kernel/debug", false, NULL,
						      &names) < 0 ||
					names.n == 0);

			pm_names__done(&names);
			if (debugfs)
				snprintf(fix, sizeof(fix),
					 "mount -t debugfs none /sys/kernel/debug "
					 "(as root)");
			else
				snprintf(fix, sizeof(fix), "boot a kernel built with %s=y",
					 d->path_config ? d->path_config : d->config);
			add(fs, PM_VERDICT_PROBLEM, "driver", fix, "no /%s: %s", d->path,
			    debugfs ? "debugfs is not mounted (or not readable by this user)" :
				      "the driver is loaded without it");
		}
	}
	if (!pm_db__driver(ctx->db, 0))
		add(fs, PM_VERDICT_OK, "driver", NULL,
		    "no platform pack names a driver for this machine (packs: %s)",
		    pm_db__matched_names(ctx->db)[0] ? pm_db__matched_names(ctx->db) : "none");
}

/* ---- where it runs ----------------------------------------------------------------- */

static bool core_pmu(struct pm_ctx *ctx, char *name, size_t size)
{
	for (size_t i = 0; i < ctx->n_pmus; i++) {
		const struct pm_pmu *p = ctx->pmus[i];

		/* the kernel's core PMUs: x86's "cpu" (cpu_core, cpu_atom on hybrids), arm64's
		 * armv8_* */
		if (!strcmp(p->name, "cpu") || pm_str_has_prefix(p->name, "cpu_") ||
		    pm_str_has_prefix(p->name, "armv8_")) {
			snprintf(name, size, "%s", p->name);
			return true;
		}
	}
	return false;
}

/* x86's CPUID hypervisor bit, as the kernel lists it in each processor's flags. */
static bool virtual_machine(struct pm_ctx *ctx)
{
	char *info = malloc(65536);
	bool vm = false;

	if (info && pm_read_prefix(ctx, "proc/cpuinfo", info, 65536) > 0) {
		const char *f = strstr(info, "\nflags"), *h = f ? strstr(f, " hypervisor") : NULL;
		const char *end = f ? strchr(f + 1, '\n') : NULL;

		vm = h && (!end || h < end);
	}
	free(info);
	return vm;
}

/* Does a PMU of source i count here? */
static bool has_pmus_of(struct pm_ctx *ctx, size_t i)
{
	for (size_t k = 0; k < ctx->n_pmus; k++)
		if (ctx->pmus[k]->source == i)
			return true;
	return false;
}

/* One more thing a read-only /sys keeps from counting, said once, joined by ", and ". */
static void need(char *buf, size_t size, const char *what)
{
	size_t len = strlen(buf);

	if (!strstr(buf, what))
		snprintf(buf + len, size - len, "%s%s", len ? ", and " : "", what);
}

/* What a read-only /sys keeps this machine from counting: what each source with PMUs
 * here says it needs (pm_source_ops.needs_writable_sys: hwmon PMUs are programmed by
 * writing their files, the sideband's are debugfs files), and the packs' drivers under
 * debugfs. false when nothing needs it. */
static bool needs_sys_writable(struct pm_ctx *ctx, char *buf, size_t size)
{
	bool debugfs = false;

	buf[0] = '\0';
	for (size_t i = 0; i < pm_source__count(ctx); i++)
		if (pm_source__on(ctx, i) && pm_source__ops(ctx, i)->needs_writable_sys &&
		    has_pmus_of(ctx, i))
			need(buf, size, pm_source__ops(ctx, i)->needs_writable_sys);
	for (size_t i = 0; pm_db__driver(ctx->db, i); i++)
		debugfs |= pm_db__driver(ctx->db, i)->path &&
			   pm_str_has_prefix(pm_db__driver(ctx->db, i)->path, "sys/kernel/debug/");
	if (debugfs && !strstr(buf, "debugfs"))
		need(buf, size, "debugfs (the sideband) is absent");
	return buf[0] != '\0';
}

static void machine(struct pm_ctx *ctx, bool vm, bool container, struct findings *fs)
{
	char core[64] = "", buf[256], needs[160];
	bool has_core = core_pmu(ctx, core, sizeof(core));
	int watchdog = 0;

	if (vm && !has_core)
		add(fs, PM_VERDICT_PROBLEM, "machine",
		    "give the guest a virtual PMU (KVM/QEMU: -cpu host, pmu=on; libvirt: <pmu "
		    "state='on'/>; VMware: virtualize CPU performance counters), or count on the host",
		    "a virtual machine without a virtual PMU: no core events (cycles, "
		    "instructions); uncore PMUs are not passed to guests");
	else if (vm)
		add(fs, PM_VERDICT_WARNING, "machine",
		    "count memory, cache and link traffic on the host",
		    "a virtual machine with a virtual PMU (%s): core events count, uncore PMUs "
		    "(memory controllers, L3, fabric) are not passed to guests",
		    core);
	if (pm_read_file(ctx, "proc/sys/kernel/nmi_watchdog", buf, sizeof(buf)) >= 0)
		watchdog = atoi(buf);
	if (watchdog && has_core)
		add(fs, PM_VERDICT_WARNING, "watchdog",
		    "sysctl -w kernel.nmi_watchdog=0 while counting (as root), 1 to restore",
		    "the NMI watchdog holds one %s counter on every CPU: core event groups get one "
		    "counter fewer and may multiplex",
		    core);
	else if (watchdog)
		add(fs, PM_VERDICT_OK, "watchdog", NULL,
		    "the NMI watchdog is on, but there is no core PMU whose counter it could hold");
	if (pm_read_prefix(ctx, "proc/self/mountinfo", buf, sizeof(buf)) > 0) {
		const char *sys = strstr(buf, " /sys ");

		/* a problem only where this machine's counters need it writable: perf PMUs
		 * (Yitian 710, EPYC) count through a read-only /sys */
		if (sys && !strncmp(sys + 6, "ro", 2) && (sys[8] == ',' || sys[8] == ' ')) {
			if (needs_sys_writable(ctx, needs, sizeof(needs)))
				add(fs, PM_VERDICT_PROBLEM, "container",
				    "run it with /sys mounted read-write (docker: --privileged, or "
				    "-v /sys:/sys:rw)",
				    "/sys is mounted read-only%s: %s",
				    container ? " in a container" : "", needs);
			else
				add(fs, PM_VERDICT_OK, "container", NULL,
				    "/sys is mounted read-only%s: nothing this machine counts writes to "
				    "it (BlueField's hwmon and Merrifield's sideband would)",
				    container ? " in a container" : "");
		}
	}
}

/* ---- counters someone holds -------------------------------------------------------- */

/* pmumon's own locks (the sources' pm_source_ops.lock_path: msr, hwmon, sideband), in
 * /run/pmumon, and an older pmumon's in /run/lock (pmumon-NAME.lock, NAME the lock
 * file's): another pmumon holding one, or a lock pmumon will not trust. */
static void locks(struct pm_ctx *ctx, struct findings *fs)
{
	for (size_t i = 0; i < pm_source__count(ctx); i++) {
		const char *lock = pm_source__ops(ctx, i)->lock_path, *base;
		struct pm_lock_info info = { 0 };
		char path[128], old[128], pid[32] = "";
		int h = 0;

		if (!lock || !pm_source__on(ctx, i))
			continue;
		base = strrchr(lock, '/') ? strrchr(lock, '/') + 1 : lock;
		snprintf(path, sizeof(path), "%s", lock);
		snprintf(old, sizeof(old), "run/lock/pmumon-%.*s.lock", (int)(strcspn(base, ".")),
			 base);
		if (pm_path_exists(ctx, path)) { /* never made: nobody holds it */
			h = ctx->ops->lock(ctx->os, path, &info);
			if (h >= 0) {
				ctx->ops->unlock(ctx->os, h);
				h = 0;
			}
		}
		if (h == 0 && ctx->ops->lock_holder &&
		    ctx->ops->lock_holder(ctx->os, old, &info) == -EBUSY &&
		    (info.uid == 0 || info.uid == info.self)) {
			snprintf(path, sizeof(path), "%s", old); /* an older pmumon's */
			h = -EBUSY;
		}
		if (h == -EBUSY) {
			if (info.pid)
				snprintf(pid, sizeof(pid), " (pid %d)", (int)info.pid);
			add(fs, PM_VERDICT_PROBLEM, "counters",
			    "stop it, or read what it counts (its serve endpoint or recording)",
			    "another pmumon%s holds /%s: the counters it guards are in use", pid,
			    path);
		} else if (h == -EPERM) {
			add(fs, PM_VERDICT_PROBLEM, "counters",
			    "remove what is there (pmumon makes the directory, root's, mode 0755, "
			    "and its files)",
			    "pmumon will not trust %s /%s (made by another user, a link, or writable "
			    "by others): the %s source refuses to program counters",
			    info.dir ? "the lock directory of" : "the lock file", path,
			    pm_source__name(ctx, i));
		}
	}
}

/* A counter a source found in use (pm_source_ops.survey). */
static void in_use(void *ud, const char *what, const char *fix, enum pm_reason reason)
{
	add(ud, PM_VERDICT_WARNING, "counters", fix, "%s", what);
	add_reason(ud, reason, NULL);
}

/* Another finding of a source's (pm_source_ops.doctor). */
static void said(void *ud, enum pm_verdict v, const char *topic, const char *what, const char *fix,
		 enum pm_reason reason)
{
	add(ud, v, topic, fix, "%s", what);
	add_reason(ud, reason, NULL);
}

static void surveys(struct pm_ctx *ctx, struct findings *fs)
{
	for (size_t i = 0; i < pm_source__count(ctx); i++)
		if (pm_source__on(ctx, i) && pm_source__ops(ctx, i)->survey)
			pm_source__ops(ctx, i)->survey(ctx, in_use, fs);
}

/* What each source has to say of itself (the msr source: its devices' access and
 * allow_writes; the sideband: its programming list). */
static void sources(struct pm_ctx *ctx, const struct pm_doctor_who *w, struct findings *fs)
{
	for (size_t i = 0; i < pm_source__count(ctx); i++)
		if (pm_source__on(ctx, i) && pm_source__ops(ctx, i)->doctor)
			pm_source__ops(ctx, i)->doctor(ctx, w, said, fs);
}

/* ---- the packs' metrics ------------------------------------------------------------ */

/* The metrics one reason keeps from being computed here, said once with their names. */
struct blocked {
	char why[512], fix[512], names[200];
	size_t n;
	struct pm_diag d; /* the first metric's, for its reason */
};

static int block(struct blocked **b, size_t *n, size_t *cap, const struct pm_diag *d,
		 const char *name)
{
	struct blocked *x = NULL;
	size_t len;

	for (size_t i = 0; i < *n && !x; i++)
		if (!strcmp((*b)[i].why, d->msg))
			x = &(*b)[i];
	if (!x) {
		if (pm_grow((void **)b, cap, *n + 1, sizeof(**b)) < 0)
			return -ENOMEM;
		x = &(*b)[(*n)++];
		*x = (struct blocked){ 0 };
		snprintf(x->why, sizeof(x->why), "%s", d->msg);
		snprintf(x->fix, sizeof(x->fix), "%s", d->hint);
		x->d = *d;
	}
	len = strlen(x->names);
	if (x->n++ < 4)
		snprintf(x->names + len, sizeof(x->names) - len, "%s%s", len ? ", " : "", name);
	return 0;
}

/*
 * A metric that adds, yet needs a pack constant nothing defines: it would show as not
 * counted, which is no "can be computed here". True with *d saying so, the constant's
 * Note (where its value comes from) in the fix.
 */
static bool missing_constant(struct pm_ctx *ctx, const struct pm_evlist *l, struct pm_diag *d)
{
	const struct pm_constant_def *c = NULL;

	for (size_t i = 0; i < pm_evlist__note_count(l) && !c; i++) {
		const char *name = NULL;

		if (pm_evlist__note_reason(l, i, NULL, &name) == PM_REASON_NEEDS_DEFINE && name)
			c = pm_db__find_constant(ctx->db, name);
	}
	if (!c)
		return false;
	pm_diag_set(d, NULL, "they need '%s', which nothing defines: they show as not counted",
		    c->name);
	snprintf(d->hint, sizeof(d->hint), "'%s' is a constant no counter gives%s%s%s: ", c->name,
		 c->note ? " (" : "", c->note ? c->note : "", c->note ? ")" : "");
	pm_diag_reason(d, PM_REASON_NEEDS_DEFINE, NULL, c->name);
	return true;
}

/*
 * A core PMU ("cpu", "cpu_core", "armv8_*") a metric names that this machine does not
 * have: "run pmumon list pmus" is no fix; the machine's is (a virtual PMU for a guest).
 */
static void no_core_pmu(struct pm_ctx *ctx, bool vm, struct pm_diag *d)
{
	const char *at = strstr(d->msg, "unknown PMU '");
	char name[64] = "", tmp[64];

	if (!at || d->reason != PM_REASON_SEE_LIST || core_pmu(ctx, tmp, sizeof(tmp)))
		return;
	sscanf(at + 13, "%63[^']", name);
	if (strcmp(name, "cpu") && !pm_str_has_prefix(name, "cpu_") &&
	    !pm_str_has_prefix(name, "armv8_"))
		return;
	snprintf(d->hint, sizeof(d->hint), "%s",
		 vm ? "give the guest a virtual PMU (the 'machine' finding), or count on the host" :
		      "this machine's kernel lists no core PMU: check that perf events work (the "
		      "'perf' findings)");
	d->reason = PM_REASON_NONE;
	d->fix_at = -1;
}

/* One pack's metrics: computed here, blocked here (why), or never (the pack says why). */
static void pack_metrics(struct pm_ctx *ctx, const char *pack, bool vm, struct findings *fs)
{
	size_t ok = 0, never = 0, n_b = 0, cap_b = 0, blocked = 0;
	struct blocked *b = NULL;

	for (size_t i = 0; i < pm_ctx__metric_count(ctx); i++) {
		struct pm_metric_info m = { 0 };
		struct pm_evlist *l = NULL;
		struct pm_diag d = { 0 };

		if (pm_ctx__metric(ctx, i, &m) < 0 || strcmp(m.pack, pack) != 0)
			continue;
		if (m.unavailable) {
			never++;
			continue;
		}
		if (pm_evlist__new(ctx, &l) == 0 && pm_evlist__add_metrics(l, m.name, &d) == 0 &&
		    !missing_constant(ctx, l, &d))
			ok++;
		else {
			no_core_pmu(ctx, vm, &d);
			if (block(&b, &n_b, &cap_b, &d, m.name) < 0)
				fs->err = -ENOMEM;
			else
				blocked++;
		}
		pm_evlist__free(l);
	}
	for (size_t i = 0; i < n_b; i++) {
		/* the hint without the reason's words, which add_reason puts back */
		if (b[i].d.reason != PM_REASON_NONE && b[i].d.fix_at >= 0 &&
		    (size_t)b[i].d.fix_at < sizeof(b[i].fix))
			b[i].fix[b[i].d.fix_at] = '\0';
		add(fs, PM_VERDICT_WARNING, "metrics", b[i].fix, "%zu metric%s (%s%s): %s", b[i].n,
		    b[i].n == 1 ? "" : "s", b[i].names, b[i].n > 4 ? ", ..." : "", b[i].why);
		add_reason(fs, b[i].d.reason, b[i].d.subject);
	}
	free(b);
	add(fs, blocked ? PM_VERDICT_WARNING : PM_VERDICT_OK, "metrics", NULL,
	    "pack %s: %zu of %zu metrics can be computed here%s", pack, ok, ok + blocked + never,
	    never ? "; the rest no machine can (pmumon list metrics says why)" : "");
}

static void metrics(struct pm_ctx *ctx, bool vm, struct findings *fs)
{
	char done[256] = ",";

	for (size_t i = 0; i < pm_ctx__metric_count(ctx); i++) {
		struct pm_metric_info m = { 0 };
		char key[80];

		if (pm_ctx__metric(ctx, i, &m) < 0)
			continue;
		snprintf(key, sizeof(key), ",%s,", m.pack);
		if (strstr(done, key))
			continue;
		pack_metrics(ctx, m.pack, vm, fs);
		snprintf(done + strlen(done), sizeof(done) - strlen(done), "%s,", m.pack);
	}
	if (!pm_ctx__metric_count(ctx))
		add(fs, PM_VERDICT_OK, "metrics", NULL,
		    "no platform pack's metrics apply here: pmumon counts the PMUs sysfs lists "
		    "(pmumon list)");
}

int pm_ctx__doctor(struct pm_ctx *ctx, struct pm_finding **ret, size_t *ret_n)
{
	struct findings fs = { 0 };
	struct pm_doctor_who w;
	bool vm, container;

	if (!ctx || !ret || !ret_n)
		return -EINVAL;
	if (!ctx->ops)
		return -EOPNOTSUPP; /* no live machine (a recording's) to look at */
	if (!ctx->discovered) {
		int r = pm_ctx__discover(ctx);

		if (r < 0)
			return r;
	}
	w = read_who(ctx);
	vm = virtual_machine(ctx);
	container = in_container(ctx);
	privileges(ctx, &w, container, &fs);
	perf_works(ctx, &fs);
	lockdown(ctx, &fs);
	drivers(ctx, vm, &fs);
	sources(ctx, &w, &fs);
	machine(ctx, vm, container, &fs);
	locks(ctx, &fs);
	surveys(ctx, &fs);
	metrics(ctx, vm, &fs);
	if (fs.err) {
		free(fs.f);
		return fs.err;
	}
	*ret = fs.f;
	*ret_n = fs.n;
	return 0;
}
