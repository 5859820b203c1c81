// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sources a context counts with beyond the registry's (a test's own,
 * pm_ctx__add_source), and the options a session passes each source
 * (pm_session_opts.source_opts): below every source, which reads its own.
 */
#include <errno.h>
#include <string.h>

#include "source/counters.h"
#include "source/source.h"

int pm_ctx__add_source(struct pm_ctx *ctx, const char *name, const struct pm_source_ops *ops,
		       size_t *ret_id)
{
	if (!ctx || !name || !ops || !ret_id || !ops->open || !ops->enable || !ops->disable ||
	    !ops->read || !ops->close)
		return -EINVAL; /* what the session calls of every source */
	if (ctx->discovered)
		return -EBUSY;
	for (size_t i = 0; i < pm_source__count(ctx); i++)
		if (!strcmp(pm_source__name(ctx, i), name))
			return -EEXIST;
	if (ctx->n_added_sources == PM_CTX_ADDED_SOURCES)
		return -ENOSPC;
	ctx->added_sources[ctx->n_added_sources] = ops;
	ctx->added_source_names[ctx->n_added_sources] = name;
	*ret_id = PM_SRC__N + ctx->n_added_sources++;
	return 0;
}

int pm_source__check_opts(struct pm_ctx *ctx, const struct pm_session_opts *opts,
			  struct pm_diag *reterr)
{
	if (opts->n_source_opts && !opts->source_opts) {
		pm_diag_set(reterr, "give source_opts or set n_source_opts to 0",
			    "n_source_opts is %zu but source_opts is NULL", opts->n_source_opts);
		return -EINVAL;
	}
	for (size_t k = 0; k < opts->n_source_opts; k++) {
		const struct pm_source_opt *o = &opts->source_opts[k];
		const struct pm_source_ops *src = NULL;
		int r;

		if (!o->source || !o->key || !o->value)
			return -EINVAL;
		for (size_t i = 0; i < pm_source__count(ctx) && !src; i++)
			if (!strcmp(pm_source__name(ctx, i), o->source))
				src = pm_source__ops(ctx, i);
		if (!src || !src->option) {
			pm_diag_set(reterr, "see docs/sources.md for the sources' options",
				    "%s '%s' takes no options (%s)",
				    src ? "the source" : "there is no source", o->source, o->key);
			return -EINVAL;
		}
		r = src->option(o->key, o->value, o->value_len ? o->value_len : strlen(o->value),
				reterr);
		if (r < 0)
			return r;
	}
	return 0;
}

bool pm_session__source_opt(const struct pm_session *s, size_t id, const char *key,
			    const char **ret_value, size_t *ret_len)
{
	const char *name = pm_source__name(s->ctx, id);

	/* the last given wins */
	for (size_t k = s->n_source_opts; k-- > 0;) {
		const struct pm_source_opt *o = &s->source_opts[k];

		if (!strcmp(o->source, name) && !strcmp(o->key, key)) {
			*ret_value = o->value;
			*ret_len = o->value_len;
			return true;
		}
	}
	return false;
}
