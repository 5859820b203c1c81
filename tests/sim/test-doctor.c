// SPDX-License-Identifier: GPL-2.0-only
/*
 * pmumon doctor (lib/doctor.c) on simulated machines set up for each
 * condition it knows (docs/doctor.md): the finding, its verdict and its fix;
 * and, where a condition blocks counting, that counting is indeed blocked
 * there, so the doctor's word and stat's agree.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "helpers.h"
#include "pmumon/pmumon.h"
#include "pmumon/sim.h"

#define SEC 1000000000ull

struct exam {
	struct pm_ctx *ctx;
	struct pm_finding *f;
	size_t n;
};

static void examine(struct exam *e, struct pm_sim *sim)
{
	e->ctx = th_ctx_sim(sim);
	assert_int_equal(pm_ctx__doctor(e->ctx, &e->f, &e->n), 0);
}

static void done(struct exam *e)
{
	free(e->f);
	pm_ctx__free(e->ctx);
}

/* The finding of topic whose text has what (and whose fix has fix, when given). */
static const struct pm_finding *find(const struct exam *e, const char *topic, const char *what)
{
	for (size_t i = 0; i < e->n; i++)
		if (!strcmp(e->f[i].topic, topic) && strstr(e->f[i].what, what))
			return &e->f[i];
	return NULL;
}

static const struct pm_finding *expect(const struct exam *e, enum pm_verdict v, const char *topic,
				       const char *what, const char *fix)
{
	const struct pm_finding *f = find(e, topic, what);

	if (!f) {
		for (size_t i = 0; i < e->n; i++)
			print_message("  %s: %s\n", e->f[i].topic, e->f[i].what);
		fail_msg("no %s finding with '%s'", topic, what);
	}
	assert_int_equal(f->verdict, v);
	if (fix && !strstr(f->fix, fix))
		fail_msg("%s: fix '%s' lacks '%s'", f->what, f->fix, fix);
	return f;
}

/* As expect, with a fix whose last words are that reason's (naming subject). */
static void expect_reason(const struct exam *e, enum pm_verdict v, const char *topic,
			  const char *what, enum pm_reason reason, const char *subject)
{
	const struct pm_finding *f = expect(e, v, topic, what, NULL);

	assert_int_equal(f->reason, reason);
	assert_string_equal(f->subject, subject);
	assert_true(f->fix_at >= 0 && (size_t)f->fix_at < strlen(f->fix));
	if (strstr(f->fix, "--"))
		fail_msg("%s: fix '%s' names a command-line flag", f->what, f->fix);
}

/* No finding's fix has text (a fix that does not fit the machine). */
static void no_fix_says(const struct exam *e, const char *text)
{
	for (size_t i = 0; i < e->n; i++)
		if (strstr(e->f[i].fix, text))
			fail_msg("%s: %s: fix '%s' says '%s'", e->f[i].topic, e->f[i].what,
				 e->f[i].fix, text);
}

static size_t count(const struct exam *e, enum pm_verdict v)
{
	size_t n = 0;

	for (size_t i = 0; i < e->n; i++)
		n += e->f[i].verdict == v;
	return n;
}

/* Does counting specs system-wide open on this machine? (0, or why not in d) */
static int can_count(const char *platform, const char *const *specs, struct pm_diag *d)
{
	struct th_run r;
	int err = th_start(&r, th_sim_platform(platform), specs, NULL, PM_AGGR_FAMILY, NULL, 0);

	*d = r.d;
	th_stop(&r);
	return err;
}

/* A machine as the platform builds it: every driver loaded, nothing that blocks. */
static void test_healthy(void **state)
{
	static const char *const machines[] = { "amdzen2", "yitian710", "bluefield2", "bluefield3",
						"merrifield" };
	(void)state;
	for (size_t i = 0; i < sizeof(machines) / sizeof(machines[0]); i++) {
		struct exam e;

		examine(&e, th_sim_platform(machines[i]));
		if (count(&e, PM_VERDICT_PROBLEM))
			fail_msg("%s: %zu problems", machines[i], count(&e, PM_VERDICT_PROBLEM));
		expect(&e, PM_VERDICT_OK, "user", "running as root", NULL);
		expect(&e, PM_VERDICT_OK, "perf", "may count system-wide", NULL);
		expect(&e, PM_VERDICT_OK, "lockdown", "is off", NULL);
		expect(&e, PM_VERDICT_OK, "driver", "is loaded", NULL);
		assert_non_null(find(&e, "metrics", "metrics can be computed here"));
		done(&e);
	}
}

/*
 * perf_event_paranoid and capabilities: an unprivileged user is told what
 * blocks system-wide counting, and stat indeed cannot open; CAP_PERFMON or
 * paranoid 0 lift it, and stat opens.
 */
static void test_privileges(void **state)
{
	static const char *const tsc[] = { "msr/tsc/", NULL };
	static const struct {
		const char *machine;
		enum pm_verdict perf;
		const char *what;
	} t[] = {
		{ "amdzen2:user=nobody", PM_VERDICT_PROBLEM,
		  "perf_event_paranoid is 2 and this user" },
		{ "amdzen2:user=nobody,paranoid=1", PM_VERDICT_PROBLEM, "no system-wide" },
		{ "amdzen2:user=nobody,paranoid=3", PM_VERDICT_PROBLEM, "refuses unprivileged" },
		{ "amdzen2:user=nobody,paranoid=0", PM_VERDICT_OK, "every user" },
		{ "amdzen2:user=perfmon", PM_VERDICT_OK, "this user may count" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct pm_diag d;
		struct exam e;
		int r;

		examine(&e, th_sim_platform(t[i].machine));
		expect(&e, t[i].perf, "perf", t[i].what,
		       t[i].perf == PM_VERDICT_PROBLEM ? "kernel.perf_event_paranoid=0" : NULL);
		if (strstr(t[i].machine, "perfmon"))
			expect(&e, PM_VERDICT_OK, "user", "uid 1000 with CAP_PERFMON", NULL);
		done(&e);
		/* what stat manages agrees */
		r = can_count(t[i].machine, tsc, &d);
		if ((r == 0) != (t[i].perf == PM_VERDICT_OK))
			fail_msg("%s: doctor says %d, counting returns %d (%s)", t[i].machine,
				 t[i].perf, r, d.msg);
	}
}

/* perf_event_open refused whatever the paranoid level says (a seccomp profile): found by
 * opening this process's own software clock. */
static void test_perf_refused(void **state)
{
	struct exam e;

	(void)state;
	examine(&e, th_sim_platform_with("amdzen2", "at 0s open-error software EPERM\n"));
	expect(&e, PM_VERDICT_OK, "perf", "may count system-wide", NULL);
	expect(&e, PM_VERDICT_PROBLEM, "perf", "perf_event_open is refused even for", "seccomp");
	done(&e);
}

/* Lockdown: MSR writes refused (the msr source cannot program), said with what still works. */
static void test_lockdown(void **state)
{
	struct exam e;

	(void)state;
	examine(&e, th_sim_platform("amdzen2:lockdown=integrity"));
	expect(&e, PM_VERDICT_WARNING, "lockdown", "'integrity': writes to MSRs", "perf PMUs");
	done(&e);
	examine(&e, th_sim_platform("amdzen2:lockdown=confidentiality"));
	expect(&e, PM_VERDICT_WARNING, "lockdown", "'confidentiality'", NULL);
	done(&e);
}

/*
 * Drivers by module: loaded, loadable (modprobe), missing from the kernel
 * (the CONFIG option); a missing one another module replaces is a warning.
 */
static void test_drivers(void **state)
{
	struct exam e;

	(void)state;
	examine(&e, th_sim_platform("amdzen2:uncore=unloaded,msr=none"));
	expect(&e, PM_VERDICT_PROBLEM, "driver", "amd_uncore is not loaded", "modprobe amd_uncore");
	expect(&e, PM_VERDICT_PROBLEM, "driver", "msr is not loaded", "modprobe msr");
	done(&e);
	examine(&e, th_sim_platform("amdzen2:uncore=none"));
	expect(&e, PM_VERDICT_WARNING, "driver", "amd_uncore is not in this kernel",
	       "CONFIG_PERF_EVENTS_AMD_UNCORE");
	expect(&e, PM_VERDICT_WARNING, "driver", "through msr instead", NULL);
	expect(&e, PM_VERDICT_OK, "driver", "msr is loaded", NULL);
	done(&e);
	/* the msr devices need root and CAP_SYS_RAWIO: a problem only where no perf PMU does
	 * the same, and no advice at all where one does */
	examine(&e, th_sim_platform("amdzen2:user=perfmon"));
	expect(&e, PM_VERDICT_OK, "msr", "needs root and CAP_SYS_RAWIO), and is not needed", "");
	no_fix_says(&e, "CAP_SYS_RAWIO");
	done(&e);
	examine(&e, th_sim_platform("amdzen2:user=perfmon,uncore=none"));
	expect(&e, PM_VERDICT_PROBLEM, "msr", "needs root and CAP_SYS_RAWIO", "run as root");
	done(&e);
	/* msr.allow_writes */
	examine(&e, th_sim_platform("amdzen2:msr=locked,uncore=none"));
	expect(&e, PM_VERDICT_PROBLEM, "msr", "allow_writes is off", "echo on >");
	done(&e);
	examine(&e, th_sim_platform("amdzen2:msr=locked")); /* amd_uncore counts the same */
	expect(&e, PM_VERDICT_OK, "msr", "allow_writes is off", "");
	done(&e);
	/* allowing MSR writes system-wide only to silence a log line, where perf PMUs count
	 * the same, is no advice; where the msr source is the way, it is */
	examine(&e, th_sim_platform("amdzen2"));
	expect(&e, PM_VERDICT_OK, "msr", "allow_writes is default", "");
	no_fix_says(&e, "allow_writes");
	done(&e);
	examine(&e, th_sim_platform("amdzen2:uncore=none"));
	expect(&e, PM_VERDICT_WARNING, "msr", "allow_writes is default", "echo on >");
	done(&e);
}

/* A hypervisor with and without a virtual PMU; the NMI watchdog holding a counter. */
static void test_machine(void **state)
{
	struct exam e;

	(void)state;
	examine(&e, th_sim_platform("amdzen2:hypervisor=kvm-nopmu"));
	expect(&e, PM_VERDICT_PROBLEM, "machine", "without a virtual PMU", "pmu=on");
	/* a guest is given no uncore counters: loading their drivers there gives nothing */
	expect(&e, PM_VERDICT_OK, "driver", "amd_uncore is not loaded, and would give nothing", "");
	expect(&e, PM_VERDICT_OK, "driver", "msr is not loaded, and would give nothing", "");
	no_fix_says(&e, "modprobe");
	/* the core PMU's metrics: the fix is the machine's, not a listing */
	expect(&e, PM_VERDICT_WARNING, "metrics", "unknown PMU 'cpu'", "a virtual PMU");
	no_fix_says(&e, "list pmus");
	done(&e);
	examine(&e, th_sim_platform("amdzen2:hypervisor=kvm"));
	expect(&e, PM_VERDICT_WARNING, "machine", "with a virtual PMU (cpu)", NULL);
	done(&e);
	examine(&e, th_sim_platform("amdzen2:watchdog=1"));
	expect(&e, PM_VERDICT_WARNING, "watchdog", "holds one cpu counter", "nmi_watchdog=0");
	done(&e);
	examine(&e, th_sim_platform("merrifield:watchdog=1")); /* no core PMU to hold */
	expect(&e, PM_VERDICT_OK, "watchdog", "no core PMU", NULL);
	done(&e);
}

/*
 * A container: /sys read-only and no debugfs. BlueField's hwmon counters
 * cannot be programmed there (stat fails to open them), Merrifield's
 * sideband has no debugfs files.
 */
static void test_container(void **state)
{
	static const char *const tile[] = { "bfperf/tile0/MEMORY_READS/", NULL };
	struct pm_diag d;
	struct exam e;

	(void)state;
	examine(&e, th_sim_platform("bluefield2:container=1"));
	expect(&e, PM_VERDICT_PROBLEM, "container", "/sys is mounted read-only in a container",
	       "/sys:/sys:rw");
	done(&e);
	assert_int_not_equal(can_count("bluefield2:container=1", tile, &d), 0);
	assert_int_equal(can_count("bluefield2", tile, &d), 0);
	examine(&e, th_sim_platform("merrifield:container=1"));
	expect(&e, PM_VERDICT_PROBLEM, "driver", "no /sys/kernel/debug/iosf_sb: debugfs",
	       "mount -t debugfs");
	done(&e);
	/* machines whose counters are perf PMUs need neither: no problem there (exit 0) */
	for (size_t i = 0; i < 2; i++) {
		examine(&e, th_sim_platform(i ? "amdzen2:container=1" : "yitian710:container=1"));
		expect(&e, PM_VERDICT_OK, "container", "nothing this machine counts writes to it",
		       "");
		expect(&e, PM_VERDICT_OK, "user", "running as root in a container", "");
		assert_int_equal(count(&e, PM_VERDICT_PROBLEM), 0);
		for (size_t j = 0; j < e.n; j++) /* an ok line that is no verdict */
			assert_string_not_equal(e.f[j].what, "running in a container");
		done(&e);
	}
	/* perf refused in a container: the capability comes at the container's start, and the
	 * sysctl is the host's (neither setcap nor sysctl -w works from inside) */
	examine(&e, th_sim_platform("amdzen2:container=1,user=nobody"));
	expect(&e, PM_VERDICT_PROBLEM, "perf", "lacks CAP_PERFMON", "--cap-add PERFMON");
	expect(&e, PM_VERDICT_PROBLEM, "perf", "lacks CAP_PERFMON", "on the host");
	no_fix_says(&e, "setcap");
	done(&e);
}

/* Counters another program programmed: DF pairs through /dev/cpu/N/msr, hwmon slots. */
static void test_busy(void **state)
{
	struct exam e;

	(void)state;
	examine(&e, th_sim_platform_with("amdzen2:uncore=none",
					 "at 0s poke dev/cpu/0/msr 0xc0010244 0x400000\n"));
	expect_reason(&e, PM_VERDICT_WARNING, "counters",
		      "Data Fabric counter 2 on CPU 0 is in use by another program",
		      PM_REASON_NEEDS_RECLAIM, "");
	done(&e);
	examine(&e,
		th_sim_platform_with("bluefield2",
				     "at 0s write sys/class/hwmon/hwmon1/tile0/event1 0x45\n"
				     "at 0s write sys/class/hwmon/hwmon1/l3cachehalf0/enable 1\n"));
	expect(&e, PM_VERDICT_WARNING, "counters", "tile0 counter 1 is counting HNF_REQUESTS",
	       "write 0 to /sys/class/hwmon/hwmon1/tile0/event1");
	expect(&e, PM_VERDICT_WARNING, "counters", "l3cachehalf0 is counting for another program",
	       NULL);
	done(&e);
}

/* Another pmumon counting through MSRs holds its lock: the doctor names it. */
static void test_lock_held(void **state)
{
	static const char *const df[] = { "amd_df/dram_channel_data_controller_0/", NULL };
	struct pm_finding *f = NULL;
	struct th_run r;
	size_t n = 0;
	bool said = false;

	(void)state;
	assert_int_equal(th_start(&r, th_sim_platform("amdzen2:uncore=none"), df, NULL,
				  PM_AGGR_FAMILY, NULL, 0),
			 0);
	assert_int_equal(pm_ctx__doctor(r.ctx, &f, &n), 0);
	for (size_t i = 0; i < n; i++)
		said |= !strcmp(f[i].topic, "counters") && f[i].verdict == PM_VERDICT_PROBLEM &&
			strstr(f[i].what, "holds /run/pmumon/msr.lock");
	free(f);
	th_stop(&r);
	assert_true(said);
}

/* An older pmumon's lock in /run/lock, held: named; another user's file there is not. */
static void test_old_lock_held(void **state)
{
	static const uid_t owners[] = { 0, 1001 };

	(void)state;
	for (size_t c = 0; c < sizeof(owners) / sizeof(owners[0]); c++) {
		struct pm_sim *sim = th_sim_platform("amdzen2");
		struct exam e;
		const char *held = "another pmumon (pid 4242) holds /run/lock/pmumon-msr.lock";

		assert_int_equal(pm_sim__lock_file(sim, "run/lock/pmumon-msr.lock", owners[c],
						   S_IFREG | 0644, 4242),
				 0);
		examine(&e, sim);
		if (owners[c] == 0)
			expect(&e, PM_VERDICT_PROBLEM, "counters", held, "stop it");
		else
			assert_null(find(&e, "counters", held));
		done(&e);
	}
}

/* Per pack: a metric needing a constant says which --define; Merrifield needs its list. */
static void test_metrics(void **state)
{
	struct exam e;

	(void)state;
	examine(&e, th_sim_platform("yitian710"));
	expect_reason(&e, PM_VERDICT_WARNING, "metrics", "ddr_read_bandwidth.ddrc",
		      PM_REASON_NEEDS_DEFINE, "ddrc_freq");
	/* and where its value comes from (the pack's note on the constant) */
	expect(&e, PM_VERDICT_WARNING, "metrics", "ddr_read_bandwidth.ddrc",
	       "the DDR controller's core clock");
	expect(&e, PM_VERDICT_WARNING, "metrics", "pack yitian710: 5 of 7 metrics", NULL);
	done(&e);
	/* a constant the pack declares without a value: its metrics count nothing until it
	 * is defined, which is no "can be computed here" */
	examine(&e, th_sim_platform("merrifield"));
	expect_reason(&e, PM_VERDICT_WARNING, "metrics", "need 'base_DRAM_frequency'",
		      PM_REASON_NEEDS_DEFINE, "base_DRAM_frequency");
	expect(&e, PM_VERDICT_WARNING, "metrics", "pack merrifield: 37 of 41 metrics", NULL);
	done(&e);
	examine(&e, th_sim_platform("merrifield"));
	expect_reason(&e, PM_VERDICT_WARNING, "metrics", "programming list",
		      PM_REASON_NEEDS_PROGRAM, "");
	done(&e);
	examine(&e, th_sim_platform("amdzen2:hypervisor=kvm-nopmu"));
	expect(&e, PM_VERDICT_WARNING, "metrics", "unknown PMU 'cpu'", NULL);
	done(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_healthy),	     cmocka_unit_test(test_privileges),
		cmocka_unit_test(test_perf_refused), cmocka_unit_test(test_lockdown),
		cmocka_unit_test(test_drivers),	     cmocka_unit_test(test_machine),
		cmocka_unit_test(test_container),    cmocka_unit_test(test_busy),
		cmocka_unit_test(test_lock_held),    cmocka_unit_test(test_old_lock_held),
		cmocka_unit_test(test_metrics),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
