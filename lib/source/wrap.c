// SPDX-License-Identifier: GPL-2.0-only
#include "source/wrap.h"

#include <math.h>

#include "pmumon/pmumon.h"
#include "util/util.h"

void pm_wrap_poll__note(struct pm_wrap_poll *w, uint64_t delta, uint64_t dt_ns)
{
	if (dt_ns)
		w->max_rate = PM_MAX(w->max_rate, (double)delta / (double)dt_ns);
}

uint64_t pm_wrap_poll__interval(const struct pm_wrap_poll *w, unsigned width)
{
	double every;

	if (width >= PM_WRAP_WIDTH)
		return UINT64_MAX;
	/* half the range at the fastest rate seen, clamped as a double: the
	 * quotient may exceed any integer */
	every = w->max_rate > 0 ? (double)(1ull << (width - 1)) / w->max_rate :
				  (double)PM_WRAP_FIRST_POLL_NS;
	every = PM_MAX((double)PM_WRAP_MIN_POLL_NS, PM_MIN(every, (double)PM_WRAP_MAX_POLL_NS));
	return (uint64_t)every;
}

bool pm_wrap_poll__late(const struct pm_wrap_poll *w, unsigned width, uint64_t dt_ns)
{
	/* the counts the gap holds at that rate, against the share of the range */
	if (width >= 64 || !(w->max_rate > 0))
		return false;
	return w->max_rate * (double)dt_ns * PM_WRAP_LATE_DEN > ldexp(PM_WRAP_LATE_NUM, (int)width);
}

unsigned pm_wrap__delta(struct pm_wrap_poll *w, unsigned width, bool wraps, uint64_t last,
			uint64_t val, uint64_t dt_ns, uint64_t *ret_delta)
{
	uint64_t mask = width >= 64 ? UINT64_MAX : (1ull << width) - 1;
	unsigned flags = 0;

	if (val < last && (!wraps || width >= 64)) {
		*ret_delta = 0;
		return PM_ROW_RESET;
	}
	if (pm_wrap_poll__late(w, width, dt_ns))
		flags |= PM_ROW_WRAP_UNCERTAIN;
	*ret_delta = (val - last) & mask;
	pm_wrap_poll__note(w, *ret_delta, dt_ns);
	return flags;
}
