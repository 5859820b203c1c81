/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A counting session: its counters (source/counters.h) opened, enabled,
 * polled and read through their sources (session.c). The public open and
 * free also build and free the rows (report.c, the layer above aggregation
 * and metrics); these are the session's own halves of them.
 */
#ifndef PM_SESSION_H
#define PM_SESSION_H

#include "source/counters.h"

/* Open every counter, disabled (pm_session__open's first half). */
int pm_session__open_counters(struct pm_session *s, struct pm_diag *reterr);
/* Close the counters and free the session; its rows must be gone (pm_session__free). */
void pm_session__destroy(struct pm_session *s);

#endif
