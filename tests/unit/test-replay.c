// SPDX-License-Identifier: GPL-2.0-only
/* The recording parsers' pure pieces (source/replay-parse.c), table-driven. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "source/replay.h"

static void test_aggr_id(void **state)
{
	static const struct {
		const char *s;
		int r, cpu, socket, die, core;
	} t[] = {
		{ "CPU0", 0, 0, -1, -1, -1 },	    { "CPU17", 0, 17, -1, -1, -1 },
		{ "S0", 0, -1, 0, -1, -1 },	    { "S1-D0", 0, -1, 1, 0, -1 },
		{ "S0-D1-C3", 0, -1, 0, 1, 3 },	    { "CPU", -EINVAL, 0, 0, 0, 0 },
		{ "CPU1x", -EINVAL, 0, 0, 0, 0 },   { "S0-D", -EINVAL, 0, 0, 0, 0 },
		{ "S0-X1", -EINVAL, 0, 0, 0, 0 },   { "N0", -EINVAL, 0, 0, 0, 0 },
		{ "summary", -EINVAL, 0, 0, 0, 0 }, { "0.200323643", -EINVAL, 0, 0, 0, 0 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int cpu = 99, socket = 99, die = 99, core = 99;
		int r = pm_replay_parse_aggr_id(t[i].s, &cpu, &socket, &die, &core);

		assert_int_equal(r, t[i].r);
		if (r < 0)
			continue;
		assert_int_equal(cpu, t[i].cpu);
		assert_int_equal(socket, t[i].socket);
		assert_int_equal(die, t[i].die);
		assert_int_equal(core, t[i].core);
	}
}

static void test_split_name(void **state)
{
	static const struct {
		const char *printed, *name, *pmu;
	} t[] = {
		/* perf's uniquify_event_name: instance/terms/, or name [instance] */
		{ "ali_drw_27080/hif_rd/", "ali_drw/hif_rd/", "ali_drw_27080" },
		{ "hif_rd [ali_drw_27080]", "hif_rd", "ali_drw_27080" },
		{ "amd_df/event=0x7,umask=0x38/", "amd_df/event=0x7,umask=0x38/", "amd_df" },
		{ "msr/tsc/", "msr/tsc/", "msr" },
		{ "dram_channel_data_controller_4", "dram_channel_data_controller_4", NULL },
		{ "cycles", "cycles", NULL },
		{ "sched:sched_switch", "sched:sched_switch", NULL },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *name = NULL, *pmu = NULL;

		assert_int_equal(pm_replay_split_name(t[i].printed, &name, &pmu), 0);
		assert_string_equal(name, t[i].name);
		if (t[i].pmu)
			assert_string_equal(pmu, t[i].pmu);
		else
			assert_null(pmu);
		free(name);
		free(pmu);
	}
}

/* An event whose terms hold the separator spans fields: perf does not quote. */
static void test_unquoted_terms(void **state)
{
	static const char text[] =
		"     1.000000000,100,,amd_df/event=0x7,umask=0x38/,500000000,50.00,,\n"
		"     1.000000000,<not counted>,,amd_df/event=0x47,umask=0x38/,0,0.00,,\n";
	struct pm_replay_opts o = { .size = sizeof(o), .name = "t.csv" };
	struct pm_replay *rp = NULL;
	struct pm_diag d;

	(void)state;
	assert_int_equal(pm_replay__parse(text, strlen(text), &o, &rp, &d), 0);
	assert_int_equal(rp->n_series, 2);
	assert_string_equal(rp->series[0].name, "amd_df/event=0x7,umask=0x38/");
	assert_int_equal(rp->n_samples, 1);
	assert_true(rp->intervals);
	assert_int_equal(rp->vals[0].run, 500000000);
	assert_int_equal(rp->vals[0].ena, 1000000000); /* from 50.00% */
	assert_true(rp->vals[1].not_counted);
	pm_replay__free(rp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aggr_id),
		cmocka_unit_test(test_split_name),
		cmocka_unit_test(test_unquoted_terms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
