// SPDX-License-Identifier: GPL-2.0-only
/* Fuzz the sideband programming list parser: a user's file, any bytes at all. */
#include <stdlib.h>

#include "fuzz.h"
#include "pmumon/pmumon.h"
#include "source/sideband/sideband.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pm_sb_list *l = NULL;
	struct pm_diag d;

	if (pm_sb_list__parse((const char *)data, size, "fuzz", &l, &d) == 0) {
		if (!l || l->n_g == 0)
			abort();
		for (size_t i = 0; i < l->n_g; i++)
			if (pm_sb_list__group(l, l->g[i].name) != &l->g[i])
				abort();
		pm_sb_list__free(l);
	} else if (l) {
		abort();
	}
	return 0;
}
