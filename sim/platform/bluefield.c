// SPDX-License-Identifier: GPL-2.0-only
/* NVIDIA BlueField-2/3: placeholder until the hwmon model lands. */
#include <errno.h>

#include "platform.h"

static int build(struct pm_sim *sim, const struct sim_platform_opts *o)
{
	return -EOPNOTSUPP;
}

const struct sim_platform sim_platform_bluefield2 = { .name = "bluefield2", .summary = "", .scenario = "", .build = build };
const struct sim_platform sim_platform_bluefield3 = { .name = "bluefield3", .summary = "", .scenario = "", .build = build };
