// SPDX-License-Identifier: GPL-2.0-only
/*
 * From specs to perf_event_attr on fixture machines: exact encodings
 * (kernel-facts §3.5, seed 004), family and glob expansion, labels, and
 * every user error pointing at the bad part with a hint.
 */
#include "helpers.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "ctx.h"
#include "evlist.h"
#include "pmu.h"
#include "source/counters.h"
#include "util/util.h"

struct fx {
	struct pm_ctx *ctx;
	struct pm_evlist *l;
};

static struct fx open_fx(const char *machine)
{
	struct fx f = { .ctx = th_ctx_fixture(machine) };

	assert_int_equal(pm_evlist__new(f.ctx, &f.l), 0);
	return f;
}

static void close_fx(struct fx *f)
{
	pm_evlist__free(f->l);
	pm_ctx__free(f->ctx);
}

static const struct pm_event *add_ok(struct fx *f, const char *spec)
{
	struct pm_diag d;
	size_t before = f->l->n_ev;
	int r = pm_evlist__add(f->l, spec, &d);

	if (r != 0)
		fail_msg("'%s': %d: %s (hint: %s)", spec, r, d.msg, d.hint);
	assert_true(f->l->n_ev > before);
	return &f->l->ev[before];
}

static const struct pm_evinst *inst(struct fx *f, const struct pm_event *ev, size_t i)
{
	assert_true(i < ev->n_inst);
	return &f->l->inst[ev->first_inst + i];
}

static void test_amd_encodings(void **state)
{
	struct fx f = open_fx("epyc7742-1s");
	const struct pm_event *ev;

	/* kernel-facts §3.5: channel 4 on the F17h format */
	ev = add_ok(&f, "amd_df/event=0x107,umask=0x38/");
	assert_int_equal(ev->n_inst, 1);
	assert_int_equal(inst(&f, ev, 0)->attr.type, 12);
	assert_int_equal(inst(&f, ev, 0)->attr.config, 0x100003807ull);
	assert_string_equal(ev->label, "amd_df/event=0x107,umask=0x38/");
	/* the same through the pack's event name */
	ev = add_ok(&f, "amd_df/dram_channel_data_controller_4/");
	assert_int_equal(inst(&f, ev, 0)->attr.config, 0x100003807ull);
	assert_true(ev->per_pkg);
	/* a bare name any PMU knows */
	ev = add_ok(&f, "dram_channel_data_controller_7");
	assert_int_equal(inst(&f, ev, 0)->attr.config, 0x1000038c7ull);
	/* remote link 0: seed 004's DfEvent[0x00000007004002C7] minus the enable bit */
	ev = add_ok(&f, "amd_df/remote_outbound_data_controller_0/");
	assert_int_equal(inst(&f, ev, 0)->attr.config, 0x7000002c7ull);
	/* L3 on the F17h format (the seed's raw values use F19h positions, facts §3.6) */
	ev = add_ok(&f, "amd_l3/event=0x4,umask=0xff,slicemask=0xf,threadmask=0xff/");
	assert_int_equal(inst(&f, ev, 0)->attr.config, 0xff0f00000000ff04ull);
	/* config terms and name= */
	ev = add_ok(&f, "cpu/config=0x1a,name=raw_thing/");
	assert_int_equal(inst(&f, ev, 0)->attr.type, 4);
	assert_int_equal(inst(&f, ev, 0)->attr.config, 0x1a);
	assert_string_equal(ev->label, "raw_thing");
	/* a format term without a value is 1, as in perf */
	ev = add_ok(&f, "cpu/event=0xc0,edge/");
	assert_int_equal(inst(&f, ev, 0)->attr.config, 0xc0 | (1 << 18));
	close_fx(&f);
}

static void test_generic_and_raw(void **state)
{
	struct fx f = open_fx("epyc7742-1s");
	const struct pm_event *ev;

	ev = add_ok(&f, "cycles");
	assert_int_equal(inst(&f, ev, 0)->attr.type, PERF_TYPE_HARDWARE);
	assert_int_equal(inst(&f, ev, 0)->attr.config, PERF_COUNT_HW_CPU_CYCLES);
	ev = add_ok(&f, "page-faults");
	assert_int_equal(inst(&f, ev, 0)->attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(inst(&f, ev, 0)->attr.config, PERF_COUNT_SW_PAGE_FAULTS);
	assert_string_equal(inst(&f, ev, 0)->device, "software");
	ev = add_ok(&f, "cpu-clock");
	assert_string_equal(ev->unit, "msec");
	assert_true(ev->scale == 1e-6);
	ev = add_ok(&f, "cs");
	assert_int_equal(inst(&f, ev, 0)->attr.config, PERF_COUNT_SW_CONTEXT_SWITCHES);
	ev = add_ok(&f, "r1a8");
	assert_int_equal(inst(&f, ev, 0)->attr.type, PERF_TYPE_RAW);
	assert_int_equal(inst(&f, ev, 0)->attr.config, 0x1a8);
	ev = add_ok(&f, "instructions:u");
	assert_string_equal(ev->label, "instructions:u");
	assert_int_equal(inst(&f, ev, 0)->attr.exclude_kernel, 1);
	assert_int_equal(inst(&f, ev, 0)->attr.exclude_hv, 1);
	assert_int_equal(inst(&f, ev, 0)->attr.exclude_user, 0);
	/* :h counts the hypervisor only: not :k's encoding */
	ev = add_ok(&f, "instructions:h");
	assert_int_equal(inst(&f, ev, 0)->attr.exclude_hv, 0);
	assert_int_equal(inst(&f, ev, 0)->attr.exclude_kernel, 1);
	assert_int_equal(inst(&f, ev, 0)->attr.exclude_user, 1);
	/* G excludes the host, H the guest, I idle time, D pins, e is exclusive, p.. precise;
	 * none of them changes the privilege levels */
	ev = add_ok(&f, "cpu-clock:GIDepp");
	assert_string_equal(ev->label, "cpu-clock:GIDepp");
	assert_int_equal(inst(&f, ev, 0)->attr.exclude_host, 1);
	assert_int_equal(inst(&f, ev, 0)->attr.exclude_guest, 0);
	assert_int_equal(inst(&f, ev, 0)->attr.exclude_idle, 1);
	assert_int_equal(inst(&f, ev, 0)->attr.pinned, 1);
	assert_int_equal(inst(&f, ev, 0)->attr.exclusive, 1);
	assert_int_equal(inst(&f, ev, 0)->attr.precise_ip, 2);
	assert_int_equal(inst(&f, ev, 0)->attr.exclude_user, 0);
	assert_int_equal(inst(&f, ev, 0)->attr.exclude_kernel, 0);
	ev = add_ok(&f, "cpu-clock:uH");
	assert_int_equal(inst(&f, ev, 0)->attr.exclude_guest, 1);
	assert_int_equal(inst(&f, ev, 0)->attr.exclude_host, 0);
	assert_int_equal(inst(&f, ev, 0)->attr.exclude_kernel, 1);
	/* perf's hardware cache events, encoded as perf 6.1 encodes them on this project's
	 * machine ('perf stat -vv -e NAME -- true': type 3, config): any alias, any case */
	{
		static const struct {
			const char *name;
			uint64_t config;
		} cache[] = {
			{ "L1-dcache-load-misses", 0x10000 },
			{ "LLC-stores", 0x102 },
			{ "dTLB-prefetch-misses", 0x10203 },
			{ "branch-loads", 0x5 },
			{ "L1-dcache-loads", 0x0 },
			{ "l1d-read-miss", 0x10000 },
			{ "iTLB-load-misses", 0x10004 },
			{ "node-stores", 0x106 },
			{ "LLC-misses", 0x10002 },
			{ "L1-icache-prefetches", 0x201 },
		};

		for (size_t i = 0; i < PM_ARRAY_SIZE(cache); i++) {
			ev = add_ok(&f, cache[i].name);
			assert_int_equal(inst(&f, ev, 0)->attr.type, PERF_TYPE_HW_CACHE);
			if (inst(&f, ev, 0)->attr.config != cache[i].config)
				fail_msg("%s: config 0x%llx, perf 0x%llx", cache[i].name,
					 (unsigned long long)inst(&f, ev, 0)->attr.config,
					 (unsigned long long)cache[i].config);
			assert_string_equal(ev->label, cache[i].name);
		}
	}
	ev = add_ok(&f, "msr/tsc/");
	assert_int_equal(inst(&f, ev, 0)->attr.type, 10);
	assert_int_equal(inst(&f, ev, 0)->attr.config, 0);
	ev = add_ok(&f, "msr/aperf/");
	assert_int_equal(inst(&f, ev, 0)->attr.config, 1);
	close_fx(&f);
}

/* Each modifier's attr bits as perf 6.1's perf stat -vv shows them on this project's
 * machine (cpu-clock:MOD), and what P S W b mean when counting. Labels in pmumon's order of the
 * letters (perf 6.1 prints them as typed). */
static void test_modifier_attrs(void **state)
{
	static const struct {
		const char *spec;
		int excl_user, excl_kernel, excl_hv, excl_guest, excl_host, precise;
	} t[] = {
		{ "cpu-clock:u", 0, 1, 1, 1, 0, 0 },
		{ "cpu-clock:k", 1, 0, 1, 1, 0, 0 },
		{ "cpu-clock:h", 1, 1, 0, 0, 0, 0 },
		{ "cpu-clock:uk", 0, 0, 1, 1, 0, 0 },
		{ "cpu-clock:p", 0, 0, 0, 1, 0, 1 },
		{ "cpu-clock:Gp", 0, 0, 0, 0, 1, 1 },
		{ "cpu-clock:Hp", 0, 0, 0, 1, 0, 1 },
		{ "cpu-clock:G", 0, 0, 0, 0, 1, 0 },
		{ "cpu-clock:H", 0, 0, 0, 1, 0, 0 },
		{ "cpu-clock:up", 0, 1, 1, 1, 0, 1 },
		{ "cpu-clock:ppp", 0, 0, 0, 1, 0, 3 },
		/* P: perf stat leaves precise_ip 0 (precise_max is read by evsel__config only) */
		{ "cpu-clock:P", 0, 0, 0, 0, 0, 0 },
		{ "cpu-clock:pP", 0, 0, 0, 1, 0, 1 },
		/* S and b change no bit of a counting attr */
		{ "cpu-clock:S", 0, 0, 0, 0, 0, 0 },
		{ "cpu-clock:b", 0, 0, 0, 0, 0, 0 },
		{ "cpu-clock:W", 0, 0, 0, 0, 0, 0 },
	};
	struct fx f = open_fx("epyc7742-1s");
	const struct pm_event *ev;

	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++) {
		const struct perf_event_attr *a;

		ev = add_ok(&f, t[i].spec);
		a = &inst(&f, ev, 0)->attr;
		if (a->exclude_user != t[i].excl_user || a->exclude_kernel != t[i].excl_kernel ||
		    a->exclude_hv != t[i].excl_hv || a->exclude_guest != t[i].excl_guest ||
		    a->exclude_host != t[i].excl_host || a->precise_ip != t[i].precise)
			fail_msg("%s: u%d k%d hv%d guest%d host%d precise %d", t[i].spec,
				 a->exclude_user, a->exclude_kernel, a->exclude_hv,
				 a->exclude_guest, a->exclude_host, a->precise_ip);
		assert_string_equal(ev->label, t[i].spec);
		assert_false(ev->weak); /* W means something only on a group */
	}
	ev = add_ok(&f, "{cycles,instructions}:W");
	assert_true(ev[0].weak && ev[1].weak);
	assert_int_equal(ev[0].group, ev[1].group);
	ev = add_ok(&f, "{cycles,instructions}");
	assert_false(ev[0].weak);
	ev = add_ok(&f, "bpf-output");
	assert_int_equal(inst(&f, ev, 0)->attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(inst(&f, ev, 0)->attr.config, 10); /* PERF_COUNT_SW_BPF_OUTPUT */
	close_fx(&f);
}

/* perf 6.1's parse_events_add_breakpoint: bp_type r|w unless given, bp_len 4 unless given,
 * sizeof(long) for x alone; the label as typed. */
static void test_breakpoints(void **state)
{
	static const struct {
		const char *spec;
		uint64_t addr, len;
		unsigned type;
	} t[] = {
		{ "mem:0x1000", 0x1000, 4, 3 },	    { "mem:4096:w", 0x1000, 4, 2 },
		{ "mem:0x1000:r", 0x1000, 4, 1 },   { "mem:0x1000:x", 0x1000, sizeof(long), 4 },
		{ "mem:0x1000/2:w", 0x1000, 2, 2 }, { "mem:0x1000/0:w", 0x1000, 4, 2 },
		{ "mem:0x1000/8:x", 0x1000, 8, 4 }, { "mem:0x1000:xw", 0x1000, 4, 6 },
		{ "mem:0x1000/8", 0x1000, 8, 3 },
	};
	struct fx f = open_fx("epyc7742-1s");
	const struct pm_event *ev;

	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++) {
		const struct perf_event_attr *a;

		ev = add_ok(&f, t[i].spec);
		a = &inst(&f, ev, 0)->attr;
		assert_int_equal(a->type, PERF_TYPE_BREAKPOINT);
		assert_int_equal(a->bp_addr, t[i].addr);
		assert_int_equal(a->bp_len, t[i].len);
		assert_int_equal(a->bp_type, t[i].type);
		assert_int_equal(a->config, 0);
		assert_int_equal(a->sample_period, 0);
		assert_string_equal(ev->label, t[i].spec);
	}
	ev = add_ok(&f, "mem:0x1000:w:u");
	assert_int_equal(inst(&f, ev, 0)->attr.exclude_kernel, 1);
	assert_int_equal(inst(&f, ev, 0)->attr.exclude_guest, 1);
	assert_string_equal(ev->label, "mem:0x1000:w:u");
	/* a breakpoint is in the kernel's software context: it may join a hardware group */
	ev = add_ok(&f, "{cycles,mem:0x1000:w}");
	assert_int_equal(ev[0].group, ev[1].group);
	close_fx(&f);
}

/*
 * A glob's PMUs that lack a term are passed over (their error dropped); a later
 * error of the same spec carries its own reason, not the dropped one's.
 */
static void test_dropped_error_leaves_no_reason(void **state)
{
	struct fx f = open_fx("hybrid-ff");
	struct pm_diag d;

	(void)state;
	assert_int_equal(pm_evlist__add(f.l, "{*/event=0x1,umask=0x1/,msr/tsc/}", &d), -EINVAL);
	assert_non_null(strstr(d.msg, "is not on the same PMU as"));
	assert_int_equal(d.reason, PM_REASON_NONE);
	assert_string_equal(d.subject, "");
	assert_non_null(strstr(d.hint, "split it"));
	close_fx(&f);
}

/* perf's PMU names without "uncore_" (perf_pmu__wildcard_match), as its metrics write them. */
static void test_uncore_prefix_optional(void **state)
{
	struct fx f = open_fx("hybrid-ff");
	const struct pm_event *ev;

	ev = add_ok(&f, "cha_0/event=0x1/");
	assert_int_equal(ev->n_inst, 1);
	assert_string_equal(inst(&f, ev, 0)->device, "uncore_cha_0");
	assert_int_equal(inst(&f, ev, 0)->attr.config, 0x1);
	ev = add_ok(&f, "cha/event=0x2/");
	assert_int_equal(ev->n_inst, 2);
	assert_string_equal(inst(&f, ev, 1)->device, "uncore_cha_1");
	ev = add_ok(&f, "uncore_imc_1/event=0x3/");
	assert_int_equal(ev->n_inst, 1);
	assert_string_equal(inst(&f, ev, 0)->device, "uncore_imc_1");
	/* a glob without the prefix: imc_0, imc_1 and imc_free_running_0, as perf's fnmatch */
	ev = add_ok(&f, "imc_*/event=0x4/");
	assert_int_equal(ev->n_inst, 3);
	assert_int_equal(pm_evlist__add(f.l, "ch_0/event=0x1/", NULL), -ENOENT);
	close_fx(&f);
}

static void test_yitian_families(void **state)
{
	struct fx f = open_fx("yitian710-2die");
	const struct pm_event *ev;

	/* the family name: every instance, one row */
	ev = add_ok(&f, "ali_drw/hif_rd/");
	assert_int_equal(ev->n_inst, 16);
	assert_string_equal(ev->label, "ali_drw/hif_rd/");
	for (size_t i = 0; i < 16; i++)
		assert_int_equal(inst(&f, ev, i)->attr.config, 0x2);
	assert_string_equal(inst(&f, ev, 8)->device, "ali_drw_40021000");
	/* a glob over names: die 0 only */
	ev = add_ok(&f, "ali_drw_2*/hif_wr/");
	assert_int_equal(ev->n_inst, 8);
	assert_string_equal(ev->label, "ali_drw/hif_wr/");
	/* one instance keeps its name */
	ev = add_ok(&f, "ali_drw_25080/cycle/");
	assert_int_equal(ev->n_inst, 1);
	assert_int_equal(inst(&f, ev, 0)->attr.config, 0x80);
	assert_string_equal(ev->label, "ali_drw_25080/cycle/");
	/* the JSON name of the cycle event */
	ev = add_ok(&f, "ali_drw/ddr_cycles/");
	assert_int_equal(inst(&f, ev, 0)->attr.config, 0x80);
	/* bare alias across the family */
	ev = add_ok(&f, "hif_rmw");
	assert_int_equal(ev->n_inst, 16);
	/* a comma list in one spec */
	assert_int_equal(pm_evlist__add(f.l, "ali_drw/hif_rd/,ali_drw/hif_wr/", NULL), 0);
	close_fx(&f);
}

struct bad {
	const char *machine, *spec;
	int err;
	int pos, len;
	const char *msg;  /* substring of the message */
	const char *hint; /* substring of the hint, or NULL */
};

/*
 * The hint has want in it; "pmumon list WHAT" is the CLI's words for the
 * library's PM_REASON_SEE_LIST with subject WHAT, which is what is checked.
 */
static bool hint_says(const struct pm_diag *d, const char *want)
{
	static const char list[] = "pmumon list";

	if (!want)
		return true;
	if (strncmp(want, list, sizeof(list) - 1) != 0)
		return strstr(d->hint, want) != NULL;
	want += sizeof(list) - 1;
	want += *want == ' ';
	return d->reason == PM_REASON_SEE_LIST && !strcmp(d->subject, want) &&
	       !strstr(d->hint, "--") && !strstr(d->hint, "pmumon list");
}

static void test_errors(void **state)
{
	static const struct bad t[] = {
		{ "epyc7742-1s", "amd_dx/event=0x7/", -ENOENT, 0, 6, "unknown PMU 'amd_dx'",
		  "pmumon list pmus" },
		/* a cache without that operation, as perf's evsel__hw_cache_stat has it */
		{ "epyc7742-1s", "L1-icache-stores", -EINVAL, 0, 16,
		  "the L1-icache cache has no store operation", "iTLB and branch load only" },
		{ "epyc7742-1s", "amd_df/evnt=0x7/", -ENOENT, 7, 8,
		  "unknown term 'evnt' for PMU 'amd_df'", "event, umask, config" },
		{ "epyc7742-1s", "amd_df/dram_channel_data_controller_9/", -ENOENT, 7, 30,
		  "unknown term or event 'dram_channel_data_controller_9'",
		  "pmumon list events amd_df" },
		{ "epyc7742-1s", "amd_df/event=0x7,umask=0x100/", -ERANGE, 23, 5,
		  "value 0x100 is too big for term 'umask' of PMU 'amd_df' (config:8-15: 8 bits, at most 0xff)",
		  NULL },
		{ "epyc7742-1s", "amd_df/event=0x4000/", -ERANGE, 13, 6, "too big for term 'event'",
		  NULL },
		{ "epyc7742-1s", "amd_df/event=seven/", -EINVAL, 13, 5, "not a number: 'seven'",
		  "0xa" },
		{ "epyc7742-1s", "amd_df/event=0x7,umask=0x38/u", -EINVAL, 28, 1,
		  "PMU 'amd_df' rejects the :u/:k/:h modifiers", "drop the modifier" },
		{ "epyc7742-1s", "{amd_df/event=0x7/,amd_l3/event=0x4/}", -EINVAL, 19, 17,
		  "is not on the same PMU as", "split it" },
		{ "epyc7742-1s", "cyclez", -ENOENT, 0, 6, "unknown event 'cyclez'",
		  "pmumon list events" },

		{ "epyc7742-1s", "sched:sched_switch", -ENOENT, 0, 18,
		  "needs tracefs, which is not mounted", "mount -t tracefs" },
		{ "epyc7742-1s", "amd_df/event=0x7", -EINVAL, 0, 16, "missing closing '/'",
		  "event syntax" },
		{ "yitian710-2die", "{ali_drw_21000/hif_rd/,ali_drw_21000/hif_wr/}", -EINVAL, 1, 1,
		  "PMU 'ali_drw_21000' allows 1 event per group, this group has 2",
		  "drop the braces" },
		{ "yitian710-2die", "ali_drw/hif_rd/k", -EINVAL, 15, 1,
		  "rejects the :u/:k/:h modifiers", NULL },
		{ "yitian710-2die", "ali_drw_9*/hif_rd/", -ENOENT, 0, 10,
		  "unknown PMU 'ali_drw_9*'", NULL },
		{ "yitian710-2die", "ali_drw/hif_rdd/", -ENOENT, 8, 7,
		  "unknown term or event 'hif_rdd'", NULL },
	};

	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++) {
		struct fx f = open_fx(t[i].machine);
		struct pm_diag d;
		int r = pm_evlist__add(f.l, t[i].spec, &d);

		if (r != t[i].err || d.pos != t[i].pos || d.len != t[i].len ||
		    !strstr(d.msg, t[i].msg) || !hint_says(&d, t[i].hint))
			fail_msg("'%s': got %d at %d+%d '%s' (hint '%s'); want %d at %d+%d '%s'",
				 t[i].spec, r, d.pos, d.len, d.msg, d.hint, t[i].err, t[i].pos,
				 t[i].len, t[i].msg);
		assert_string_equal(d.input, t[i].spec);
		/* nothing half-added */
		assert_int_equal(f.l->n_ev, 0);
		assert_int_equal(f.l->n_inst, 0);
		close_fx(&f);
	}
}

/* The CPUs a session places one event's counters on ("0-3"), cpu -1 as "-". */
static void placed(struct fx *f, const struct pm_session_opts *o, size_t e, char *buf, size_t size)
{
	struct pm_session *s = NULL;
	struct pm_diag d;
	struct pm_cpus c = { 0 };
	int r = pm_session__new(f->l, o, &s, &d);

	if (r != 0)
		fail_msg("session: %d: %s", r, d.msg);
	for (size_t k = 0; k < s->n_c; k++)
		if (s->c[k].event == e) {
			struct pm_cpus one = { .n = 1, .cpu = &s->c[k].cpu }, u;

			assert_int_equal(pm_cpus__union(&c, &one, &u), 0);
			pm_cpus__done(&c);
			c = u;
		}
	assert_int_equal(pm_cpus__format(&c, buf, size), 0);
	pm_cpus__done(&c);
	pm_session__free(s);
}

/*
 * perf's cpu= term (newer perf than 6.1; parse-events.c get_config_cpu, libperf
 * __perf_evlist__propagate_maps): system-wide the event counts on the term's CPUs
 * among its PMU's; a CPU list replaces them; a task is counted on them, one
 * counter each; the label keeps the term.
 */
static void test_cpu_term(void **state)
{
	static const struct {
		/* with_c: placed under CPUs "1,5"; task: for one task ("" refused) */
		const char *spec, *label, *cpus, *with_c, *task;
	} t[] = {
		{ "msr/tsc,cpu=cpu_core/", "msr/tsc,cpu=cpu_core/", "0-3", "1,5", "0-3" },
		{ "msr/tsc,cpu=cpu_atom/", "msr/tsc,cpu=cpu_atom/", "4-7", "1,5", "4-7" },
		{ "msr/tsc,cpu=5/", "msr/tsc,cpu=5/", "5", "1,5", "5" },
		{ "msr/tsc,cpu=0x2/", "msr/tsc,cpu=0x2/", "2", "1,5", "2" },
		{ "msr/tsc,cpu=cpu_atom,cpu=1/", "msr/tsc,cpu=cpu_atom,cpu=1/", "1,4-7", "1,5",
		  "1,4-7" },
		{ "msr/tsc,cpu=2-3/", "msr/tsc,cpu=2-3/", "2-3", "1,5", "2-3" },
		/* a PMU without cpus or cpumask adds nothing: every CPU, a task's one counter */
		{ "msr/tsc,cpu=msr/", "msr/tsc,cpu=msr/", "0-7", "1,5", "-1" },
		/* among the PMU's own CPUs */
		{ "cpu_core/event=0x3c,cpu=2-5/", "cpu_core/event=0x3c,cpu=2-5/", "2-3", "1",
		  "2-3" },
		/* each core type its own CPUs: with a task, cpu_atom's instance sits out */
		{ "cpu_*/event=0x3c,cpu=1/", "cpu_*/event=0x3c,cpu=1/", "1", "1,5", "1" },
		{ "uncore_cbox_0/event=0x1,cpu=0-3/", "uncore_cbox_0/event=0x1,cpu=0-3/", "0", "",
		  "" },
		{ "msr/tsc,name=tsc_core,cpu=cpu_core/", "tsc_core", "0-3", "1,5", "0-3" },
	};

	(void)state;
	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++) {
		struct fx f = open_fx("hybrid-ff");
		const struct pm_event *ev = add_ok(&f, t[i].spec);
		struct pm_session_opts sys = { .size = sizeof(sys), .target = PM_TARGET_SYSTEM };
		struct pm_session_opts cpus = { .size = sizeof(cpus),
						.target = PM_TARGET_CPUS,
						.cpus = "1,5" };
		struct pm_session_opts task = { .size = sizeof(task),
						.target = PM_TARGET_TASK,
						.pid = getpid() };
		char got[64];

		assert_string_equal(ev->label, t[i].label);
		placed(&f, &sys, 0, got, sizeof(got));
		if (strcmp(got, t[i].cpus))
			fail_msg("'%s': system-wide on %s, want %s", t[i].spec, got, t[i].cpus);
		if (t[i].with_c[0]) {
			placed(&f, &cpus, 0, got, sizeof(got));
			if (strcmp(got, t[i].with_c))
				fail_msg("'%s': -C 1,5 on %s, want %s", t[i].spec, got,
					 t[i].with_c);
		}
		if (t[i].task[0]) {
			placed(&f, &task, 0, got, sizeof(got));
			if (strcmp(got, t[i].task))
				fail_msg("'%s': a task's on %s, want %s", t[i].spec, got,
					 t[i].task);
		}
		close_fx(&f);
	}
}

/* A cpu= term that leaves the event no CPU, or names none. */
static void test_cpu_term_errors(void **state)
{
	static const struct {
		const char *spec;
		int err;
		const char *msg;
	} t[] = {
		{ "msr/tsc,cpu=8/", -EINVAL, "CPU 8 is not online (online: 0-7)" },
		{ "msr/tsc,cpu=99999999999/", -EINVAL, "cpu=99999999999': no such CPU" },
		{ "msr/tsc,cpu=cpu_big/", -EINVAL,
		  "neither a CPU, a CPU list nor a PMU: 'cpu_big'" },
		{ "msr/tsc,cpu/", -EINVAL, "term 'cpu' needs a value" },
		{ "msr/tsc,cpu=3-1/", -EINVAL, "neither a CPU" },
	};

	(void)state;
	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++) {
		struct fx f = open_fx("hybrid-ff");
		struct pm_diag d;
		int r = pm_evlist__add(f.l, t[i].spec, &d);

		if (r != t[i].err || !strstr(d.msg, t[i].msg))
			fail_msg("'%s': got %d '%s'; want %d '%s'", t[i].spec, r, d.msg, t[i].err,
				 t[i].msg);
		assert_int_equal(f.l->n_ev, 0);
		close_fx(&f);
	}
	{
		/* the uncore PMU's cpumask is CPU 0: a term of CPU 1 leaves it nothing */
		struct fx f = open_fx("hybrid-ff");
		struct pm_session_opts sys = { .size = sizeof(sys), .target = PM_TARGET_SYSTEM };
		struct pm_session_opts task = { .size = sizeof(task),
						.target = PM_TARGET_TASK,
						.pid = getpid() };
		struct pm_session *s = NULL;
		struct pm_diag d;

		add_ok(&f, "uncore_cbox_0/event=0x1,cpu=1/");
		assert_int_equal(pm_session__new(f.l, &sys, &s, &d), -EINVAL);
		assert_non_null(strstr(d.msg, "its cpu term selects 1"));
		/* a task's: the same when no instance has one of the term's CPUs */
		pm_evlist__free(f.l);
		assert_int_equal(pm_evlist__new(f.ctx, &f.l), 0);
		add_ok(&f, "cpu_atom/event=0x3c,cpu=1-2/");
		assert_int_equal(pm_session__new(f.l, &task, &s, &d), -EINVAL);
		assert_non_null(strstr(d.msg, "counts only on CPU(s) 4-7 (PMU 'cpu_atom')"));
		close_fx(&f);
	}
}

/* A long spec keeps the reason in the message, and the caret on the bad part. */
static void test_long_spec_errors(void **state)
{
	struct fx f = open_fx("epyc7742-1s");
	char spec[3000], want[64];
	struct pm_diag d;
	size_t n;

	/* a 700-byte value: the message shortens it, the reason survives */
	n = (size_t)snprintf(spec, sizeof(spec), "amd_df/event=0x7,umask=");
	memset(spec + n, 'x', 700);
	snprintf(spec + n + 700, sizeof(spec) - n - 700, "/");
	assert_int_equal(pm_evlist__add(f.l, spec, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "value of term 'umask' is not a number: 'xxxx"));
	assert_non_null(strstr(d.msg, "xxx...xxx"));
	assert_true(strlen(d.msg) < 200);
	assert_int_equal(d.pos, 23);
	/* a parse error after 2,000 bytes: the reason, and a caret still on it */
	n = 0;
	while (n < 2000)
		n += (size_t)snprintf(spec + n, sizeof(spec) - n, "msr/tsc/,");
	snprintf(spec + n, sizeof(spec) - n, "amd_df/event=0x7");
	assert_int_equal(pm_evlist__add(f.l, spec, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "': missing closing '/'"));
	assert_true(d.pos > 0 && d.pos < (int)sizeof(d.input));
	assert_true(!strncmp(d.input, "...", 3));
	snprintf(want, sizeof(want), "%.6s", d.input + d.pos);
	assert_string_equal(want, "amd_df");
	/* an unknown PMU name of 700 bytes */
	memset(spec, 'y', 700);
	snprintf(spec + 700, sizeof(spec) - 700, "/event=1/");
	assert_int_equal(pm_evlist__add(f.l, spec, &d), -ENOENT);
	assert_non_null(strstr(d.msg, "unknown PMU 'yyyy"));
	assert_int_equal(d.pos, 0);
	assert_int_equal(d.len, 700);
	close_fx(&f);
}

static void test_groups(void **state)
{
	struct fx f = open_fx("epyc7742-1s");
	const struct pm_event *ev;

	assert_int_equal(pm_evlist__add(f.l, "{amd_l3/l3_accesses/,amd_l3/l3_misses/},msr/tsc/",
					NULL),
			 0);
	assert_int_equal(f.l->n_ev, 3);
	assert_int_equal(f.l->ev[0].group, 0);
	assert_int_equal(f.l->ev[1].group, 0);
	assert_int_equal(f.l->ev[2].group, -1);
	/* a software event may join a hardware group */
	ev = add_ok(&f, "{cycles,page-faults}:u");
	assert_int_equal(ev->group, 1);
	assert_int_equal(inst(&f, ev, 0)->attr.exclude_kernel, 1);
	close_fx(&f);
}

/*
 * Every event string of perf 6.1's own parse-events test (tools/perf/tests/
 * parse-events.c, test__events and test__hybrid_events; Debian's
 * linux-source-6.1 6.1.192) resolves here as perf's parser takes it, on a
 * machine with what each names: the EPYC fixture's cpu PMU, tracefs with the
 * tracepoints named, a breakpoint and an intel_pt PMU; the hybrid ones on the
 * hybrid fixture, its cpu_core listing the events they name.
 */
static void add_file(struct pm_sim *sim, const char *path, const char *text)
{
	assert_int_equal(pm_sim__write_file(sim, path, text), 0);
}

static void all_resolve(struct pm_sim *sim, const char *const *specs, size_t n)
{
	struct pm_ctx *ctx = th_ctx_sim(sim);

	for (size_t i = 0; i < n; i++) {
		struct pm_evlist *l;
		struct pm_diag d;
		int r;

		assert_int_equal(pm_evlist__new(ctx, &l), 0);
		r = pm_evlist__add(l, specs[i], &d);
		if (r != 0)
			fail_msg("perf's '%s': %d: %s", specs[i], r, d.msg);
		assert_true(pm_evlist__count(l) > 0);
		pm_evlist__free(l);
	}
	pm_ctx__free(ctx);
}

static void test_perf_parse_events_strings(void **state)
{
	static const char *const events[] = {
		"syscalls:sys_enter_openat",
		"syscalls:*",
		"r1a",
		"1:1",
		"instructions",
		"cycles/period=100000,config2/",
		"faults",
		"L1-dcache-load-miss",
		"mem:0",
		"mem:0:x",
		"mem:0:r",
		"mem:0:w",
		"syscalls:sys_enter_openat:k",
		"syscalls:*:u",
		"r1a:kp",
		"1:1:hp",
		"instructions:h",
		"faults:u",
		"L1-dcache-load-miss:kp",
		"mem:0:u",
		"mem:0:x:k",
		"mem:0:r:hp",
		"mem:0:w:up",
		"r1,syscalls:sys_enter_openat:k,1:1:hp",
		"instructions:G",
		"instructions:H",
		"mem:0:rw",
		"mem:0:rw:kp",
		"{instructions:k,cycles:upp}",
		"{faults:k,cache-references}:u,cycles:k",
		"group1{syscalls:sys_enter_openat:H,cycles:kppp},group2{cycles,1:3}:G,instructions:u",
		"{cycles:u,instructions:kp}:p",
		"{cycles,instructions}:G,{cycles:G,instructions:G},cycles",
		"*:*",
		"{cycles,cache-misses:G}:H",
		"{cycles,cache-misses:H}:G",
		"{cycles:G,cache-misses:H}:u",
		"{cycles:G,cache-misses:H}:uG",
		"{cycles,cache-misses,branch-misses}:S",
		"{instructions,branch-misses}:Su",
		"instructions:uDp",
		"{cycles,cache-misses,branch-misses}:D",
		"mem:0/1",
		"mem:0/2:w",
		"mem:0/4:rw:u",
		"kvm-s390:kvm_s390_create_vm",
		"instructions:I",
		"instructions:kIG",
		"task-clock:P,cycles",
		"instructions/name=insn/",
		"r1234/name=rawpmu/",
		"4:0x6530160/name=numpmu/",
		"L1-dcache-misses/name=cachepmu/",
		"intel_pt//u",
		"cycles/name='COMPLEX_CYCLES_NAME:orig=cycles,desc=chip-clock-ticks'/Duk",
		"cycles//u",
		"cycles:k",
		"instructions:uep",
		"{cycles,cache-misses,branch-misses}:e",
		"cpu/config=10,config1,config2=3,period=1000/u",
		"cpu/config=1,name=krava/u,cpu/config=2/u",
		"cpu/config=1,call-graph=fp,time,period=100000/,cpu/config=2,call-graph=no,time=0,period=2000/",
		"cpu/name='COMPLEX_CYCLES_NAME:orig=cycles,desc=chip-clock-ticks',period=0x1,event=0x2/ukp",
		"software/r1a/",
		"software/r0x1a/",
	};
	static const char *const hybrid[] = {
		"cpu_core/cpu-cycles/",
		"{cpu_core/cpu-cycles/,cpu_core/instructions/}",
		"{cpu-clock,cpu_core/cpu-cycles/}",
		"{cpu_core/cpu-cycles/,cpu-clock}",
		"{cpu_core/cpu-cycles/k,cpu_core/instructions/u}",
		"cpu_core/r1a/",
		"cpu_core/config=10,config1,config2=3,period=1000/u",
		"cpu_core/LLC-loads/",
	};
	struct pm_sim *sim = th_sim_fixture("epyc7742-1s");
	static const char *const tp[][2] = {
		{ "syscalls/sys_enter_openat", "614" },
		{ "syscalls/sys_exit_openat", "613" },
		{ "kvm-s390/kvm_s390_create_vm", "901" },
	};

	for (size_t i = 0; i < PM_ARRAY_SIZE(tp); i++) {
		char path[128];

		snprintf(path, sizeof(path), "sys/kernel/tracing/events/%s/id", tp[i][0]);
		add_file(sim, path, tp[i][1]);
	}
	add_file(sim, "sys/bus/event_source/devices/breakpoint/type", "5\n");
	add_file(sim, "sys/bus/event_source/devices/intel_pt/type", "8\n");
	all_resolve(sim, events, PM_ARRAY_SIZE(events));

	sim = th_sim_fixture("hybrid-ff");
	add_file(sim, "sys/bus/event_source/devices/cpu_core/events/cpu-cycles", "event=0x3c\n");
	add_file(sim, "sys/bus/event_source/devices/cpu_core/events/instructions", "event=0xc0\n");
	all_resolve(sim, hybrid, PM_ARRAY_SIZE(hybrid));
}

/* What perf 6.1 makes of the forms pmumon took last (its parse-events.y rules). */
static void test_perf_syntax_attrs(void **state)
{
	struct fx f = open_fx("epyc7742-1s");
	const struct pm_event *ev;

	/* event_legacy_numeric: type and config as given, labelled as typed */
	ev = add_ok(&f, "1:1:hp");
	assert_int_equal(inst(&f, ev, 0)->attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(inst(&f, ev, 0)->attr.config, PERF_COUNT_SW_TASK_CLOCK);
	assert_int_equal(inst(&f, ev, 0)->attr.precise_ip, 1);
	assert_string_equal(ev->label, "1:1:hp");
	assert_string_equal(ev->unit, "msec"); /* task-clock's, as perf prints it */
	ev = add_ok(&f, "4:0x6530160/name=numpmu/");
	assert_int_equal(inst(&f, ev, 0)->attr.type, 4);
	assert_int_equal(inst(&f, ev, 0)->attr.config, 0x6530160);
	assert_string_equal(ev->label, "numpmu");
	/* event_legacy_raw with terms */
	ev = add_ok(&f, "r1234/name=rawpmu,config1=3/u");
	assert_int_equal(inst(&f, ev, 0)->attr.type, PERF_TYPE_RAW);
	assert_int_equal(inst(&f, ev, 0)->attr.config, 0x1234);
	assert_int_equal(inst(&f, ev, 0)->attr.config1, 3);
	assert_int_equal(inst(&f, ev, 0)->attr.exclude_kernel, 1);
	assert_string_equal(ev->label, "rawpmu:u");
	/* a raw term within a PMU's, in hex with or without 0x */
	ev = add_ok(&f, "software/r0x1a/");
	assert_int_equal(inst(&f, ev, 0)->attr.config, 0x1a);
	/* a bare config term is 1; sampling terms do not change a count */
	ev = add_ok(&f, "cycles/period=100000,config2/");
	assert_int_equal(inst(&f, ev, 0)->attr.config2, 1);
	assert_int_equal(inst(&f, ev, 0)->attr.sample_period, 0);
	ev = add_ok(&f, "cpu/config=10,config1,config2=3,period=1000/u");
	assert_int_equal(inst(&f, ev, 0)->attr.config, 10);
	assert_int_equal(inst(&f, ev, 0)->attr.config1, 1);
	assert_int_equal(inst(&f, ev, 0)->attr.config2, 3);
	/* a named group is a group; its name goes */
	ev = add_ok(&f, "group1{cycles,instructions:u},faults");
	assert_true(ev[0].group >= 0);
	assert_int_equal(ev[1].group, ev[0].group);
	assert_int_equal(ev[2].group, -1);
	close_fx(&f);

	/* a hybrid PMU's generic event: the kernel's extended type in config's top half */
	f = open_fx("hybrid-ff");
	ev = add_ok(&f, "cpu_core/LLC-loads/");
	assert_int_equal(inst(&f, ev, 0)->attr.type, PERF_TYPE_HW_CACHE);
	assert_int_equal(inst(&f, ev, 0)->attr.config, 2 | (4ull << 32));
	ev = add_ok(&f, "cpu_atom/instructions/k");
	assert_int_equal(inst(&f, ev, 0)->attr.type, PERF_TYPE_HARDWARE);
	assert_int_equal(inst(&f, ev, 0)->attr.config, 1 | (8ull << 32));
	close_fx(&f);
}

static void test_tracepoints(void **state)
{
	struct pm_sim *sim = th_sim_fixture("malformed");
	struct pm_ctx *ctx;
	struct pm_evlist *l;
	struct pm_diag d;

	assert_int_equal(pm_sim__write_file(sim, "sys/kernel/tracing/events/sched/sched_switch/id",
					    "316\n"),
			 0);
	assert_int_equal(pm_sim__write_file(sim, "sys/kernel/tracing/events/sched/sched_wakeup/id",
					    "318\n"),
			 0);
	assert_int_equal(pm_sim__write_file(sim, "sys/kernel/tracing/events/sched/enable", "0\n"),
			 0);
	ctx = th_ctx_sim(sim);
	assert_int_equal(pm_evlist__new(ctx, &l), 0);
	assert_int_equal(pm_evlist__add(l, "sched:sched_switch", &d), 0);
	assert_int_equal(l->inst[0].attr.type, PERF_TYPE_TRACEPOINT);
	assert_int_equal(l->inst[0].attr.config, 316);
	/* a glob: one event and row per tracepoint, as perf gives them (by name) */
	assert_int_equal(pm_evlist__add(l, "sched:*", &d), 0);
	assert_int_equal(l->n_ev, 3);
	assert_int_equal(l->ev[1].n_inst, 1);
	assert_string_equal(l->ev[1].label, "sched:sched_switch");
	assert_int_equal(l->inst[l->ev[1].first_inst].attr.config, 316);
	assert_string_equal(l->ev[2].label, "sched:sched_wakeup");
	assert_int_equal(l->inst[l->ev[2].first_inst].attr.config, 318);
	/* in a group with modifiers, each keeps them; a glob over subsystems too */
	assert_int_equal(pm_evlist__add(l, "{sched:sched_w*:u,s*:sched_s*},page-faults", &d), 0);
	assert_int_equal(l->n_ev, 6);
	assert_string_equal(l->ev[3].label, "sched:sched_wakeup:u");
	assert_int_equal(l->inst[l->ev[3].first_inst].attr.exclude_kernel, 1);
	assert_string_equal(l->ev[4].label, "sched:sched_switch");
	assert_int_equal(l->ev[3].group, l->ev[4].group);
	assert_true(l->ev[3].group >= 0);
	assert_int_equal(l->ev[5].group, -1);
	assert_string_equal(l->ev[5].label, "page-faults");
	assert_int_equal(pm_evlist__add(l, "sched:nope", &d), -ENOENT);
	assert_non_null(strstr(d.msg, "no tracepoint matches 'sched:nope'"));
	pm_evlist__free(l);
	pm_ctx__free(ctx);
}

static void test_defaults(void **state)
{
	struct fx f = open_fx("yitian710-2die");
	char desc[512];

	assert_int_equal(pm_evlist__add_defaults(f.l, true, desc, sizeof(desc), NULL), 0);
	assert_non_null(strstr(desc, "the yitian710 pack's defaults"));
	assert_string_equal(f.l->ev[0].label, "ali_drw/hif_rd/"); /* memory bandwidth first */
	assert_int_equal(f.l->ev[0].n_inst, 16);
	assert_true(f.l->ev[0].optional);
	close_fx(&f);

	/* for one command the pack's uncore defaults cannot count: generic ones, and why */
	f = open_fx("yitian710-2die");
	assert_int_equal(pm_evlist__add_defaults(f.l, false, desc, sizeof(desc), NULL), 0);
	assert_non_null(
		strstr(desc, "the platform pack's defaults count the whole machine: add -a"));
	assert_string_equal(f.l->ev[0].label, "task-clock");
	for (size_t i = 0; i < f.l->n_inst; i++)
		assert_true(!f.l->inst[i].pmu || !f.l->inst[i].pmu->uncore);
	close_fx(&f);

	f = open_fx("malformed");
	assert_int_equal(pm_evlist__add_defaults(f.l, true, desc, sizeof(desc), NULL), 0);
	assert_non_null(strstr(desc, "generic events (no platform pack matches this machine)"));
	assert_string_equal(f.l->ev[0].label, "cpu-clock");
	close_fx(&f);

	f = open_fx("malformed");
	assert_int_equal(pm_evlist__add_defaults(f.l, false, desc, sizeof(desc), NULL), 0);
	assert_string_equal(f.l->ev[0].label, "task-clock");
	close_fx(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_amd_encodings),
		cmocka_unit_test(test_generic_and_raw),
		cmocka_unit_test(test_yitian_families),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_tracepoints),
		cmocka_unit_test(test_perf_parse_events_strings),
		cmocka_unit_test(test_perf_syntax_attrs),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_long_spec_errors),
		cmocka_unit_test(test_modifier_attrs),
		cmocka_unit_test(test_breakpoints),
		cmocka_unit_test(test_uncore_prefix_optional),
		cmocka_unit_test(test_dropped_error_leaves_no_reason),
		cmocka_unit_test(test_cpu_term),
		cmocka_unit_test(test_cpu_term_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
