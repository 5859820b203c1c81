// SPDX-License-Identifier: GPL-2.0-only
/* The table of sources, made from PM_SOURCE_REGISTRY (source/id.h). */
#include <errno.h>
#include <string.h>

#include "source/source.h"

#define PM_SOURCE_EXTERN(id, name) extern const struct pm_source_ops pm_source_##name;
PM_SOURCE_REGISTRY(PM_SOURCE_EXTERN)
#undef PM_SOURCE_EXTERN

const struct pm_source_ops *const pm_sources[PM_SRC__N] = {
#define PM_SOURCE_ENTRY(id, name) [PM_SRC_##id] = &pm_source_##name,
	PM_SOURCE_REGISTRY(PM_SOURCE_ENTRY)
#undef PM_SOURCE_ENTRY
};

int pm_ctx__add_source(struct pm_ctx *ctx, const char *name, const struct pm_source_ops *ops,
		       size_t *ret_id)
{
	if (!ctx || !name || !ops || !ret_id)
		return -EINVAL;
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
