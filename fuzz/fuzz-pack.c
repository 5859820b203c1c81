// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz the platform pack loader (db/pack.c) with any pack.json given at run
 * time (--events-dir), on the simulated EPYC Zen 2: the file is read, and
 * either loads or is refused with a count the caller sees (pm_ctx__refused),
 * each refusal said; no crash, no leak, no undefined behaviour.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "pmumon/pmumon.h"
#include "pmumon/sim.h"

static size_t said; /* warnings */

static void log_fn(enum pm_log_level level, const char *msg, void *userdata)
{
	(void)msg;
	(void)userdata;
	said += level == PM_LOG_WARN;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pm_file f = { .path = "lab/pack.json", .data = (const char *)data, .len = size };
	struct pm_ctx_opts o = { .size = sizeof(o),
				 .os_ops = pm_sim__ops(),
				 .simulated = true,
				 .extra_files = &f,
				 .n_extra_files = 1,
				 .log_fn = log_fn,
				 .log_level = PM_LOG_WARN };
	struct pm_ctx *ctx = NULL;
	struct pm_sim *sim = NULL;
	char err[256];

	if (pm_sim__new_platform("amdzen2", &sim, err, sizeof(err)) < 0)
		abort();
	o.os = sim;
	if (pm_ctx__new(&o, &ctx) < 0)
		abort();
	said = 0;
	if (pm_ctx__discover(ctx) == 0) {
		if (!pm_ctx__extra_read(ctx, 0))
			abort(); /* a pack.json is always read */
		if (pm_ctx__refused(ctx) > said)
			abort(); /* refused without saying so */
	}
	pm_ctx__free(ctx);
	return 0;
}
