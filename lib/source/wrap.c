// SPDX-License-Identifier: GPL-2.0-only
#include "source/wrap.h"

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
