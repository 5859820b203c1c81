// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz the import parsers (source/replay-parse.c): any bytes, read as every
 * format and with two perf separators. What parses is a whole recording
 * whose counts could have been read; what does not leaves the result
 * untouched and names the file.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "pmumon/pmumon.h"
#include "source/replay.h"

static void check(const struct pm_replay *rp)
{
	char buf[256];

	if (!rp || rp->n_samples == 0 || !rp->vals || !rp->name)
		abort();
	for (size_t i = 1; i < rp->n_samples; i++)
		if (rp->samples[i].t_ns < rp->samples[i - 1].t_ns)
			abort();
	for (size_t i = 0; i < rp->n_series; i++)
		if (!rp->series[i].name || !rp->series[i].unit)
			abort();
	for (size_t i = 0; i < rp->n_samples * rp->n_series; i++) {
		const struct pm_replay_val *v = &rp->vals[i];

		if (v->not_counted)
			continue;
		if ((v->have & PM_RV_VALUE) && !(v->value >= 0))
			abort();
		if ((v->have & PM_RV_TIMES) && (v->run == 0 || v->run > v->ena))
			abort();
	}
	(void)pm_replay__format_name(rp);
	(void)pm_replay__aggr(rp);
	(void)pm_replay__sim_platform(rp);
	(void)pm_replay__unsupported(rp, buf, sizeof(buf));
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
			struct pm_replay_opts o = { .format = formats[f],
						    .sep = seps[s],
						    .name = "fuzz",
						    .duration_ns = s ? 1000000000 : 0 };
			struct pm_replay *rp = NULL;
			struct pm_diag d;
			int r = pm_replay__parse((const char *)data, size, &o, &rp, &d);

			if (r == 0) {
				check(rp);
				pm_replay__free(rp);
			} else if (rp || (r != -ENOMEM && strncmp(d.msg, "fuzz", 4) != 0)) {
				abort();
			}
		}
	}
	return 0;
}
