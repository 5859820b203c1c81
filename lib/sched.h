/* SPDX-License-Identifier: GPL-2.0-only */
/* The scheduler: a session's event instances placed on CPUs as counters. */
#ifndef PM_SCHED_H
#define PM_SCHED_H

#include "source/counters.h"

/* sched.c: place every event instance on CPUs as counters, with groups. */
int pm_sched__plan(struct pm_session *s, struct pm_diag *reterr);

#endif
