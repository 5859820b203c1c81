// SPDX-License-Identifier: GPL-2.0-only
/*
 * issue 14 item 5: perf's #literals and functions in metric expressions,
 * each with the simulated machine's value (a one-socket EPYC 7742: 128
 * CPUs, 64 cores with 2 threads each, one package), or, where the machine
 * cannot tell, a metric that is not counted and a note that says why.
 * What perf reads for each: lib/metric/literal.c, docs/facts-metrics.md.
 */
#include "helpers.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "sim.h"
#include "util/util.h"

#define SEC 1000000000ull

/* A lab pack on the simulated EPYC whose metrics are the JSON given; a session
 * on target (CPUs: cpus) that counts them; its totals after a second. */
static const struct pm_report *lab(struct th_run *r, struct pm_sim *sim, const char *metrics_json,
				   const char *metrics, const char *cpus)
{
	struct pm_session_opts so = { .size = sizeof(so),
				      .target = cpus ? PM_TARGET_CPUS : PM_TARGET_SYSTEM,
				      .cpus = cpus };

	th_lab(r, sim, metrics_json);
	/* an event, so that a session has a counter besides constant metrics */
	assert_int_equal(pm_evlist__add(r->l, "duration_time", &r->d), 0);
	if (pm_evlist__add_metrics(r->l, metrics, &r->d) < 0)
		fail_msg("%s: %s", metrics, r->d.msg);
	assert_int_equal(pm_session__new(r->l, &so, &r->s, &r->d), 0);
	assert_int_equal(pm_session__open(r->s, &r->d), 0);
	assert_int_equal(pm_session__enable(r->s), 0);
	pm_sim__advance(sim, SEC);
	assert_int_equal(pm_session__read(r->s), 0);
	return pm_session__report(r->s, false);
}

static const struct pm_row *metric(const struct pm_report *rep, const char *name)
{
	for (size_t i = 0; i < rep->n_rows; i++)
		if ((rep->rows[i].flags & PM_ROW_METRIC) && !strcmp(rep->rows[i].event, name))
			return &rep->rows[i];
	fail_msg("no row of metric %s", name);
	return NULL;
}

static double value(const struct pm_report *rep, const char *name)
{
	const struct pm_row *row = metric(rep, name);

	assert_false(row->flags & PM_ROW_NOT_COUNTED);
	return row->value;
}

/* Has one of the list's notes this text in it? */
static bool noted(const struct pm_evlist *l, const char *text)
{
	for (size_t i = 0; i < pm_evlist__note_count(l); i++)
		if (strstr(pm_evlist__note(l, i), text))
			return true;
	return false;
}

#define M(name, expr) "{\"MetricName\": \"" name "\", \"MetricExpr\": \"" expr "\"}"

static void test_topology_literals(void **state)
{
	static const char m[] = "[" M("lab_cpus", "#num_cpus") ",\n" M("lab_online", "#NUM_CPUS_ONLINE") ",\n" M(
		"lab_cores",
		"#num_cores") ",\n" M("lab_packages",
				      "#num_packages") ",\n" M("lab_dies",
							       "#num_dies") ",\n" M("lab_smt",
										    "#Smt_On") ",\n" M("lab_pmem",
												       "#has_pmem") "]";
	struct th_run r;
	const struct pm_report *rep;

	(void)state;
	rep = lab(&r, th_sim_platform("amdzen2"), m,
		  "lab_cpus,lab_online,lab_cores,lab_packages,lab_dies,lab_smt,lab_pmem", NULL);
	th_assert_near(value(rep, "lab_cpus"), 128, 0);	  /* present: 0-127 */
	th_assert_near(value(rep, "lab_online"), 128, 0); /* perf's names are case-insensitive */
	th_assert_near(value(rep, "lab_cores"), 64, 0);
	th_assert_near(value(rep, "lab_packages"), 1, 0);
	th_assert_near(value(rep, "lab_dies"), (double)pm_ctx__die_count(r.ctx), 0);
	th_assert_near(value(rep, "lab_smt"), 1, 0); /* two threads a core */
	th_assert_near(value(rep, "lab_pmem"), 0, 0);
	assert_int_equal(pm_evlist__note_count(r.l), 0);
	th_stop(&r);
}

/* The kernel's own word wins over the topology (smt/active), and files count. */
static void test_literals_from_sysfs_files(void **state)
{
	static const char m[] = "[" M("lab_smt",
				      "#smt_on") ",\n" M("lab_pmem",
							 "#has_pmem") ",\n" M("lab_cpus",
									      "#num_cpus") "]";
	struct pm_sim *sim = th_sim_platform("amdzen2");
	struct th_run r;
	const struct pm_report *rep;

	(void)state;
	assert_int_equal(pm_sim__write_file(sim, "sys/devices/system/cpu/smt/active", "0\n"), 0);
	assert_int_equal(pm_sim__write_file(sim, "sys/firmware/acpi/tables/NFIT", "x"), 0);
	/* CPUs 128-255 present but offline: #num_cpus is the highest present + 1 */
	assert_int_equal(pm_sim__write_file(sim, "sys/devices/system/cpu/present", "0-255\n"), 0);
	rep = lab(&r, sim, m, "lab_smt,lab_pmem,lab_cpus", NULL);
	th_assert_near(value(rep, "lab_smt"), 0, 0);
	th_assert_near(value(rep, "lab_pmem"), 1, 0);
	th_assert_near(value(rep, "lab_cpus"), 256, 0);
	th_stop(&r);
}

/*
 * A metric of constants alone (perf: #smt_on) needs no event: a session of it
 * alone opens no counter and gives its value; a branch a constant condition
 * does not take opens nothing, and its names need not exist (perf's expr.y:
 * 0 & NOSUCH > 0). Only the taken branch's event is in the list.
 */
static void test_event_free_and_folded(void **state)
{
	static const char m[] = "[" M("lab_smt2", "#smt_on * 2 + 1") ",\n" M(
		"lab_fold", "nosuch_event * 2 if 0 & nosuch_event > 0 else msr@tsc@ / 1e9") "]";
	struct pm_session_opts so = { .size = sizeof(so), .target = PM_TARGET_SYSTEM };
	struct pm_sim *sim = th_sim_platform("amdzen2");
	const struct pm_report *rep;
	struct th_run r;

	(void)state;
	th_lab(&r, sim, m);
	assert_int_equal(pm_evlist__add_metrics(r.l, "lab_smt2", &r.d), 0);
	assert_int_equal(pm_evlist__count(r.l), 0); /* no event at all */
	assert_int_equal(pm_session__new(r.l, &so, &r.s, &r.d), 0);
	assert_int_equal(pm_session__open(r.s, &r.d), 0);
	assert_int_equal(pm_session__counter_count(r.s), 0);
	assert_int_equal(pm_session__enable(r.s), 0);
	pm_sim__advance(sim, SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, false);
	th_assert_near(value(rep, "lab_smt2"), 3, 0); /* two threads a core */
	th_stop(&r);

	th_lab(&r, sim = th_sim_platform("amdzen2"), m);
	if (pm_evlist__add_metrics(r.l, "lab_fold", &r.d) < 0)
		fail_msg("lab_fold: %s", r.d.msg);
	assert_int_equal(pm_evlist__count(r.l), 1); /* the tsc alone: nosuch_event never bound */
	assert_string_equal(pm_evlist__name(r.l, 0), "msr/tsc/");
	th_stop(&r);
}

/* What the machine cannot tell is not counted, with a note; never a guess. */
static void test_unknown_literals(void **state)
{
	static const char m[] = "[" M("lab_tsc", "#system_tsc_freq") ",\n" M("lab_slots",
									     "#slots") "]";
	struct th_run r;
	const struct pm_report *rep;

	(void)state;
	rep = lab(&r, th_sim_platform("amdzen2"), m, "lab_tsc,lab_slots", NULL);
	assert_true(metric(rep, "lab_tsc")->flags & PM_ROW_NOT_COUNTED);
	assert_true(isnan(metric(rep, "lab_tsc")->value));
	assert_true(metric(rep, "lab_slots")->flags & PM_ROW_NOT_COUNTED);
	assert_true(noted(r.l, "metric lab_tsc shows as not counted: #system_tsc_freq is unknown "
			       "here: perf knows the TSC frequency of Intel CPUs only"));
	assert_true(noted(r.l, "#slots is unknown here: no core PMU has caps/slots"));
	th_stop(&r);
}

/* An Intel CPU's TSC frequency: its model name's "@ 3.00GHz", as perf's fallback. */
static void test_tsc_from_model_name(void **state)
{
	static const char m[] = "[" M("lab_tsc", "#system_tsc_freq") "]";
	struct pm_sim *sim = th_sim_platform("amdzen2");
	struct th_run r;

	(void)state;
	assert_int_equal(pm_sim__write_file(sim, "proc/cpuinfo",
					    "processor\t: 0\nvendor_id\t: GenuineIntel\n"
					    "cpu family\t: 6\nmodel\t\t: 85\n"
					    "model name\t: Intel(R) Xeon(R) Gold 6154 CPU @ 3.00GHz\n"
					    "stepping\t: 4\n"),
			 0);
	th_assert_near(value(lab(&r, sim, m, "lab_tsc", NULL), "lab_tsc"), 3e9, 0);
	th_stop(&r);
}

/*
 * #core_wide: system-wide yes; a CPU list only with each core's threads all or
 * none. The simulated EPYC numbers socket s core c as CPU s*64+c and its SMT
 * sibling +64 (sim/platform/amdzen2.c): CPU 0's sibling is 64.
 */
static void test_core_wide(void **state)
{
	static const char m[] = "[" M("lab_cw", "#core_wide") "]";
	const struct {
		const char *cpus;
		double want;
	} cases[] = { { NULL, 1 }, { "0-127", 1 }, { "0", 0 }, { "0,64", 1 }, { "0-63", 0 } };

	(void)state;
	for (size_t i = 0; i < PM_ARRAY_SIZE(cases); i++) {
		struct th_run r;

		th_assert_near(value(lab(&r, th_sim_platform("amdzen2"), m, "lab_cw",
					 cases[i].cpus),
				     "lab_cw"),
			       cases[i].want, 0);
		th_stop(&r);
	}
}

/*
 * has_event and strcmp_cpuid_str, as perf: does it parse here; does the CPU id
 * (the simulated EPYC's AuthenticAMD-23-31-0) match, names escaped as perf's
 * metrics escape them.
 */
static void test_functions(void **state)
{
	static const char m[] =
		"[" M("lab_has", "has_event(l3_misses)") ",\n" M("lab_hasnt", "has_event(no_such_event)") ",\n" M(
			"lab_amd",
			"strcmp_cpuid_str(AuthenticAMD\\\\-23\\\\-31\\\\-0)") ",\n" M("lab_intel",
										      "strcmp_cpuid_str(GenuineIntel\\\\-6\\\\-55)") "]";
	struct th_run r;
	const struct pm_report *rep;

	(void)state;
	rep = lab(&r, th_sim_platform("amdzen2"), m, "lab_has,lab_hasnt,lab_amd,lab_intel", NULL);
	th_assert_near(value(rep, "lab_has"), 1, 0);
	th_assert_near(value(rep, "lab_hasnt"), 0, 0);
	th_assert_near(value(rep, "lab_amd"), 1, 0);
	th_assert_near(value(rep, "lab_intel"), 0, 0);
	th_stop(&r);
}

/*
 * A guard: `A if has_event(A) else B` is B where A does not exist, as perf's
 * parser leaves out the branch a constant condition does not take, and A
 * where it does.
 */
static void test_has_event_guard(void **state)
{
	static const char m[] =
		"[" M("lab_guard", "no_such_event * 2 if has_event(no_such_event) else 7") ",\n" M(
			"lab_have", "1 if has_event(l3_misses) else 7") "]";
	struct th_run r;
	const struct pm_report *rep;

	(void)state;
	rep = lab(&r, th_sim_platform("amdzen2"), m, "lab_guard,lab_have", NULL);
	th_assert_near(value(rep, "lab_guard"), 7, 0);
	th_assert_near(value(rep, "lab_have"), 1, 0);
	th_stop(&r);
}

/* A literal perf does not have is an error that names it. */
static void test_unknown_literal_name(void **state)
{
	static const char m[] = "[" M("lab_bad", "#num_sockets") "]";
	struct th_run r;

	(void)state;
	th_lab(&r, th_sim_platform("amdzen2"), m);
	assert_true(pm_evlist__add_metrics(r.l, "lab_bad", &r.d) < 0);
	assert_non_null(strstr(r.d.msg, "#num_sockets"));
	th_stop(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_topology_literals),
		cmocka_unit_test(test_literals_from_sysfs_files),
		cmocka_unit_test(test_unknown_literals),
		cmocka_unit_test(test_event_free_and_folded),
		cmocka_unit_test(test_tsc_from_model_name),
		cmocka_unit_test(test_core_wide),
		cmocka_unit_test(test_functions),
		cmocka_unit_test(test_unknown_literal_name),
		cmocka_unit_test(test_has_event_guard),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
