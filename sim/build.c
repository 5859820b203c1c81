// SPDX-License-Identifier: GPL-2.0-only
/*
 * The helpers platform builders share (platform.h, "for builders"): files,
 * topology, caches, PMUs and what every kernel has, module lists, the
 * scenario's clock and counts from its integrals. Used by each platform's
 * model, the cgroups and the machine (platform.c); they use none of them.
 */
#include "platform.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim-internal.h"
#include "util/util.h"

int sim_writef(struct pm_sim *sim, const char *text, const char *path_fmt, ...)
{
	char path[512];
	va_list ap;
	int n;

	va_start(ap, path_fmt);
	n = vsnprintf(path, sizeof(path), path_fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	return sim_vfs__write_text(sim->vfs, path, text);
}

static void cpu_list(struct pm_strbuf *b, const bool *set, int n)
{
	bool first = true;

	for (int i = 0; i < n; i++) {
		int j = i;

		if (!set[i])
			continue;
		while (j + 1 < n && set[j + 1])
			j++;
		if (i == j)
			pm_strbuf__printf(b, "%s%d", first ? "" : ",", i);
		else
			pm_strbuf__printf(b, "%s%d-%d", first ? "" : ",", i, j);
		first = false;
		i = j;
	}
}

int sim_topology(struct pm_sim *sim, int n_cpus, sim_cpu_fn where, void *ud)
{
	struct pm_strbuf b = { 0 };
	bool *all = calloc((size_t)n_cpus, sizeof(*all));
	int r;

	if (!all)
		return -ENOMEM;
	for (int c = 0; c < n_cpus; c++)
		all[c] = true;
	cpu_list(&b, all, n_cpus);
	pm_strbuf__puts(&b, "\n");
	free(all);
	sim->n_cpus = n_cpus;
	r = b.oom ? -ENOMEM : sim_writef(sim, b.s, "sys/devices/system/cpu/online");
	/* every CPU the model has is present, possible and online (no hotplug) */
	if (r == 0)
		r = sim_writef(sim, b.s, "sys/devices/system/cpu/present");
	if (r == 0)
		r = sim_writef(sim, b.s, "sys/devices/system/cpu/possible");
	pm_strbuf__done(&b);
	for (int c = 0; r == 0 && c < n_cpus; c++) {
		int pkg = 0, die = 0, core = 0;
		char v[32];

		where(c, &pkg, &die, &core, ud);
		snprintf(v, sizeof(v), "%d\n", pkg);
		r = sim_writef(sim, v, "sys/devices/system/cpu/cpu%d/topology/physical_package_id",
			       c);
		snprintf(v, sizeof(v), "%d\n", die);
		if (r == 0)
			r = sim_writef(sim, v, "sys/devices/system/cpu/cpu%d/topology/die_id", c);
		snprintf(v, sizeof(v), "%d\n", core);
		if (r == 0)
			r = sim_writef(sim, v, "sys/devices/system/cpu/cpu%d/topology/core_id", c);
	}
	return r;
}

#define CACHE_DIR "sys/devices/system/cpu/cpu%d/cache/index%d/"

int sim_cache(struct pm_sim *sim, int cpu, int index, int level, const char *type,
	      const char *shared_cpu_list)
{
	char v[256];
	int r;

	snprintf(v, sizeof(v), "%s\n", shared_cpu_list);
	r = sim_writef(sim, v, CACHE_DIR "shared_cpu_list", cpu, index);
	snprintf(v, sizeof(v), "%d\n", level);
	if (r == 0)
		r = sim_writef(sim, v, CACHE_DIR "level", cpu, index);
	snprintf(v, sizeof(v), "%s\n", type);
	if (r == 0)
		r = sim_writef(sim, v, CACHE_DIR "type", cpu, index);
	return r;
}

int sim_pmu_sysfs(struct pm_sim *sim, const char *name, uint32_t type, const char *cpumask,
		  const struct sim_kv *formats, const struct sim_kv *events)
{
	const char *base = "sys/bus/event_source/devices";
	char v[256];
	int r;

	snprintf(v, sizeof(v), "%u\n", type);
	r = sim_writef(sim, v, "%s/%s/type", base, name);
	if (r == 0)
		r = sim_writef(sim, "4\n", "%s/%s/perf_event_mux_interval_ms", base, name);
	if (r == 0 && cpumask) {
		snprintf(v, sizeof(v), "%s\n", cpumask);
		r = sim_writef(sim, v, "%s/%s/cpumask", base, name);
	}
	for (; r == 0 && formats && formats->k; formats++) {
		snprintf(v, sizeof(v), "%s\n", formats->v);
		r = sim_writef(sim, v, "%s/%s/format/%s", base, name, formats->k);
	}
	for (; r == 0 && events && events->k; events++) {
		snprintf(v, sizeof(v), "%s\n", events->v);
		r = sim_writef(sim, v, "%s/%s/events/%s", base, name, events->k);
	}
	return r;
}

/* The software PMU: clocks in ns, a sleeping task's small share, rare switches. */
static int software_count(void *data, const struct perf_event_attr *attr, int cpu, uint64_t t_ns,
			  uint64_t *ret)
{
	struct pm_sim *sim = data;
	uint64_t t = sim_scn_time(sim, t_ns);

	switch (attr->config) {
	case PERF_COUNT_SW_CPU_CLOCK:
	case PERF_COUNT_SW_TASK_CLOCK:
		/* a CPU's clock runs all the time; a task (sleep) runs 0.1% of it */
		*ret = cpu >= 0 ? t : t / 1000;
		return 0;
	case PERF_COUNT_SW_PAGE_FAULTS:
	case PERF_COUNT_SW_PAGE_FAULTS_MIN:
		*ret = sim_count((double)t / 1e9, cpu >= 0 ? 200 : 20);
		return 0;
	case PERF_COUNT_SW_PAGE_FAULTS_MAJ:
	case PERF_COUNT_SW_DUMMY: /* counts nothing (include/uapi/linux/perf_event.h) */
	case 10:		  /* PERF_COUNT_SW_BPF_OUTPUT: no BPF program writes to it */
		*ret = 0;
		return 0;
	case PERF_COUNT_SW_CONTEXT_SWITCHES:
	case PERF_COUNT_SW_CPU_MIGRATIONS:
		*ret = sim_count((double)t / 1e9, cpu >= 0 ? 100 : 2);
		return 0;
	default:
		return -ENOENT;
	}
}

int sim_add_common(struct pm_sim *sim)
{
	struct pm_sim_pmu_model sw = { .type = PERF_TYPE_SOFTWARE,
				       .count = software_count,
				       .data = sim };
	int r;

	/* the uapi's fixed type numbers (include/uapi/linux/perf_event.h) */
	r = sim_pmu_sysfs(sim, "software", PERF_TYPE_SOFTWARE, NULL, NULL, NULL);
	if (r == 0)
		r = sim_pmu_sysfs(sim, "tracepoint", PERF_TYPE_TRACEPOINT, NULL, NULL, NULL);
	if (r == 0) {
		char v[16];

		snprintf(v, sizeof(v), "%d\n", sim->paranoid);
		r = sim_writef(sim, v, "proc/sys/kernel/perf_event_paranoid");
	}
	if (r == 0)
		r = pm_sim__add_pmu(sim, "software", &sw);
	return r;
}

int sim_kmod(struct pm_sim *sim, const char *module, const char *file, enum sim_kmod_state st)
{
	size_t had = sim->kmods ? strlen(sim->kmods) : 0;
	char *k;

	if (st == SIM_KMOD_ABSENT)
		return 0;
	k = realloc(sim->kmods, had + strlen(file) + 3);
	if (!k)
		return -ENOMEM;
	sim->kmods = k;
	snprintf(k + had, strlen(file) + 3, "%s:\n", file); /* no dependencies */
	/* a loaded module's directory; "live" once its init ran */
	return st == SIM_KMOD_LOADED ?
		       sim_writef(sim, "live\n", "sys/module/%s/initstate", module) :
		       0;
}

const char *sim_cpuinfo_flags(const struct pm_sim *sim)
{
	/* the CPUID bit a hypervisor sets for its guests, as Linux names it */
	return strcmp(sim->hypervisor ? sim->hypervisor : "none", "none") ? "flags\t\t: fpu "
									    "hypervisor\n" :
									    "";
}

const struct sim_scenario *sim_scn(const struct pm_sim *sim)
{
	return sim->scn;
}

uint64_t sim_scn_time(const struct pm_sim *sim, uint64_t t_ns)
{
	return t_ns > sim->scn_start_ns ? t_ns - sim->scn_start_ns : 0;
}

uint64_t sim_scn_now(const struct pm_sim *sim)
{
	return sim_scn_time(sim, pm_sim__now(sim));
}

uint64_t sim_count(double integral, double factor)
{
	const double wrap = 18446744073709551616.0; /* 2^64 */
	double v = floor(integral * factor + 1e-9); /* 1e-9: exact products stay exact */

	if (!(v > 0)) /* NaN too */
		return 0;
	if (v >= wrap) /* a count wraps as a 64-bit register does; no undefined conversion */
		v = fmod(v, wrap);
	return (uint64_t)v;
}

void sim_set_platform_data(struct pm_sim *sim, void *data, void (*free_fn)(void *))
{
	sim->plat_data = data;
	sim->plat_free = free_fn;
}
