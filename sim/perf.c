// SPDX-License-Identifier: GPL-2.0-only
/*
 * The simulator's perf core. Events live in per-(PMU, CPU) contexts as the
 * kernel's flexible groups: whenever something changes they are scheduled
 * in list order until the first hardware group that does not fit, and
 * while some enabled group is left out the list rotates by one group every
 * mux interval (kernel/events/core.c rotate_ctx). time_enabled runs while an
 * event is enabled, time_running while its group is on the hardware, and
 * the count grows by the model's truth over exactly the running time.
 * Accounting is lazy: a context catches up to "now" when one of its events
 * is read, changed or closed, and only that context (a read costs what its
 * context holds, not what the machine does); the rotation ticks are on the
 * clock's own grid, so what a read sees depends on its time alone.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "sim-internal.h"
#include "util/cpus.h"
#include "util/util.h"

#define DEFAULT_MUX_NS 4000000ull /* PERF_CPU_HRTIMER at HZ=250 (peers.md §4) */

struct member_list {
	struct sim_event **m;
	size_t n;
};

int pm_sim__add_pmu(struct pm_sim *sim, const char *name, const struct pm_sim_pmu_model *m)
{
	struct sim_pmu *p;
	int r;

	if (!m->count)
		return -EINVAL;
	r = pm_grow((void **)&sim->pmus, &sim->cap_pmus, sim->n_pmus + 1, sizeof(*sim->pmus));
	if (r < 0)
		return r;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->name = strdup(name);
	if (!p->name) {
		free(p);
		return -ENOMEM;
	}
	p->m = *m;
	if (!p->m.mux_ns)
		p->m.mux_ns = DEFAULT_MUX_NS;
	if (!p->m.task_err)
		p->m.task_err = -EINVAL;
	sim->pmus[sim->n_pmus++] = p;
	return 0;
}

struct sim_pmu *sim_pmu_by_name(struct pm_sim *sim, const char *name)
{
	for (size_t i = 0; i < sim->n_pmus; i++)
		if (!strcmp(sim->pmus[i]->name, name))
			return sim->pmus[i];
	return NULL;
}

void pm_sim__fail_next_open(struct pm_sim *sim, const char *name, int err)
{
	struct sim_pmu *p = sim_pmu_by_name(sim, name);

	if (p)
		p->fail_next = err;
}

void pm_sim__pmu_presence(struct pm_sim *sim, const char *name, bool present)
{
	struct sim_pmu *p = sim_pmu_by_name(sim, name);

	if (!p || p->gone == !present)
		return;
	p->gone = !present;
	if (!present)
		p->gen++;
}

void pm_sim__fail_reads(struct pm_sim *sim, const char *name, int err)
{
	struct sim_pmu *p = sim_pmu_by_name(sim, name);

	if (p)
		p->fail_reads = err;
}

static void sync_all(struct pm_sim *sim);
static void resched_all(struct pm_sim *sim);

void pm_sim__steal_counters(struct pm_sim *sim, const char *name, int cpu, int n)
{
	struct sim_pmu *p = sim_pmu_by_name(sim, name);

	if (!p || cpu < 0 || cpu >= (int)PM_ARRAY_SIZE(p->stolen))
		return;
	sync_all(sim); /* what ran so far ran on the counters it had */
	p->stolen[cpu] = n;
	resched_all(sim);
}

void pm_sim__cgroup_clock_stale(struct pm_sim *sim, int cpu, uint64_t gap_ns, bool active)
{
	if (cpu < 0 || cpu >= (int)PM_ARRAY_SIZE(sim->cg_stale))
		return;
	sim->cg_stale[cpu] = gap_ns;
	sim->cg_stale_lazy[cpu] = !active;
}

/*
 * The cgroup clocks on ev's CPU are brought up to date (kernel/events/core.c
 * update_cgrp_time_from_event in a read, update_cgrp_time_from_cpuctx in the
 * ctx_time_freeze of an enable): an event given a stale clock's gap at its enable
 * takes it now, in its enabled time, and in its running time when on the counter.
 */
static void take_gap(struct sim_event *ev)
{
	if (!ev->gap_pending)
		return;
	ev->gap_ena += ev->gap_pending;
	if (ev->leader->scheduled && ev->leader->enabled)
		ev->gap_run += ev->gap_pending;
	ev->gap_pending = 0;
}

/* The cgroup clocks on cpu brought up to date: every enabled cgroup event there but ev
 * takes its gap. Whether there was none. */
static bool cgroup_clocks_update(struct pm_sim *sim, int cpu, const struct sim_event *ev)
{
	bool none = true;

	for (size_t i = 0; cpu >= 0 && i < sim->n_ev; i++) {
		struct sim_event *e = sim->ev[i];

		if (e == ev || !e->cgroup || e->cpu != cpu || !e->enabled)
			continue;
		take_gap(e);
		none = false;
	}
	return none;
}

/*
 * Before ev is enabled (docs/kernel-facts.md, "A cgroup's clock after an idle
 * spell"): a cgroup event on ev's CPU enabled earlier takes its gap; if ev is
 * the CPU's only enabled cgroup event (perf_cgroup_event_enable: nr_cgroups 0
 * to 1, which sets cpuctx->cgrp without perf_cgroup_set_timestamp), it is
 * given the CPU's stale clock, once.
 */
static void cgroup_clock_enable(struct pm_sim *sim, struct sim_event *ev)
{
	if (ev->enabled || !ev->cgroup || ev->cpu < 0 ||
	    ev->cpu >= (int)PM_ARRAY_SIZE(sim->cg_stale))
		return;
	if (cgroup_clocks_update(sim, ev->cpu, ev)) {
		ev->gap_pending = sim->cg_stale[ev->cpu];
		ev->gap_lazy = sim->cg_stale_lazy[ev->cpu];
		ev->gap_t = pm_sim__now(sim);
		sim->cg_stale[ev->cpu] = 0;
	}
}

unsigned pm_sim__opens(const struct pm_sim *sim)
{
	return sim->opens;
}

bool pm_sim__enabled_before_open(const struct pm_sim *sim)
{
	return sim->enabled_before_open;
}

/* ---- the model's truth ------------------------------------------------------ */

/* The model's count at t; the last one asked is kept, as the next segment starts there. */
static uint64_t truth(struct sim_event *ev, uint64_t t)
{
	const struct pm_sim_pmu_model *m = &ev->pmu->m;
	uint64_t v = 0, part;

	if (ev->truth_known && ev->truth_t == t)
		return ev->truth_v;
	/* in a scenario's cgroup: its tasks' count, where the model has one */
	if (ev->n_cg_parts && m->count_cgroup &&
	    m->count_cgroup(m->data, &ev->attr, ev->cpu, ev->cg_parts[0].cgroup, t, &part) == 0) {
		for (size_t i = 0; i < ev->n_cg_parts; i++) {
			if (i && m->count_cgroup(m->data, &ev->attr, ev->cpu,
						 ev->cg_parts[i].cgroup, t, &part) < 0)
				continue;
			v += ev->cg_parts[i].frac >= 1 ?
				     part :
				     (uint64_t)((double)part * ev->cg_parts[i].frac);
		}
	} else if (m->count(m->data, &ev->attr, ev->cpu, t, &v) < 0) {
		v = 0;
	}
	ev->truth_known = true;
	ev->truth_t = t;
	ev->truth_v = v;
	return v;
}

/* The model's growth from a to b: a first, where the previous segment left the kept one. */
static uint64_t delta(struct sim_event *ev, uint64_t a, uint64_t b)
{
	uint64_t va = truth(ev, a);

	return truth(ev, b) - va;
}

static bool is_software(const struct sim_event *ev)
{
	return ev->pmu->m.counters == 0 && !ev->pmu->m.has_fixed;
}

static bool is_snapshot(const struct sim_event *ev)
{
	return ev->pmu->m.has_snapshot && ev->attr.config == ev->pmu->m.snapshot_config;
}

static bool uses_fixed(const struct sim_event *ev)
{
	return ev->pmu->m.has_fixed && ev->attr.config == ev->pmu->m.fixed_config;
}

/* General counters the event takes: 2 for AMD's merged pairs. */
static int cost_of(const struct sim_event *ev)
{
	const struct pm_sim_pmu_model *m = &ev->pmu->m;

	return m->cost ? m->cost(m->data, &ev->attr) : 1;
}

/* ---- contexts ----------------------------------------------------------------- */

static struct member_list members_of(struct sim_event *leader)
{
	struct member_list l = { .m = leader->members, .n = leader->n_members };

	return l;
}

static int join_group(struct sim_event *leader, struct sim_event *ev)
{
	if (pm_grow((void **)&leader->members, &leader->cap_members, leader->n_members + 1,
		    sizeof(*leader->members)) < 0)
		return -ENOMEM;
	leader->members[leader->n_members++] = ev;
	return 0;
}

static void account(struct pm_sim *sim, struct sim_ctx *c, uint64_t a, uint64_t b)
{
	uint64_t dt = b - a;

	for (size_t g = 0; g < c->n_groups; g++) {
		struct sim_event *lead = c->groups[g];
		struct member_list ml = members_of(lead);

		for (size_t i = 0; i < ml.n; i++) {
			struct sim_event *ev = ml.m[i];

			if (!ev->enabled)
				continue;
			ev->ena += dt;
			if (lead->scheduled && lead->enabled) {
				ev->run += dt;
				if (is_snapshot(ev))
					ev->count = truth(ev, b);
				else
					ev->count += delta(ev, a, b);
			}
		}
	}
}

/*
 * One pass of the in-order schedule over the groups of one cgroup (NULL: the
 * CPU-wide ones), from the counters *used already. The kernel puts a
 * cgroup's events on the counters only while its tasks run (events of
 * another cgroup are filtered out at sched-in, kernel/events/core.c
 * event_filter_match), so the groups of different cgroups never compete
 * for counters; each competes with the CPU-wide groups only. While its tasks
 * run, the kernel visits the CPU-wide groups and the cgroup's merged by their
 * order (visit_groups_merge: a heap of the CPU's subtree and each of the
 * cgroup hierarchy's, by group_index, perf_less_group_idx), and rotation
 * gives the first group the last index (rotate_ctx reinserts it,
 * perf_event_groups_insert: group_index = ++groups->index): a cgroup's pass
 * goes through the list in order, the CPU-wide groups taking their counters
 * where they stand, so a cgroup's group that rotation brought before them
 * goes on even where they fill the counters. The CPU-wide groups keep the
 * schedule of their own pass (what holds while no listed cgroup's tasks
 * run): the counters a cgroup's group takes from one while the cgroup runs
 * are not taken from its count (a model choice: the simulator does not split
 * an interval by who runs).
 */
static void schedule_pass(struct sim_ctx *c, const struct sim_node *cgroup, int used,
			  bool fixed_used)
{
	int limit = c->pmu->m.counters, used0 = used;
	bool can_add = true, fixed0 = fixed_used, runs = false;

	/* does the cgroup run on this CPU (its share of the time, 0 where its cpus are not)? */
	for (size_t g = 0; cgroup && g < c->n_groups && !runs; g++)
		runs = c->groups[g]->cgroup == cgroup && c->groups[g]->share_ppm > 0;

	for (size_t g = 0; g < c->n_groups; g++) {
		struct sim_event *lead = c->groups[g];
		struct member_list ml = members_of(lead);
		bool mine = lead->cgroup == cgroup;
		int need = 0, need_fixed = 0;
		bool hw = false;

		if (!mine && lead->cgroup)
			continue; /* another cgroup's: filtered out */
		if (mine)
			lead->scheduled = false;
		if (!lead->enabled)
			continue;
		for (size_t i = 0; i < ml.n; i++) {
			if (!ml.m[i]->enabled || is_software(ml.m[i]))
				continue;
			hw = true;
			if (uses_fixed(ml.m[i]))
				need_fixed++;
			else
				need += cost_of(ml.m[i]);
		}
		if (!hw) {
			if (mine)
				lead->scheduled = true; /* software groups always go on */
			continue;
		}
		if (!can_add)
			continue;
		if ((limit == 0 || used + need <= limit) &&
		    (need_fixed == 0 || (need_fixed == 1 && !fixed_used))) {
			if (mine)
				lead->scheduled = true;
			used += need;
			fixed_used |= need_fixed > 0;
		} else {
			can_add = false; /* in-order: later groups wait their turn */
			c->rotate_cg |= !mine && runs;
		}
	}
	if (cgroup)
		return;
	/* then each cgroup's groups, merged with the CPU-wide ones in the list's order */
	for (size_t g = 0; g < c->n_groups; g++) {
		const struct sim_node *cg = c->groups[g]->cgroup;
		bool seen = false;

		for (size_t h = 0; cg && h < g && !seen; h++)
			seen = c->groups[h]->cgroup == cg;
		if (cg && !seen)
			schedule_pass(c, cg, used0, fixed0);
	}
}

static void schedule(struct pm_sim *sim, struct sim_ctx *c)
{
	int used = 0;

	if (c->cpu >= 0 && c->cpu < (int)PM_ARRAY_SIZE(c->pmu->stolen))
		used = c->pmu->stolen[c->cpu];
	c->rotate_cg = false;
	schedule_pass(c, NULL, used, false);
}

static bool needs_rotation(const struct sim_ctx *c)
{
	if (c->rotate_cg)
		return true;
	for (size_t g = 0; g < c->n_groups; g++)
		if (c->groups[g]->enabled && !c->groups[g]->scheduled)
			return true;
	return false;
}

static void rotate(struct sim_ctx *c)
{
	struct sim_event *first;

	if (c->n_groups < 2)
		return;
	first = c->groups[0];
	memmove(&c->groups[0], &c->groups[1], (c->n_groups - 1) * sizeof(*c->groups));
	c->groups[c->n_groups - 1] = first;
}

/*
 * A catch-up longer than this many mux ticks (17 minutes at 4 ms: a freeze,
 * a long sleep) walks the rotation tick by tick no further: the rest goes
 * in whole rotation cycles at once, each group running its share of every
 * cycle, so a freeze of years takes no longer to simulate than one of a
 * minute. Below it every count is exact.
 */
#define MUX_WALK_MAX (1ull << 18)

/*
 * From a tick, with rotation under way: the list returns to its order after
 * n_groups rotations, and the schedule with it (it depends on the order
 * only), so the cycle repeats until something changes. Account K whole
 * cycles ending at or before t, giving each group's events the share of the
 * cycle it is scheduled. false, with nothing changed, when the rotation
 * settles within the cycle (the caller's walk reaches that state quickly).
 */
static bool skip_cycles(struct pm_sim *sim, struct sim_ctx *c, uint64_t t)
{
	uint64_t mux = c->pmu->m.mux_ns, n = c->n_groups, a = c->t_acct, b, k;
	uint64_t *on = calloc(n, sizeof(*on));
	bool settles = false;

	if (!on)
		return false;
	/* a dry run of one cycle: which group is on at each of its n ticks */
	for (uint64_t step = 0; step < n; step++) {
		settles |= !needs_rotation(c);
		for (uint64_t i = 0; i < n; i++)
			on[(i + step) % n] += c->groups[i]->scheduled && c->groups[i]->enabled;
		rotate(c);
		schedule(sim, c);
	}
	/* n rotations later: the same order and schedule as before the dry run */
	k = (t - a) / (n * mux);
	if (settles || k < 2) {
		free(on);
		return false;
	}
	k--; /* the last cycle, and what is left after it, walks tick by tick */
	b = a + k * n * mux;
	for (uint64_t g = 0; g < n; g++) {
		struct sim_event *lead = c->groups[g];

		for (size_t i = 0; i < lead->n_members; i++) {
			struct sim_event *ev = lead->members[i];
			uint64_t d;

			if (!ev->enabled)
				continue;
			ev->ena += b - a;
			if (!on[g])
				continue;
			ev->run += k * on[g] * mux;
			if (is_snapshot(ev)) {
				ev->count = truth(ev, b);
				continue;
			}
			/* the share on[g]/n of the truth's growth, in integers: no overflow */
			d = delta(ev, a, b);
			ev->count += d / n * on[g] + d % n * on[g] / n;
		}
	}
	c->t_acct = b;
	free(on);
	return true;
}

/* Catch a context up to time t, rotating at every mux tick on the way. */
static void ctx_advance(struct pm_sim *sim, struct sim_ctx *c, uint64_t t)
{
	uint64_t mux = c->pmu->m.mux_ns;
	bool try_skip = true;

	while (c->t_acct < t) {
		uint64_t b = t, tick = (c->t_acct / mux + 1) * mux;
		bool rot = needs_rotation(c) && tick <= t;

		if (rot && try_skip && c->t_acct % mux == 0 &&
		    (t - c->t_acct) / mux > MUX_WALK_MAX) {
			try_skip = false;
			if (skip_cycles(sim, c, t))
				continue;
		}
		if (rot)
			b = tick;
		account(sim, c, c->t_acct, b);
		c->t_acct = b;
		if (rot) {
			rotate(c);
			schedule(sim, c);
		}
	}
}

/* One context caught up to now: what a read, an ioctl or a close of its events needs (the
 * others' accounting does not change what they see), so their cost is the context's. */
static void ctx_sync(struct pm_sim *sim, struct sim_ctx *c)
{
	ctx_advance(sim, c, pm_sim__now(sim));
}

/* Every context: for what can touch events anywhere (a task's exec or exit, counters
 * taken, ali_drw's reset of a whole PMU). */
static void sync_all(struct pm_sim *sim)
{
	uint64_t now = pm_sim__now(sim);

	for (size_t i = 0; i < sim->n_ctx; i++)
		ctx_advance(sim, sim->ctx[i], now);
}

static struct sim_ctx *ctx_of(struct pm_sim *sim, struct sim_pmu *p, int cpu)
{
	struct sim_ctx *c;

	for (size_t i = 0; i < sim->n_ctx; i++)
		if (sim->ctx[i]->pmu == p && sim->ctx[i]->cpu == cpu)
			return sim->ctx[i];
	if (pm_grow((void **)&sim->ctx, &sim->cap_ctx, sim->n_ctx + 1, sizeof(*sim->ctx)) < 0)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->pmu = p;
	c->cpu = cpu;
	c->t_acct = pm_sim__now(sim);
	sim->ctx[sim->n_ctx++] = c;
	return c;
}

static void resched_all(struct pm_sim *sim)
{
	for (size_t i = 0; i < sim->n_ctx; i++)
		schedule(sim, sim->ctx[i]);
}

/* ---- open ---------------------------------------------------------------------- */

static bool cpu_online(struct pm_sim *sim, int cpu)
{
	struct sim_node *n = sim_vfs__lookup(sim->vfs, "sys/devices/system/cpu/online");
	const char *text = n ? sim_node__text(n) : NULL;
	struct pm_cpus cpus;
	bool on;

	if (!text || pm_cpus__parse(text, strlen(text), &cpus) < 0)
		return cpu >= 0;
	on = pm_cpus__has(&cpus, cpu);
	pm_cpus__done(&cpus);
	return on;
}

static struct sim_pmu *pmu_by_type(struct pm_sim *sim, uint32_t type)
{
	for (size_t i = 0; i < sim->n_pmus; i++)
		if (sim->pmus[i]->m.type == type)
			return sim->pmus[i];
	return NULL;
}

/* What read(2) returns of an event with read_format in a group of n
 * (kernel/events/core.c __perf_event_read_size). */
static size_t read_size(uint64_t fmt, size_t n)
{
	size_t size = 0, entry = sizeof(uint64_t);

	size += fmt & PERF_FORMAT_TOTAL_TIME_ENABLED ? sizeof(uint64_t) : 0;
	size += fmt & PERF_FORMAT_TOTAL_TIME_RUNNING ? sizeof(uint64_t) : 0;
	entry += fmt & PERF_FORMAT_ID ? sizeof(uint64_t) : 0;
	entry += fmt & PERF_FORMAT_LOST ? sizeof(uint64_t) : 0;
	if (fmt & PERF_FORMAT_GROUP)
		return size + sizeof(uint64_t) + entry * n;
	return size + entry;
}

static int check_group(struct pm_sim *sim, struct sim_pmu *p, struct sim_event *ev,
		       struct sim_event *leader)
{
	struct member_list ml;
	int hw = 0;
	bool soft = p->m.counters == 0 && !p->m.has_fixed;

	if (leader->leader != leader || leader->cpu != ev->cpu || leader->pid != ev->pid)
		return -EINVAL;
	ml = members_of(leader);
	/* the kernel's read size rule (6.7+, docs/kernel-facts.md 0.2): every member's group
	 * read, the new one's included, fits 16 KiB */
	if (read_size(ev->attr.read_format, ml.n + 1) > 16 * 1024)
		return -EINVAL;
	for (size_t i = 0; i < ml.n; i++)
		if (read_size(ml.m[i]->attr.read_format, ml.n + 1) > 16 * 1024)
			return -EINVAL;
	for (size_t i = 0; i < ml.n; i++) {
		if (is_software(ml.m[i]))
			continue;
		hw += uses_fixed(ml.m[i]) ? 1 : cost_of(ml.m[i]);
		/* ali_drw: the leader and siblings must be software or itself */
		if (p->m.flags & PM_SIM_ONE_PER_GROUP && !soft)
			return -EINVAL;
		if (ml.m[i]->pmu->m.flags & PM_SIM_ONE_PER_GROUP && !soft)
			return -EINVAL;
		/* one hardware PMU per group */
		if (!soft && ml.m[i]->pmu != p)
			return -EINVAL;
	}
	/* a group that can never fit is refused up front */
	if (!soft && p->m.counters && hw + cost_of(ev) > p->m.counters + (p->m.has_fixed ? 1 : 0))
		return -EINVAL;
	return 0;
}

/* ali_drw (kernel-facts §1.8): each open resets every counter of the PMU, and
 * the driver's next masked delta turns that into a huge bogus increment. */
static void reset_artefacts(struct pm_sim *sim, struct sim_pmu *p)
{
	uint64_t mask = p->m.width >= 64 ? UINT64_MAX : (1ull << p->m.width) - 1;

	for (size_t i = 0; i < sim->n_ev; i++) {
		struct sim_event *ev = sim->ev[i];

		if (ev->pmu == p && ev->enabled && ev->leader->scheduled)
			ev->count += (0 - ev->count) & mask;
	}
}

/* Generic hardware events go to the core PMU, through its event map. */
static struct sim_pmu *hw_pmu(struct pm_sim *sim, struct perf_event_attr *attr)
{
	for (size_t i = 0; i < sim->n_pmus; i++) {
		struct sim_pmu *p = sim->pmus[i];
		uint64_t config;

		if (!p->m.hw_config)
			continue;
		if (p->m.hw_config(p->m.data, attr->config, &config) < 0)
			return NULL;
		attr->type = p->m.type;
		attr->config = config;
		return p;
	}
	return NULL;
}

int sim_perf_open(struct pm_sim *sim, const struct perf_event_attr *attr_in, pid_t pid, int cpu,
		  struct sim_event *leader, struct sim_event **ret)
{
	struct perf_event_attr a, *attr = &a;
	struct sim_event *ev;
	struct sim_pmu *p;
	struct sim_ctx *c;
	uint64_t probe;
	int r;

	if (!attr_in || attr_in->size < PERF_ATTR_SIZE_VER0)
		return -EINVAL;
	a = *attr_in;
	p = a.type == PERF_TYPE_HARDWARE ? hw_pmu(sim, &a) : pmu_by_type(sim, a.type);
	if (!p || p->gone)
		return -ENOENT; /* the kernel knows no PMU of that type */
	if (p->fail_next) {
		r = p->fail_next;
		p->fail_next = 0;
		return r;
	}
	if (pid == -1 && cpu < 0)
		return -EINVAL;
	/* who may count (include/linux/perf_event.h perf_allow_kernel/_cpu; kernel-facts 0.5) */
	if (!(sim->caps & (SIM_CAP_PERFMON | SIM_CAP_SYS_ADMIN)) &&
	    ((!attr->exclude_kernel && sim->paranoid > 1) || (pid == -1 && sim->paranoid > 0)))
		return -EACCES;
	if (cpu >= 0 && !cpu_online(sim, cpu))
		return -ENODEV;
	if (pid != -1 && p->m.flags & PM_SIM_CPU_WIDE_ONLY)
		return p->m.task_err;
	if ((attr->sample_period || attr->freq) && p->m.flags & PM_SIM_NO_SAMPLING)
		return -EOPNOTSUPP;
	if ((attr->exclude_user || attr->exclude_kernel || attr->exclude_hv) &&
	    p->m.flags & PM_SIM_NO_EXCLUDE)
		return -EINVAL;
	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	ev->attr = *attr;
	ev->pmu = p;
	ev->gen = p->gen;
	/* uncore drivers move an event to the CPU that serves its domain */
	ev->cpu = cpu >= 0 && p->m.domain_cpu ? p->m.domain_cpu(p->m.data, cpu) : cpu;
	ev->pid = pid;
	ev->share_ppm = 1000000;
	if (p->m.config_mask && !(p->m.has_fixed && attr->config == p->m.fixed_config))
		ev->attr.config &= p->m.config_mask;
	if (p->m.count(p->m.data, &ev->attr, cpu, pm_sim__now(sim), &probe) < 0) {
		free(ev);
		return -ENOENT;
	}
	if (leader) {
		r = check_group(sim, p, ev, leader);
		if (r < 0) {
			free(ev);
			return r;
		}
	}
	ev->leader = leader ? leader : ev;
	r = pm_grow((void **)&sim->ev, &sim->cap_ev, sim->n_ev + 1, sizeof(*sim->ev));
	if (r < 0) {
		free(ev);
		return r;
	}
	if (p->m.flags & PM_SIM_RESET_ON_OPEN) {
		sync_all(sim);
		reset_artefacts(sim, p);
	}
	/* the group's context: its leader's PMU on the (domain's) CPU */
	c = ctx_of(sim, ev->leader->pmu, ev->cpu);
	if (!c) {
		free(ev);
		return -ENOMEM;
	}
	ctx_sync(sim, c);
	/* room first, so nothing can fail once the event is in a group */
	if ((!leader && pm_grow((void **)&c->groups, &c->cap_groups, c->n_groups + 1,
				sizeof(*c->groups)) < 0) ||
	    join_group(ev->leader, ev) < 0) {
		if (!leader)
			free(ev->members);
		free(ev);
		return -ENOMEM;
	}
	if (!leader)
		c->groups[c->n_groups++] = ev;
	ev->ctx = c;
	sim->ev[sim->n_ev++] = ev;
	ev->enabled = !attr->disabled;
	ev->exec_pending = attr->enable_on_exec && attr->disabled && pid != -1;
	ev->t_acct = pm_sim__now(sim);
	sim->opens++;
	if (sim->any_enabled)
		sim->enabled_before_open = true;
	/* an enabled event is installed through its CPU (__perf_install_in_context:
	 * ctx_time_freeze), which brings the cgroup clocks there up to date */
	if (ev->enabled)
		cgroup_clocks_update(sim, ev->cpu, ev);
	schedule(sim, c);
	*ret = ev;
	return 0;
}

/* ---- read, ioctl, close ---------------------------------------------------------- */

/* A count or time of a cgroup's event: the share of it its cgroup ran. */
static uint64_t in_cgroup(const struct sim_event *ev, uint64_t v)
{
	return (uint64_t)((unsigned __int128)v * ev->share_ppm / 1000000);
}

ssize_t sim_perf_read(struct pm_sim *sim, struct sim_event *ev, void *buf, size_t len)
{
	/* what check_group lets in reads at most 16 KiB */
	uint64_t fmt = ev->attr.read_format, out[16 * 1024 / sizeof(uint64_t)];
	struct sim_event *lead = ev->leader;
	size_t n = 0;

	if (ev->pmu->fail_reads)
		return ev->pmu->fail_reads;
	if (ev->gen != ev->pmu->gen)
		return -ENODEV; /* its PMU went away after it was opened */
	if (fmt & ~(uint64_t)(PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
			      PERF_FORMAT_ID | PERF_FORMAT_GROUP | PERF_FORMAT_LOST))
		return -EINVAL;
	ctx_sync(sim, ev->ctx);
	{
		struct sim_event *g = fmt & PERF_FORMAT_GROUP ? lead : ev;

		if (!g->gap_lazy || pm_sim__now(sim) > g->gap_t)
			take_gap(g);
	}
	if (fmt & PERF_FORMAT_GROUP) {
		struct member_list ml = members_of(lead);

		out[n++] = ml.n;
		if (fmt & PERF_FORMAT_TOTAL_TIME_ENABLED)
			out[n++] = in_cgroup(lead, lead->ena) + lead->gap_ena;
		if (fmt & PERF_FORMAT_TOTAL_TIME_RUNNING)
			out[n++] = in_cgroup(lead, lead->run) + lead->gap_run;
		for (size_t i = 0; i < ml.n; i++) {
			out[n++] = in_cgroup(ml.m[i], ml.m[i]->count);
			if (fmt & PERF_FORMAT_ID)
				out[n++] = (uint64_t)(uintptr_t)ml.m[i];
			if (fmt & PERF_FORMAT_LOST)
				out[n++] = 0;
		}
	} else {
		out[n++] = in_cgroup(ev, ev->count);
		if (fmt & PERF_FORMAT_TOTAL_TIME_ENABLED)
			out[n++] = in_cgroup(ev, ev->ena) + ev->gap_ena;
		if (fmt & PERF_FORMAT_TOTAL_TIME_RUNNING)
			out[n++] = in_cgroup(ev, ev->run) + ev->gap_run;
		if (fmt & PERF_FORMAT_ID)
			out[n++] = (uint64_t)(uintptr_t)ev;
		if (fmt & PERF_FORMAT_LOST)
			out[n++] = 0;
	}
	if (len < n * sizeof(uint64_t))
		return -ENOSPC;
	memcpy(buf, out, n * sizeof(uint64_t));
	return (ssize_t)(n * sizeof(uint64_t));
}

/* What an ioctl acts on: the event, or with PERF_IOC_FLAG_GROUP its whole group. */
static struct member_list ioctl_targets(struct sim_event **ev, bool group)
{
	struct member_list l = { .m = ev, .n = 1 };

	return group ? members_of((*ev)->leader) : l;
}

int sim_perf_ioctl(struct pm_sim *sim, struct sim_event *ev, unsigned long req, unsigned long arg)
{
	struct member_list t = ioctl_targets(&ev, arg & PERF_IOC_FLAG_GROUP);

	if (req != PERF_EVENT_IOC_ENABLE && req != PERF_EVENT_IOC_DISABLE &&
	    req != PERF_EVENT_IOC_RESET)
		return -ENOTTY;
	ctx_sync(sim, ev->ctx);
	for (size_t i = 0; i < t.n; i++) {
		if (req == PERF_EVENT_IOC_RESET) {
			t.m[i]->count = 0;
			continue;
		}
		if (req == PERF_EVENT_IOC_ENABLE)
			cgroup_clock_enable(sim, t.m[i]);
		t.m[i]->enabled = req == PERF_EVENT_IOC_ENABLE;
		t.m[i]->exec_pending = false;
	}
	if (req == PERF_EVENT_IOC_RESET)
		return 0;
	sim->any_enabled |= req == PERF_EVENT_IOC_ENABLE;
	schedule(sim, ev->ctx); /* only its context's groups can move */
	return 0;
}

void sim_perf_exec(struct pm_sim *sim, pid_t pid)
{
	sync_all(sim);
	for (size_t i = 0; i < sim->n_ev; i++) {
		struct sim_event *e = sim->ev[i];

		if (e->pid == pid && e->exec_pending) {
			e->enabled = true;
			e->exec_pending = false;
		}
	}
	resched_all(sim);
}

void sim_perf_task_exit(struct pm_sim *sim, pid_t pid)
{
	/* a task's events stop with it: no more counts, no more enabled time */
	sync_all(sim);
	for (size_t i = 0; i < sim->n_ev; i++)
		if (sim->ev[i]->pid == pid)
			sim->ev[i]->enabled = false;
	resched_all(sim);
}

void sim_perf_close(struct pm_sim *sim, struct sim_event *ev)
{
	struct sim_ctx *c = ev->ctx;

	ctx_sync(sim, c);
	/* __perf_remove_from_context: ctx_time_update, the cgroup clocks up to date */
	cgroup_clocks_update(sim, ev->cpu, ev);
	/* siblings of a closed leader become groups of their own, as in the kernel */
	for (size_t i = 0; ev->leader == ev && i < ev->n_members; i++) {
		struct sim_event *e = ev->members[i];

		if (e == ev)
			continue;
		e->leader = e;
		e->n_members = 0;
		if (join_group(e, e) == 0 && pm_grow((void **)&c->groups, &c->cap_groups,
						     c->n_groups + 1, sizeof(*c->groups)) == 0)
			c->groups[c->n_groups++] = e;
	}
	/* a sibling leaves its leader's group */
	for (size_t i = 0; ev->leader != ev && i < ev->leader->n_members; i++) {
		struct sim_event *lead = ev->leader;

		if (lead->members[i] != ev)
			continue;
		memmove(&lead->members[i], &lead->members[i + 1],
			(lead->n_members - i - 1) * sizeof(*lead->members));
		lead->n_members--;
		break;
	}
	for (size_t g = 0; g < c->n_groups; g++) {
		if (c->groups[g] != ev)
			continue;
		memmove(&c->groups[g], &c->groups[g + 1],
			(c->n_groups - g - 1) * sizeof(*c->groups));
		c->n_groups--;
		break;
	}
	for (size_t i = 0; i < sim->n_ev; i++) {
		if (sim->ev[i] != ev)
			continue;
		memmove(&sim->ev[i], &sim->ev[i + 1], (sim->n_ev - i - 1) * sizeof(*sim->ev));
		sim->n_ev--;
		break;
	}
	free(ev->members);
	free(ev->cg_parts);
	free(ev);
	schedule(sim, c);
}

void sim_perf_done(struct pm_sim *sim)
{
	for (size_t i = 0; i < sim->n_ev; i++) {
		free(sim->ev[i]->members);
		free(sim->ev[i]->cg_parts);
		free(sim->ev[i]);
	}
	for (size_t i = 0; i < sim->n_ctx; i++) {
		free(sim->ctx[i]->groups);
		free(sim->ctx[i]);
	}
	for (size_t i = 0; i < sim->n_pmus; i++) {
		free(sim->pmus[i]->name);
		free(sim->pmus[i]);
	}
	free(sim->ev);
	free(sim->ctx);
	free(sim->pmus);
}

void sim_perf_reschedule(struct pm_sim *sim, struct sim_event *ev)
{
	ev->truth_known = false; /* its cgroup's parts decide its truth from now on */
	if (ev->ctx)
		schedule(sim, ev->ctx);
}
