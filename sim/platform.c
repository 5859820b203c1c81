// SPDX-License-Identifier: GPL-2.0-only
/*
 * Whole simulated machines: the --sim spec, the platform table, the
 * scenario each platform's counts derive from and its scheduled faults
 * (the helpers platform builders share are build.c's).
 */
#include "platform.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim-internal.h"
#include "util/util.h"

static const struct sim_platform *const platforms[] = {
	&sim_platform_yitian710,  &sim_platform_amdzen2,    &sim_platform_bluefield2,
	&sim_platform_bluefield3, &sim_platform_merrifield,
};

const char *pm_sim__platform_info(size_t i, const char **ret_summary)
{
	if (i >= PM_ARRAY_SIZE(platforms))
		return NULL;
	if (ret_summary)
		*ret_summary = platforms[i]->summary;
	return platforms[i]->name;
}

bool pm_sim__platform_quantity(const char *platform, size_t i, const char **ret_key,
			       const char **ret_unit, int *ret_instances, double *ret_default,
			       const char **ret_doc)
{
	for (size_t p = 0; p < PM_ARRAY_SIZE(platforms); p++) {
		const struct sim_quantity *q;

		if (strcmp(platforms[p]->name, platform) != 0)
			continue;
		if (i >= platforms[p]->n_quantities)
			return false;
		q = &platforms[p]->quantities[i];
		*ret_key = q->key;
		*ret_unit = q->unit;
		*ret_instances = PM_MAX(q->instances, 1);
		*ret_default = q->dflt;
		*ret_doc = q->doc;
		return true;
	}
	return false;
}

int pm_sim__truth2(const struct pm_sim *sim, const char *key_a, int inst_a, const char *key_b,
		   int inst_b, uint64_t t_ns, double *ret)
{
	int qa, qb;

	if (!sim->scn)
		return -ENOENT;
	qa = sim_scenario__find(sim->scn, key_a);
	qb = sim_scenario__find(sim->scn, key_b);
	if (qa < 0 || qb < 0 || inst_a < 0 || inst_b < 0 ||
	    inst_a >= PM_MAX(sim->plat->quantities[qa].instances, 1) ||
	    inst_b >= PM_MAX(sim->plat->quantities[qb].instances, 1))
		return -ENOENT;
	*ret = sim_scenario__integral2(sim->scn, qa, inst_a, qb, inst_b, t_ns);
	return 0;
}

const char *pm_sim__platform_name(const struct pm_sim *sim)
{
	return sim->plat ? sim->plat->name : NULL;
}

uint64_t pm_sim__scenario_start(const struct pm_sim *sim)
{
	return sim->scn_start_ns;
}

int pm_sim__truth(const struct pm_sim *sim, const char *key, int inst, uint64_t t_ns, double *ret)
{
	int q;

	if (!sim->scn)
		return -ENOENT;
	q = sim_scenario__find(sim->scn, key);
	if (q < 0 || inst < 0 || inst >= PM_MAX(sim->plat->quantities[q].instances, 1))
		return -ENOENT;
	*ret = sim_scenario__integral(sim->scn, q, inst, t_ns);
	return 0;
}

/*
 * What every platform's machine has besides its devices, as the options set
 * it (docs/simulator.md): the user's uid and capabilities in
 * /proc/self/status, kernel lockdown, the NMI watchdog (holding a counter of
 * the core PMU on every CPU), a container's marks (sysfs mounted read-only,
 * no debugfs), and the kernel's module lists.
 */
static int machine_settings(struct pm_sim *sim, const struct sim_platform_opts *o)
{
	char text[256];
	int r;

	snprintf(text, sizeof(text), "Name:\tpmumon\nUid:\t%u\t%u\t%u\t%u\nCapEff:\t%016llx\n",
		 (unsigned)sim->uid, (unsigned)sim->uid, (unsigned)sim->uid, (unsigned)sim->uid,
		 (unsigned long long)sim->caps);
	r = sim_writef(sim, text, "proc/self/status");
	/* "[none] integrity confidentiality", the active mode in brackets */
	snprintf(text, sizeof(text), "%s %s %s\n", !strcmp(o->lockdown, "none") ? "[none]" : "none",
		 !strcmp(o->lockdown, "integrity") ? "[integrity]" : "integrity",
		 !strcmp(o->lockdown, "confidentiality") ? "[confidentiality]" : "confidentiality");
	if (r == 0)
		r = sim_writef(sim, text, "sys/kernel/security/lockdown");
	if (r == 0)
		r = sim_writef(sim, o->watchdog ? "1\n" : "0\n", "proc/sys/kernel/nmi_watchdog");
	for (int c = 0; r == 0 && o->watchdog && c < sim->n_cpus; c++)
		pm_sim__steal_counters(sim, "cpu", c, 1); /* no core PMU: nothing to hold */
	snprintf(text, sizeof(text),
		 "22 1 0:21 / /sys %s,nosuid,nodev,noexec,relatime shared:7 - "
		 "sysfs sysfs %s\n"
		 "30 22 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - "
		 "cgroup2 cgroup2 rw,nsdelegate\n",
		 o->container ? "ro" : "rw", o->container ? "ro" : "rw");
	if (r == 0)
		r = sim_writef(sim, text, "proc/self/mountinfo");
	/* cgroups to count in (perf stat -G): the root and two of systemd's, whose tasks run
	 * half and a quarter of the time (sim.share) */
	if (r == 0)
		r = sim_writef(sim, "", "sys/fs/cgroup/system.slice/cgroup.procs");
	if (r == 0)
		r = sim_writef(sim, "0.5\n", "sys/fs/cgroup/system.slice/sim.share");
	if (r == 0)
		r = sim_writef(sim, "", "sys/fs/cgroup/user.slice/cgroup.procs");
	if (r == 0)
		r = sim_writef(sim, "0.25\n", "sys/fs/cgroup/user.slice/sim.share");
	if (r == 0 && o->container) {
		r = sim_writef(sim, "", ".dockerenv");
		if (r == 0 && sim_vfs__lookup(sim->vfs, "sys/kernel/debug"))
			r = sim_vfs__remove(sim->vfs, "sys/kernel/debug");
	}
	if (r == 0)
		r = sim_writef(sim, SIM_OSRELEASE "\n", "proc/sys/kernel/osrelease");
	/* running processes for perf stat -p/-t: init, and a daemon of three threads
	 * (SIM_DAEMON_PID and the two after it), neither of which ever exits */
	if (r == 0)
		r = sim_writef(sim, "init\n", "proc/1/task/1/comm");
	if (r == 0)
		r = sim_writef(sim, "1 (init) S 0\n", "proc/1/stat");
	for (int t = 0; r == 0 && t < 3; t++) {
		r = sim_writef(sim, "simd\n", "proc/%d/task/%d/comm", SIM_DAEMON_PID,
			       SIM_DAEMON_PID + t);
		if (r == 0)
			r = sim_writef(sim, "simd\n", "proc/%d/comm", SIM_DAEMON_PID + t);
		snprintf(text, sizeof(text), "%d (simd) S 1\n", SIM_DAEMON_PID + t);
		if (r == 0)
			r = sim_writef(sim, text, "proc/%d/stat", SIM_DAEMON_PID + t);
	}
	if (r == 0)
		r = sim_writef(sim, sim->kmods ? sim->kmods : "",
			       "lib/modules/" SIM_OSRELEASE "/modules.dep");
	if (r == 0)
		r = sim_writef(sim, "", "lib/modules/" SIM_OSRELEASE "/modules.builtin");
	return r;
}

/* ---- faults ------------------------------------------------------------------------- */

/* A fault's target names something on the machine as built: a typo fails at once. */
static int check_fault_target(struct pm_sim *sim, const struct sim_fault *f, const char *name,
			      char *err, size_t errsz)
{
	bool pmu = !strcmp(f->what, "open-error") || !strcmp(f->what, "steal");
	bool path = !strcmp(f->what, "error") || !strcmp(f->what, "poke") ||
		    !strcmp(f->what, "write");

	if ((!strcmp(f->what, "vanish") || !strcmp(f->what, "return")) &&
	    !sim_pmu_by_name(sim, f->arg[0]) && !sim_vfs__lookup(sim->vfs, f->arg[0])) {
		snprintf(err, errsz,
			 "%s:%d: '%s' names nothing on the simulated %s: neither a PMU (pmumon "
			 "--sim %s list pmus) nor a file (a path such as sys/class/hwmon/hwmon0)",
			 name, f->line, f->arg[0], sim->plat->name, sim->plat->name);
		return -EINVAL;
	}
	if (pmu && !sim_pmu_by_name(sim, f->arg[0])) {
		snprintf(err, errsz,
			 "%s:%d: no PMU '%s' on the simulated %s (pmumon --sim %s list pmus)", name,
			 f->line, f->arg[0], sim->plat->name, sim->plat->name);
		return -EINVAL;
	}
	if (!strcmp(f->what, "sideband") &&
	    !sim_vfs__lookup(sim->vfs, "sys/kernel/debug/iosf_sb/mcr")) {
		snprintf(err, errsz,
			 "%s:%d: the simulated %s has no sideband (iosf_sb): only merrifield has",
			 name, f->line, sim->plat->name);
		return -EINVAL;
	}
	if (path && !sim_vfs__lookup(sim->vfs, f->arg[0])) {
		snprintf(err, errsz,
			 "%s:%d: no file '%s' on the simulated %s (a path from its root, such as "
			 "dev/cpu/0/msr or sys/class/hwmon/hwmon0/event0)",
			 name, f->line, f->arg[0], sim->plat->name);
		return -EINVAL;
	}
	return 0;
}

/* "sideband PORT OPCODE OFFSET VALUE": the numbers, each in its range. */
static bool sideband_args(const struct sim_fault *f, uint32_t ret[4])
{
	static const uint64_t max[4] = { 0xff, 0xff, 0xffffffff, 0xffffffff };
	uint64_t v;

	for (int i = 0; i < 4; i++) {
		if (pm_parse_u64_str(f->arg[i], 0, &v) < 0 || v > max[i])
			return false;
		if (ret)
			ret[i] = (uint32_t)v;
	}
	return true;
}

/*
 * Another tool (or a pmumon that was killed) does a sideband transaction
 * through iosf_sb, as root would: mdr, mcrx (the offset's upper 24 bits),
 * then the command word to mcr, which fires it (merrifield.md §2).
 */
static void sideband_fault(struct pm_sim *sim, const struct sim_fault *f)
{
	static const char *const files[] = { "mdr", "mcrx", "mcr" };
	uint32_t a[4], v[3];

	if (!sideband_args(f, a))
		return;
	v[0] = a[3];
	v[1] = a[2] & 0xFFFFFF00u;
	v[2] = (a[1] << 24) | (a[0] << 16) | ((a[2] & 0xFF) << 8) | 0xF0u;
	for (size_t i = 0; i < PM_ARRAY_SIZE(files); i++) {
		char path[64], text[16];
		struct sim_node *node;

		snprintf(path, sizeof(path), "sys/kernel/debug/iosf_sb/%s", files[i]);
		node = sim_vfs__lookup(sim->vfs, path);
		if (!node)
			return;
		snprintf(text, sizeof(text), "0x%x\n", v[i]);
		sim_node__write(node, text, strlen(text), 0);
	}
}

static void run_fault(struct pm_sim *sim, const struct sim_fault *f)
{
	struct sim_pmu *p;
	char path[256];
	int n, cpu;
	uint64_t ns;

	if (!strcmp(f->what, "vanish")) {
		p = sim_pmu_by_name(sim, f->arg[0]);
		if (p) {
			/* a perf PMU goes away: its events fail, its sysfs entry is gone */
			pm_sim__pmu_presence(sim, f->arg[0], false);
			snprintf(path, sizeof(path), "sys/bus/event_source/devices/%s", f->arg[0]);
			sim_vfs__remove(sim->vfs, path);
		} else {
			sim_vfs__remove(sim->vfs, f->arg[0]);
		}
	} else if (!strcmp(f->what, "return")) {
		/* what vanished comes back: new opens work, files opened before stay gone */
		p = sim_pmu_by_name(sim, f->arg[0]);
		if (p) {
			pm_sim__pmu_presence(sim, f->arg[0], true);
			snprintf(path, sizeof(path), "sys/bus/event_source/devices/%s", f->arg[0]);
			sim_vfs__restore(sim->vfs, path);
		} else {
			sim_vfs__restore(sim->vfs, f->arg[0]);
		}
	} else if (!strcmp(f->what, "error")) {
		sim_vfs__set_error(sim->vfs, f->arg[0], -sim_fault_errno(f->arg[1]));
	} else if (!strcmp(f->what, "open-error")) {
		pm_sim__fail_next_open(sim, f->arg[0], -sim_fault_errno(f->arg[1]));
	} else if (!strcmp(f->what, "steal")) {
		if (pm_parse_int_str(f->arg[1], &cpu) == 0 && pm_parse_int_str(f->arg[2], &n) == 0)
			pm_sim__steal_counters(sim, f->arg[0], cpu, n);
	} else if (!strcmp(f->what, "poke") || !strcmp(f->what, "write")) {
		/* someone else writes a device file: another tool programs a counter */
		struct sim_node *node = sim_vfs__lookup(sim->vfs, f->arg[0]);
		uint64_t off = 0, v = 0;

		if (!node)
			return;
		if (!strcmp(f->what, "write")) {
			char text[160];

			snprintf(text, sizeof(text), "%s\n", f->arg[1]);
			sim_node__write(node, text, strlen(text), 0);
		} else if (pm_parse_u64_str(f->arg[1], 0, &off) == 0 &&
			   pm_parse_u64_str(f->arg[2], 0, &v) == 0) {
			sim_node__write(node, &v, sizeof(v), off); /* x86: little-endian */
		}
	} else if (!strcmp(f->what, "sideband")) {
		sideband_fault(sim, f);
	} else if (!strcmp(f->what, "freeze")) {
		/* the process was stopped: the clock jumps, counters kept counting */
		if (sim_parse_duration(f->arg[0], &ns) == 0 && !sim->real_clock)
			sim->now_ns += ns;
	}
}

static bool next_fault_ns(const struct pm_sim *sim, uint64_t *ret_ns)
{
	const struct sim_fault *f = sim->scn ? sim_scenario__fault(sim->scn, sim->next_fault) :
					       NULL;

	if (!f)
		return false;
	*ret_ns = sim->scn_start_ns + f->t_ns;
	return true;
}

static void run_faults(struct pm_sim *sim)
{
	size_t n = sim->scn ? sim_scenario__fault_count(sim->scn) : 0;

	if (sim->in_faults || sim->next_fault >= n)
		return;
	sim->in_faults = true;
	while (sim->next_fault < n) {
		const struct sim_fault *f = sim_scenario__fault(sim->scn, sim->next_fault);

		if (f->t_ns > sim_scn_now(sim))
			break;
		sim->next_fault++;
		run_fault(sim, f);
	}
	sim->in_faults = false;
}

/* ---- the state at the end ----------------------------------------------------------- */

struct state_walk {
	struct sim_vfs *vfs;
	FILE *f;
	char path[512];
};

/* Control files: what a tool programs and must put back (hwmon eventN, enable). */
static bool is_control(const char *name)
{
	return !strcmp(name, "enable") ||
	       (!strncmp(name, "event", 5) && name[5] >= '0' && name[5] <= '9');
}

static int state_child(const char *name, bool is_dir, void *ud)
{
	struct state_walk *w = ud;
	size_t len = strlen(w->path);
	struct sim_node *n;

	snprintf(w->path + len, sizeof(w->path) - len, "/%s", name);
	n = sim_vfs__lookup(w->vfs, w->path);
	if (n && is_dir) {
		sim_node__list(n, state_child, w);
	} else if (n && is_control(name)) {
		char buf[256];
		ssize_t got = sim_node__read(n, buf, sizeof(buf) - 1, 0);

		buf[got > 0 ? got : 0] = '\0';
		fprintf(w->f, "%s: %s%s", w->path, buf,
			got > 0 && buf[got - 1] == '\n' ? "" : "\n");
	}
	w->path[len] = '\0';
	return 0;
}

static void write_state(struct pm_sim *sim)
{
	struct state_walk w = { .vfs = sim->vfs };
	struct sim_node *root;

	if (!sim->state_path)
		return;
	w.f = fopen(sim->state_path, "w");
	if (!w.f) {
		fprintf(stderr, "pmumon: --sim state=%s: %s\n", sim->state_path, strerror(errno));
		return;
	}
	snprintf(w.path, sizeof(w.path), "sys/class/hwmon");
	root = sim_vfs__lookup(sim->vfs, w.path);
	if (root)
		sim_node__list(root, state_child, &w);
	if (sim->plat && sim->plat->state && sim->plat_data)
		sim->plat->state(sim->plat_data, w.f);
	fclose(w.f);
}

/* What the machine adds to the kernel's life: its faults and cgroups as time passes, and at
 * the end its state (--sim state=PATH), then its data and scenario freed. */
static void machine_free(struct pm_sim *sim)
{
	write_state(sim);
	free(sim->state_path);
	sim_cgroups_free(sim);
	if (sim->plat_free)
		sim->plat_free(sim->plat_data);
	sim_scenario__free(sim->scn);
}

static const struct sim_machine_ops machine_ops = {
	.run_faults = run_faults,
	.next_fault_ns = next_fault_ns,
	.free = machine_free,
	.cgroups_tick = sim_cgroups_tick,
	.cgroup_parts = sim_cgroups_parts,
};

/* ---- the spec ------------------------------------------------------------------------ */

struct spec {
	const struct sim_platform *plat;
	struct sim_platform_opts o;
	bool real_clock;
	const char *scenario_file;
	const char *state_path;
	bool has_seed;
	uint64_t seed;
};

static bool takes(const struct sim_platform *p, const char *key)
{
	size_t n = strlen(key);

	for (const char *s = p->options; s && *s;) {
		size_t l = strcspn(s, ",");

		if (l == n && !strncmp(s, key, n))
			return true;
		s += l + (s[l] == ',');
	}
	return false;
}

/* v as the one of names (NULL-terminated) it is, kept for after the spec is freed; NULL: none. */
static const char *one_of(const char *v, const char *const *names)
{
	for (; *names; names++)
		if (!strcmp(v, *names))
			return *names;
	return NULL;
}

static int parse_opt(struct spec *sp, char *kv, char *err, size_t errsz)
{
	char *eq = strchr(kv, '='), *v;
	int n;

	if (!eq) {
		snprintf(err, errsz, "--sim option '%s' is written KEY=VALUE", kv);
		return -EINVAL;
	}
	*eq = '\0';
	v = eq + 1;
	if (!strcmp(kv, "clock")) {
		if (strcmp(v, "real") && strcmp(v, "virtual")) {
			snprintf(err, errsz,
				 "--sim clock is 'virtual' (the default) or 'real', not '%s'", v);
			return -EINVAL;
		}
		sp->real_clock = !strcmp(v, "real");
		return 0;
	}
	if (!strcmp(kv, "scenario")) {
		sp->scenario_file = v;
		return 0;
	}
	if (!strcmp(kv, "state")) {
		sp->state_path = v;
		return 0;
	}
	if (!strcmp(kv, "seed")) {
		if (pm_parse_u64_str(v, 0, &sp->seed) < 0) {
			snprintf(err, errsz, "--sim seed wants a whole number, not '%s'", v);
			return -EINVAL;
		}
		sp->has_seed = true;
		return 0;
	}
	if (!strcmp(kv, "paranoid")) {
		if (pm_parse_int_str(v, &n) < 0 || n < -1 || n > 4) {
			snprintf(err, errsz,
				 "--sim paranoid=%s: kernel.perf_event_paranoid, -1 to 4", v);
			return -EINVAL;
		}
		sp->o.paranoid = n;
		return 0;
	}
	if (!strcmp(kv, "lockdown")) {
		static const char *const modes[] = { "none", "integrity", "confidentiality", NULL };

		sp->o.lockdown = one_of(v, modes);
		if (!sp->o.lockdown) {
			snprintf(err, errsz,
				 "--sim lockdown=%s: kernel lockdown is 'none' (default), 'integrity' "
				 "or 'confidentiality'",
				 v);
			return -EINVAL;
		}
		return 0;
	}
	if (!strcmp(kv, "kubelet")) {
		static const char *const drivers[] = { "systemd", "cgroupfs", NULL };

		sp->o.kubelet = one_of(v, drivers);
		if (!sp->o.kubelet) {
			snprintf(err, errsz,
				 "--sim kubelet=%s: the kubelet's cgroup driver is 'systemd' "
				 "(kubepods.slice) or 'cgroupfs' (kubepods)",
				 v);
			return -EINVAL;
		}
		return 0;
	}
	if (!strcmp(kv, "watchdog") || !strcmp(kv, "container")) {
		if (strcmp(v, "0") && strcmp(v, "1")) {
			snprintf(err, errsz, "--sim %s=%s: 0 or 1", kv, v);
			return -EINVAL;
		}
		*(!strcmp(kv, "watchdog") ? &sp->o.watchdog : &sp->o.container) = !strcmp(v, "1");
		return 0;
	}
	if (!takes(sp->plat, kv)) {
		/* every key it takes: the ones each platform takes, then its own */
		size_t off = (size_t)
			snprintf(err, errsz,
				 "--sim %s takes clock=, scenario=, seed=, state=, "
				 "paranoid=, lockdown=, watchdog=, container=, kubelet=",
				 sp->plat->name);

		for (const char *o = sp->plat->options; o && *o && off < errsz;) {
			size_t l = strcspn(o, ",");

			off += (size_t)snprintf(err + off, errsz - off, ", %.*s=", (int)l, o);
			o += l + (o[l] == ',');
		}
		if (off < errsz)
			snprintf(err + off, errsz - off, ", not '%s' (docs/simulator.md)", kv);
		return -EINVAL;
	}
	if (!strcmp(kv, "sockets") || !strcmp(kv, "channels")) {
		if (pm_parse_int_str(v, &n) < 0 || n < 1 || n > 2) {
			snprintf(err, errsz, "--sim %s=%s: %s is 1 or 2", kv, v, kv);
			return -EINVAL;
		}
		*(!strcmp(kv, "sockets") ? &sp->o.sockets : &sp->o.channels) = n;
		return 0;
	}
	if (!strcmp(kv, "msr")) {
		if (strcmp(v, "rw") && strcmp(v, "none") && strcmp(v, "noperm") &&
		    strcmp(v, "locked")) {
			snprintf(err, errsz,
				 "--sim msr=%s: the msr driver is 'rw' (loaded, writable), 'none' "
				 "(not loaded), 'noperm' (no access) or 'locked' (writes refused)",
				 v);
			return -EINVAL;
		}
		sp->o.msr = v;
		return 0;
	}
	if (!strcmp(kv, "uncore")) {
		if (strcmp(v, "perf") && strcmp(v, "none") && strcmp(v, "unloaded")) {
			snprintf(err, errsz,
				 "--sim uncore=%s: 'perf' (the kernel has amd_uncore, default), "
				 "'unloaded' (a module not loaded) or 'none' (the kernel lacks it): "
				 "without it, no amd_df, no amd_l3",
				 v);
			return -EINVAL;
		}
		sp->o.no_uncore = strcmp(v, "perf") != 0;
		sp->o.uncore_absent = !strcmp(v, "none");
		return 0;
	}
	if (!strcmp(kv, "user")) {
		static const char *const users[] = { "root", "nobody", "perfmon", NULL };

		sp->o.user = one_of(v, users);
		if (!sp->o.user) {
			snprintf(err, errsz,
				 "--sim user=%s: 'root' (default), 'nobody' (no capabilities) or "
				 "'perfmon' (uid 1000 with CAP_PERFMON)",
				 v);
			return -EINVAL;
		}
		sp->o.root = !strcmp(v, "root");
		return 0;
	}
	if (!strcmp(kv, "hypervisor")) {
		static const char *const kinds[] = { "none", "kvm", "kvm-nopmu", NULL };

		sp->o.hypervisor = one_of(v, kinds);
		if (!sp->o.hypervisor) {
			snprintf(err, errsz,
				 "--sim hypervisor=%s: 'none' (default), 'kvm' (a guest with a "
				 "virtual PMU) or 'kvm-nopmu' (without one)",
				 v);
			return -EINVAL;
		}
		return 0;
	}
	snprintf(err, errsz, "--sim option '%s' is not known", kv);
	return -EINVAL;
}

static int parse_spec(char *s, struct spec *sp, char *err, size_t errsz)
{
	char *colon = strchr(s, ':'), *save = NULL;

	if (colon)
		*colon = '\0';
	for (size_t i = 0; i < PM_ARRAY_SIZE(platforms); i++)
		if (!strcmp(platforms[i]->name, s))
			sp->plat = platforms[i];
	if (!sp->plat) {
		char known[256] = "";

		for (size_t i = 0; i < PM_ARRAY_SIZE(platforms); i++) {
			size_t l = strlen(known);

			snprintf(known + l, sizeof(known) - l, "%s%s", i ? ", " : "",
				 platforms[i]->name);
		}
		snprintf(err, errsz, "no simulated platform '%s'; there are: %s", s, known);
		return -ENOENT;
	}
	sp->o = (struct sim_platform_opts){ .sockets = 1,
					    .channels = 2,
					    .msr = "rw",
					    .root = true,
					    .user = "root",
					    .paranoid = 2,
					    .lockdown = "none",
					    .hypervisor = "none" };
	if (!colon)
		return 0;
	for (char *kv = strtok_r(colon + 1, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		int r = parse_opt(sp, kv, err, errsz);

		if (r < 0)
			return r;
	}
	return 0;
}

static const char *scenario_name(const struct spec *sp)
{
	return sp->scenario_file ? sp->scenario_file : "built-in scenario";
}

static int load_scenario(struct pm_sim *sim, const struct spec *sp, char *err, size_t errsz)
{
	const struct sim_platform *p = sp->plat;
	char *text = NULL;
	size_t len = 0;
	int r = sim_scenario__new(p->quantities, p->n_quantities, &sim->scn);

	if (r < 0)
		return r;
	if (sp->has_seed)
		sim_scenario__set_seed(sim->scn, sp->seed); /* the command line wins */
	if (sp->scenario_file) {
		r = sim_read_host_file(sp->scenario_file, SIM_HOST_FILE_MAX, &text, &len);
		if (r == -EFBIG)
			snprintf(err, errsz, "the scenario '%s' is too large (%u MiB at most)",
				 sp->scenario_file, SIM_HOST_FILE_MAX >> 20);
		else if (r < 0)
			snprintf(err, errsz, "cannot read scenario '%s': %s", sp->scenario_file,
				 strerror(-r));
		if (r < 0)
			return r;
	}
	if (!text && sp->o.kubelet) {
		/* the built-in scenario with a kubelet: three pods of the machine's traffic */
		struct pm_strbuf b = { 0 };
		const char *key = p->quantities[0].key;

		pm_strbuf__printf(&b,
				  "%spod default/web-0 burstable nginx,sidecar\n  %s 1.5G\n"
				  "pod batch/etl-1 besteffort etl\n  %s 800M\n"
				  "pod monitoring/node-agent guaranteed agent\n  %s 100M\nend\n",
				  p->scenario, key, key, key);
		if (b.oom)
			return -ENOMEM;
		text = b.s;
		len = strlen(b.s);
	}
	r = sim_scenario__parse(sim->scn, text ? text : p->scenario,
				text ? len : strlen(p->scenario), scenario_name(sp), err, errsz);
	free(text);
	return r;
}

/* What the scenario's faults name, on the machine as built. */
static int check_faults(struct pm_sim *sim, const struct spec *sp, char *err, size_t errsz)
{
	for (size_t i = 0; i < sim_scenario__fault_count(sim->scn); i++) {
		const struct sim_fault *f = sim_scenario__fault(sim->scn, i);
		int r = check_fault_target(sim, f, scenario_name(sp), err, errsz);

		if (r < 0)
			return r;
		if (sp->real_clock && !strcmp(f->what, "freeze")) {
			snprintf(err, errsz,
				 "%s:%d: 'freeze' jumps the virtual clock; it cannot under "
				 "clock=real",
				 scenario_name(sp), f->line);
			return -EINVAL;
		}
	}
	return 0;
}

int pm_sim__new_platform(const char *spec, struct pm_sim **ret, char *err, size_t errsz)
{
	struct spec sp = { 0 };
	struct pm_sim *sim = NULL;
	char *copy = strdup(spec ? spec : "");
	int r;

	if (!copy)
		return -ENOMEM;
	if (errsz)
		err[0] = '\0';
	r = parse_spec(copy, &sp, err, errsz);
	if (r == 0)
		r = pm_sim__new(&sim);
	if (r == 0) {
		sim->machine = &machine_ops;
		sim->plat = sp.plat;
		sim->uid = !strcmp(sp.o.user, "root")	 ? 0 :
			   !strcmp(sp.o.user, "perfmon") ? 1000 :
							   65534;
		sim->caps = !strcmp(sp.o.user, "root")	  ? SIM_CAPS_ALL :
			    !strcmp(sp.o.user, "perfmon") ? SIM_CAP_PERFMON :
							    0;
		sim->paranoid = sp.o.paranoid;
		sim->ro_sys = sp.o.container;
		sim->hypervisor = sp.o.hypervisor;
		sim->scn_start_ns = pm_sim__now(sim);
		r = load_scenario(sim, &sp, err, errsz);
	}
	if (r == 0) {
		r = sp.plat->build(sim, &sp.o);
		if (r < 0 && !err[0])
			snprintf(err, errsz, "cannot build the simulated %s: %s", sp.plat->name,
				 strerror(-r));
	}
	if (r == 0)
		r = machine_settings(sim, &sp.o);
	if (r == 0) {
		r = sim_cgroups_build(sim, sp.o.kubelet, err, errsz);
		if (r < 0 && !err[0])
			snprintf(err, errsz, "cannot make the scenario's cgroups: %s",
				 strerror(-r));
	}
	if (r == 0)
		r = check_faults(sim, &sp, err, errsz);
	if (r == 0 && sp.real_clock)
		pm_sim__use_real_clock(sim, true);
	if (r == 0 && sp.state_path && !(sim->state_path = strdup(sp.state_path)))
		r = -ENOMEM;
	free(copy);
	if (r < 0) {
		pm_sim__free(sim);
		return r;
	}
	*ret = sim;
	return 0;
}
