// SPDX-License-Identifier: GPL-2.0-only
/* Event specs in perf's syntax: what each form parses to, and where errors point. */
#include "helpers.h"

#include <errno.h>
#include <string.h>

#include "spec.h"
#include "util/util.h"

/* A compact rendering of a parsed spec, to compare against a table. */
static void render(const struct pm_spec *s, char *buf, size_t size)
{
	static const char *const kind[] = { "pmu", "sym", "raw", "tp", "mem", "num" };
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < s->n; i++) {
		const struct pm_spec_event *e = &s->ev[i];

		off += (size_t)snprintf(buf + off, size - off, "%s%s:", i ? " " : "",
					kind[e->kind]);
		if (e->kind == PM_SPEC_PMU)
			off += (size_t)snprintf(buf + off, size - off, "%s[", e->pmu);
		else if (e->kind == PM_SPEC_RAW)
			off += (size_t)snprintf(buf + off, size - off, "0x%llx",
						(unsigned long long)e->raw);
		else if (e->kind == PM_SPEC_NUMERIC)
			off += (size_t)snprintf(buf + off, size - off, "%u/0x%llx", e->type,
						(unsigned long long)e->raw);
		else if (e->kind == PM_SPEC_BREAKPOINT)
			off += (size_t)snprintf(buf + off, size - off, "0x%llx/%llu/%u",
						(unsigned long long)e->raw,
						(unsigned long long)e->bp_len, e->bp_type);
		else
			off += (size_t)snprintf(buf + off, size - off, "%s", e->name);
		for (size_t t = 0; t < e->n_terms; t++)
			off += (size_t)snprintf(buf + off, size - off, "%s%s%s%s", t ? "," : "",
						e->terms[t].name, e->terms[t].value ? "=" : "",
						e->terms[t].value ? e->terms[t].value : "");
		if (e->kind == PM_SPEC_PMU)
			off += (size_t)snprintf(buf + off, size - off, "]");
		if (e->mods || e->precise)
			off += (size_t)snprintf(buf + off, size - off,
						":%s%s%s%s%s%s%s%s%.*s%s%s%s%s",
						e->mods & PM_MOD_U ? "u" : "",
						e->mods & PM_MOD_K ? "k" : "",
						e->mods & PM_MOD_H ? "h" : "",
						e->mods & PM_MOD_GUEST ? "G" : "",
						e->mods & PM_MOD_HOST ? "H" : "",
						e->mods & PM_MOD_NOIDLE ? "I" : "",
						e->mods & PM_MOD_PINNED ? "D" : "",
						e->mods & PM_MOD_EXCL ? "e" : "", (int)e->precise,
						"ppp", e->mods & PM_MOD_PMAX ? "P" : "",
						e->mods & PM_MOD_SREAD ? "S" : "",
						e->mods & PM_MOD_WEAK ? "W" : "",
						e->mods & PM_MOD_BPF ? "b" : "");
		if (e->group >= 0)
			off += (size_t)snprintf(buf + off, size - off, "@g%d", e->group);
	}
}

static void test_parse_ok(void **state)
{
	static const struct {
		const char *in, *want;
	} t[] = {
		{ "cycles", "sym:cycles" },
		{ "cycles:u", "sym:cycles:u" },
		{ "instructions:uk", "sym:instructions:uk" },
		{ "page-faults,task-clock", "sym:page-faults sym:task-clock" },
		{ "msr/tsc/", "pmu:msr[tsc]" },
		{ "msr/tsc/u", "pmu:msr[tsc]:u" },
		{ "msr/tsc/:k", "pmu:msr[tsc]:k" },
		{ "cycles:h", "sym:cycles:h" }, /* each modifier its own bit */
		{ "cycles:uh", "sym:cycles:uh" },
		{ "cycles:kh", "sym:cycles:kh" },
		{ "ali_drw_*/hif_rd/", "pmu:ali_drw_*[hif_rd]" },
		{ "ali_drw/hif_rd/", "pmu:ali_drw[hif_rd]" },
		{ "amd_df/event=0x107,umask=0x38/", "pmu:amd_df[event=0x107,umask=0x38]" },
		{ "amd_df/event=0x7,umask=0x38,name=ch0/",
		  "pmu:amd_df[event=0x7,umask=0x38,name=ch0]" },
		{ "cpu/event=0x3c,edge/", "pmu:cpu[event=0x3c,edge]" },
		{ "cpu/name='my event'/", "pmu:cpu[name=my event]" },
		{ "cpu/config=0x1a,config1=5/", "pmu:cpu[config=0x1a,config1=5]" },
		{ "power/energy-pkg/", "pmu:power[energy-pkg]" },
		/* perf's cpu= term (Linux 6.16; a PMU's name later): a term like any other */
		{ "msr/tsc,cpu=cpu_core/", "pmu:msr[tsc,cpu=cpu_core]" },
		{ "msr/tsc,cpu=0,cpu=2-3/", "pmu:msr[tsc,cpu=0,cpu=2-3]" },
		{ "msr/tsc,cpu=0x1/u", "pmu:msr[tsc,cpu=0x1]:u" },
		{ "{msr/tsc,cpu=cpu_atom/,cycles}", "pmu:msr[tsc,cpu=cpu_atom]@g0 sym:cycles@g0" },
		{ "r1a8", "raw:0x1a8" },
		{ "r1a8:u", "raw:0x1a8:u" },
		{ "r0x3c", "sym:r0x3c" }, /* perf's raw events are r and hex digits: not one */
		{ "rapl", "sym:rapl" },
		{ "sched:sched_switch", "tp:sched:sched_switch" },
		{ "sched:*", "tp:sched:*" },
		{ "irq:irq_handler_*", "tp:irq:irq_handler_*" },
		{ "{cycles,instructions}", "sym:cycles@g0 sym:instructions@g0" },
		{ "{cycles,instructions}:u", "sym:cycles:u@g0 sym:instructions:u@g0" },
		{ "{a,b},c,{d}", "sym:a@g0 sym:b@g0 sym:c sym:d@g1" },
		{ "hif_rd", "sym:hif_rd" },
		{ "cycles:x", "tp:cycles:x" }, /* like perf: not modifiers, so a tracepoint */
		/* perf's other modifiers, each its own bit; p counted */
		{ "cycles:G", "sym:cycles:G" },
		{ "cycles:H", "sym:cycles:H" },
		{ "cycles:IDe", "sym:cycles:IDe" },
		{ "cycles:upp", "sym:cycles:upp" },
		{ "msr/tsc/G", "pmu:msr[tsc]:G" },
		{ "{cycles,instructions}:ppp", "sym:cycles:ppp@g0 sym:instructions:ppp@g0" },
		/* P S W b, accepted as perf 6.1 takes them (their meaning: resolve.c, perf.c) */
		{ "cycles:P", "sym:cycles:P" },
		{ "cycles:uP", "sym:cycles:uP" },
		{ "cycles:S", "sym:cycles:S" },
		{ "cycles:b", "sym:cycles:b" },
		{ "{cycles,instructions}:W", "sym:cycles:W@g0 sym:instructions:W@g0" },
		{ "cpu/cycles/W", "pmu:cpu[cycles]:W" },
		/* perf's breakpoints: mem:ADDR[/LEN][:TYPE], r 1 w 2 x 4; 0 = not given */
		{ "mem:0x1000", "mem:0x1000/0/0" },
		{ "mem:4096", "mem:0x1000/0/0" },
		{ "mem:010", "mem:0xa/0/0" }, /* perf's num_dec: strtoull base 10 */
		{ "mem:0x1000:w", "mem:0x1000/0/2" },
		{ "mem:0x1000:rw", "mem:0x1000/0/3" },
		{ "mem:0x1000:wr", "mem:0x1000/0/3" },
		{ "mem:0x1000:x", "mem:0x1000/0/4" },
		{ "mem:0x1000:rwx", "mem:0x1000/0/7" }, /* the kernel refuses it, as for perf */
		{ "mem:0x1000/8", "mem:0x1000/8/0" },
		{ "mem:0x1000/0x8:w", "mem:0x1000/8/2" },
		{ "mem:0x1000/0:w", "mem:0x1000/0/2" },
		{ "mem:0x1000:w:u", "mem:0x1000/0/2:u" },
		{ "mem:0x1000:wu", "mem:0x1000/0/2:u" },
		{ "mem:0x1000:u", "mem:0x1000/0/0:u" },
		{ "mem:0x1000u", "mem:0x1000/0/0:u" },
		{ "mem:0x1000/8:rw:kp", "mem:0x1000/8/3:kp" },
		{ "mem:0x1000:", "mem:0x1000/0/0" },
		{ "mem:0x1000:rw:", "mem:0x1000/0/3" },
		{ "mem:0xffffffffffffffff:w", "mem:0xffffffffffffffff/0/2" },
		{ "mem:0x1000:w,cycles", "mem:0x1000/0/2 sym:cycles" },
		{ "{mem:0x1000:w,cycles}:u", "mem:0x1000/0/2:u@g0 sym:cycles:u@g0" },
		{ "memory:x", "tp:memory:x" },
		{ "bpf-output", "sym:bpf-output" },
		/* blanks after the ',' between events, as perf takes them */
		{ "cycles, instructions", "sym:cycles sym:instructions" },
		{ "{cycles,  instructions},\tpage-faults",
		  "sym:cycles@g0 sym:instructions@g0 sym:page-faults" },
		{ "msr//", "pmu:msr[]" },
		/* a device's block: pmu '/' block '/' terms '/' */
		{ "bfperf/tile2/HNF_REQUESTS/", "pmu:bfperf/tile2[HNF_REQUESTS]" },
		{ "bfperf/tile*/MEMORY_READS/:u", "pmu:bfperf/tile*[MEMORY_READS]:u" },
		{ "bfperf/pcie0/IN_P_BYTE_CNT/:k,cycles",
		  "pmu:bfperf/pcie0[IN_P_BYTE_CNT]:k sym:cycles" },
		{ "{bfperf/l3cachehalf0/event=0x17,name=h/}",
		  "pmu:bfperf/l3cachehalf0[event=0x17,name=h]@g0" },
		/* not one: perf's terms-then-modifier and two events */
		{ "cpu/cycles/u", "pmu:cpu[cycles]:u" },
		{ "cpu/cycles/,cpu/instructions/", "pmu:cpu[cycles] pmu:cpu[instructions]" },
		{ "cpu/cycles/u,cpu/instructions/", "pmu:cpu[cycles]:u pmu:cpu[instructions]" },
		{ "cpu/cycles/u,cpu/k,event=0x3c/", "pmu:cpu[cycles]:u pmu:cpu[k,event=0x3c]" },
		/* perf 6.1's parse-events.y forms: event_legacy_numeric TYPE:CONFIG */
		{ "1:1", "num:1/0x1" },
		{ "1:1:hp", "num:1/0x1:hp" },
		{ "0x4:0x3c", "num:4/0x3c" },
		{ "4:0x6530160/name=numpmu/", "num:4/0x6530160name=numpmu" },
		{ "4:0x3c//u", "num:4/0x3c:u" },
		{ "r1,1:1:hp", "raw:0x1 num:1/0x1:hp" },
		/* event_legacy_raw with its opt_event_config */
		{ "r1234/name=rawpmu/", "raw:0x1234name=rawpmu" },
		{ "r1a/config1=2/u", "raw:0x1aconfig1=2:u" },
		{ "r1a//", "raw:0x1a" },
		/* a bare term, and raw terms, inside a PMU's */
		{ "cycles/period=100000,config2/", "pmu:cycles[period=100000,config2]" },
		{ "software/r1a/", "pmu:software[r1a]" },
		{ "software/r0x1a/", "pmu:software[r0x1a]" },
		/* group_def: PE_NAME '{' events '}': a named group, its name dropped */
		{ "group1{cycles,instructions}:u,faults",
		  "sym:cycles:u@g0 sym:instructions:u@g0 sym:faults" },
		{ "group1{syscalls:sys_enter_openat:H,cycles:kppp},group2{cycles,1:3}:G,instructions:u",
		  "tp:syscalls:sys_enter_openat:H@g0 sym:cycles:kppp@g0 sym:cycles:G@g1 "
		  "num:1/0x3:G@g1 sym:instructions:u" },
	};

	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++) {
		struct pm_spec s = { 0 };
		struct pm_spec_err err = { 0 };
		char buf[512];
		int r = pm_spec__parse(t[i].in, strlen(t[i].in), &s, &err);

		if (r != 0)
			fail_msg("'%s': %d (%s at %zu)", t[i].in, r, err.msg, err.pos);
		render(&s, buf, sizeof(buf));
		if (strcmp(buf, t[i].want) != 0)
			fail_msg("'%s': got '%s', want '%s'", t[i].in, buf, t[i].want);
		pm_spec__done(&s);
	}
}

static void test_positions(void **state)
{
	struct pm_spec s = { 0 };
	const char *in = "cycles,amd_df/event=0x7,umask=0x38/u";

	assert_int_equal(pm_spec__parse(in, strlen(in), &s, NULL), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.ev[1].pos, 7);
	assert_int_equal(s.ev[1].len, strlen(in) - 7);
	assert_int_equal(s.ev[1].terms[1].pos, 24); /* umask=0x38 */
	assert_int_equal(s.ev[1].terms[1].len, 10);
	assert_int_equal(s.ev[1].terms[1].value_pos, 30);
	assert_int_equal(s.ev[1].mods_pos, strlen(in) - 1);
	pm_spec__done(&s);
	/* a cpu= term's value: where messages about its CPUs point */
	in = "msr/tsc,cpu=cpu_core/";
	assert_int_equal(pm_spec__parse(in, strlen(in), &s, NULL), 0);
	assert_string_equal(s.ev[0].terms[1].name, "cpu");
	assert_string_equal(s.ev[0].terms[1].value, "cpu_core");
	assert_int_equal(s.ev[0].terms[1].pos, 8);
	assert_int_equal(s.ev[0].terms[1].value_pos, 12);
	pm_spec__done(&s);
}

static void test_parse_errors(void **state)
{
	static const struct {
		const char *in;
		int ret;
		size_t pos;
	} t[] = {
		{ "", -EINVAL, 0 },
		{ ",", -EINVAL, 0 },
		{ "cycles,", -EINVAL, 6 },
		{ "cycles,,x", -EINVAL, 7 },
		{ "msr/tsc", -EINVAL, 0 },
		{ "msr/tsc,/", -EINVAL, 8 },
		{ "msr/=3/", -EINVAL, 4 },
		{ "msr/event=/", -EINVAL, 10 },
		{ "cpu/name='x/", -EINVAL, 9 },
		{ "cycles:", -EINVAL, 6 },
		{ "msr/tsc/q", -EINVAL, 8 },
		{ "{cycles,instructions", -EINVAL, 0 },
		{ "hif_*", -EINVAL, 0 },
		{ "cycles instructions", -EINVAL, 6 },
		{ "a;b", -EINVAL, 1 },
		/* more than ppp, as perf's get_event_modifier */
		{ "cycles:pppp", -EINVAL, 10 },
		{ "msr/tsc/Wq", -EINVAL, 9 },
		/* breakpoints perf's lexer and parse_breakpoint_type refuse */
		{ "mem:", -EINVAL, 4 },
		{ "mem:abc", -EINVAL, 4 },
		{ "mem:0x", -EINVAL, 4 },
		{ "mem:0X1000", -EINVAL, 5 },
		{ "mem:0x1000:ww", -EINVAL, 12 },
		{ "mem:0x1000:rwxw", -EINVAL, 14 },
		{ "mem:0x1000::u", -EINVAL, 11 },
		{ "mem:0x1000:q", -EINVAL, 11 },
		{ "mem:0x1000/", -EINVAL, 11 },
		{ "mem:0x1000/8/", -EINVAL, 12 },
		{ "mem:0x10000000000000000", -EINVAL, 4 },
		{ "mem:18446744073709551616", -EINVAL, 4 },
		{ "msr/tsc/uq", -EINVAL, 9 },
		{ "cycles ,x", -EINVAL, 6 }, /* blanks after a ',', not before */
	};

	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++) {
		struct pm_spec s = { .n = 99 };
		struct pm_spec_err err = { 0 };
		int r = pm_spec__parse(t[i].in, strlen(t[i].in), &s, &err);

		if (r != t[i].ret || err.pos != t[i].pos)
			fail_msg("'%s': got %d at %zu (%s), want %d at %zu", t[i].in, r, err.pos,
				 err.msg ? err.msg : "", t[i].ret, t[i].pos);
		assert_non_null(err.msg);
		assert_int_equal(s.n, 99); /* untouched */
	}
}

static void test_limits(void **state)
{
	char big[PM_SPEC_MAX_LEN + 2];
	struct pm_spec s;
	struct pm_spec_err err;

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(pm_spec__parse(big, strlen(big), &s, &err), -E2BIG);
	assert_int_equal(pm_spec__parse("a\0b", 3, &s, &err), -EINVAL);
}

static void test_terms_only(void **state)
{
	struct pm_spec_event ev;
	struct pm_spec_err err;

	assert_int_equal(pm_spec__parse_terms("event=0x07,umask=0x38", 21, &ev, &err), 0);
	assert_int_equal(ev.n_terms, 2);
	assert_string_equal(ev.terms[0].name, "event");
	assert_string_equal(ev.terms[1].value, "0x38");
	pm_spec__done_event(&ev);
	assert_int_equal(pm_spec__parse_terms("config=0x2", 10, &ev, &err), 0);
	assert_string_equal(ev.terms[0].name, "config");
	pm_spec__done_event(&ev);
	assert_int_equal(pm_spec__parse_terms("event=0x1,", 10, &ev, &err), -EINVAL);
	assert_int_equal(pm_spec__parse_terms("event=0x1/x", 11, &ev, &err), -EINVAL);
}

/* Two term lists, one event: numbers as numbers, any order, one to one. */
static void test_same_terms(void **state)
{
	(void)state;
	assert_true(pm_spec__same_terms("config=0x8", "config=8"));
	assert_true(pm_spec__same_terms("event=0x3c,umask=1", "umask=0x01,event=60"));
	assert_true(pm_spec__same_terms("edge", "edge=1"));
	assert_false(pm_spec__same_terms("config=5", "config=0x2"));
	assert_false(pm_spec__same_terms("a=1,a=1", "a=1,b=2"));
	assert_false(pm_spec__same_terms("a=1", "a=1,b=2"));
	assert_false(pm_spec__same_terms("a=x", "a=y"));
	assert_true(pm_spec__same_terms("a=x", "a=x"));
	assert_false(pm_spec__same_terms("a=,", "a=1"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_ok),     cmocka_unit_test(test_positions),
		cmocka_unit_test(test_parse_errors), cmocka_unit_test(test_limits),
		cmocka_unit_test(test_terms_only),   cmocka_unit_test(test_same_terms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
