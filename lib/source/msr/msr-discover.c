// SPDX-License-Identifier: GPL-2.0-only
/*
 * PMUs the msr source provides where the kernel has none: on an AMD family
 * 17h CPU whose kernel lacks amd_uncore (no amd_df, no amd_l3 under
 * sys/bus/event_source/devices) but has the msr driver, pmumon offers
 * amd_df and amd_l3 itself, read through /dev/cpu/N/msr (source/msr/msr.c).
 *
 * They look like the kernel's: the F17h format strings (kernel-facts §3.2)
 * and one CPU per domain as their cpumask — the first CPU of each die for
 * the Data Fabric (the pre-6.7 driver's node domain, §3.4: a Zen 1 package
 * has several) and the first CPU sharing each L3
 * (cache/index3/shared_cpu_list) for the L3.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "db/pack.h"
#include "pmu.h"
#include "source/format.h"
#include "source/msr/msr.h"
#include "topo.h"
#include "util/util.h"

bool pm_msr__supported_cpu(struct pm_ctx *ctx)
{
	char cpuid[128];

	/* perf's CPUID string: vendor-family-model-stepping, family in decimal */
	pm_db_read_cpuid(ctx, cpuid, sizeof(cpuid));
	return pm_str_has_prefix(cpuid, "AuthenticAMD-23-");
}

static bool has_pmu(struct pm_ctx *ctx, const char *name)
{
	for (size_t i = 0; i < ctx->n_pmus; i++)
		if (!strcmp(ctx->pmus[i]->name, name))
			return true;
	return false;
}

static int add_formats(struct pm_pmu *p, const char *const (*fmt)[2])
{
	int r = 0;

	for (; (*fmt)[0] && r == 0; fmt++)
		r = pm_pmu__add_format_text(p, (*fmt)[0], (*fmt)[1]);
	return r;
}

/* The first CPU of each package, or of each group sharing an L3. */
static int domain_cpus(struct pm_ctx *ctx, bool l3, struct pm_cpus *ret)
{
	const struct pm_topo *t = ctx->topo;
	struct pm_strbuf list = { 0 };
	int r;

	for (size_t i = 0; i < t->online.n; i++) {
		int cpu = t->online.cpu[i], first = cpu;

		if (l3) {
			char path[128], buf[256];
			struct pm_cpus sharing;

			snprintf(path, sizeof(path),
				 "sys/devices/system/cpu/cpu%d/cache/index3/shared_cpu_list", cpu);
			if (pm_read_file(ctx, path, buf, sizeof(buf)) < 0 ||
			    pm_cpus__parse(buf, strlen(buf), &sharing) < 0 || !sharing.n) {
				pm_strbuf__done(&list);
				return -ENOENT;
			}
			first = sharing.cpu[0];
			pm_cpus__done(&sharing);
		} else {
			/* a Data Fabric per die (kernel-facts §3.4: one CPU per node/die) */
			for (size_t j = 0; j < i; j++)
				if (pm_topo__die_key(t, t->online.cpu[j]) ==
				    pm_topo__die_key(t, cpu)) {
					first = t->online.cpu[j];
					break;
				}
		}
		if (first == cpu)
			pm_strbuf__printf(&list, "%s%d", list.len ? "," : "", cpu);
	}
	r = list.oom ? -ENOMEM : pm_cpus__parse(list.s ? list.s : "", list.len, ret);
	pm_strbuf__done(&list);
	return r;
}

static int add_msr_pmu(struct pm_ctx *ctx, const char *name, bool l3, const char *const (*fmt)[2])
{
	struct pm_pmu *p = NULL;
	struct pm_cpus cpus = { 0 };
	int r = domain_cpus(ctx, l3, &cpus);

	if (r == -ENOENT) {
		pm_log(ctx, PM_LOG_INFO, "no L3 sharing lists in sysfs: no MSR-backed %s", name);
		return 0;
	}
	if (r == 0)
		r = pm_pmu__new(name, &p);
	if (r < 0) {
		pm_cpus__done(&cpus);
		return r;
	}
	p->source = PM_SRC_MSR;
	p->uncore = true;
	p->mux_interval_ms = -1;
	pm_cpus__done(&p->cpus);
	p->cpus = cpus;
	r = add_formats(p, fmt);
	if (r == 0)
		r = pm_ctx__add_pmu(ctx, p);
	if (r < 0)
		pm_pmu__free(p);
	else
		pm_log(ctx, PM_LOG_INFO,
		       "the kernel has no %s PMU: pmumon reads it through /dev/cpu/N/msr", name);
	return r;
}

int pm_msr__discover(struct pm_ctx *ctx)
{
	/* kernel-facts §3.2: F17h-F19h without PerfMonV2; F17h amd_l3 */
	static const char *const df_fmt[][2] = { { "event", "config:0-7,32-35,59-60" },
						 { "umask", "config:8-15" },
						 { NULL, NULL } };
	static const char *const l3_fmt[][2] = {
		{ "event", "config:0-7" },
		{ "umask", "config:8-15" },
		{ "slicemask", "config:48-51" },
		{ "threadmask", "config:56-63" },
		{ NULL, NULL },
	};
	int r = 0;

	/* even without /dev/cpu/N/msr: counting then says what is missing */
	if (!pm_msr__supported_cpu(ctx))
		return 0;
	if (!has_pmu(ctx, "amd_df"))
		r = add_msr_pmu(ctx, "amd_df", false, df_fmt);
	if (r == 0 && !has_pmu(ctx, "amd_l3"))
		r = add_msr_pmu(ctx, "amd_l3", true, l3_fmt);
	return r;
}
