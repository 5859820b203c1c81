// SPDX-License-Identifier: GPL-2.0-only
/*
 * The machine the counts come from, and what discovery finds on it: a
 * context is made for the live machine behind an os (Linux, or the
 * simulator's) or for a recording (pmumon import), each with its
 * pm_machine_ops (ctx.h). Discovery asks the sources of the machine's origin
 * for their PMUs (source/registry.c), reads the topology where there is one,
 * and loads the packs that match.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "db/embedded.h"
#include "db/pack.h"
#include "pmu.h"
#include "source/replay/replay.h"
#include "source/source.h"
#include "topo.h"
#include "util/opts.h"
#include "util/util.h"

/* Forget what discovery found (also what it found before it failed). */
static void forget(struct pm_ctx *ctx)
{
	for (size_t i = 0; i < ctx->n_pmus; i++)
		pm_pmu__free(ctx->pmus[i]);
	ctx->n_pmus = 0;
	pm_topo__done(ctx->topo);
	pm_db__free(ctx->db);
	ctx->db = NULL;
	free(ctx->tracefs);
	ctx->tracefs = NULL;
}

static void free_extra(struct pm_ctx *ctx)
{
	for (size_t i = 0; i < ctx->n_extra; i++) {
		free((char *)ctx->extra[i].path);
		free((char *)ctx->extra[i].data);
	}
	free(ctx->extra);
	free(ctx->extra_read);
	ctx->extra = NULL;
	ctx->extra_read = NULL;
	ctx->n_extra = 0;
}

static void find_tracefs(struct pm_ctx *ctx)
{
	static const char *const where[] = { "sys/kernel/tracing", "sys/kernel/debug/tracing" };

	for (size_t i = 0; i < PM_ARRAY_SIZE(where); i++) {
		char path[64];

		snprintf(path, sizeof(path), "%s/events", where[i]);
		if (pm_path_exists(ctx, path)) {
			ctx->tracefs = strdup(where[i]);
			return;
		}
	}
}

/* The PMUs of the sources that find them on this machine's kind. */
static int discover_sources(struct pm_ctx *ctx)
{
	int r = 0;

	for (size_t i = 0; i < pm_source__count(ctx) && r == 0; i++)
		if (pm_source__on(ctx, i) && pm_source__ops(ctx, i)->discover)
			r = pm_source__ops(ctx, i)->discover(ctx);
	return r;
}

static int discover_live(struct pm_ctx *ctx)
{
	int r = pm_topo__read(ctx, ctx->topo);

	if (r == 0)
		r = discover_sources(ctx);
	if (r == 0) {
		find_tracefs(ctx);
		r = pm_db__load(ctx, &ctx->db);
	}
	return r;
}

/* A recording names its machine's topology with its PMUs (source/replay/replay.c). */
static int discover_recorded(struct pm_ctx *ctx)
{
	int r = discover_sources(ctx);

	return r < 0 ? r : pm_db__load(ctx, &ctx->db);
}

static uint64_t live_mono_ns(struct pm_ctx *ctx)
{
	return ctx->ops->mono_ns(ctx->os);
}

static uint64_t live_wall_ns(struct pm_ctx *ctx)
{
	return ctx->ops->wall_ns(ctx->os);
}

static const struct pm_machine_ops live_machine = {
	.origin = PM_SOURCE_LIVE,
	.here = "on this machine",
	.no_metric_reason = PM_REASON_SEE_LIST,
	.no_metric_subject = "metrics",
	.changes = true,
	.discover = discover_live,
	.forget = forget,
	.mono_ns = live_mono_ns,
	.wall_ns = live_wall_ns,
};

static const struct pm_machine_ops recorded_machine = {
	.origin = PM_SOURCE_RECORDED,
	.here = "in the packs matched to the recording",
	.no_metric_reason = PM_REASON_NEEDS_PACK,
	.discover = discover_recorded,
	.forget = forget,
	.mono_ns = pm_replay__mono_ns,
	.wall_ns = pm_replay__wall_ns,
	.pack_matches = pm_replay__pack_matches,
	.need_family = pm_replay__need_family,
	.bind_event = pm_replay__bind,
	.cpuid = pm_replay__machine_cpuid,
};

int pm_ctx__new(const struct pm_ctx_opts *opts, struct pm_ctx **ret_ctx)
{
	struct pm_ctx_opts o;
	struct pm_ctx *ctx;
	int r;

	if (!opts || !ret_ctx)
		return -EINVAL;
	r = PM_OPTS_COPY(&o, opts);
	if (r < 0)
		return r;
	opts = &o;
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	ctx->log_fn = opts->log_fn;
	ctx->log_diag_fn = opts->log_diag_fn;
	ctx->log_userdata = opts->log_userdata;
	ctx->log_level = opts->log_level;
	ctx->simulated = opts->simulated;
	ctx->read_file = opts->read_file;
	ctx->read_file_userdata = opts->read_file_userdata;
	if (opts->n_extra_files) {
		ctx->extra = calloc(opts->n_extra_files, sizeof(*ctx->extra));
		ctx->extra_read = calloc(opts->n_extra_files, sizeof(*ctx->extra_read));
		if (!ctx->extra || !ctx->extra_read) {
			free_extra(ctx);
			free(ctx);
			return -ENOMEM;
		}
		for (size_t i = 0; i < opts->n_extra_files; i++) {
			const struct pm_file *f = &opts->extra_files[i];
			char *data = f->data ? malloc(f->len + 1) : NULL, *path = strdup(f->path);

			if ((f->data && !data) || !path) {
				free(data);
				free(path);
				free_extra(ctx);
				free(ctx);
				return -ENOMEM;
			}
			if (data) { /* else read when a pack needs it */
				memcpy(data, f->data, f->len);
				data[f->len] = '\0';
			}
			ctx->extra[ctx->n_extra++] = (struct pm_embedded){ .path = path,
									   .len = f->len,
									   .data = data };
		}
	}
	ctx->topo = calloc(1, sizeof(*ctx->topo));
	if (!ctx->topo) {
		pm_ctx__free(ctx);
		return -ENOMEM;
	}
	if (opts->replay) {
		/* the recording's machine: no os; the context owns the recording (only
		 * once nothing can fail: on failure it stays the caller's) */
		char *packs = pm_strdup0(opts->packs), *cpuid = pm_strdup0(opts->cpuid);

		if ((opts->packs && !packs) || (opts->cpuid && !cpuid)) {
			free(packs);
			free(cpuid);
			pm_ctx__free(ctx);
			return -ENOMEM;
		}
		ctx->machine = &recorded_machine;
		ctx->replay = opts->replay;
		free(ctx->replay->packs);
		ctx->replay->packs = packs;
		free(ctx->replay->cpuid_given);
		ctx->replay->cpuid_given = cpuid;
	} else if (opts->os_ops) {
		ctx->machine = &live_machine;
		ctx->ops = opts->os_ops;
		ctx->os = opts->os;
	} else {
		ctx->machine = &live_machine;
		r = pm_os_linux_new(opts->root, &ctx->ops, &ctx->os);
		if (r < 0) {
			pm_ctx__free(ctx);
			return r;
		}
	}
	*ret_ctx = ctx;
	return 0;
}

void pm_ctx__free(struct pm_ctx *ctx)
{
	if (!ctx)
		return;
	if (ctx->topo)
		forget(ctx);
	free(ctx->topo);
	free(ctx->pmus);
	if (ctx->ops && ctx->ops->destroy)
		ctx->ops->destroy(ctx->os);
	pm_replay__free(ctx->replay);
	free_extra(ctx);
	free(ctx);
}

size_t pm_ctx__pmu_count(struct pm_ctx *ctx)
{
	return pm_ctx__discover(ctx) < 0 ? 0 : ctx->n_pmus;
}

const struct pm_pmu *pm_ctx__pmu(struct pm_ctx *ctx, size_t i)
{
	return i < pm_ctx__pmu_count(ctx) ? ctx->pmus[i] : NULL;
}

int pm_ctx__cpu_count(struct pm_ctx *ctx)
{
	return pm_ctx__discover(ctx) < 0 ? 0 : (int)ctx->topo->online.n;
}

int pm_ctx__package_count(struct pm_ctx *ctx)
{
	return pm_ctx__discover(ctx) < 0 ? 0 : ctx->topo->n_packages;
}

int pm_ctx__die_count(struct pm_ctx *ctx)
{
	return pm_ctx__discover(ctx) < 0 ? 0 : ctx->topo->n_dies;
}

const char *pm_ctx__packs(struct pm_ctx *ctx)
{
	return pm_ctx__discover(ctx) < 0 ? "" : pm_db__matched_names(ctx->db);
}

const char *pm_ctx__cpuid(struct pm_ctx *ctx)
{
	return pm_ctx__discover(ctx) < 0 ? "" : pm_db__cpuid(ctx->db);
}

const struct pm_monitor_name *pm_ctx__monitor(struct pm_ctx *ctx, size_t i)
{
	return pm_ctx__discover(ctx) < 0 ? NULL : pm_db__monitor(ctx->db, i);
}

const struct pm_screen *pm_ctx__screen(struct pm_ctx *ctx)
{
	return pm_ctx__discover(ctx) < 0 ? NULL : pm_db__screen(ctx->db);
}
