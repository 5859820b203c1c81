// SPDX-License-Identifier: GPL-2.0-only
/* AMD: placeholder. */
#include <errno.h>

#include "platform.h"

static int build(struct pm_sim *sim, const struct sim_platform_opts *o)
{
	return -EOPNOTSUPP;
}

const struct sim_platform sim_platform_amdzen2 = { .name = "amdzen2", .summary = "", .scenario = "", .build = build };
