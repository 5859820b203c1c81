// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sideband source's PMUs: on Merrifield (Tangier, family 6 model 0x4A)
 * the SoC uncore has no perf driver (../shared/facts/merrifield.md §1), so
 * pmumon offers one PMU per event group of seed 001, named after the group
 * in lower case (unc_soc_memory_ddr_bw, ...). The merrifield pack names
 * their events as the seed does and encodes each as the seed's counter
 * number within its group (event=N): a group is a fixed set of events on
 * fixed counters, programmed together. What programs them is the user's
 * programming list (source/sideband/sideband-list.c); without one they are listed
 * but cannot count.
 */
#include <errno.h>
#include <string.h>

#include "ctx.h"
#include "db/pack.h"
#include "pmu.h"
#include "source/format.h"
#include "source/sideband/sideband.h"
#include "util/util.h"

/* Seed 001's groups, in its order. */
static const char *const groups[] = {
	"unc_soc_memory_ddr_bw", "unc_soc_ddr_self_refresh", "unc_soc_all_reqs",
	"unc_soc_module0_bw",	 "unc_soc_module0_snoops",   "unc_soc_graphics_bw",
	"unc_soc_display_bw",	 "unc_soc_imaging_bw",	     "unc_soc_lowspeedpf_bw",
};

static bool supported_cpu(struct pm_ctx *ctx)
{
	char cpuid[128];

	/* perf's CPUID string: vendor-family-model(hex)-stepping */
	pm_db_read_cpuid(ctx, cpuid, sizeof(cpuid));
	return pm_str_has_prefix(cpuid, "GenuineIntel-6-4A-");
}

static int add_group_pmu(struct pm_ctx *ctx, const char *name)
{
	/* the seed's counter number within the group; the block has 8 (merrifield.md §3) */
	static const char fmt[] = "config:0-2";
	struct pm_pmu *p = NULL;
	int r = pm_pmu__new(name, &p);

	if (r < 0)
		return r;
	p->source = PM_SRC_SIDEBAND;
	p->uncore = true; /* one SoC: counted once, on the first CPU */
	r = pm_cpus__parse("0", 1, &p->cpus);
	if (r == 0)
		r = pm_pmu__add_format_text(p, "event", fmt);
	if (r == 0)
		r = pm_ctx__add_pmu(ctx, p);
	if (r < 0)
		pm_pmu__free(p);
	return r;
}

int pm_sideband__discover(struct pm_ctx *ctx)
{
	int r = 0;

	if (!supported_cpu(ctx))
		return 0;
	for (size_t i = 0; i < PM_ARRAY_SIZE(groups) && r == 0; i++)
		r = add_group_pmu(ctx, groups[i]);
	if (r == 0)
		pm_log(ctx, PM_LOG_INFO,
		       "Merrifield: the SoC uncore groups are read over the IOSF sideband with a "
		       "programming list (docs/sideband.md)");
	return r;
}
