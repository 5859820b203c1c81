// SPDX-License-Identifier: GPL-2.0-only
/* Intel Merrifield: placeholder until the sideband model lands. */
#include <errno.h>

#include "platform.h"

static int build(struct pm_sim *sim, const struct sim_platform_opts *o)
{
	return -EOPNOTSUPP;
}

const struct sim_platform sim_platform_merrifield = { .name = "merrifield", .summary = "", .scenario = "", .build = build };
