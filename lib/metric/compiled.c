// SPDX-License-Identifier: GPL-2.0-only
#include "metric/compiled.h"

#include <stdlib.h>

void pm_metric__done(struct pm_metric *m)
{
	pm_expr__free(m->expr);
	free(m->slots);
	free(m->unit);
	free(m->unknown);
	free(m->cgroup);
	free(m->label);
	*m = (struct pm_metric){ 0 };
}
