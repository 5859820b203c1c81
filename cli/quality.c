// SPDX-License-Identifier: GPL-2.0-only
/*
 * The warning that goes with every reason to doubt a value: the rows carry
 * the flag in every output format; this says it once on stderr, the first
 * time a report has it, naming the first row and what the mark means.
 */
#include <stdio.h>

#include "cli-global.h"

static const struct {
	unsigned flag;
	const char *what; /* after "ROW: " */
} reasons[] = {
	{ PM_ROW_PARTIAL, "devices it stands for (marked partial)" },
	{ PM_ROW_WRAP_UNCERTAIN,
	  "a read came later than its counter takes to wrap at this rate (was pmumon stopped "
	  "or starved?): whole wraps may be missing, the value may be low (marked wrap?)" },
	{ PM_ROW_REPROGRAMMED, "another program changed its counter's event: pmumon stopped "
			       "counting it there and leaves it to that program (marked "
			       "reprogrammed)" },
	{ PM_ROW_RESET, "its counter went down (another program reset it): the counts of that "
			"interval are left out (marked reset)" },
	{ PM_ROW_LOST,
	  "its device went away: its counts stop at the last good read (marked lost)" },
	{ PM_ROW_UNDEFINED, "every input counted, but the formula divides by zero: no value "
			    "(undefined, 0/0)" },
};

void cli_quality__warn(struct cli_quality *q, const struct pm_report *r)
{
	for (size_t k = 0; k < sizeof(reasons) / sizeof(reasons[0]); k++) {
		unsigned flag = reasons[k].flag;
		const struct pm_row *first = NULL;
		const char *where;
		size_t n = 0;

		if (q->warned & flag)
			continue;
		for (size_t i = 0; i < r->n_rows; i++)
			if (r->rows[i].flags & flag) {
				first = first ? first : &r->rows[i];
				n++;
			}
		if (!first)
			continue;
		q->warned |= flag;
		where = first->device ? first->device : first->place;
		fprintf(stderr, "pmumon: warning: %s%s%s: ", first->event, where ? " on " : "",
			where ? where : "");
		if (flag == PM_ROW_PARTIAL)
			fprintf(stderr, "covers %u of the %u ", first->covered, first->instances);
		fputs(reasons[k].what, stderr);
		if (n > 1)
			fprintf(stderr, "; %zu rows are marked", n);
		fputc('\n', stderr);
	}
}
