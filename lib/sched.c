// SPDX-License-Identifier: GPL-2.0-only
/*
 * Placement: which CPUs each event instance opens on, and which counters
 * share a kernel group. Core events count on every CPU asked for; uncore
 * events only on their PMU's cpumask CPUs (facts §0.1); per-package events
 * on one CPU per die (perf's check_per_pkg, facts §0.3) so that nothing is
 * counted twice. For perf PMUs the kernel multiplexes counters itself, so
 * placement is all the scheduling they need.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "db/pack.h"
#include "pmu.h"
#include "sched.h"
#include "source/perf/perf.h"
#include "source/source.h"
#include "topo.h"
#include "util/util.h"

/* The source that counts an instance: the first that claims it, else perf. */
static enum pm_source_id source_of(const struct pm_session *s, const struct pm_evinst *in)
{
	for (size_t i = 0; i < pm_source__count(s->ctx); i++) {
		const struct pm_source_ops *o = pm_source__ops(s->ctx, i);

		if (o->claims && o->claims(s, in))
			return (enum pm_source_id)i;
	}
	return PM_SRC_PERF;
}

/* May the source that claims an instance count it under the session's options? */
static int check(const struct pm_session *s, const struct pm_evinst *in, struct pm_diag *reterr)
{
	const struct pm_source_ops *o = pm_source__ops(s->ctx, source_of(s, in));

	return o->check ? o->check(s, in, reterr) : 0;
}

static int add_counter(struct pm_session *s, size_t inst, size_t event, int cpu)
{
	struct pm_counter *c;
	int r = pm_grow((void **)&s->c, &s->cap_c, s->n_c + 1, sizeof(*c));

	if (r < 0)
		return r;
	c = &s->c[s->n_c];
	*c = (struct pm_counter){ .inst = inst,
				  .event = event,
				  .cpu = cpu,
				  .fd = -1,
				  .source = source_of(s, &s->l->inst[inst]) };
	c->leader = s->n_c;
	s->n_c++;
	return 0;
}

static void point_at_event(struct pm_diag *d, const struct pm_event *ev)
{
	pm_diag_point(d, ev->spec, ev->spec_pos, ev->spec_len);
}

/* The CPUs one instance counts on, into ret (owned by the caller). */
static int instance_cpus(struct pm_session *s, const struct pm_evinst *in,
			 const struct pm_event *ev, struct pm_cpus *ret, struct pm_diag *d)
{
	const struct pm_pmu *p = in->pmu;
	const struct pm_topo *topo = s->ctx->topo;
	int r;

	/* perf's cpu= term: system-wide, its CPUs among the PMU's; a CPU list replaces
	 * it (tools/lib/perf/evlist.c __perf_evlist__propagate_maps) */
	if (ev->cpus.n && s->opts.target == PM_TARGET_SYSTEM)
		r = pm_cpus__intersect(p && p->cpus.n ? &p->cpus : &s->cpus, &ev->cpus, ret);
	else if (p && p->uncore) {
		if (s->opts.target == PM_TARGET_SYSTEM)
			return pm_cpus__copy(&p->cpus, ret);
		/* -C: the cpumask CPUs asked for; none means this instance sits out */
		return pm_cpus__intersect(&p->cpus, &s->cpus, ret);
	} else if (p && p->cpus.n) /* a hybrid core PMU covers only its own CPUs */
		r = pm_cpus__intersect(&p->cpus, &s->cpus, ret);
	else
		r = pm_cpus__copy(&s->cpus, ret);
	if (r < 0 || !ev->per_pkg)
		return r;
	/* one CPU per (package, die), the first one asked for */
	{
		size_t n = 0;

		for (size_t i = 0; i < ret->n; i++) {
			int key = pm_topo__die_key(topo, ret->cpu[i]);
			bool seen = false;

			for (size_t j = 0; j < n && !seen; j++)
				seen = pm_topo__die_key(topo, ret->cpu[j]) == key;
			if (!seen)
				ret->cpu[n++] = ret->cpu[i];
		}
		ret->n = n;
	}
	return 0;
}

/* -C left every instance of an uncore event without a CPU to count on. */
static int no_cpu_error(struct pm_session *s, const struct pm_event *ev, struct pm_diag *d)
{
	const struct pm_pmu *p = s->l->inst[ev->first_inst].pmu;
	struct pm_cpus all = { 0 };
	char have[256] = "?", want[256];

	for (size_t i = ev->first_inst; i < ev->first_inst + ev->n_inst; i++) {
		const struct pm_pmu *ip = s->l->inst[i].pmu;
		struct pm_cpus u;

		if (!ip || pm_cpus__union(&all, &ip->cpus, &u) < 0)
			continue;
		pm_cpus__done(&all);
		all = u;
	}
	pm_cpus__format(&all, have, sizeof(have));
	pm_cpus__done(&all);
	pm_cpus__format(&s->cpus, want, sizeof(want));
	pm_diag_set(d, NULL,
		    "event '%s' counts only on CPU(s) %s (the cpumask of PMU '%s'%s), and the "
		    "CPUs asked, %s, leave them out",
		    ev->label, have, p ? p->name : "?", ev->n_inst > 1 ? " and its family" : "",
		    want);
	pm_diag_reason(d, PM_REASON_CPUS, p ? p->name : NULL, have);
	point_at_event(d, ev);
	return -EINVAL;
}

/* A cpu= term that leaves every instance without a CPU (perf drops such an event
 * silently; here it is an error). */
static int term_cpu_error(struct pm_session *s, const struct pm_event *ev, struct pm_diag *d)
{
	const struct pm_pmu *p = s->l->inst[ev->first_inst].pmu;
	char have[256] = "every CPU", want[256];

	if (p && p->cpus.n)
		pm_cpus__format(&p->cpus, have, sizeof(have));
	pm_cpus__format(&ev->cpus, want, sizeof(want));
	pm_diag_set(d, "name CPUs the PMU has in the cpu term",
		    "event '%s' counts only on CPU(s) %s (PMU '%s'), and its cpu term selects %s",
		    ev->label, have, p ? p->name : "?", want);
	point_at_event(d, ev);
	return -EINVAL;
}

/*
 * The kernel group a counter joins: the first earlier counter of the same
 * {group} on the same PMU instance and CPU. Software members follow the
 * group's hardware instance (facts: software events may join any group).
 */
static size_t find_leader(struct pm_session *s, size_t self, size_t group_first)
{
	const struct pm_evlist *l = s->l;
	const struct pm_counter *c = &s->c[self];
	const struct pm_evinst *in = &l->inst[c->inst];
	bool sw = in->attr.type == PERF_TYPE_SOFTWARE;

	for (size_t k = group_first; k < self; k++) {
		const struct pm_counter *o = &s->c[k];
		const struct pm_evinst *oin = &l->inst[o->inst];

		if (o->leader != k || o->cpu != c->cpu || o->tid != c->tid)
			continue;
		if (sw || oin->attr.type == PERF_TYPE_SOFTWARE || !strcmp(oin->device, in->device))
			return k;
	}
	return self;
}

static int parse_cpu_list(struct pm_session *s, struct pm_diag *d)
{
	const struct pm_cpus *online = &s->ctx->topo->online;
	char buf[256];
	int r;

	if (s->opts.target != PM_TARGET_CPUS)
		return pm_cpus__copy(online, &s->cpus);
	r = pm_cpus__parse(s->opts.cpus ? s->opts.cpus : "",
			   s->opts.cpus ? strlen(s->opts.cpus) : 0, &s->cpus);
	if (r < 0 || s->cpus.n == 0) {
		pm_diag_set(d, "write CPUs as a list such as 0-3,8", "bad CPU list '%s'",
			    s->opts.cpus ? s->opts.cpus : "");
		return r < 0 ? r : -EINVAL;
	}
	for (size_t i = 0; i < s->cpus.n; i++) {
		if (!pm_cpus__has(online, s->cpus.cpu[i])) {
			pm_cpus__format(online, buf, sizeof(buf));
			pm_diag_set(d, NULL, "CPU %d is not online; online CPUs are %s",
				    s->cpus.cpu[i], buf);
			return -ENODEV;
		}
	}
	return 0;
}

static int add_tid(struct pm_session *s, size_t *cap, pid_t tid)
{
	int r;

	for (size_t i = 0; i < s->n_tids; i++)
		if (s->tids[i] == tid)
			return 0;
	r = pm_grow((void **)&s->tids, cap, s->n_tids + 1, sizeof(*s->tids));
	if (r == 0)
		s->tids[s->n_tids++] = tid;
	return r;
}

/*
 * Every thread of every process (perf stat -a --per-thread: its thread map
 * of all threads, thread_map__new_all_cpus), in proc's order; a process
 * gone while it is listed is skipped.
 */
static int all_threads(struct pm_session *s, size_t *cap)
{
	struct pm_names procs = { 0 };
	int r = pm_list_names(s->ctx, "proc", true, NULL, &procs);

	for (size_t i = 0; r == 0 && i < procs.n; i++) {
		struct pm_names tasks = { 0 };
		char path[64];
		int pid;

		if (pm_parse_int_str(procs.name[i], &pid) < 0 || pid <= 0)
			continue;
		snprintf(path, sizeof(path), "proc/%d/task", pid);
		if (pm_list_names(s->ctx, path, true, NULL, &tasks) < 0)
			continue;
		for (size_t t = 0; r == 0 && t < tasks.n; t++) {
			int tid;

			if (pm_parse_int_str(tasks.name[t], &tid) == 0 && tid > 0)
				r = add_tid(s, cap, tid);
		}
		pm_names__done(&tasks);
	}
	pm_names__done(&procs);
	return r;
}

/* PM_TARGET_THREADS: the threads asked, and every thread of the processes (perf's
 * thread_map__new_by_pid_str: proc/PID/task), each once. */
static int expand_threads(struct pm_session *s, struct pm_diag *d)
{
	size_t cap = 0;
	int r = 0;

	if (s->opts.all_threads && !s->opts.n_pids && !s->opts.n_tids)
		return all_threads(s, &cap);
	for (size_t i = 0; r == 0 && i < s->opts.n_pids; i++) {
		struct pm_names tasks = { 0 };
		char path[64];

		snprintf(path, sizeof(path), "proc/%d/task", (int)s->opts.pids[i]);
		r = pm_list_names(s->ctx, path, true, NULL, &tasks);
		if (r == 0 && tasks.n == 0) {
			pm_diag_set(d, NULL, "no process %d (%s lists no thread)",
				    (int)s->opts.pids[i], path);
			r = -ESRCH;
		}
		for (size_t t = 0; r == 0 && t < tasks.n; t++) {
			int tid;

			if (pm_parse_int_str(tasks.name[t], &tid) == 0 && tid > 0)
				r = add_tid(s, &cap, tid);
		}
		pm_names__done(&tasks);
	}
	for (size_t i = 0; r == 0 && i < s->opts.n_tids; i++)
		r = s->opts.tids[i] > 0 ? add_tid(s, &cap, s->opts.tids[i]) : -EINVAL;
	return r;
}

static bool in_sw_context(const struct pm_evinst *in)
{
	return in->pmu && in->pmu->traits && in->pmu->traits->sw_context;
}

/* Events counted in the same cgroup (or both in none). */
static bool same_cgroup(const struct pm_event *a, const struct pm_event *b)
{
	return a->cgroup && b->cgroup ? !strcmp(a->cgroup, b->cgroup) : a->cgroup == b->cgroup;
}

/*
 * Read batching: counters of software-context PMUs (software, msr,
 * tracepoint) never compete for hardware counters, so the ones the user did
 * not group share one group per CPU and are read with one read(2) instead of
 * one each; a group that reaches the size the kernel takes
 * (pm_perf__group_max) is full and the next counter starts another. Not for
 * a task's counters (inherited counters are read one by one). One group per
 * cgroup: "all events in a group must monitor the same cgroup"
 * (kernel/events/core.c, perf_cgroup_connect, which refuses a member of
 * another cgroup; a member of none it takes, and counts only while the
 * leader's cgroup runs).
 */
static int batch_reads(struct pm_session *s)
{
	const struct pm_evlist *l = s->l;
	size_t max = pm_perf__group_max(), *members;

	if (s->opts.target == PM_TARGET_TASK || s->opts.target == PM_TARGET_THREADS)
		return 0;
	members = calloc(s->n_c ? s->n_c : 1, sizeof(*members)); /* by leader */
	if (!members)
		return -ENOMEM;
	for (size_t k = 0; k < s->n_c; k++) {
		struct pm_counter *c = &s->c[k];

		if (l->ev[c->event].group >= 0 || !in_sw_context(&l->inst[c->inst]) ||
		    !pm_source__ops(s->ctx, c->source)->batch_sw_reads)
			continue;
		for (size_t j = 0; j < k; j++) {
			const struct pm_counter *o = &s->c[j];

			if (o->cpu == c->cpu && o->leader == j && members[j] + 1 < max &&
			    l->ev[o->event].group < 0 && in_sw_context(&l->inst[o->inst]) &&
			    o->source == c->source &&
			    same_cgroup(&l->ev[o->event], &l->ev[c->event])) {
				c->leader = j;
				c->implicit = true;
				members[j]++; /* besides the leader */
				break;
			}
		}
	}
	free(members);
	return 0;
}

/*
 * A CPU list leaves out the uncore domains whose cpumask CPUs it does not
 * name (the other die's ali_drw PMUs, the other CCXs' L3): say which, once,
 * since every row that adds them up covers only part of the machine (aggr.c
 * flags those rows partial).
 */
static void warn_left_out(struct pm_session *s)
{
	char list[512] = "", cpus[64];
	size_t off = 0, n = 0;

	for (size_t i = 0; i < s->l->n_inst; i++) {
		const struct pm_pmu *p = s->l->inst[i].pmu;
		bool dup = false;
		size_t out = 0;

		if (!p || !p->uncore || !p->cpus.n)
			continue;
		for (size_t j = 0; j < i && !dup; j++)
			dup = s->l->inst[j].pmu == p;
		for (size_t d = 0; d < p->cpus.n; d++)
			out += !pm_cpus__has(&s->cpus, p->cpus.cpu[d]);
		if (dup || !out)
			continue;
		n++;
		if (off + 64 >= sizeof(list)) {
			if (!strstr(list, ", ..."))
				off += (size_t)snprintf(list + off, sizeof(list) - off, ", ...");
			continue;
		}
		if (out == p->cpus.n)
			off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s",
						off ? ", " : "", p->name);
		else
			off += (size_t)snprintf(list + off, sizeof(list) - off,
						"%s%s (%zu of its %zu domains)", off ? ", " : "",
						p->name, out, p->cpus.n);
	}
	if (!n)
		return;
	pm_cpus__format(&s->cpus, cpus, sizeof(cpus));
	pm_log(s->ctx, PM_LOG_WARN,
	       "CPU(s) %s leave out %zu uncore device%s that count only on other CPUs: %s; rows "
	       "that add them up cover part of the machine and are marked partial",
	       cpus, n, n == 1 ? "" : "s", list);
}

static bool task_target(const struct pm_session *s)
{
	return s->opts.target == PM_TARGET_TASK || s->opts.target == PM_TARGET_THREADS;
}

/*
 * A task target's event of a PMU that counts whole CPUs or the uncore, not one
 * task: counted system-wide on its CPUs while the task runs (opened with no
 * task, enabled and disabled with the others), as perf stat counts
 * `-e power/energy-pkg/ -- CMD`: its evsel is system_wide, opened on the
 * PMU's cpumask with pid -1 (tools/perf/util/parse-events.c __add_event,
 * tools/lib/perf/evsel.c). Said once (PM_LOG_WARN): its count is the
 * machine's, not the command's.
 */
static int place_cpu_wide(struct pm_session *s, size_t i, size_t e, size_t group_first,
			  struct pm_diag *reterr)
{
	const struct pm_evinst *in = &s->l->inst[i];
	const struct pm_event *ev = &s->l->ev[e];
	struct pm_cpus cpus = { 0 };
	int r = instance_cpus(s, in, ev, &cpus, reterr);

	for (size_t k = 0; r == 0 && k < cpus.n; k++) {
		r = add_counter(s, i, e, cpus.cpu[k]);
		if (r < 0)
			break;
		s->c[s->n_c - 1].cpu_wide = true;
		if (ev->group >= 0)
			s->c[s->n_c - 1].leader = find_leader(s, s->n_c - 1, group_first);
	}
	pm_cpus__done(&cpus);
	if (r == 0 && !s->warned_cpu_wide)
		pm_log(s->ctx, PM_LOG_WARN,
		       "'%s' counts the whole %s %s, not one task: counting it system-wide while "
		       "the %s",
		       ev->label, in->pmu->uncore ? "uncore PMU" : "CPUs of PMU", in->pmu->name,
		       s->opts.target == PM_TARGET_TASK ? "command runs" : "tasks are counted");
	s->warned_cpu_wide = true;
	return r;
}

/* A task's counter of instance i on no CPU: one for the command, one per thread asked
 * (a CPU-less PMU's, the tool events: one whatever the target). */
static int place_task(struct pm_session *s, size_t i, size_t e, size_t group_first,
		      struct pm_diag *reterr)
{
	const struct pm_evinst *in = &s->l->inst[i];
	const struct pm_event *ev = &s->l->ev[e];
	bool threads = s->opts.target == PM_TARGET_THREADS && !(in->pmu && in->pmu->cpuless);
	struct pm_cpus on = { 0 };
	int r = 0;

	if (in->pmu && (in->pmu->uncore || (in->pmu->traits && in->pmu->traits->cpu_wide_only)))
		return place_cpu_wide(s, i, e, group_first, reterr);
	/* a cpu= term: the task counted while on those CPUs, one counter each (perf's
	 * evsel CPUs with a task target); else one counter following it everywhere */
	if (ev->cpus.n && !(in->pmu && in->pmu->cpuless)) {
		r = pm_cpus__intersect(in->pmu && in->pmu->cpus.n ? &in->pmu->cpus :
								    &s->ctx->topo->online,
				       &ev->cpus, &on);
		if (r == 0 && on.n == 0) { /* this instance sits out; the plan says when all do */
			pm_cpus__done(&on);
			return 0;
		}
	}
	for (size_t t = 0; r == 0 && t < (threads ? s->n_tids : 1); t++)
		for (size_t k = 0; r == 0 && k < (on.n ? on.n : 1); k++) {
			r = add_counter(s, i, e, on.n ? on.cpu[k] : -1);
			if (r < 0)
				break;
			s->c[s->n_c - 1].tid = threads ? s->tids[t] : 0;
			if (ev->group >= 0)
				s->c[s->n_c - 1].leader = find_leader(s, s->n_c - 1, group_first);
		}
	pm_cpus__done(&on);
	return r;
}

/*
 * An event's cgroup, its counters from `first` on: each of a source that counts per
 * cgroup (the kernel's perf events), or -EOPNOTSUPP (said): a source reading registers
 * counts whatever runs, and its row would claim a cgroup it does not cover. A {group}
 * counts in one cgroup, or -EINVAL (said): the kernel refuses a member of another, and
 * counts one of none only while its leader's cgroup runs (perf_cgroup_connect).
 */
static int cgroup_check(struct pm_session *s, const struct pm_event *ev, size_t first,
			struct pm_diag *reterr)
{
	for (const struct pm_event *o = s->l->ev; ev->group >= 0 && o < ev; o++) {
		if (o->group != ev->group || same_cgroup(o, ev))
			continue;
		pm_diag_set(reterr, "give the events of a group one cgroup (or none)",
			    "'%s' (%s%s) and '%s' (%s%s) are in one group: a group counts in "
			    "one cgroup",
			    o->label, o->cgroup ? "cgroup " : "no cgroup",
			    o->cgroup ? o->cgroup : "", ev->label,
			    ev->cgroup ? "cgroup " : "no cgroup", ev->cgroup ? ev->cgroup : "");
		point_at_event(reterr, ev);
		return -EINVAL;
	}
	for (size_t k = first; ev->cgroup && k < s->n_c; k++) {
		enum pm_source_id id = s->c[k].source;
		const struct pm_pmu *p = s->l->inst[s->c[k].inst].pmu;

		/* an uncore PMU (a cpumask: one counter per die or socket) counts all the
		 * die does: in a cgroup, that while its tasks run on one CPU, not theirs
		 * (perf takes it; its row would claim the cgroup's traffic) */
		if (pm_source__ops(s->ctx, id)->cgroups && p && p->uncore) {
			pm_diag_set(reterr,
				    "count it outside a cgroup: its count is all its CPUs', "
				    "whoever causes it",
				    "'%s' is counted by %s, a PMU shared by several CPUs (its "
				    "cpumask): in cgroup '%s' it would count everything its CPUs do "
				    "while the cgroup's tasks run on the CPU it opens on, not what "
				    "they do",
				    ev->label, p->name, ev->cgroup);
			point_at_event(reterr, ev);
			return -EOPNOTSUPP;
		}
		if (pm_source__ops(s->ctx, id)->cgroups)
			continue;
		pm_diag_set(reterr,
			    "count it outside a cgroup: only the kernel's perf events count "
			    "while a cgroup's tasks run",
			    "'%s' is read through the %s source, which counts whatever runs: it "
			    "cannot be counted in cgroup '%s'",
			    ev->label, pm_source__name(s->ctx, id), ev->cgroup);
		point_at_event(reterr, ev);
		return -EOPNOTSUPP;
	}
	return 0;
}

/*
 * An event metric i is computed from, through the metrics it names (NULL: none):
 * the first; *ret_a and *ret_b set to two in different cgroups where its inputs
 * are not all in one (a metric of one cgroup's cycles and another's instructions
 * is neither's).
 */
static const struct pm_event *metric_input(const struct pm_evlist *l, size_t i, int depth,
					   const struct pm_event **ret_a,
					   const struct pm_event **ret_b)
{
	const struct pm_metric *m = &l->metrics[i];
	const struct pm_event *first = NULL;

	for (size_t k = 0; k < m->n_slots && !*ret_a && depth < 64; k++) {
		const struct pm_metric_slot *sl = &m->slots[k];
		const struct pm_event *ev = NULL;

		if (sl->kind == PM_SLOT_EVENT || sl->kind == PM_SLOT_SOURCES)
			ev = &l->ev[sl->idx];
		else if (sl->kind == PM_SLOT_METRIC)
			ev = metric_input(l, sl->idx, depth + 1, ret_a, ret_b);
		if (!ev || *ret_a)
			continue;
		if (!first) {
			first = ev;
		} else if (!same_cgroup(first, ev)) {
			*ret_a = first;
			*ret_b = ev;
		}
	}
	return first;
}

/* Every metric's inputs in one cgroup, or -EINVAL naming two that are not (-G gives
 * each event its own; --for-each-cgroup repeats the metric per cgroup). */
static int metric_cgroup_check(const struct pm_evlist *l, struct pm_diag *reterr)
{
	for (size_t i = 0; i < l->n_metrics; i++) {
		const struct pm_event *a = NULL, *b = NULL;

		metric_input(l, i, 0, &a, &b);
		if (!a)
			continue;
		pm_diag_set(reterr, "give a metric's events one cgroup (-G NAME for all of them)",
			    "metric '%s' would mix cgroups: '%s' (%s%s) and '%s' (%s%s); its "
			    "value would be neither's",
			    l->metrics[i].def->name, a->label, a->cgroup ? "cgroup " : "no cgroup",
			    a->cgroup ? a->cgroup : "", b->label,
			    b->cgroup ? "cgroup " : "no cgroup", b->cgroup ? b->cgroup : "");
		return -EINVAL;
	}
	return 0;
}

int pm_sched__plan(struct pm_session *s, struct pm_diag *reterr)
{
	const struct pm_evlist *l = s->l;
	int r;

	/* a source that places its counters itself (a recording: one per series it has) */
	for (size_t i = 0; i < pm_source__count(s->ctx); i++)
		if (pm_source__on(s->ctx, i) && pm_source__ops(s->ctx, i)->plan)
			return pm_source__ops(s->ctx, i)->plan(s, reterr);
	r = parse_cpu_list(s, reterr);
	if (r == 0 && s->opts.target == PM_TARGET_THREADS)
		r = expand_threads(s, reterr);
	if (r < 0)
		return r;
	for (size_t e = 0; e < l->n_ev; e++) {
		const struct pm_event *ev = &l->ev[e];
		size_t group_first = s->n_c, placed = 0, first = s->n_c;

		/* counters of a {group} are contiguous: start where its first event began */
		if (ev->group >= 0)
			for (size_t k = 0; k < s->n_c; k++)
				if (l->ev[s->c[k].event].group == ev->group) {
					group_first = k;
					break;
				}
		for (size_t i = ev->first_inst; i < ev->first_inst + ev->n_inst; i++) {
			const struct pm_evinst *in = &l->inst[i];
			struct pm_cpus cpus = { 0 };

			/* a task's, and a CPU-less PMU's (the tool events): one counter, on no CPU */
			if (task_target(s) || (in->pmu && in->pmu->cpuless)) {
				size_t before = s->n_c;

				r = place_task(s, i, e, group_first, reterr);
				if (r < 0)
					return r;
				placed += s->n_c - before;
				continue;
			}
			r = check(s, in, reterr);
			if (r < 0) {
				point_at_event(reterr, ev);
				return r;
			}
			r = instance_cpus(s, in, ev, &cpus, reterr);
			if (r < 0)
				return r;
			placed += cpus.n;
			for (size_t k = 0; k < cpus.n && r == 0; k++) {
				r = add_counter(s, i, e, cpus.cpu[k]);
				if (r == 0 && ev->group >= 0)
					s->c[s->n_c - 1].leader = find_leader(s, s->n_c - 1,
									      group_first);
			}
			pm_cpus__done(&cpus);
			if (r < 0)
				return r;
		}
		r = cgroup_check(s, ev, first, reterr);
		if (r < 0)
			return r;
		if (s->opts.target == PM_TARGET_CPUS && placed == 0)
			return no_cpu_error(s, ev, reterr);
		if (ev->cpus.n && placed == 0)
			return term_cpu_error(s, ev, reterr);
	}
	r = metric_cgroup_check(l, reterr);
	if (r < 0)
		return r;
	if (s->opts.target == PM_TARGET_CPUS)
		warn_left_out(s);
	return batch_reads(s);
}
