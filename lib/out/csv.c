// SPDX-License-Identifier: GPL-2.0-only
/*
 * CSV: a header row, then fixed columns whatever the aggregation, fields
 * quoted as RFC 4180 says when they hold the separator, a quote or a newline.
 * Numbers are C-locale; a value that was not counted is an empty field with
 * the not_counted flag (or undefined: every input counted, but the formula
 * divided by zero), never 0. covered and instances say how many of the PMU
 * instances the row stands for its value covers (empty when it stands for
 * none), sim_platform which simulated platform (empty for a real
 * machine), cpuid the counting machine's CPU id (perf's get_cpuid_str(), empty
 * when unknown: an import matches perf's event tables with it), lo and hi the
 * value's 95 % interval (empty where there is none) and bound how it was found
 * (docs/bounds.md), proxy_error_pct an attributed row's declared proxy error
 * that interval holds (docs/attribution.md; empty: none declared or another row); columns are only ever added at the end. The header is the first
 * line (no comment before it: readers take the first line as the header); a
 * simulated run says so in every row's simulated column. Per channel, the
 * device column holds the
 * channel ("die0/ch2"); per device it stays the PMU's name and the die
 * column holds the die its name says; per core, node or cache it holds
 * the row's label ("S0-D0-C3", "N1", "S0-D0-L3-ID8").
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "out/out.h"

static const char *const columns[] = {
	"type",		"time_s",      "timestamp",  "event",	  "device",  "socket",
	"die",		"cpu",	       "value",	     "unit",	  "raw",     "enabled_ns",
	"running_ns",	"running_pct", "flags",	     "simulated", "covered", "instances",
	"sim_platform", "cpuid",       "spread_pct", "cgroup",
};
/* the 95 % interval's (docs/bounds.md), after the others */
static const char *const bound_columns[] = { "lo", "hi", "bound", "proxy_error_pct" };

/* s as one field into b, quoted as RFC 4180 says when it must be, then its separator. */
static void put_field(struct pm_obuf *b, char sep, const char *s, bool last)
{
	char stop[5] = { sep, '"', '\n', '\r', '\0' };
	size_t plain = strcspn(s, stop);

	if (!s[plain]) {
		pm_obuf__put(b, s, plain); /* the common case: nothing to quote */
	} else {
		pm_obuf__putc(b, '"');
		for (const char *p = s; *p; p++) {
			if (*p == '"')
				pm_obuf__putc(b, '"');
			pm_obuf__putc(b, *p);
		}
		pm_obuf__putc(b, '"');
	}
	pm_obuf__putc(b, last ? '\n' : sep);
}

static void field(struct pm_out *o, const char *s, bool last)
{
	put_field(&o->buf, o->opts.sep, s, last);
}

static void put_int(struct pm_obuf *b, char sep, int v)
{
	if (v >= 0)
		pm_obuf__u64(b, (uint64_t)v);
	pm_obuf__putc(b, sep);
}

/* A row's event and place columns (event, device, socket, die, cpu): kept per row. */
static void make_label(const struct pm_out *o, struct pm_obuf *b, enum pm_aggr aggr,
		       const struct pm_row *row)
{
	bool group = aggr == PM_AGGR_CORE || aggr == PM_AGGR_NODE || aggr == PM_AGGR_CACHE ||
		     aggr == PM_AGGR_THREAD; /* a thread's row: its comm-tid */

	put_field(b, o->opts.sep, row->event, false);
	/* a channel row names its channel where a device row names its PMU; a core,
	 * node or cache row its label (S0-D0-C3, N1, S0-D0-L3-ID8) */
	put_field(b, o->opts.sep,
		  row->device	       ? row->device :
		  row->place	       ? row->place :
		  group && row->domain ? row->domain :
					 "",
		  false);
	put_int(b, o->opts.sep, row->socket);
	put_int(b, o->opts.sep, row->die);
	put_int(b, o->opts.sep, row->cpu);
}

/* A number field: no text needs quoting. */
static void u64_field(struct pm_out *o, uint64_t v)
{
	pm_obuf__u64(&o->buf, v);
	pm_obuf__putc(&o->buf, o->opts.sep);
}

/* "multiplexed|partial": every flag the row has, by pm_row_flag_name. */
static void flags_text(const struct pm_row *row, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned bit = 1; bit && row->flags >= bit; bit <<= 1) {
		const char *name = row->flags & bit ? pm_row_flag_name(bit) : NULL;
		size_t len = name ? strlen(name) : 0;

		if (!name || n + len + 2 > size)
			continue;
		if (n)
			buf[n++] = '|';
		memcpy(buf + n, name, len + 1);
		n += len;
	}
}

static int csv_report(struct pm_out *o, const struct pm_report *r)
{
	char buf[128], ts[40], t[40];

	if (!o->header_done) {
		/* the header is the first line, as csv.DictReader and pandas expect: a
		 * simulated run says so in its simulated column, not in a comment */
		for (size_t i = 0; i < sizeof(columns) / sizeof(columns[0]); i++)
			field(o, columns[i], false);
		for (size_t i = 0; i < sizeof(bound_columns) / sizeof(bound_columns[0]); i++)
			field(o, bound_columns[i],
			      i + 1 == sizeof(bound_columns) / sizeof(bound_columns[0]));
		o->header_done = true;
	}
	pm_fmt_timestamp(ts, sizeof(ts), r->wall_ns);
	pm_fmt_seconds(t, sizeof(t), r->t_ns);
	/* what every row of the report begins with: type, time_s, timestamp */
	o->pre.len = 0;
	put_field(&o->pre, o->opts.sep, r->interval ? "interval" : "total", false);
	put_field(&o->pre, o->opts.sep, t, false);
	put_field(&o->pre, o->opts.sep, ts, false);
	if (o->pre.err)
		return o->pre.err;
	for (size_t i = 0; i < r->n_rows; i++) {
		const struct pm_row *row = &r->rows[i];
		const struct pm_out_label *l = pm_out__label(o, i, r->aggr, row, make_label);

		if (!l)
			return -ENOMEM;
		pm_obuf__put(&o->buf, o->pre.p, o->pre.len);
		pm_obuf__put(&o->buf, l->text, l->len);
		if (isfinite(row->value) && !(row->flags & PM_ROW_NOT_COUNTED))
			pm_fmt_double(buf, sizeof(buf), row->value);
		else
			buf[0] = '\0';
		field(o, buf, false);
		field(o, row->unit, false);
		if (row->flags & PM_ROW_METRIC)
			field(o, "", false); /* a metric has no raw count */
		else
			u64_field(o, row->raw);
		u64_field(o, row->enabled_ns);
		u64_field(o, row->running_ns);
		if (isfinite(row->running) && 100.0 * row->running == floor(100.0 * row->running)) {
			/* what "%.2f" prints of a whole share (100.00: no multiplexing) */
			pm_obuf__u64(&o->buf, (uint64_t)(100.0 * row->running));
			pm_obuf__put(&o->buf, ".00", 3);
			pm_obuf__putc(&o->buf, o->opts.sep);
		} else {
			if (isfinite(row->running))
				snprintf(buf, sizeof(buf), "%.2f", 100.0 * row->running);
			else
				buf[0] = '\0';
			field(o, buf, false);
		}
		flags_text(row, buf, sizeof(buf));
		field(o, buf, false);
		field(o, o->opts.simulated ? "1" : "0", false);
		if (row->instances) {
			u64_field(o, row->covered);
			u64_field(o, row->instances);
		} else {
			field(o, "", false);
			field(o, "", false);
		}
		field(o, o->opts.simulated && o->opts.sim_platform ? o->opts.sim_platform : "",
		      false);
		field(o, o->opts.cpuid ? o->opts.cpuid : "", false);
		/* -r: perf's variance column (the mean's stddev in %), empty for one run */
		if (r->runs > 1 && !(row->flags & PM_ROW_NOT_COUNTED))
			snprintf(buf, sizeof(buf), "%.2f", row->spread_pct);
		else
			buf[0] = '\0';
		field(o, buf, false);
		field(o, row->cgroup ? row->cgroup : "", false);
		/* the 95 % interval (docs/bounds.md): empty where there is none */
		double lo, hi;
		unsigned bound;

		pm_out__bounds(row, &lo, &hi, &bound);
		for (int end = 0; end < 2; end++) {
			if (isfinite(end ? hi : lo))
				pm_fmt_double(buf, sizeof(buf), end ? hi : lo);
			else
				buf[0] = '\0';
			field(o, buf, false);
		}
		field(o, pm_row_bound_name(bound) ? pm_row_bound_name(bound) : "", false);
		/* an attributed row's declared proxy error its interval holds (docs/attribution.md):
		 * empty when none was declared (flag proxy_bias_excluded) or for another row */
		if ((row->flags & PM_ROW_PROXY_BIAS_INCLUDED) && isfinite(row->proxy_error))
			pm_fmt_double(buf, sizeof(buf), 100 * row->proxy_error);
		else
			buf[0] = '\0';
		field(o, buf, true);
	}
	return pm_obuf__flush(&o->buf, o->f); /* one write per report */
}

const struct pm_out_ops pm_out_csv = { .report = csv_report };
