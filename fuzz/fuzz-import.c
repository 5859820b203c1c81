// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz the import parsers (source/replay/replay-parse.c): any bytes, read as every
 * format and with two perf separators. What parses is a whole recording
 * whose counts could have been read; what does not leaves the result
 * untouched and names the file. What parses as found from its first line is
 * played back as pmumon import does (source/replay/replay.c): the recording's
 * machine, its events, a session reading every sample.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "pmumon/pmumon.h"
#include "source/replay/replay.h"

static void check(struct pm_replay *rp)
{
	char buf[256];
	uint64_t t_ns = 0;
	size_t played = 0;

	if (!rp || rp->n_samples == 0 || !rp->vals || !rp->name)
		abort();
	for (size_t i = 0; i < rp->n_series; i++)
		if (!rp->series[i].name || !rp->series[i].unit)
			abort();
	/* the second pass reads what the first one checked: every sample, in time order */
	while (pm_replay__next_sample(rp) == 0) {
		if ((played && rp->cur.t_ns < t_ns) || ++played > rp->n_samples)
			abort();
		t_ns = rp->cur.t_ns;
		for (size_t i = 0; i < rp->n_series; i++) {
			const struct pm_replay_val *v = &rp->vals[i];

			if (v->not_counted)
				continue;
			if ((v->have & PM_RV_VALUE) && !(v->value >= 0))
				abort();
			if ((v->have & PM_RV_TIMES) && (v->run == 0 || v->run > v->ena))
				abort();
		}
	}
	if (played != rp->n_samples)
		abort();
	(void)pm_replay__format_name(rp);
	(void)pm_replay__aggr(rp);
	(void)pm_replay__sim_platform(rp);
	(void)pm_replay__unsupported(rp, buf, sizeof(buf));
}

/* import -M: a metric group of the pack the recording matched, as a user would ask. */
static int add_metrics(struct pm_ctx *ctx, struct pm_evlist *l)
{
	static const char *const group[][2] = {
		{ "yitian710", "ali_drw" },
		{ "amdzen2", "amd_df_bw" },
		{ "bluefield2", "bf_l3" },
		{ "bluefield3", "bf_llt" },
		{ "merrifield", "UNC_SOC_Memory_DDR_BW" },
	};
	const char *packs = pm_ctx__packs(ctx);
	struct pm_diag d;

	for (size_t i = 0; i < sizeof(group) / sizeof(group[0]); i++)
		if (strstr(packs, group[i][0]))
			return pm_evlist__add_metrics(l, group[i][1], &d);
	return 0;
}

/* pmumon import: the context takes the recording over. */
static void play(struct pm_replay *rp)
{
	struct pm_ctx_opts o = { .size = sizeof(o),
				 .replay = rp,
				 .simulated = pm_replay__sim_platform(rp) != NULL };
	struct pm_session_opts so = { .size = sizeof(so),
				      .target = PM_TARGET_SYSTEM,
				      .aggr = pm_replay__aggr(rp) };
	size_t n = pm_replay__sample_count(rp);
	bool intervals = pm_replay__intervals(rp);
	struct pm_ctx *ctx = NULL;
	struct pm_evlist *l = NULL;
	struct pm_session *s = NULL;
	struct pm_diag d;

	if (pm_ctx__new(&o, &ctx) < 0) {
		pm_replay__free(rp);
		return;
	}
	if (pm_ctx__discover(ctx) == 0 && pm_evlist__new(ctx, &l) == 0 &&
	    pm_evlist__add_recorded(l, &d) == 0 && add_metrics(ctx, l) == 0 &&
	    pm_session__new(l, &so, &s, &d) == 0 && pm_session__open(s, &d) == 0 &&
	    pm_session__enable(s) == 0) {
		for (size_t i = 0; i < n && pm_session__read(s) == 0; i++)
			if (intervals && !pm_session__report(s, true))
				abort();
		if (!pm_session__report(s, false))
			abort();
		pm_session__disable(s);
	}
	pm_session__free(s);
	pm_evlist__free(l);
	pm_ctx__free(ctx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum pm_replay_format formats[] = {
		PM_REPLAY_AUTO,	      PM_REPLAY_PERF_CSV,   PM_REPLAY_PERF_JSON,
		PM_REPLAY_PMUMON_CSV, PM_REPLAY_COUNTS_CSV,
	};
	static const char seps[] = { 0, ';' };

	for (size_t f = 0; f < sizeof(formats) / sizeof(formats[0]); f++) {
		for (size_t s = 0; s < sizeof(seps); s++) {
			struct pm_replay_opts o = { .size = sizeof(o),
						    .format = formats[f],
						    .sep = seps[s],
						    .name = "fuzz",
						    .duration_ns = s ? 1000000000 : 0 };
			struct pm_replay *rp = NULL;
			struct pm_diag d;
			int r = pm_replay__parse((const char *)data, size, &o, &rp, &d);

			if (r == 0) {
				check(rp);
				if (f == 0 && s == 0)
					play(rp);
				else
					pm_replay__free(rp);
			} else if (rp || (r != -ENOMEM && strncmp(d.msg, "fuzz", 4) != 0)) {
				abort();
			}
		}
	}
	return 0;
}
