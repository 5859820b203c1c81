// SPDX-License-Identifier: GPL-2.0-only
/*
 * pmumon report's series in words and marks (report.h): which values are in
 * doubt, their worst quality and their 95 % intervals, as the table
 * (cmd-report.c), the plots (plot.c) and the page (html.c) all say them.
 */
#include <math.h>
#include <stdio.h>

#include "pmumon/pmumon.h"
#include "report.h"

bool rep_doubtful(double v, unsigned flags)
{
	return !isnan(v) && (flags & (PM_ROW_QUALITY | PM_ROW_APPROXIMATE) & ~PM_ROW_NOT_COUNTED);
}

void rep_quality_text(unsigned flags, char *buf, size_t size)
{
	size_t off = 0;

	buf[0] = '\0';
	flags &= PM_ROW_QUALITY | PM_ROW_APPROXIMATE;
	for (unsigned bit = 1; flags && off < size; bit <<= 1)
		if (flags & bit) {
			flags &= ~bit;
			off += (size_t)snprintf(buf + off, size - off, "%s%s", off ? "|" : "",
						pm_row_flag_name(bit));
		}
}

void rep_bound_text(const struct rep_series *s, char *buf, size_t size)
{
	double m = s->mean ?
			   100 * fmax(s->mean - s->mean_lo, s->mean_hi - s->mean) / fabs(s->mean) :
			   0;

	buf[0] = '\0';
	if (!s->counted || s->worst_bound == PM_BOUND_EXACT)
		return;
	if (isfinite(m))
		snprintf(buf, size, "mean \u00b1 %.2g %%, widest \u00b1 %.2g %%", m, s->widest_pct);
	else
		snprintf(buf, size, "mean \u00b1 ? %%");
}
