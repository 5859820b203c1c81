// SPDX-License-Identifier: GPL-2.0-only
#include "util/counts.h"

#include <math.h>

double pm_counts__scale(uint64_t val, uint64_t ena, uint64_t run)
{
	if (run == 0)
		return NAN;
	if (run >= ena)
		return (double)val;
	return (double)val * ((double)ena / (double)run);
}
