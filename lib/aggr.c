// SPDX-License-Identifier: GPL-2.0-only
/*
 * Aggregation: which row each counter adds to, and the rows' values.
 * Each counter is scaled for multiplexing on its own (count * enabled /
 * running, facts §0.3) before it is summed, so a row is right even when its
 * CPUs ran for different shares of the time. A row whose inputs include one
 * that was enabled but never ran has no honest value: it is NaN, "not
 * counted", never 0. Uncore and per-package events were placed on one CPU per
 * domain (sched.c), so sums never count a domain twice.
 *
 * A row also says how many of the PMU instances it stands for its value
 * covers (an instance -C left without a CPU, that another program holds or
 * that went away is not covered: the row is flagged partial), and carries
 * what the sources saw of its counters (wrap uncertain, reprogrammed, reset,
 * lost: session.h, pm_counter__raise).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "pmu.h"
#include "aggr.h"
#include "topo.h"
#include "util/counts.h"
#include "util/util.h"

struct slot {
	size_t event;
	long key;
	size_t counter;
};

/* Where a pack placed the counter's PMU (pack.c InstanceTopology), or NULL. */
static const struct pm_pmu_place *place_of(const struct pm_session *s, const struct pm_counter *c)
{
	const struct pm_pmu *p = s->l->inst[c->inst].pmu;

	return p && p->place.label[0] ? &p->place : NULL;
}

/* ---- per CPU: the domain an uncore PMU's CPU reads for ---------------------------- */

/*
 * An uncore PMU's cpumask holds one CPU per domain the hardware shares
 * (kernel-facts §3.4: amd_df per die or socket, amd_l3 per LLC), and its
 * count on that CPU is the domain's, not the CPU's. Which domain is read
 * from the machine, never assumed: the cpumask must be the same for every
 * instance of the event, and its CPUs must be one per L3 (their
 * cache/index3/shared_cpu_list split the online CPUs), one per socket or
 * one per die. Otherwise (ali_drw's instances each name the CPU that
 * probed them) the row keeps its CPU.
 */
enum domain_kind { DOMAIN_NONE, DOMAIN_L3, DOMAIN_SOCKET, DOMAIN_DIE };

static bool same_cpus(const struct pm_cpus *a, const struct pm_cpus *b)
{
	return a->n == b->n && (!a->n || !memcmp(a->cpu, b->cpu, a->n * sizeof(*a->cpu)));
}

/* Does a CPU list of the sysfs L3 sharing file of each cpumask CPU split the online CPUs? */
static bool one_per_l3(struct pm_session *s, const struct pm_cpus *mask)
{
	const struct pm_topo *t = s->ctx->topo;
	struct pm_cpus seen = { 0 };
	size_t total = 0;
	bool ok = true;

	for (size_t i = 0; ok && i < mask->n; i++) {
		char path[96], buf[512];
		struct pm_cpus sharing = { 0 }, u = { 0 };

		snprintf(path, sizeof(path),
			 "sys/devices/system/cpu/cpu%d/cache/index3/shared_cpu_list", mask->cpu[i]);
		ok = pm_read_file(s->ctx, path, buf, sizeof(buf)) >= 0 &&
		     pm_cpus__parse(buf, strlen(buf), &sharing) == 0 &&
		     pm_cpus__has(&sharing, mask->cpu[i]) &&
		     pm_cpus__union(&seen, &sharing, &u) == 0;
		total += sharing.n;
		pm_cpus__done(&sharing);
		if (ok) {
			pm_cpus__done(&seen);
			seen = u;
		}
	}
	/* disjoint (no CPU twice) and covering every online CPU */
	ok = ok && total == seen.n && seen.n >= t->online.n;
	for (size_t i = 0; ok && i < t->online.n; i++)
		ok = pm_cpus__has(&seen, t->online.cpu[i]);
	pm_cpus__done(&seen);
	return ok;
}

/* Are the CPUs of mask on distinct sockets (by_die false) or dies, one on each? */
static bool one_per(const struct pm_session *s, const struct pm_cpus *mask, bool by_die)
{
	const struct pm_topo *t = s->ctx->topo;

	if (mask->n != (size_t)(by_die ? t->n_dies : t->n_packages))
		return false;
	for (size_t i = 0; i < mask->n; i++) {
		const struct pm_cpu_topo *a = pm_topo__cpu(t, mask->cpu[i]);

		if (!a)
			return false;
		for (size_t j = 0; j < i; j++) {
			const struct pm_cpu_topo *b = pm_topo__cpu(t, mask->cpu[j]);

			if (b->package == a->package && (!by_die || b->die == a->die))
				return false;
		}
	}
	return true;
}

static enum domain_kind event_domain(struct pm_session *s, size_t e)
{
	const struct pm_event *ev = &s->l->ev[e];
	const struct pm_pmu *p = ev->n_inst ? s->l->inst[ev->first_inst].pmu : NULL;

	if (!p || !p->uncore || !p->cpus.n)
		return DOMAIN_NONE;
	for (size_t i = 1; i < ev->n_inst; i++) {
		const struct pm_pmu *q = s->l->inst[ev->first_inst + i].pmu;

		if (!q || !q->uncore || !same_cpus(&q->cpus, &p->cpus))
			return DOMAIN_NONE;
	}
	/* finer than a die: an L3 domain, if sysfs says the cpumask splits that way */
	if (p->cpus.n > (size_t)s->ctx->topo->n_dies && one_per_l3(s, &p->cpus))
		return DOMAIN_L3;
	if (one_per(s, &p->cpus, false))
		return DOMAIN_SOCKET;
	if (one_per(s, &p->cpus, true))
		return DOMAIN_DIE;
	return DOMAIN_NONE;
}

/* label, kept in the session's domain names (once each); NULL: no memory. */
static const char *intern_label(struct pm_session *s, const char *label)
{
	struct pm_names *d = &s->rows->domains;

	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->name[i], label))
			return d->name[i];
	if (pm_grow((void **)&d->name, &d->cap, d->n + 1, sizeof(*d->name)) < 0)
		return NULL;
	d->name[d->n] = strdup(label);
	return d->name[d->n] ? d->name[d->n++] : NULL;
}

/* The label of cpu's domain, kept in the session; NULL when none (or no memory). */
static const char *domain_label(struct pm_session *s, enum domain_kind kind, int cpu)
{
	const struct pm_cpu_topo *t = pm_topo__cpu(s->ctx->topo, cpu);
	char label[256], path[96], buf[200];
	size_t n;

	switch (kind) {
	case DOMAIN_L3:
		snprintf(path, sizeof(path),
			 "sys/devices/system/cpu/cpu%d/cache/index3/shared_cpu_list", cpu);
		if (pm_read_file(s->ctx, path, buf, sizeof(buf)) < 0)
			return NULL;
		n = strcspn(buf, " \t\n");
		snprintf(label, sizeof(label), "L3 CPUs %.*s", (int)n, buf);
		break;
	case DOMAIN_SOCKET:
		snprintf(label, sizeof(label), "S%d", t ? t->package : 0);
		break;
	case DOMAIN_DIE:
		snprintf(label, sizeof(label), "S%d-D%d", t ? t->package : 0, t ? t->die : 0);
		break;
	default:
		return NULL;
	}
	return intern_label(s, label);
}

/* A counter of an uncore PMU, whose cpumask may span sockets; or of a source whose
 * counter's socket is its own (pm_source_ops.device_per_socket: a recording's, the one
 * its row was recorded on, a stand-in CPU of it, source/replay/replay.c); or of any PMU, when
 * the session keeps every device's sockets apart. */
static bool spans_sockets(const struct pm_session *s, const struct pm_counter *c)
{
	const struct pm_pmu *p = s->l->inst[c->inst].pmu;

	return !p || p->uncore || pm_source__ops(s->ctx, p->source)->device_per_socket ||
	       s->opts.device_per_socket;
}

/*
 * Per core, node or cache: the counter's CPU's (uncore counters too, as
 * perf: the cpumask CPU's; label_domains then says which domain the count
 * is). Sorted by socket, die, then the core or cache; a CPU sysfs puts in
 * no node or cache comes last, in a row of its own.
 */
#define GROUP_NONE (1L << 62)

static long group_key(enum pm_aggr aggr, const struct pm_cpu_topo *t)
{
	long place;

	if (!t)
		return GROUP_NONE;
	place = ((long)t->package << 48) + ((long)(t->die & 0xffff) << 32);
	switch (aggr) {
	case PM_AGGR_CORE:
		return place + (t->core & 0xffffffffL);
	case PM_AGGR_NODE:
		return t->node < 0 ? GROUP_NONE : t->node;
	case PM_AGGR_CACHE:
		return t->cache_id < 0 ? GROUP_NONE : place + t->cache_id;
	default:
		return 0;
	}
}

/* The row label of a CPU per core, node or cache (perf stat's: S0-D0-C3, N0, S0-D0-L3-ID8). */
static const char *group_label(struct pm_session *s, const struct pm_cpu_topo *t)
{
	char label[64];

	if (!t)
		return intern_label(s, "task"); /* a command's counters follow it on any CPU */
	switch (s->opts.aggr) {
	case PM_AGGR_CORE:
		snprintf(label, sizeof(label), "S%d-D%d-C%d", t->package, t->die, t->core);
		break;
	case PM_AGGR_NODE:
		if (t->node < 0)
			return intern_label(s, "no node");
		snprintf(label, sizeof(label), "N%d", t->node);
		break;
	case PM_AGGR_CACHE:
		if (t->cache_id < 0 && s->opts.cache_level)
			snprintf(label, sizeof(label), "no L%d", s->opts.cache_level);
		else if (t->cache_id < 0)
			snprintf(label, sizeof(label), "no cache");
		else
			snprintf(label, sizeof(label), "S%d-D%d-L%d-ID%d", t->package, t->die,
				 t->cache_lvl, t->cache_id);
		break;
	default:
		return NULL;
	}
	return intern_label(s, label);
}

/*
 * The CPU a counter's row goes by: its own; for a CPU-less PMU's (the tool
 * events: duration_time) counting the machine or a CPU list, the first CPU
 * counted, as perf 6.1 puts its tool events on CPU 0 (their cpu map is
 * "0": -A prints CPU0, --per-socket S0).
 */
static int bucket_cpu(const struct pm_session *s, const struct pm_counter *c)
{
	const struct pm_pmu *p = c->inst < s->l->n_inst ? s->l->inst[c->inst].pmu : NULL;

	if (c->cpu >= 0 || !p || !p->cpuless || !s->cpus.n ||
	    (s->opts.target != PM_TARGET_SYSTEM && s->opts.target != PM_TARGET_CPUS))
		return c->cpu;
	return s->cpus.cpu[0];
}

static long bucket_key(const struct pm_session *s, const struct pm_counter *c)
{
	int cpu = bucket_cpu(s, c);
	const struct pm_cpu_topo *t = pm_topo__cpu(s->ctx->topo, cpu);
	const struct pm_pmu_place *pl = place_of(s, c);
	long pkg = t ? t->package : 0;

	switch (s->opts.aggr) {
	case PM_AGGR_DEVICE:
		/* an uncore PMU whose cpumask spans sockets (amd_df: one CPU per socket)
		 * counts each socket's own hardware: a row per socket, never merged */
		if (spans_sockets(s, c))
			return (long)(c->inst - s->l->ev[c->event].first_inst) * 4096 + pkg;
		return (long)(c->inst - s->l->ev[c->event].first_inst);
	case PM_AGGR_CHANNEL:
		/* channels after every device index; other PMUs stay per device */
		if (pl && pl->channel >= 0)
			return (1L << 24) + (pkg * 256 + pl->die) * 256 + pl->channel;
		return (long)(c->inst - s->l->ev[c->event].first_inst);
	case PM_AGGR_CPU:
		return cpu;
	case PM_AGGR_DIE:
		/* the die the PMU's name says: the cpumask CPU may sit on any die, and
		 * arm64 has no die_id at all (every CPU is die 0) */
		if (pl && pl->die >= 0)
			return pkg * 256 + pl->die;
		return pm_topo__die_key(s->ctx->topo, cpu);
	case PM_AGGR_SOCKET:
		return t ? t->package : -1;
	case PM_AGGR_CORE:
	case PM_AGGR_NODE:
	case PM_AGGR_CACHE:
		return group_key(s->opts.aggr, t);
	case PM_AGGR_THREAD:
		return c->tid; /* 0: a counter of no thread (a tool event's) */
	case PM_AGGR_FAMILY:
	default:
		return 0;
	}
}

/*
 * The row key: the aggregation's bucket, and with no_merge (perf's
 * --no-merge) the PMU instance within it too. Instance indices stay below
 * 4096 (a family's instances); a bucket key is below 2^50 except
 * GROUP_NONE, which keeps its place after every other.
 */
static long row_key(const struct pm_session *s, const struct pm_counter *c)
{
	long key = bucket_key(s, c), inst;

	if (!s->opts.no_merge || s->opts.aggr == PM_AGGR_DEVICE || s->opts.aggr == PM_AGGR_CHANNEL)
		return key;
	inst = (long)(c->inst - s->l->ev[c->event].first_inst) & 4095;
	return key == GROUP_NONE ? GROUP_NONE + inst : key * 4096 + inst;
}

static int cmp_slot(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;

	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->counter < y->counter ? -1 : x->counter > y->counter;
}

/*
 * What perf 6.1's stat-shadow.c takes an event for (perf_stat__update_shadow_stats
 * and perf_stat__print_shadow_stats): evsel__match is the attr's type and
 * config, exactly (6.1 masks no extended PMU type); a HW_CACHE total is its
 * cache's read access (config 0..4), a miss ratio's row its read miss.
 */
static unsigned shadow_of(enum pm_source_shadow by, const struct perf_event_attr *a)
{
	static const unsigned hw[] = {
		[PERF_COUNT_HW_CPU_CYCLES] = PM_SHADOW_CYCLES,
		[PERF_COUNT_HW_INSTRUCTIONS] = PM_SHADOW_INSTRUCTIONS,
		[PERF_COUNT_HW_CACHE_REFERENCES] = PM_SHADOW_CACHE_REFS,
		[PERF_COUNT_HW_CACHE_MISSES] = PM_SHADOW_CACHE_MISSES,
		[PERF_COUNT_HW_BRANCH_INSTRUCTIONS] = PM_SHADOW_BRANCHES,
		[PERF_COUNT_HW_BRANCH_MISSES] = PM_SHADOW_BRANCH_MISSES,
		[PERF_COUNT_HW_STALLED_CYCLES_FRONTEND] = PM_SHADOW_STALLED_FRONTEND,
		[PERF_COUNT_HW_STALLED_CYCLES_BACKEND] = PM_SHADOW_STALLED_BACKEND,
	};
	/* by cache id: its read accesses, its read misses (perf's L1D, L1I, LL, DTLB, ITLB) */
	static const unsigned cache[][2] = {
		[PERF_COUNT_HW_CACHE_L1D] = { PM_SHADOW_L1D, PM_SHADOW_L1D_MISSES },
		[PERF_COUNT_HW_CACHE_L1I] = { PM_SHADOW_L1I, PM_SHADOW_L1I_MISSES },
		[PERF_COUNT_HW_CACHE_LL] = { PM_SHADOW_LL, PM_SHADOW_LL_MISSES },
		[PERF_COUNT_HW_CACHE_DTLB] = { PM_SHADOW_DTLB, PM_SHADOW_DTLB_MISSES },
		[PERF_COUNT_HW_CACHE_ITLB] = { PM_SHADOW_ITLB, PM_SHADOW_ITLB_MISSES },
	};
	const uint64_t miss = (uint64_t)PERF_COUNT_HW_CACHE_OP_READ << 8 |
			      (uint64_t)PERF_COUNT_HW_CACHE_RESULT_MISS << 16;

	if (by == PM_SOURCE_SHADOW_ANY)
		return PM_SHADOW_OTHER; /* duration_time: perf's rate, as any event */
	if (by != PM_SOURCE_SHADOW_ATTR)
		return PM_SHADOW_NONE;
	if (a->type == PERF_TYPE_SOFTWARE &&
	    (a->config == PERF_COUNT_SW_CPU_CLOCK || a->config == PERF_COUNT_SW_TASK_CLOCK))
		return PM_SHADOW_CLOCK;
	if (a->type == PERF_TYPE_HARDWARE && a->config < PM_ARRAY_SIZE(hw) && hw[a->config])
		return hw[a->config];
	if (a->type == PERF_TYPE_HW_CACHE && (a->config & 0xff) < PM_ARRAY_SIZE(cache)) {
		if (a->config >> 8 == 0)
			return cache[a->config][0];
		if ((a->config & ~(uint64_t)0xff) == miss)
			return cache[a->config & 0xff][1];
	}
	return PM_SHADOW_OTHER;
}

/* perf's evsel_context: the exclude_* bits a comment's inputs must share */
static unsigned shadow_ctx_of(const struct perf_event_attr *a)
{
	return (a->exclude_kernel ? PM_SHADOW_CTX_KERNEL : 0) |
	       (a->exclude_user ? PM_SHADOW_CTX_USER : 0) | (a->exclude_hv ? PM_SHADOW_CTX_HV : 0) |
	       (a->exclude_host ? PM_SHADOW_CTX_HOST : 0) |
	       (a->exclude_idle ? PM_SHADOW_CTX_IDLE : 0);
}

static void fill_row(const struct pm_session *s, const struct pm_counter *c, struct pm_row *row)
{
	const struct pm_event *ev = &s->l->ev[c->event];
	int cpu = bucket_cpu(s, c);
	const struct pm_cpu_topo *t = pm_topo__cpu(s->ctx->topo, cpu);
	const struct pm_pmu_place *pl = place_of(s, c);

	*row = (struct pm_row){ .event = ev->label,
				.cgroup = ev->cgroup,
				.source = pm_source__name(s->ctx, c->source),
				.unit = ev->unit ? ev->unit : "",
				.cpu = -1,
				.die = -1,
				.socket = -1,
				.channel = -1,
				.subchannel = -1,
				.scale = ev->scale,
				.core = -1,
				.node = -1 };
	/* perf's --no-merge names a PMU event's instance (its uniquify_event_name: the
	 * events with a pmu_name, of the dynamic PMU types, not cycles or cpu-clock) */
	if (s->opts.no_merge && c->inst < s->l->n_inst &&
	    s->l->inst[c->inst].attr.type >= PERF_TYPE_MAX)
		row->device = s->l->inst[c->inst].device;
	if (c->inst < s->l->n_inst) {
		row->shadow = shadow_of(pm_source__ops(s->ctx, c->source)->shadow,
					&s->l->inst[c->inst].attr);
		row->shadow_ctx = shadow_ctx_of(&s->l->inst[c->inst].attr);
	}
	switch (s->opts.aggr) {
	case PM_AGGR_CHANNEL:
		if (pl && pl->channel >= 0) {
			row->place = pl->channel_label;
			row->channel = pl->channel;
			row->die = pl->die;
			if (t)
				row->socket = t->package;
			break;
		}
		/* a PMU no pack places in a channel keeps its device row */
		/* fall through */
	case PM_AGGR_DEVICE:
		row->device = s->l->inst[c->inst].device;
		if (t && spans_sockets(s, c))
			row->socket = t->package; /* its key's socket */
		if (pl) {
			row->place = pl->label;
			row->channel = pl->channel;
			row->subchannel = pl->subchannel;
			row->die = pl->die;
			if (t)
				row->socket = t->package;
		}
		break;
	case PM_AGGR_CPU:
		/* a CPU's row also says which die and socket it is on */
		row->cpu = cpu;
		/* fall through */
	case PM_AGGR_DIE:
		if (pl && pl->die >= 0)
			row->die = pl->die;
		else if (t)
			row->die = t->die;
		/* fall through */
	case PM_AGGR_SOCKET:
		if (t)
			row->socket = t->package;
		break;
	case PM_AGGR_CORE:
	case PM_AGGR_CACHE:
		/* a core and a cache are within a die (perf's S-D-C and S-D-L-ID) */
		if (t && (s->opts.aggr == PM_AGGR_CORE || t->cache_id >= 0)) {
			row->socket = t->package;
			row->die = t->die;
		}
		if (t && s->opts.aggr == PM_AGGR_CORE)
			row->core = t->core;
		break;
	case PM_AGGR_NODE:
		if (t)
			row->node = t->node;
		break;
	default:
		break;
	}
}

/* The row of (event, key), or SIZE_MAX (rows are sorted by event, then key). */
static size_t find_row(const struct pm_session *s, size_t event, long key)
{
	size_t lo = 0, hi = s->rows->n_rows;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct pm_row_acc *a = &s->rows->acc[mid];

		if (a->event < event || (a->event == event && a->key < key))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->rows->n_rows && s->rows->acc[lo].event == event &&
			       s->rows->acc[lo].key == key ?
		       lo :
		       SIZE_MAX;
}

/*
 * What a row's coverage counts: a PMU instance, or for an uncore PMU each
 * domain of its cpumask (amd_l3 has one PMU for every CCX, one cpumask CPU
 * each; amd_df one per socket). A unit counts in every row its open counters
 * go to, and the first of them marks it covered while it lives.
 */
struct unit {
	size_t inst;
	int cpu; /* the cpumask CPU of an uncore PMU's domain; -1 for a core PMU */
	long row;
	size_t counter;
};

static int cmp_unit(const void *a, const void *b)
{
	const struct unit *x = a, *y = b;

	if (x->inst != y->inst)
		return x->inst < y->inst ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->row != y->row)
		return x->row < y->row ? -1 : 1;
	return x->counter < y->counter ? -1 : x->counter > y->counter;
}

static bool is_uncore(const struct pm_session *s, size_t inst)
{
	const struct pm_pmu *p = s->l->inst[inst].pmu;

	return p && p->uncore && p->cpus.n;
}

/* A unit no counter of which opened (-C left it out, another program holds it,
 * it failed): it counts in the row its bucket would have had, if any. */
static void count_missing(struct pm_session *s, size_t inst, int cpu)
{
	struct pm_counter probe = { .inst = inst, .event = s->l->inst[inst].event, .cpu = cpu };
	size_t row;

	for (size_t k = 0; cpu < 0 && k < s->n_c; k++)
		if (s->c[k].inst == inst) {
			probe.cpu = s->c[k].cpu;
			break;
		}
	row = find_row(s, probe.event, row_key(s, &probe));
	if (row != SIZE_MAX)
		s->rows->acc[row].instances++;
}

/* How many units each row stands for (pm_row_acc.instances), and which counter marks each. */
static int count_instances(struct pm_session *s)
{
	struct unit *u = calloc(s->n_c ? s->n_c : 1, sizeof(*u));
	size_t n = 0, i = 0;

	if (!u)
		return -ENOMEM;
	for (size_t k = 0; k < s->n_c; k++) {
		const struct pm_counter *c = &s->c[k];

		s->c[k].first_of_inst = false;
		if (c->open)
			u[n++] = (struct unit){ c->inst, is_uncore(s, c->inst) ? c->cpu : -1,
						(long)c->row, k };
	}
	if (n)
		qsort(u, n, sizeof(*u), cmp_unit);
	for (size_t j = 0; j < n; j++) {
		if (j && u[j].inst == u[j - 1].inst && u[j].cpu == u[j - 1].cpu &&
		    u[j].row == u[j - 1].row)
			continue;
		s->c[u[j].counter].first_of_inst = true;
		/* a recorded row stands for the instances the recording said */
		s->rows->acc[u[j].row].instances += PM_MAX(s->c[u[j].counter].rec_instances, 1u);
	}
	/* the units without an open counter: u is sorted by instance, then CPU */
	for (size_t inst = 0; inst < s->l->n_inst; inst++) {
		const struct pm_pmu *p = s->l->inst[inst].pmu;
		size_t first = i;

		while (i < n && u[i].inst == inst)
			i++;
		if (!is_uncore(s, inst)) {
			if (first == i)
				count_missing(s, inst, -1);
			continue;
		}
		for (size_t d = 0; d < p->cpus.n; d++) {
			bool open = false;

			for (size_t j = first; j < i && !open; j++)
				open = u[j].cpu == p->cpus.cpu[d];
			if (!open)
				count_missing(s, inst, p->cpus.cpu[d]);
		}
	}
	free(u);
	return 0;
}

/* The open (or unsupported) counters by event, then row key, then index; NULL: no memory. */
static struct slot *sorted_slots(struct pm_session *s, size_t *ret_n)
{
	struct slot *slot = calloc(s->n_c ? s->n_c : 1, sizeof(*slot));
	size_t n = 0;

	if (!slot)
		return NULL;
	for (size_t k = 0; k < s->n_c; k++)
		if (s->c[k].open || s->c[k].unsupported)
			slot[n++] = (struct slot){ s->c[k].event, row_key(s, &s->c[k]), k };
	qsort(slot, n, sizeof(*slot), cmp_slot);
	*ret_n = n;
	return slot;
}

void pm_aggr__done(struct pm_session *s)
{
	if (!s->rows)
		return;
	free(s->rows->rows_iv);
	free(s->rows->rows_tot);
	free(s->rows->acc);
	pm_names__done(&s->rows->domains);
	free(s->rows);
	s->rows = NULL;
}

int pm_aggr__build(struct pm_session *s)
{
	struct slot *slot;
	size_t n = 0, rows = 0;
	int r;

	if (!s->rows && !(s->rows = calloc(1, sizeof(*s->rows))))
		return -ENOMEM;
	slot = sorted_slots(s, &n);
	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || slot[i].event != slot[i - 1].event || slot[i].key != slot[i - 1].key)
			rows++;
		s->c[slot[i].counter].row = rows - 1;
	}
	free(s->rows->rows_iv);
	free(s->rows->rows_tot);
	free(s->rows->acc);
	pm_names__done(&s->rows->domains);
	s->rows->rows_iv = s->rows->rows_tot = NULL;
	s->rows->acc = calloc(rows ? rows : 1, sizeof(*s->rows->acc));
	if (!s->rows->acc) {
		free(slot);
		return -ENOMEM;
	}
	s->rows->n_rows = rows;
	for (size_t i = 0; i < n; i++) {
		const struct pm_counter *c = &s->c[slot[i].counter];

		s->rows->acc[c->row].event = c->event;
		s->rows->acc[c->row].key = slot[i].key;
	}
	r = count_instances(s);
	free(slot);
	return r;
}

static bool is_group(enum pm_aggr aggr)
{
	return aggr == PM_AGGR_CORE || aggr == PM_AGGR_NODE || aggr == PM_AGGR_CACHE;
}

/*
 * Per node, an L3's count is within the node's row; per L3 (or a higher
 * level) cache, it is the cache's own: either way the group's label stands.
 */
static bool within_group(struct pm_session *s, enum domain_kind kind, int cpu)
{
	const struct pm_cpu_topo *t = pm_topo__cpu(s->ctx->topo, cpu);

	return kind == DOMAIN_L3 && (s->opts.aggr == PM_AGGR_NODE ||
				     (s->opts.aggr == PM_AGGR_CACHE && t && t->cache_lvl >= 3));
}

/* Per CPU (and per core, node or cache), an uncore row is its domain's: say which
 * (event_domain). Per L3 cache, an L3's own row keeps its cache label. */
static void label_domains(struct pm_session *s, const struct slot *slot, size_t n)
{
	enum domain_kind kind = DOMAIN_NONE;
	size_t last_event = SIZE_MAX;

	for (size_t i = 0; i < n; i++) {
		const struct pm_counter *c = &s->c[slot[i].counter];
		const char *label;

		if (c->event != last_event) {
			kind = event_domain(s, c->event);
			last_event = c->event;
		}
		if (kind == DOMAIN_NONE || c->cpu < 0 || within_group(s, kind, c->cpu))
			continue;
		label = domain_label(s, kind, c->cpu);
		s->rows->rows_iv[c->row].domain = s->rows->rows_tot[c->row].domain = label;
	}
}

/*
 * Per thread: each row's thread ID and its comm (proc/TID/comm, read once,
 * as perf's thread_map__read_comms; "" when the thread has gone).
 */
static void name_threads(struct pm_session *s, const struct slot *slot, size_t n)
{
	struct pm_rows *rw = s->rows;

	for (size_t i = 0; i < n; i++) {
		const struct pm_counter *c = &s->c[slot[i].counter];
		char path[64], comm[64] = "";
		const char *name;

		if (!c->tid || rw->rows_tot[c->row].comm)
			continue;
		snprintf(path, sizeof(path), "proc/%d/comm", (int)c->tid);
		if (pm_read_file(s->ctx, path, comm, sizeof(comm)) < 0)
			comm[0] = '\0';
		comm[strcspn(comm, "\n")] = '\0';
		name = intern_label(s, comm);
		rw->rows_iv[c->row].tid = rw->rows_tot[c->row].tid = c->tid;
		rw->rows_iv[c->row].comm = rw->rows_tot[c->row].comm = name ? name : "";
		/* the row's label, as perf's comm-pid */
		snprintf(path, sizeof(path), "%s-%d", comm, (int)c->tid);
		rw->rows_iv[c->row].domain = rw->rows_tot[c->row].domain = intern_label(s, path);
	}
}

int pm_aggr__fill(struct pm_session *s)
{
	struct pm_rows *rw = s->rows;
	size_t n = 0, room = rw->n_rows + rw->n_mrows + rw->n_arows + 1;
	struct slot *slot = sorted_slots(s, &n);

	rw->rows_iv = calloc(room, sizeof(*rw->rows_iv));
	rw->rows_tot = calloc(room, sizeof(*rw->rows_tot));
	if (!slot || !rw->rows_iv || !rw->rows_tot) {
		free(slot);
		return -ENOMEM;
	}
	for (size_t i = 0, first_inst = 0; i < n; i++) {
		const struct pm_counter *c = &s->c[slot[i].counter];
		bool first = i == 0 || s->c[slot[i - 1].counter].row != c->row;
		unsigned cpus = first ? 0 : rw->rows_tot[c->row].n_cpus;

		/* perf's aggregate-number: the CPUs of the row's first instance (a slot's
		 * counters come in counter order, the first instance's first) */
		if (first)
			first_inst = c->inst;
		cpus += c->inst == first_inst;
		fill_row(s, c, &rw->rows_iv[c->row]);
		fill_row(s, c, &rw->rows_tot[c->row]);
		rw->rows_iv[c->row].n_cpus = rw->rows_tot[c->row].n_cpus = cpus;
	}
	if (s->opts.aggr == PM_AGGR_THREAD)
		name_threads(s, slot, n);
	if (is_group(s->opts.aggr))
		for (size_t i = 0; i < n; i++) {
			const struct pm_counter *c = &s->c[slot[i].counter];
			const char *label = group_label(s, pm_topo__cpu(s->ctx->topo,
									bucket_cpu(s, c)));

			rw->rows_iv[c->row].domain = rw->rows_tot[c->row].domain = label;
		}
	if (s->opts.aggr == PM_AGGR_CPU || is_group(s->opts.aggr))
		label_domains(s, slot, n);
	free(slot);
	return 0;
}

bool pm_aggr__delta(const struct pm_session *s, const struct pm_counter *c, bool interval,
		    uint64_t *ret_val, uint64_t *ret_ena, uint64_t *ret_run)
{
	const struct pm_event *ev = &s->l->ev[c->event];

	if (!c->open)
		return false;
	*ret_ena = c->cur.ena - (interval ? c->prev.ena : 0);
	*ret_run = c->cur.run - (interval ? c->prev.run : 0);
	/* a snapshot event's count is its current value (facts §4: SET, not added) */
	*ret_val = ev->snapshot ? c->cur.val : c->cur.val - (interval ? c->prev.val : 0);
	return *ret_ena != 0; /* not enabled in this window: a task not started yet */
}

void pm_aggr__estimate(const struct pm_session *s, const struct pm_counter *c, bool interval,
		       uint64_t val, uint64_t ena, uint64_t run, struct pm_estimate *ret)
{
	bool snapshot = s->l->ev[c->event].snapshot;

	if ((c->track || c->est_given) && !snapshot) {
		*ret = interval ? c->est_iv : c->est_tot;
		return;
	}
	*ret = (struct pm_estimate){ .count = snapshot ? (double)(int64_t)val :
							 pm_counts__scale(val, ena, run),
				     .seen = (double)val };
	if (!run) {
		ret->half = NAN;
		ret->bound = PM_BOUND_NO_VALUE;
	} else if (run < ena) {
		ret->half = NAN; /* scaled, and nothing saw how it went meanwhile */
		ret->bound = PM_BOUND_UNMEASURED;
	}
}

/* The flags that say counts may be missing from a value: it has no upper bound. */
#define PM_ROW_MISSING (PM_ROW_WRAP_UNCERTAIN | PM_ROW_RESET | PM_ROW_LOST | PM_ROW_REPROGRAMMED)

/* A row's lo and hi from its value and its inputs' sums (value set, flags final). */
static void row_bounds(const struct pm_event *ev, const struct pm_row_acc *a, struct pm_row *row)
{
	unsigned bound = a->bound;
	double h;

	if (row->flags & PM_ROW_MISSING && bound < PM_BOUND_MISSING)
		bound = PM_BOUND_MISSING;
	row->bound = bound;
	switch (bound) {
	case PM_BOUND_EXACT:
		row->lo = row->hi = row->value;
		return;
	case PM_BOUND_MEASURED:
	case PM_BOUND_MISSING:
		if (ev->snapshot) /* a gauge's inputs are averaged, not scaled */
			break;
		h = pm_counts__unit(a->half, ev->scale);
		/* what was counted is there: the truth is not below it */
		row->lo = fmax(row->value - h, pm_counts__unit(a->seen, ev->scale));
		row->hi = bound == PM_BOUND_MISSING ? NAN : row->value + h;
		if (!isfinite(row->lo)) {
			row->lo = row->hi = NAN;
			row->bound = PM_BOUND_FEW;
		}
		return;
	default:
		break;
	}
	row->lo = row->hi = NAN;
	if (ev->snapshot && bound < PM_BOUND_UNMEASURED)
		row->bound = PM_BOUND_UNMEASURED;
}

void pm_aggr__compute(struct pm_session *s, bool interval, struct pm_row *rows)
{
	for (size_t r = 0; r < s->rows->n_rows; r++) {
		rows[r].value = 0;
		rows[r].raw = 0;
		rows[r].enabled_ns = rows[r].running_ns = 0;
		rows[r].enabled_sum_ns = rows[r].running_sum_ns = 0;
		rows[r].running = NAN;
		rows[r].flags = 0;
		rows[r].lo = rows[r].hi = NAN;
		rows[r].bound = PM_BOUND_NO_VALUE;
		s->rows->acc[r] = (struct pm_row_acc){ .event = s->rows->acc[r].event,
						       .key = s->rows->acc[r].key,
						       .instances = s->rows->acc[r].instances };
	}
	for (size_t k = 0; k < s->n_c; k++) {
		const struct pm_counter *c = &s->c[k];
		struct pm_row_acc *a = &s->rows->acc[c->row];
		struct pm_row *row = &rows[c->row];
		uint64_t val, ena, run;
		struct pm_estimate e;
		double ratio;

		if (!c->open) {
			if (c->unsupported)
				row->flags |= PM_ROW_UNSUPPORTED;
			continue;
		}
		row->flags |= interval ? c->qual_iv : c->qual_tot;
		if (c->first_of_inst && !c->lost)
			a->covered += c->rec_instances ? c->rec_covered : 1;
		if (!pm_aggr__delta(s, c, interval, &val, &ena, &run))
			continue;
		a->n_in++;
		row->enabled_sum_ns += ena;
		row->running_sum_ns += run;
		ratio = (double)run / (double)ena;
		if (isnan(row->running) || ratio < row->running) {
			row->running = ratio;
			row->enabled_ns = ena;
			row->running_ns = run;
		}
		if (run == 0) {
			a->n_uncounted++;
			continue;
		}
		row->raw += val;
		pm_aggr__estimate(s, c, interval, val, ena, run, &e);
		a->sum += e.count;
		a->half += e.half;
		a->seen += e.seen;
		a->bound = PM_MAX(a->bound, e.bound);
		if (run < ena)
			row->flags |= PM_ROW_MULTIPLEXED;
	}
	for (size_t r = 0; r < s->rows->n_rows; r++) {
		const struct pm_row_acc *a = &s->rows->acc[r];
		const struct pm_event *ev = &s->l->ev[a->event];
		struct pm_row *row = &rows[r];

		row->covered = a->covered;
		row->instances = a->instances;
		/* an event not supported here is that, not partly counted */
		if (a->covered < a->instances && (!(row->flags & PM_ROW_UNSUPPORTED) || a->n_in))
			row->flags |= PM_ROW_PARTIAL;
		if (a->n_in == 0 || a->n_uncounted) {
			row->value = row->lo = row->hi = NAN;
			row->bound = PM_BOUND_NO_VALUE;
			row->flags |= PM_ROW_NOT_COUNTED;
			continue;
		}
		/* gauges average over their inputs; counts add up */
		row->value = pm_counts__unit(ev->snapshot ? a->sum / a->n_in : a->sum, ev->scale);
		if (ev->snapshot)
			row->flags |= PM_ROW_SNAPSHOT;
		/* the inputs' half-widths add up: no independence assumed (docs/bounds.md) */
		row_bounds(ev, a, row);
	}
}
