// SPDX-License-Identifier: GPL-2.0-only
#include "util/counts.h"

#include <math.h>
#include <stddef.h>

#include "pmumon/pmumon.h"

double pm_counts__scale(uint64_t val, uint64_t ena, uint64_t run)
{
	if (run == 0)
		return NAN;
	if (run >= ena)
		return (double)val;
	return (double)val * ((double)ena / (double)run);
}

double pm_counts__unit(double v, double scale)
{
	double inv = scale > 0 && scale < 1 ? 1 / scale : 0;

	/* 1e-6 is no exact double: x * 1e-6 can be an ulp off x / 1e6, which is the
	 * nearest double to the decimal (300764871 ns: 300.76487099999997 against
	 * 300.764871 msec); a scale that is 1/N divides by N */
	if (inv >= 2 && inv < 1e18 && inv == nearbyint(inv))
		return v / inv;
	return v * scale;
}

/* The quality flags' names, as every output and import spell them. */
const char *pm_row_flag_name(unsigned flag)
{
	switch (flag) {
	case PM_ROW_MULTIPLEXED:
		return "multiplexed";
	case PM_ROW_NOT_COUNTED:
		return "not_counted";
	case PM_ROW_SNAPSHOT:
		return "snapshot";
	case PM_ROW_METRIC:
		return "metric";
	case PM_ROW_APPROXIMATE:
		return "approximate";
	case PM_ROW_UNDEFINED:
		return "undefined";
	case PM_ROW_WRAP_UNCERTAIN:
		return "wrap_uncertain";
	case PM_ROW_REPROGRAMMED:
		return "reprogrammed";
	case PM_ROW_RESET:
		return "reset";
	case PM_ROW_PARTIAL:
		return "partial";
	case PM_ROW_LOST:
		return "lost";
	case PM_ROW_UNSUPPORTED:
		return "unsupported";
	case PM_ROW_ATTRIBUTED:
		return "attributed";
	case PM_ROW_ATTRIB_SCALED:
		return "proxies_exceed_total";
	case PM_ROW_PROXY_BIAS_EXCLUDED:
		return "proxy_bias_excluded";
	case PM_ROW_PROXY_BIAS_INCLUDED:
		return "proxy_bias_included";
	default:
		return NULL;
	}
}

/* The bounds' names, as every output spells them. */
const char *pm_row_bound_name(unsigned bound)
{
	static const char *const names[] = {
		[PM_BOUND_EXACT] = "exact",
		[PM_BOUND_MEASURED] = "measured",
		[PM_BOUND_MISSING] = "counts_missing",
		[PM_BOUND_FEW] = "few_samples",
		[PM_BOUND_UNMEASURED] = "unmeasured",
		[PM_BOUND_NO_VALUE] = "no_value",
	};

	return bound < sizeof(names) / sizeof(names[0]) ? names[bound] : NULL;
}
