// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf's tool events: duration_time, user_time and system_time, counted by
 * pmumon itself, not by the kernel (perf 6.1 parses them as tool events;
 * newer perf names their PMU "tool", tools/perf/util/tool_pmu.c, and so
 * does pmumon: `tool/duration_time/` and the bare names both work).
 *
 * - duration_time: the wall-clock nanoseconds since the counters started,
 *   on the session's monotonic clock (tool_pmu.c reads rdclock() against
 *   the start; 6.1's builtin-stat.c read_single_counter the time since
 *   the start), so an interval's is the interval's length. It is the
 *   session's own clock of the read (source.h clock), the one the report's
 *   time and duration come from.
 * - user_time, system_time: the counted command's CPU time in user and
 *   kernel mode, in nanoseconds, from wait4(2)'s rusage once it has ended
 *   (6.1's read_single_counter: ru_stats.ru_utime_usec_stat, a value in ns
 *   despite its name; newer perf also reads /proc/PID/stat while it runs).
 *   The embedder gives them with pm_session__task_times, which sets the
 *   counters at once (no read needed after the command ended). They exist
 *   only in the totals: an interval has no share of them (not counted). With
 *   no command to time (-a, -C alone) they are <not supported> rows.
 *
 * Each is one counter on no CPU (like perf's "only on the first CPU and
 * thread", so aggregation never adds it up per CPU).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "pmu.h"
#include "source/counters.h"
#include "source/tool/tool.h"

/* perf's enum tool_pmu_event numbers (tool_pmu.h): the event= term */
enum { TOOL_DURATION = 1, TOOL_USER = 2, TOOL_SYSTEM = 3 };

struct tool_state {
	bool have_times; /* pm_session__task_times was called */
	uint64_t user_ns, system_ns;
};

static int tool_discover(struct pm_ctx *ctx)
{
	static const struct {
		const char *name, *terms, *desc;
	} ev[] = {
		{ "duration_time", "event=1", "Wall-clock time of the run or interval, in ns" },
		{ "user_time", "event=2", "User CPU time of the counted command, in ns" },
		{ "system_time", "event=3", "System CPU time of the counted command, in ns" },
	};
	struct pm_pmu *p = NULL;
	int r = pm_pmu__new("tool", &p);

	if (r < 0)
		return r;
	p->source = PM_SRC_TOOL;
	p->cpuless = true;
	p->type = PM_TOOL_PMU_TYPE;
	r = pm_pmu__add_format_text(p, "event", "config:0-7");
	for (size_t i = 0; r == 0 && i < sizeof(ev) / sizeof(ev[0]); i++) {
		struct pm_alias a = { .name = (char *)ev[i].name,
				      .terms = (char *)ev[i].terms,
				      .desc = (char *)ev[i].desc,
				      .unit = (char *)"ns",
				      .scale = 1.0,
				      .origin = "pmumon" };

		r = pm_pmu__add_alias(p, &a);
	}
	if (r == 0)
		r = pm_ctx__add_pmu(ctx, p);
	if (r < 0)
		pm_pmu__free(p);
	return r;
}

static bool tool_claims(const struct pm_session *s, const struct pm_evinst *in)
{
	return in->pmu && in->pmu->source == PM_SRC_TOOL;
}

static uint64_t which(const struct pm_session *s, const struct pm_counter *c)
{
	return s->l->inst[c->inst].attr.config & 0xff;
}

static int tool_open(struct pm_session *s, struct pm_diag *reterr)
{
	/* also without tool counters: metrics read the command's times here */
	s->state[PM_SRC_TOOL] = calloc(1, sizeof(struct tool_state));
	if (!s->state[PM_SRC_TOOL])
		return -ENOMEM;
	for (size_t k = 0; k < s->n_c; k++) {
		struct pm_counter *c = &s->c[k];

		if (c->source != PM_SRC_TOOL)
			continue;
		c->open = which(s, c) == TOOL_DURATION || s->opts.pid > 0;
		if (c->open)
			continue;
		/* a CPU time needs a command whose rusage the embedder can give */
		c->unsupported = true;
		pm_log(s->ctx, PM_LOG_WARN,
		       "'%s' is the CPU time of a command, and none is counted (give one after "
		       "--): its row says <not supported>, the other events count",
		       s->l->ev[c->event].label);
	}
	return 0;
}

static int tool_nothing(struct pm_session *s)
{
	return 0;
}

/* The session's clock of this read, not one of its own: the row is the
 * report's time (and an interval's, its duration) to the ns, as perf 6.1's
 * read_single_counter takes process_interval's one timestamp (builtin-stat.c). */
static void tool_clock(struct pm_session *s)
{
	uint64_t now = s->t_now_ns - s->t_enable_ns;

	for (size_t k = 0; k < s->n_c; k++) {
		struct pm_counter *c = &s->c[k];

		if (c->source == PM_SRC_TOOL && c->open && which(s, c) == TOOL_DURATION)
			c->cur = (struct pm_reading){ now, now, now };
	}
}

static void tool_close(struct pm_session *s)
{
	free(s->state[PM_SRC_TOOL]);
	s->state[PM_SRC_TOOL] = NULL;
}

int pm_session__task_times(struct pm_session *s, uint64_t user_ns, uint64_t system_ns)
{
	struct tool_state *st;
	/* enabled and running for as long as the counters ran: a 0 is a real 0 */
	uint64_t t;

	if (!s || !s->opened || !s->state[PM_SRC_TOOL])
		return -EINVAL;
	st = s->state[PM_SRC_TOOL];
	st->have_times = true;
	st->user_ns = user_ns;
	st->system_ns = system_ns;
	t = s->t_now_ns > s->t_enable_ns ? s->t_now_ns - s->t_enable_ns : 1;
	for (size_t k = 0; k < s->n_c; k++) {
		struct pm_counter *c = &s->c[k];

		if (c->source != PM_SRC_TOOL || !c->open || which(s, c) == TOOL_DURATION)
			continue;
		c->cur = (struct pm_reading){ which(s, c) == TOOL_USER ? user_ns : system_ns, t,
					      t };
		c->prev = c->cur; /* the run's, no interval's: the next reads keep it */
	}
	return 0;
}

bool pm_tool__task_time(const struct pm_session *s, bool system, bool interval, double *ret_seconds)
{
	const struct tool_state *st = s->state[PM_SRC_TOOL];

	if (!st || !st->have_times || interval)
		return false;
	*ret_seconds = (double)(system ? st->system_ns : st->user_ns) / 1e9;
	return true;
}

bool pm_tool__task_times(const struct pm_session *s, uint64_t *ret_user_ns, uint64_t *ret_system_ns)
{
	const struct tool_state *st = s->state[PM_SRC_TOOL];

	if (!st || !st->have_times)
		return false;
	*ret_user_ns = st->user_ns;
	*ret_system_ns = st->system_ns;
	return true;
}

const struct pm_source_ops pm_source_tool = {
	.origin = PM_SOURCE_LIVE,
	.cgroups = true,		/* times, the same in every cgroup, as perf prints them */
	.shadow = PM_SOURCE_SHADOW_ANY, /* duration_time: perf's rate, as any event */
	.discover = tool_discover,
	.claims = tool_claims,
	.open = tool_open,
	.enable = tool_nothing,
	.disable = tool_nothing,
	.read = tool_nothing,
	.clock = tool_clock,
	.close = tool_close,
};
