// SPDX-License-Identifier: GPL-2.0-only
/* Platform packs: perf's Unit mapping, ScaleUnit, CPUID matching, and that every pack loads. */
#include "helpers.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "db/embedded.h"
#include "db/pack.h"
#include "pmu.h"
#include "util/util.h"

static void test_unit_to_family(void **state)
{
	static const char *const t[][2] = {
		{ "DFPMC", "amd_df" },
		{ "L3PMC", "amd_l3" },
		{ "UMCPMC", "amd_umc" },
		{ "ali_drw", "ali_drw" },
		{ "IMC", "uncore_imc" },
		{ "CHA", "uncore_cha" },
		/* jevents.py's whole table, for metrics as for events (was "uncore_cbo") */
		{ "CBO", "uncore_cbox" },
		{ "QPI LL", "uncore_qpi" },
		{ "iMPH-U", "uncore_arb" },
	};
	char buf[64];

	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++) {
		assert_int_equal(pm_db_unit_to_family(t[i][0], buf, sizeof(buf)), 0);
		assert_string_equal(buf, t[i][1]);
	}
}

/* yitian710's InstanceTopology over the names alibaba_pmu.rst gives, and names it refuses. */
static void test_place_decode(void **state)
{
	static const struct pm_place_rule rule = { .die_mask = 0x40000000,
						   .chan_mask = 0x6000,
						   .sub_mask = 0x80 };
	static const struct {
		const char *name;
		int r, die, ch, sub;
		uint64_t addr;
	} t[] = {
		{ "ali_drw_21000", 0, 0, 0, 0, 0x21000 },
		{ "ali_drw_21080", 0, 0, 0, 1, 0x21080 },
		{ "ali_drw_23000", 0, 0, 1, 0, 0x23000 },
		{ "ali_drw_25080", 0, 0, 2, 1, 0x25080 },
		{ "ali_drw_27080", 0, 0, 3, 1, 0x27080 },
		{ "ali_drw_40021000", 0, 1, 0, 0, 0x40021000 },
		{ "ali_drw_40025080", 0, 1, 2, 1, 0x40025080 },
		{ "ali_drw_", -EINVAL, 0, 0, 0, 0 },
		{ "ali_drw_21g00", -EINVAL, 0, 0, 0, 0 },
		{ "ali_drw21000", -EINVAL, 0, 0, 0, 0 },
		{ "amd_df_21000", -EINVAL, 0, 0, 0, 0 },
	};

	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++) {
		uint64_t addr = 7;
		int die = 7, ch = 7, sub = 7;

		assert_int_equal(pm_place_decode(&rule, t[i].name, "ali_drw", &addr, &die, &ch,
						 &sub),
				 t[i].r);
		if (t[i].r < 0) { /* out-parameters untouched */
			assert_true(addr == 7 && die == 7 && ch == 7 && sub == 7);
			continue;
		}
		assert_true(addr == t[i].addr);
		assert_int_equal(die, t[i].die);
		assert_int_equal(ch, t[i].ch);
		assert_int_equal(sub, t[i].sub);
	}
}

/* Every yitian710 PMU placed: die, channel and sub-channel from the name. */
static void test_yitian_places(void **state)
{
	struct pm_ctx *ctx = th_ctx_sim(th_sim_platform("yitian710"));
	size_t placed = 0;

	assert_int_equal(pm_ctx__discover(ctx), 0);
	for (size_t i = 0; i < ctx->n_pmus; i++) {
		const struct pm_pmu *p = ctx->pmus[i];
		unsigned long addr;
		char want[64];

		if (strcmp(p->family, "ali_drw"))
			continue;
		addr = strtoul(p->name + strlen("ali_drw_"), NULL, 16);
		snprintf(want, sizeof(want), "die%d/ch%lu/sub%lu", addr >= 0x40000000,
			 ((addr & 0xffff) - 0x1000) / 0x2000, (addr >> 7) & 1);
		assert_string_equal(p->place.label, want);
		placed++;
	}
	assert_int_equal(placed, 16);
	pm_ctx__free(ctx);
}

static void test_scale_unit(void **state)
{
	static const struct {
		const char *in;
		double scale;
		const char *unit;
	} t[] = {
		{ "6.1e-5MiB", 6.1e-5, "MiB" },
		{ "3e-5MiB", 3e-5, "MiB" },
		{ "1MB/s", 1.0, "MB/s" },
		{ "100%", 100.0, "%" },
		{ "1core clocks", 1.0, "core clocks" },
		{ "1events", 1.0, "events" },
	};
	char unit[32];
	double scale = -1;

	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++) {
		assert_int_equal(pm_db_parse_scale_unit(t[i].in, &scale, unit, sizeof(unit)), 0);
		assert_true(scale == t[i].scale);
		assert_string_equal(unit, t[i].unit);
	}
	scale = -1;
	assert_int_equal(pm_db_parse_scale_unit("MiB", &scale, unit, sizeof(unit)), -EINVAL);
	assert_true(scale == -1);
}

static void test_cpuid_match(void **state)
{
	/* x86 mapfile rows (docs/facts-perf-tools.md §3) */
	const char *zen1 = "AuthenticAMD-23-([12][0-9A-F]|[0-9A-F])";
	const char *zen2 = "AuthenticAMD-23-([3-9A-F][[:xdigit:]])";

	assert_int_equal(pm_db_cpuid_match(zen2, "AuthenticAMD-23-31-0"), 1); /* Rome */
	assert_int_equal(pm_db_cpuid_match(zen2, "AuthenticAMD-23-71-0"), 1); /* Matisse */
	assert_int_equal(pm_db_cpuid_match(zen2, "AuthenticAMD-23-1-2"), 0);
	assert_int_equal(pm_db_cpuid_match(zen1, "AuthenticAMD-23-1-2"), 1); /* Naples */
	assert_int_equal(pm_db_cpuid_match(zen1, "AuthenticAMD-23-31-0"), 0);
	assert_int_equal(pm_db_cpuid_match(zen2, "AuthenticAMD-25-1-1"), 0);
	assert_int_equal(pm_db_cpuid_match(zen2, "GenuineIntel-6-55-4"), 0);
	assert_int_equal(pm_db_cpuid_match(zen2, ""), 0);
	/* perf's own rows, with their dashes inside brackets */
	assert_int_equal(pm_db_cpuid_match("AuthenticAMD-23-[[:xdigit:]]+", "AuthenticAMD-23-31-0"),
			 1);
	assert_int_equal(pm_db_cpuid_match("GenuineIntel-6-55-[01234]", "GenuineIntel-6-55-4"), 1);
	assert_int_equal(pm_db_cpuid_match("GenuineIntel-6-55-[01234]", "GenuineIntel-6-55-7"), 0);
	/* a full pattern (with stepping) compares the stepping too */
	assert_int_equal(pm_db_cpuid_match("AuthenticAMD-23-31-0", "AuthenticAMD-23-31-0"), 1);
	assert_int_equal(pm_db_cpuid_match("AuthenticAMD-23-31-1", "AuthenticAMD-23-31-0"), 0);
	assert_int_equal(pm_db_cpuid_match("(", "x"), -EINVAL);
	/* arm64: the MIDR, as perf's arm64 strcmp_cpuid_str() (metrics' and mapfile
	 * rows alike): the same part at this variant and revision or later */
	assert_int_equal(pm_db_cpuid_match("0x410fd490", "0x00000000410fd493"), 1);
	assert_int_equal(pm_db_cpuid_match("0x00000000410fd493", "0x00000000410fd493"), 1);
	assert_int_equal(pm_db_cpuid_match("0x410fd494", "0x00000000410fd493"), 0);
	assert_int_equal(pm_db_cpuid_match("0x410fd0c0", "0x00000000410fd493"), 0);
	assert_int_equal(pm_db_cpuid_match("GenuineIntel-6-55-4", "0x00000000410fd493"), 0);
	assert_int_equal(pm_db_cpuid_match("0x0x410fd490", "0x00000000410fd493"), 0);
}

/* Every built-in pack parses: no warning on a machine where all of them match. */
static void test_packs_load_clean(void **state)
{
	const char *machines[] = { "yitian710-2die", "epyc7742-1s" };

	assert_true(pm_embedded_count >= 6);
	for (size_t i = 0; i < PM_ARRAY_SIZE(machines); i++) {
		struct pm_ctx *ctx = th_ctx_fixture(machines[i]);

		th_log_clear();
		assert_int_equal(pm_ctx__discover(ctx), 0);
		if (th_logged("pack"))
			fail_msg("%s: %s", machines[i], th_log);
		pm_ctx__free(ctx);
	}
}

static void test_matching(void **state)
{
	struct pm_ctx *ctx = th_ctx_fixture("epyc7742-1s");

	assert_int_equal(pm_ctx__discover(ctx), 0);
	assert_string_equal(pm_ctx__packs(ctx), "amdzen2");
	assert_string_equal(pm_db__cpuid(ctx->db), "AuthenticAMD-23-31-0");
	assert_int_equal(pm_db__default_count(ctx->db), 10);
	pm_ctx__free(ctx);

	ctx = th_ctx_fixture("yitian710-2die");
	assert_int_equal(pm_ctx__discover(ctx), 0);
	assert_string_equal(pm_ctx__packs(ctx), "yitian710");
	assert_string_equal(pm_db__default(ctx->db, 0), "ali_drw/hif_rd/");
	pm_ctx__free(ctx);

	/* no matching PMU: no pack, generic defaults */
	ctx = th_ctx_fixture("malformed");
	assert_int_equal(pm_ctx__discover(ctx), 0);
	assert_string_equal(pm_ctx__packs(ctx), "");
	assert_int_equal(pm_db__default_count(ctx->db), 0);
	pm_ctx__free(ctx);
}

/* perf's data-fabric.json says "Controller 0" for every channel; ours must not. */
static void test_df_descriptions(void **state)
{
	struct pm_ctx *ctx = th_ctx_fixture("epyc7742-1s");
	const struct pm_pmu *df = NULL;

	assert_int_equal(pm_ctx__discover(ctx), 0);
	for (size_t i = 0; i < pm_ctx__pmu_count(ctx); i++)
		if (!strcmp(pm_pmu__name(pm_ctx__pmu(ctx, i)), "amd_df"))
			df = pm_ctx__pmu(ctx, i);
	assert_non_null(df);
	for (int ch = 0; ch < 8; ch++) {
		char name[64], want[64];
		const struct pm_alias *a;

		snprintf(name, sizeof(name), "dram_channel_data_controller_%d", ch);
		snprintf(want, sizeof(want), "DRAM Channel Controller %d", ch);
		a = pm_pmu__find_alias(df, name);
		assert_non_null(a);
		assert_true(pm_alias__per_pkg(a));
		assert_non_null(strstr(pm_alias__desc(a), want));
	}
	pm_ctx__free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_place_decode),   cmocka_unit_test(test_yitian_places),
		cmocka_unit_test(test_unit_to_family), cmocka_unit_test(test_scale_unit),
		cmocka_unit_test(test_cpuid_match),    cmocka_unit_test(test_packs_load_clean),
		cmocka_unit_test(test_matching),       cmocka_unit_test(test_df_descriptions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
