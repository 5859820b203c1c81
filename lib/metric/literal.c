// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf's #literals, from the machine. What perf reads for each
 * (tools/perf/util/tool_pmu.c tool_pmu__read_event, expr.c expr__get_literal,
 * smt.c, cputopo.c, cpumap.c set_max_cpu_num, arch/x86/util/tsc.c,
 * arch/arm64/util/pmu.c; torvalds/linux 069057239a67; docs/facts-metrics.md):
 *
 *   #num_cpus          the highest CPU in devices/system/cpu/present, plus 1
 *   #num_cpus_online   the online CPUs
 *   #num_cores, #num_dies, #num_packages   distinct cores, dies, packages of
 *                      the online CPUs
 *   #smt_on            devices/system/cpu/smt/active, else whether a core has
 *                      two online threads
 *   #has_pmem          whether firmware/acpi/tables/NFIT exists
 *   #slots             the core PMU's caps/slots (arm64); 0 or absent: unknown
 *   #system_tsc_freq   Intel only: perf asks CPUID leaf 0x15 and falls back to
 *                      the "@ N.NNGHz" of /proc/cpuinfo's model name. pmumon
 *                      reads the model name only (no CPUID through the os seam),
 *                      and where perf answers 0 (another vendor) says unknown.
 *
 * A recording has no files: every literal but #core_wide is unknown there.
 */
#include "metric/literal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ctx.h"
#include "pmu.h"
#include "source/counters.h"
#include "topo.h"
#include "util/util.h"

enum literal {
	LIT_NUM_CPUS,
	LIT_NUM_CPUS_ONLINE,
	LIT_NUM_CORES,
	LIT_NUM_DIES,
	LIT_NUM_PACKAGES,
	LIT_SMT_ON,
	LIT_HAS_PMEM,
	LIT_SLOTS,
	LIT_TSC_FREQ,
};

static const char *const literal_names[] = {
	[LIT_NUM_CPUS] = "num_cpus",	     [LIT_NUM_CPUS_ONLINE] = "num_cpus_online",
	[LIT_NUM_CORES] = "num_cores",	     [LIT_NUM_DIES] = "num_dies",
	[LIT_NUM_PACKAGES] = "num_packages", [LIT_SMT_ON] = "smt_on",
	[LIT_HAS_PMEM] = "has_pmem",	     [LIT_SLOTS] = "slots",
	[LIT_TSC_FREQ] = "system_tsc_freq",
};

/* Does another online CPU before cpu share its core? */
static bool core_seen(const struct pm_topo *t, int cpu, const struct pm_cpu_topo *a)
{
	for (int d = 0; d < cpu; d++) {
		const struct pm_cpu_topo *b = pm_topo__cpu(t, d);

		if (b && b->package == a->package && b->die == a->die && b->core == a->core)
			return true;
	}
	return false;
}

static int count_cores(const struct pm_topo *t)
{
	int cores = 0;

	for (int c = 0; c < t->nr_cpu_ids; c++) {
		const struct pm_cpu_topo *a = pm_topo__cpu(t, c);

		cores += a && !core_seen(t, c, a);
	}
	return cores;
}

static bool smt_on(struct pm_ctx *ctx)
{
	uint64_t active;

	if (pm_read_u64(ctx, "sys/devices/system/cpu/smt/active", &active) == 0)
		return active == 1;
	return count_cores(ctx->topo) < (int)ctx->topo->online.n;
}

/* The highest CPU number in a list ("0-63,128-191" -> 191). */
static int present_cpus(struct pm_ctx *ctx, double *ret)
{
	char buf[4096];
	struct pm_cpus cpus = { 0 };
	ssize_t n = pm_read_file(ctx, "sys/devices/system/cpu/present", buf, sizeof(buf));
	int r;

	if (n < 0)
		return (int)n;
	r = pm_cpus__parse(buf, (size_t)n, &cpus);
	if (r == 0 && cpus.n == 0)
		r = -EINVAL;
	if (r == 0)
		*ret = cpus.cpu[cpus.n - 1] + 1;
	pm_cpus__done(&cpus);
	return r;
}

/* The core PMU's caps/slots (arm64 PMUv3 with its PMMIR_EL1 slots). */
static int slots(struct pm_ctx *ctx, double *ret)
{
	for (size_t i = 0; i < ctx->n_pmus; i++) {
		char path[512];
		uint64_t v;

		if (ctx->pmus[i]->uncore)
			continue;
		snprintf(path, sizeof(path), "sys/bus/event_source/devices/%s/caps/slots",
			 ctx->pmus[i]->name);
		if (pm_read_u64(ctx, path, &v) == 0 && v) {
			*ret = (double)v;
			return 0;
		}
	}
	return -ENOENT;
}

/* An Intel CPU's "model name : ... @ 3.00GHz" (perf's cpuinfo_tsc_freq). */
static int tsc_freq(struct pm_ctx *ctx, double *ret, char *why, size_t why_size)
{
	char text[8192], *line, *at;
	double ghz;

	if (pm_read_prefix(ctx, "proc/cpuinfo", text, sizeof(text)) < 0) {
		snprintf(why, why_size, "proc/cpuinfo cannot be read");
		return -ENODATA;
	}
	if (!strstr(text, "GenuineIntel")) {
		snprintf(why, why_size, "perf knows the TSC frequency of Intel CPUs only");
		return -ENODATA;
	}
	line = strstr(text, "model name");
	at = line ? strstr(line, " @ ") : NULL;
	if (!at || at > strchrnul(line, '\n') || sscanf(at, " @ %lfGHz", &ghz) != 1 || !(ghz > 0)) {
		snprintf(why, why_size, "the CPU's model name in proc/cpuinfo gives no frequency");
		return -ENODATA;
	}
	*ret = ghz * 1e9;
	return 0;
}

static int machine_value(struct pm_ctx *ctx, enum literal lit, double *ret, char *why,
			 size_t why_size)
{
	const struct pm_topo *t = ctx->topo;

	switch (lit) {
	case LIT_NUM_CPUS:
		if (present_cpus(ctx, ret) == 0)
			return 0;
		snprintf(why, why_size, "sys/devices/system/cpu/present cannot be read");
		return -ENODATA;
	case LIT_NUM_CPUS_ONLINE:
		*ret = (double)t->online.n;
		return 0;
	case LIT_NUM_CORES:
		*ret = count_cores(t);
		return 0;
	case LIT_NUM_DIES:
		*ret = t->n_dies;
		return 0;
	case LIT_NUM_PACKAGES:
		*ret = t->n_packages;
		return 0;
	case LIT_SMT_ON:
		*ret = smt_on(ctx);
		return 0;
	case LIT_HAS_PMEM:
		*ret = pm_path_exists(ctx, "sys/firmware/acpi/tables/NFIT");
		return 0;
	case LIT_SLOTS:
		if (slots(ctx, ret) == 0)
			return 0;
		snprintf(why, why_size, "no core PMU has caps/slots (an arm64 PMUv3 feature)");
		return -ENODATA;
	case LIT_TSC_FREQ:
		return tsc_freq(ctx, ret, why, why_size);
	}
	return -ENOENT;
}

int pm_literal__value(struct pm_ctx *ctx, const char *name, double *ret, char *why, size_t why_size)
{
	if (!strcmp(name, "#core_wide"))
		return PM_LITERAL_SESSION;
	for (size_t i = 0; i < PM_ARRAY_SIZE(literal_names); i++) {
		if (name[0] != '#' || strcasecmp(name + 1, literal_names[i]) != 0)
			continue;
		if (!ctx->ops) {
			snprintf(why, why_size, "a recording does not say");
			return -ENODATA;
		}
		return machine_value(ctx, (enum literal)i, ret, why, why_size);
	}
	return -ENOENT;
}

bool pm_literal__core_wide(const struct pm_session *s)
{
	const struct pm_topo *t = s->ctx->topo;

	if (s->opts.target == PM_TARGET_SYSTEM)
		return true;
	if (s->opts.target != PM_TARGET_CPUS || !s->ctx->ops)
		return false;
	if (!smt_on(s->ctx))
		return true;
	/* each core's online threads: all in the list or none */
	for (int c = 0; c < t->nr_cpu_ids; c++) {
		const struct pm_cpu_topo *a = pm_topo__cpu(t, c);

		for (int d = c + 1; a && d < t->nr_cpu_ids; d++) {
			const struct pm_cpu_topo *b = pm_topo__cpu(t, d);

			if (b && b->package == a->package && b->die == a->die &&
			    b->core == a->core &&
			    pm_cpus__has(&s->cpus, c) != pm_cpus__has(&s->cpus, d))
				return false;
		}
	}
	return true;
}
