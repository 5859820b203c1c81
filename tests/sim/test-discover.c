// SPDX-License-Identifier: GPL-2.0-only
/*
 * Discovery against fixture trees written from the kernel facts: the 16
 * ali_drw PMUs of a 2-die Yitian 710, the EPYC 7742's amd_df/amd_l3/msr/cpu,
 * CPU topology, both identifier file names (kernel-facts §1.6), and each
 * kind of malformed sysfs content costing only itself, with a warning.
 */
#include "helpers.h"

#include <string.h>

#include "ctx.h"
#include "pmu.h"
#include "util/util.h"

static const struct pm_pmu *find(struct pm_ctx *ctx, const char *name)
{
	for (size_t i = 0; i < pm_ctx__pmu_count(ctx); i++)
		if (!strcmp(pm_pmu__name(pm_ctx__pmu(ctx, i)), name))
			return pm_ctx__pmu(ctx, i);
	return NULL;
}

static void test_yitian(void **state)
{
	static const char *const order[] = {
		"ali_drw_21000",    "ali_drw_21080",	"ali_drw_23000",    "ali_drw_23080",
		"ali_drw_25000",    "ali_drw_25080",	"ali_drw_27000",    "ali_drw_27080",
		"ali_drw_40021000", "ali_drw_40021080", "ali_drw_40023000", "ali_drw_40023080",
		"ali_drw_40025000", "ali_drw_40025080", "ali_drw_40027000", "ali_drw_40027080",
	};
	struct pm_ctx *ctx = th_ctx_fixture("yitian710-2die");
	size_t k = 0;
	char buf[64];

	assert_int_equal(pm_ctx__discover(ctx), 0);
	assert_int_equal(pm_ctx__cpu_count(ctx), 128);
	assert_int_equal(pm_ctx__die_count(ctx), 2);
	assert_int_equal(pm_ctx__package_count(ctx), 1);
	for (size_t i = 0; i < pm_ctx__pmu_count(ctx); i++) {
		const struct pm_pmu *p = pm_ctx__pmu(ctx, i);

		if (strcmp(pm_pmu__family(p), "ali_drw") != 0)
			continue;
		/* one family, instances in perf's order */
		assert_string_equal(pm_pmu__name(p), order[k]);
		assert_string_equal(pm_pmu__identifier(p), "ali_drw_pmu");
		assert_int_equal(pm_pmu__counters(p), 16);
		assert_int_equal(pm_pmu__fixed_counters(p), 1);
		assert_int_equal(pm_pmu__counter_width(p), 32);
		assert_int_equal(pm_pmu__cpus(p, buf, sizeof(buf)), 0);
		assert_string_equal(buf, k < 8 ? "0" : "64");
		assert_int_equal(pm_pmu__mux_interval_ms(p), 4);
		/* 53 sysfs events plus the pack's ddr_cycles (0x80, named cycle in sysfs) */
		assert_int_equal(pm_pmu__alias_count(p), 54);
		k++;
	}
	assert_int_equal(k, 16);
	{
		const struct pm_pmu *p = find(ctx, "ali_drw_25080");
		const struct pm_alias *a = pm_pmu__find_alias(p, "hif_rd");

		assert_string_equal(pm_alias__terms(a), "config=0x2");
		assert_string_equal(pm_alias__origin(a), "sysfs");
		/* the pack describes the sysfs event */
		assert_string_equal(pm_alias__desc(a),
				    "A Read Op at HIF interface. The unit is 64B.");
		assert_int_equal(pm_alias__encoding(a, p, buf, sizeof(buf)), 0);
		assert_string_equal(buf, "config=0x2");
		a = pm_pmu__find_alias(p, "ddr_cycles");
		assert_string_equal(pm_alias__origin(a), "yitian710");
		assert_int_equal(pm_alias__encoding(a, p, buf, sizeof(buf)), 0);
		assert_string_equal(buf, "config=0x80");
	}
	pm_ctx__free(ctx);
}

static void test_epyc(void **state)
{
	struct pm_ctx *ctx = th_ctx_fixture("epyc7742-1s");
	const struct pm_pmu *df, *l3, *msr, *cpu, *sw;
	const char *name, *spec;
	char buf[128];

	assert_int_equal(pm_ctx__discover(ctx), 0);
	df = find(ctx, "amd_df");
	l3 = find(ctx, "amd_l3");
	msr = find(ctx, "msr");
	cpu = find(ctx, "cpu");
	sw = find(ctx, "software");
	assert_non_null(df);
	assert_non_null(l3);
	assert_non_null(msr);
	assert_non_null(cpu);
	assert_non_null(sw);
	/* amd_df stays a family of its own: "df" is not an instance suffix */
	assert_string_equal(pm_pmu__family(df), "amd_df");
	assert_string_equal(pm_pmu__family(l3), "amd_l3");
	assert_int_equal(pm_pmu__type(df), 12);
	assert_int_equal(pm_pmu__format_count(df), 2);
	assert_int_equal(pm_pmu__format(df, 0, &name, &spec), 0);
	assert_string_equal(name, "event");
	assert_string_equal(spec, "config:0-7,32-35,59-60");
	assert_int_equal(pm_pmu__counters(df), 4);
	assert_int_equal(pm_pmu__counters(l3), 6);
	assert_int_equal(pm_pmu__counter_width(l3), 48);
	assert_int_equal(pm_pmu__counters(msr), 0);  /* free-running */
	assert_int_equal(pm_pmu__counters(cpu), -1); /* no pack knows: unknown */
	assert_int_equal(pm_pmu__cpus(l3, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0,4,8,12,16,20,24,28,32,36,40,44,48,52,56,60");
	assert_int_equal(pm_pmu__cpus(msr, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	assert_null(pm_pmu__identifier(df));
	/* AMD uncore has no events/ directory: the pack names its events (facts §3.2) */
	assert_int_equal(pm_pmu__alias_count(df), 12);
	assert_int_equal(pm_alias__encoding(pm_pmu__find_alias(df,
							       "dram_channel_data_controller_4"),
					    df, buf, sizeof(buf)),
			 0);
	assert_string_equal(buf, "config=0x100003807");
	assert_int_equal(pm_alias__encoding(pm_pmu__find_alias(l3, "l3_accesses"), l3, buf,
					    sizeof(buf)),
			 0);
	assert_string_equal(buf, "config=0xff04");
	pm_ctx__free(ctx);
}

static void test_malformed(void **state)
{
	struct pm_ctx *ctx = th_ctx_fixture("malformed");
	const struct pm_pmu *p;

	th_log_clear();
	assert_int_equal(pm_ctx__discover(ctx), 0);
	/* each broken file is named once, with what it should look like */
	assert_true(th_logged("'sys/bus/event_source/devices/badformat/format/event': "
			      "'config:0-7x' (at byte 10"));
	assert_true(th_logged("ignoring term 'event'"));
	assert_true(th_logged("devices/badtype/type' (expected a perf type number), ignoring PMU "
			      "'badtype'"));
	assert_true(th_logged("devices/badmask/cpumask': '0-'"));
	assert_true(th_logged("joules.scale': '1,5e-3', counting event 'joules' unscaled"));
	assert_true(th_logged("cannot read 'sys/bus/event_source/devices/notype/type'"));
	/* what was fine is still there */
	assert_non_null(find(ctx, "good"));
	p = find(ctx, "badformat");
	assert_non_null(p);
	assert_int_equal(pm_pmu__format_count(p), 1); /* umask survived */
	assert_null(find(ctx, "badtype"));
	assert_null(find(ctx, "badmask"));
	assert_null(find(ctx, "notype"));
	p = find(ctx, "badscale");
	assert_non_null(p);
	assert_true(pm_alias__scale(pm_pmu__find_alias(p, "joules")) == 1.0);
	assert_string_equal(pm_alias__unit(pm_pmu__find_alias(p, "joules")), "Joules");
	pm_ctx__free(ctx);
}

/* Both identifier file names, and side files, through the simulator's tree. */
static void test_identifier_names_and_sides(void **state)
{
	struct pm_sim *sim = th_sim_fixture("malformed");
	struct pm_ctx *ctx;
	const struct pm_pmu *p;
	const struct pm_alias *a;

	assert_int_equal(pm_sim__write_file(sim, "sys/bus/event_source/devices/ali_drw_21000/type",
					    "30\n"),
			 0);
	assert_int_equal(pm_sim__write_file(sim,
					    "sys/bus/event_source/devices/ali_drw_21000/identifier",
					    "ali_drw_pmu\n"),
			 0);
	assert_int_equal(pm_sim__write_file(sim, "sys/bus/event_source/devices/ali_drw_21080/type",
					    "31\n"),
			 0);
	assert_int_equal(pm_sim__write_file(
				 sim,
				 "sys/bus/event_source/devices/ali_drw_21080/ali_drw_pmu_identifier",
				 "ali_drw_pmu\n"),
			 0);
	assert_int_equal(pm_sim__write_file(sim, "sys/bus/event_source/devices/power/type", "9\n"),
			 0);
	assert_int_equal(pm_sim__write_file(sim, "sys/bus/event_source/devices/power/cpumask",
					    "0\n"),
			 0);
	assert_int_equal(pm_sim__write_file(sim,
					    "sys/bus/event_source/devices/power/events/energy-pkg",
					    "event=0x02\n"),
			 0);
	assert_int_equal(pm_sim__write_file(sim,
					    "sys/bus/event_source/devices/power/events/energy-pkg.scale",
					    "2.3283064365386962890625e-10\n"),
			 0);
	assert_int_equal(pm_sim__write_file(sim,
					    "sys/bus/event_source/devices/power/events/energy-pkg.unit",
					    "Joules\n"),
			 0);
	assert_int_equal(
		pm_sim__write_file(sim,
				   "sys/bus/event_source/devices/power/events/energy-pkg.per-pkg",
				   "1\n"),
		0);
	assert_int_equal(pm_sim__write_file(sim, "sys/bus/event_source/devices/msr/type", "10\n"),
			 0);
	assert_int_equal(pm_sim__write_file(sim,
					    "sys/bus/event_source/devices/msr/events/cpu_thermal_margin",
					    "event=0x07\n"),
			 0);
	assert_int_equal(pm_sim__write_file(
				 sim,
				 "sys/bus/event_source/devices/msr/events/cpu_thermal_margin.snapshot",
				 "1\n"),
			 0);
	ctx = th_ctx_sim(sim);
	assert_int_equal(pm_ctx__discover(ctx), 0);
	assert_string_equal(pm_pmu__identifier(find(ctx, "ali_drw_21000")), "ali_drw_pmu");
	assert_string_equal(pm_pmu__identifier(find(ctx, "ali_drw_21080")), "ali_drw_pmu");
	p = find(ctx, "power");
	a = pm_pmu__find_alias(p, "energy-pkg");
	assert_true(pm_alias__scale(a) == 2.3283064365386962890625e-10);
	assert_string_equal(pm_alias__unit(a), "Joules");
	assert_true(pm_alias__per_pkg(a));
	assert_false(pm_alias__snapshot(a));
	/* side files are not events of their own */
	assert_int_equal(pm_pmu__alias_count(p), 1);
	a = pm_pmu__find_alias(find(ctx, "msr"), "cpu_thermal_margin");
	assert_true(pm_alias__snapshot(a));
	pm_ctx__free(ctx);
}

static void test_family_rule(void **state)
{
	static const struct {
		const char *name, *family;
	} t[] = {
		{ "ali_drw_21000", "ali_drw" },
		{ "ali_drw_40021080", "ali_drw" },
		{ "uncore_imc_0", "uncore_imc" },
		{ "uncore_imc_free_running_1", "uncore_imc_free_running" },
		{ "amd_df", "amd_df" },
		{ "amd_l3", "amd_l3" },
		{ "amd_umc_3", "amd_umc" },
		{ "cpum_cf", "cpum_cf" },
		{ "armv8_pmuv3_0", "armv8_pmuv3" },
		{ "msr", "msr" },
		{ "i915", "i915" },
		{ "hisi_sccl1_ddrc0", "hisi_sccl1_ddrc0" },
		{ "arm_cmn_abc", "arm_cmn" },
	};

	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++)
		if (pm_pmu_family_len(t[i].name) != strlen(t[i].family) ||
		    strncmp(t[i].name, t[i].family, strlen(t[i].family)) != 0)
			fail_msg("%s: family length %zu, want '%s'", t[i].name,
				 pm_pmu_family_len(t[i].name), t[i].family);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_yitian),
		cmocka_unit_test(test_epyc),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_identifier_names_and_sides),
		cmocka_unit_test(test_family_rule),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
