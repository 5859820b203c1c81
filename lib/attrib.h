/* SPDX-License-Identifier: GPL-2.0-only */
/* Memory traffic per cgroup (attrib.c, docs/attribution.md): the session's rows of it. */
#ifndef PM_ATTRIB_H
#define PM_ATTRIB_H

#include "pmumon/pmumon.h"
#include "source/counters.h"

struct pm_attrib;
void pm_attrib__free(struct pm_attrib *a);
/* After the metric rows are built: how many attribution rows follow them (rows->n_arows). */
int pm_attrib__build_rows(struct pm_session *s);
void pm_attrib__label_rows(struct pm_session *s, struct pm_row *rows);
/* After the metric rows are computed: the attribution rows' values. */
void pm_attrib__compute(struct pm_session *s, const struct pm_report *rep, struct pm_row *rows);
void pm_attrib__rows_done(struct pm_session *s);

#endif
