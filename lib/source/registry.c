// SPDX-License-Identifier: GPL-2.0-only
/* The table of sources, made from PM_SOURCE_REGISTRY (source/id.h). */
#include "source/source.h"

#define PM_SOURCE_EXTERN(id, name) extern const struct pm_source_ops pm_source_##name;
PM_SOURCE_REGISTRY(PM_SOURCE_EXTERN)
#undef PM_SOURCE_EXTERN

const struct pm_source_ops *const pm_sources[PM_SRC__N] = {
#define PM_SOURCE_ENTRY(id, name) [PM_SRC_##id] = &pm_source_##name,
	PM_SOURCE_REGISTRY(PM_SOURCE_ENTRY)
#undef PM_SOURCE_ENTRY
};
