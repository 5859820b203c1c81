// SPDX-License-Identifier: GPL-2.0-only
/*
 * One sample as Prometheus reads it: the text format 0.0.4 and OpenMetrics
 * 1.0.0. Raw events are counters (the multiplex-scaled estimate since the
 * start, held when it would go down), metrics gauges in base units (or
 * counters where the metric is an amount), and the trust in each value has
 * series of its own. A value that was not counted is absent, never 0.
 * docs/serve.md is the table of families and labels; tests/data/serve/ holds
 * golden expositions (tests/cli/test_serve.py, Golden): a rename is a decision.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve.h"

void sbuf_put(struct sbuf *b, const char *s, size_t n)
{
	if (b->err)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *p;

		while (cap < b->len + n + 1)
			cap *= 2;
		p = realloc(b->data, cap);
		if (!p) {
			b->err = -ENOMEM;
			return;
		}
		b->data = p;
		b->cap = cap;
	}
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void sbuf_puts(struct sbuf *b, const char *s)
{
	sbuf_put(b, s, strlen(s));
}

void sbuf_printf(struct sbuf *b, const char *fmt, ...)
{
	char small[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->err = b->err ? b->err : -EINVAL;
	} else if ((size_t)n < sizeof(small)) {
		sbuf_put(b, small, (size_t)n);
	} else {
		char *big = malloc((size_t)n + 1);

		if (!big) {
			b->err = -ENOMEM;
			return;
		}
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		sbuf_put(b, big, (size_t)n);
		free(big);
	}
}

void sbuf_free(struct sbuf *b)
{
	free(b->data);
	*b = (struct sbuf){ 0 };
}

void expo_hold_free(struct expo_hold *h)
{
	for (int w = 0; w < 2; w++) {
		for (size_t k = 0; k < h->n_labels[w]; k++) {
			free(h->labels[w][k]);
			free(h->family[w][k]);
		}
		free(h->labels[w]);
		free(h->family[w]);
	}
	free(h->last);
	*h = (struct expo_hold){ 0 };
}

/* An unsigned integer in decimal, without printf. */
static void put_u64(struct sbuf *b, uint64_t v)
{
	char num[24];
	size_t i = sizeof(num);

	do
		num[--i] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	sbuf_put(b, num + i, sizeof(num) - i);
}

/* A sample value: integers exactly, others in the fewest of 15 or 17 digits that read back
 * as the same double. */
static void put_value(struct sbuf *b, double v)
{
	char num[32];

	if (isinf(v)) {
		sbuf_puts(b, v > 0 ? "+Inf" : "-Inf");
	} else if (v == floor(v) && fabs(v) < 9007199254740992.0) {
		if (v < 0)
			sbuf_put(b, "-", 1);
		put_u64(b, (uint64_t)fabs(v));
	} else {
		snprintf(num, sizeof(num), "%.15g", v);
		if (strtod(num, NULL) != v)
			snprintf(num, sizeof(num), "%.17g", v);
		sbuf_puts(b, num);
	}
}

/* A label value, escaped as both formats want: backslash, double quote, newline. */
static void put_label(struct sbuf *b, bool *first, const char *name, const char *value)
{
	sbuf_put(b, *first ? "{" : ",", 1);
	*first = false;
	sbuf_puts(b, name);
	sbuf_put(b, "=\"", 2);
	while (*value) {
		size_t plain = strcspn(value, "\\\"\n");

		sbuf_put(b, value, plain);
		value += plain;
		if (!*value)
			break;
		sbuf_puts(b, *value == '\\' ? "\\\\" : *value == '"' ? "\\\"" : "\\n");
		value++;
	}
	sbuf_put(b, "\"", 1);
}

static void put_int_label(struct sbuf *b, bool *first, const char *name, int v)
{
	if (v < 0)
		return;
	sbuf_put(b, *first ? "{" : ",", 1);
	*first = false;
	sbuf_puts(b, name);
	sbuf_put(b, "=\"", 2);
	put_u64(b, (uint64_t)v);
	sbuf_put(b, "\"", 1);
}

/* The PMU family of an event label ("ali_drw/hif_rd/" -> "ali_drw"), or NULL. */
static void put_pmu_label(struct sbuf *b, bool *first, const char *event)
{
	const char *slash = strchr(event, '/');
	char pmu[128];

	if (!slash || slash == event || (size_t)(slash - event) >= sizeof(pmu))
		return;
	memcpy(pmu, event, (size_t)(slash - event));
	pmu[slash - event] = '\0';
	put_label(b, first, "pmu", pmu);
}

/* Does "k=v,k=v" set label name? */
static bool sets_label(const char *labels, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = labels; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : "")
		if (!strncmp(p, name, n) && p[n] == '=')
			return true;
	return false;
}

/* The labels "k=v,k=v" of a platform-neutral name (the pack's, checked plain when loaded). */
static void put_set_labels(struct sbuf *b, bool *first, const char *labels)
{
	while (labels && *labels) {
		const char *eq = strchr(labels, '='), *end = strchr(eq, ',');
		size_t vn = end ? (size_t)(end - eq - 1) : strlen(eq + 1);

		sbuf_put(b, *first ? "{" : ",", 1);
		*first = false;
		sbuf_put(b, labels, (size_t)(eq - labels));
		sbuf_put(b, "=\"", 2);
		sbuf_put(b, eq + 1, vn);
		sbuf_put(b, "\"", 1);
		labels = end ? end + 1 : "";
	}
}

/* Where a row's value was counted, as labels (the names --per-* prints), but for those
 * a platform-neutral name sets (its own "channel=3" says more than the row). */
static void put_place(struct sbuf *b, bool *first, const struct pm_row *r, const char *set)
{
	if (r->device)
		put_label(b, first, "device", r->device);
	put_int_label(b, first, "socket", sets_label(set, "socket") ? -1 : r->socket);
	put_int_label(b, first, "die", sets_label(set, "die") ? -1 : r->die);
	put_int_label(b, first, "channel", sets_label(set, "channel") ? -1 : r->channel);
	put_int_label(b, first, "subchannel", sets_label(set, "subchannel") ? -1 : r->subchannel);
	put_int_label(b, first, "cpu", r->cpu);
	if (r->domain)
		put_label(b, first, "domain", r->domain);
	if (r->place)
		put_label(b, first, "place", r->place);
	if (r->cgroup) /* -G, --for-each-cgroup: one series per cgroup */
		put_label(b, first, "cgroup", r->cgroup);
}

/* A pack metric's platform-neutral name, or NULL. */
static const struct expo_name *neutral(const struct expo_meta *m, const struct pm_row *r)
{
	if (!(r->flags & PM_ROW_METRIC))
		return NULL;
	for (size_t i = 0; i < m->n_names; i++)
		if (!strcmp(m->names[i].metric, r->event))
			return &m->names[i];
	return NULL;
}

/* The labels of row r, '{pmu="ali_drw",event=...' (no closing brace), in b: an event's
 * PMU, name and unit, or a metric's name (and what its neutral name sets); then its place. */
static void row_labels(struct sbuf *b, const struct pm_row *r, const struct expo_name *nm)
{
	bool first = true;

	if (r->flags & PM_ROW_METRIC) {
		put_label(b, &first, "metric", r->event);
		put_set_labels(b, &first, nm ? nm->labels : NULL);
	} else {
		put_pmu_label(b, &first, r->event);
		put_label(b, &first, "event", r->event);
		if (r->unit && r->unit[0])
			put_label(b, &first, "unit", r->unit);
	}
	put_place(b, &first, r, nm ? nm->labels : NULL);
}

/*
 * Row i's labels of a report (which: 0 interval, 1 totals), made once: the
 * rows of a session's reports are the same rows in the same order from one
 * read to the next, only their values change. NULL when out of memory.
 */
static const char *labels_of(struct expo_hold *h, int which, const struct pm_report *rep, size_t i,
			     const struct expo_meta *m)
{
	struct sbuf b = { 0 };

	if (h->n_labels[which] != rep->n_rows) {
		for (size_t k = 0; k < h->n_labels[which]; k++) {
			free(h->labels[which][k]);
			free(h->family[which][k]);
		}
		free(h->labels[which]);
		free(h->family[which]);
		h->labels[which] = calloc(rep->n_rows + 1, sizeof(char *));
		h->family[which] = calloc(rep->n_rows + 1, sizeof(char *));
		if (!h->labels[which] || !h->family[which]) {
			free(h->labels[which]);
			free(h->family[which]);
			h->labels[which] = h->family[which] = NULL;
		}
		h->n_labels[which] = h->labels[which] ? rep->n_rows : 0;
	}
	if (i >= h->n_labels[which])
		return NULL;
	if (h->labels[which][i])
		return h->labels[which][i];
	row_labels(&b, &rep->rows[i], neutral(m, &rep->rows[i]));
	sbuf_put(&b, "", 0); /* "" for a row without labels */
	if (b.err)
		return NULL;
	h->labels[which][i] = b.data;
	return b.data;
}

/* name{labels[,extra="..."]} value\n */
static void put_series(struct sbuf *b, const char *name, const char *labels, const char *extra,
		       const char *extra_value, double v)
{
	bool first = true;

	sbuf_puts(b, name);
	if (labels && labels[0]) {
		sbuf_puts(b, labels); /* starts with '{' */
		first = false;
	}
	if (extra)
		put_label(b, &first, extra, extra_value);
	sbuf_put(b, first ? " " : "} ", first ? 1 : 2);
	put_value(b, v);
	sbuf_put(b, "\n", 1);
}

/* HELP, TYPE (and UNIT) of a family. OpenMetrics names a counter's family without _total. */
static void put_family(struct sbuf *b, enum expo_format f, const char *name, const char *type,
		       const char *unit, const char *help)
{
	size_t n = strlen(name);

	if (f == EXPO_OPENMETRICS && !strcmp(type, "counter") && n > 6 &&
	    !strcmp(name + n - 6, "_total"))
		n -= 6;
	if (f == EXPO_OPENMETRICS && !strcmp(type, "info") && n > 5 &&
	    !strcmp(name + n - 5, "_info"))
		n -= 5;
	if (f == EXPO_TEXT && !strcmp(type, "info"))
		type = "gauge";
	sbuf_printf(b, "# HELP %.*s %s\n# TYPE %.*s %s\n", (int)n, name, help, (int)n, name, type);
	if (f == EXPO_OPENMETRICS && unit)
		sbuf_printf(b, "# UNIT %.*s %s\n", (int)n, name, unit);
}

/* A counted event's row (not a metric, not a current value). */
static bool is_count(const struct pm_row *r)
{
	return !(r->flags & (PM_ROW_METRIC | PM_ROW_SNAPSHOT));
}

/* The value a counter shows: never below what it showed before. */
static double held_value(struct expo_hold *hold, size_t i, double v)
{
	if (i >= hold->n)
		return v;
	if (!isnan(hold->last[i]) && v < hold->last[i]) {
		hold->held++;
		return hold->last[i];
	}
	hold->last[i] = v;
	return v;
}

static long put_events(struct sbuf *b, enum expo_format f, const struct pm_report *total,
		       const struct expo_meta *m, struct expo_hold *hold)
{
	long n = 0;

	put_family(b, f, "pmumon_event_total", "counter", NULL,
		   "Events counted since pmumon started, scaled for multiplexing "
		   "(count x enabled / running); held when the estimate would go down");
	for (size_t i = 0; i < total->n_rows; i++) {
		const struct pm_row *r = &total->rows[i];

		if (!is_count(r) || isnan(r->value))
			continue;
		put_series(b, "pmumon_event_total", labels_of(hold, 1, total, i, m), NULL, NULL,
			   held_value(hold, i, r->value));
		n++;
	}
	put_family(b, f, "pmumon_event_value", "gauge", NULL,
		   "Events that are a current value (a snapshot), not a count");
	for (size_t i = 0; i < total->n_rows; i++) {
		const struct pm_row *r = &total->rows[i];

		if ((r->flags & PM_ROW_SNAPSHOT) && !(r->flags & PM_ROW_METRIC) &&
		    !isnan(r->value)) {
			put_series(b, "pmumon_event_value", labels_of(hold, 1, total, i, m), NULL,
				   NULL, r->value);
			n++;
		}
	}
	return n;
}

static long put_quality(struct sbuf *b, enum expo_format f, const struct pm_report *interval,
			const struct expo_meta *m, struct expo_hold *hold)
{
	long n = 0;

	put_family(b, f, "pmumon_event_running_ratio", "gauge", "ratio",
		   "Share of the last interval an event's counter ran (1: all of it; "
		   "less: multiplexed, its value extrapolated)");
	for (size_t i = 0; i < interval->n_rows; i++) {
		const struct pm_row *r = &interval->rows[i];

		if (is_count(r) && !isnan(r->running)) {
			put_series(b, "pmumon_event_running_ratio",
				   labels_of(hold, 0, interval, i, m), NULL, NULL, r->running);
			n++;
		}
	}
	put_family(b, f, "pmumon_quality_flag", "gauge", NULL,
		   "1 for each doubt about a value in the last interval (flag: multiplexed, "
		   "not_counted, approximate, undefined, wrap_uncertain, reprogrammed, reset, "
		   "partial, lost); absent when there is none");
	for (size_t i = 0; i < interval->n_rows; i++) {
		const struct pm_row *r = &interval->rows[i];
		unsigned flags = r->flags & (PM_ROW_QUALITY | PM_ROW_APPROXIMATE);

		for (unsigned bit = 1; flags; bit <<= 1) {
			if (!(flags & bit))
				continue;
			flags &= ~bit;
			put_series(b, "pmumon_quality_flag", labels_of(hold, 0, interval, i, m),
				   "flag", pm_row_flag_name(bit), 1);
			n++;
		}
	}
	return n;
}

/* A metric's unit in base units: the name's suffix and the factor to get there. */
struct base_unit {
	const char *unit, *suffix, *om_unit;
	double factor;
	bool amount; /* an amount (bytes), shown as a counter of the totals */
};

static const struct base_unit units[] = {
	{ "", "", NULL, 1, false },
	{ "%", "_ratio", "ratio", 0.01, false },
	{ "/s", "_per_second", NULL, 1, false },
	{ "B/s", "_bytes_per_second", NULL, 1, false },
	{ "KB/s", "_bytes_per_second", NULL, 1e3, false },
	{ "MB/s", "_bytes_per_second", NULL, 1e6, false },
	{ "GB/s", "_bytes_per_second", NULL, 1e9, false },
	{ "KiB/s", "_bytes_per_second", NULL, 1024.0, false },
	{ "MiB/s", "_bytes_per_second", NULL, 1048576.0, false },
	{ "GiB/s", "_bytes_per_second", NULL, 1073741824.0, false },
	{ "B", "_bytes_total", "bytes", 1, true },
	{ "KiB", "_bytes_total", "bytes", 1024.0, true },
	{ "MiB", "_bytes_total", "bytes", 1048576.0, true },
	{ "GiB", "_bytes_total", "bytes", 1073741824.0, true },
	{ "MB", "_bytes_total", "bytes", 1e6, true },
	{ "GB", "_bytes_total", "bytes", 1e9, true },
	{ "Hz", "_hertz", "hertz", 1, false },
	{ "MHz", "_hertz", "hertz", 1e6, false },
	{ "GHz", "_hertz", "hertz", 1e9, false },
	{ "ns", "_seconds", "seconds", 1e-9, false },
	{ "s", "_seconds", "seconds", 1, false },
};

static const struct base_unit *base_unit(const char *unit)
{
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(units[i].unit, unit ? unit : ""))
			return &units[i];
	return NULL;
}

/* A family of one series without labels. */
static void put_scalar(struct sbuf *b, enum expo_format f, const char *name, const char *type,
		       const char *unit, const char *help, double v)
{
	put_family(b, f, name, type, unit, help);
	sbuf_puts(b, name);
	sbuf_puts(b, " ");
	put_value(b, v);
	sbuf_puts(b, "\n");
}

static bool is_lower(char c)
{
	return c >= 'a' && c <= 'z';
}

static bool is_upper(char c)
{
	return c >= 'A' && c <= 'Z';
}

/*
 * pmumon_ + the metric's neutral name, or its name in Prometheus's
 * snake_case, + its unit's suffix: a capital after a small letter starts a
 * word, capitals go small, anything else but digits is '_', and no '_'
 * doubles ("CpuClockUnhalted" -> cpu_clock_unhalted, "DF_CH0_GBps" ->
 * df_ch0_gbps, "ddr_read_bandwidth.all" -> ddr_read_bandwidth_all).
 */
static void metric_name(char *buf, size_t size, const char *metric, const struct expo_name *nm,
			const struct base_unit *u)
{
	size_t n = (size_t)snprintf(buf, size, "pmumon_");
	const char *s = nm ? nm->name : metric;

	for (const char *p = s; *p && n + 2 < size; p++) {
		char c = *p;

		if (is_upper(c) && p > s && is_lower(p[-1]) && buf[n - 1] != '_')
			buf[n++] = '_';
		if (is_upper(c))
			c = (char)(c - 'A' + 'a');
		else if (!is_lower(c) && !(c >= '0' && c <= '9'))
			c = '_';
		if (c != '_' || buf[n - 1] != '_')
			buf[n++] = c;
	}
	while (n > 7 && buf[n - 1] == '_')
		n--; /* the suffix brings its own */
	buf[n] = '\0';
	snprintf(buf + n, size - n, "%s", u ? u->suffix : "");
}

/* Row i's family name (a metric's), made once like its labels; NULL when out of memory. */
static const char *family_of(struct expo_hold *h, int which, const struct pm_report *rep, size_t i,
			     const struct expo_meta *m)
{
	const struct pm_row *r = &rep->rows[i];
	char name[256];

	if (!labels_of(h, which, rep, i, m)) /* sizes the caches */
		return NULL;
	if (!h->family[which][i]) {
		metric_name(name, sizeof(name), r->event, neutral(m, r), base_unit(r->unit));
		h->family[which][i] = strdup(name);
	}
	return h->family[which][i];
}

/*
 * One metric family: the rows of every metric in it — a metric's own, or
 * all the metrics a pack gives one platform-neutral name (EPYC's eight
 * DF_CHn_GBps are pmumon_memory_bytes_per_second{channel="n"}) — from the
 * interval (a rate) or the totals (an amount). Row `first` of the interval
 * is its first; done marks the interval's rows it wrote.
 */
static long put_metric(struct sbuf *b, enum expo_format f, const struct pm_report *interval,
		       const struct pm_report *total, size_t first, const struct expo_meta *m,
		       struct expo_hold *hold, bool *done)
{
	const struct pm_row *r0 = &interval->rows[first];
	const struct base_unit *u = base_unit(r0->unit);
	const struct expo_name *nm = neutral(m, r0);
	const struct pm_report *from = u && u->amount ? total : interval;
	const char *name = family_of(hold, 0, interval, first, m);
	char help[512];
	long n = 0;

	if (!name)
		return -ENOMEM;
	if (nm)
		snprintf(help, sizeof(help),
			 "pmumon's platform-neutral %s (the pack metric in the metric label, %s)%s",
			 nm->name, u ? "shown in base units" : "unit label as computed",
			 u && u->amount ? ", since pmumon started" : ", over the last interval");
	else
		snprintf(help, sizeof(help), "pmumon metric %s (%s%s%s)%s", r0->event,
			 r0->unit && r0->unit[0] ? "computed in " : "a plain number",
			 r0->unit ? r0->unit : "",
			 u ? ", shown in base units" : ", unit label as computed",
			 u && u->amount ? ", since pmumon started" : ", over the last interval");
	put_family(b, f, name, u && u->amount ? "counter" : "gauge", u ? u->om_unit : NULL, help);
	for (size_t i = first; i < interval->n_rows; i++) {
		const char *fam = (interval->rows[i].flags & PM_ROW_METRIC) ?
					  family_of(hold, 0, interval, i, m) :
					  NULL;

		done[i] |= fam && !strcmp(fam, name);
	}
	for (size_t i = 0; i < from->n_rows; i++) {
		const struct pm_row *r = &from->rows[i];
		const struct base_unit *ru;
		const char *fam;
		double v;

		if (!(r->flags & PM_ROW_METRIC) || isnan(r->value))
			continue;
		fam = family_of(hold, from == total, from, i, m);
		if (!fam || strcmp(fam, name))
			continue;
		ru = base_unit(r->unit);
		v = r->value * (ru ? ru->factor : 1);
		if (ru && ru->amount)
			v = held_value(hold, i, v);
		put_series(b, name, labels_of(hold, from == total, from, i, m), ru ? NULL : "unit",
			   ru ? NULL : r->unit, v);
		n++;
	}
	return n;
}

/*
 * A channel's share of its peak (--define channel_peak=B/s): for every row
 * of pmumon_memory_bytes_per_second that is one channel (a channel label,
 * no sub-channel), the value over the peak; nothing without a peak.
 */
static long put_peak(struct sbuf *b, enum expo_format f, const struct pm_report *interval,
		     const struct expo_meta *m, struct expo_hold *hold)
{
	long n = 1;

	if (!(m->channel_peak > 0) || !isfinite(m->channel_peak))
		return 0;
	put_scalar(b, f, "pmumon_memory_peak_bytes_per_second", "gauge", NULL,
		   "The memory channel peak the shares are of (--define channel_peak)",
		   m->channel_peak);
	put_family(b, f, "pmumon_memory_peak_share_ratio", "gauge", "ratio",
		   "A memory channel's traffic over its peak (channel_peak), over the last "
		   "interval");
	for (size_t i = 0; i < interval->n_rows; i++) {
		const struct pm_row *r = &interval->rows[i];
		const struct expo_name *nm = neutral(m, r);
		const struct base_unit *u = base_unit(r->unit);

		if (!nm || strcmp(nm->name, "memory") || !u ||
		    strcmp(u->suffix, "_bytes_per_second") || isnan(r->value) ||
		    r->subchannel >= 0 || !(r->channel >= 0 || sets_label(nm->labels, "channel")))
			continue;
		put_series(b, "pmumon_memory_peak_share_ratio", labels_of(hold, 0, interval, i, m),
			   NULL, NULL, r->value * u->factor / m->channel_peak);
		n++;
	}
	return n;
}

/* The rebuilds of the counting: SIGHUP's reloads, devices back, --max-series. */
static long put_reloads(struct sbuf *b, enum expo_format f, const struct expo_reloads *rl)
{
	put_scalar(b, f, "pmumon_config_last_reload_successful", "gauge", NULL,
		   "0 when the last SIGHUP's options (--config, --web.config.file) were refused "
		   "and serve goes on with the ones before; 1 otherwise",
		   rl->last_failed ? 0 : 1);
	put_family(b, f, "pmumon_config_reloads_total", "counter", NULL,
		   "SIGHUP reloads of the options, by result");
	sbuf_printf(b, "pmumon_config_reloads_total{result=\"success\"} %llu\n",
		    (unsigned long long)rl->ok);
	sbuf_printf(b, "pmumon_config_reloads_total{result=\"failure\"} %llu\n",
		    (unsigned long long)rl->failed);
	put_scalar(b, f, "pmumon_devices_back_total", "counter", NULL,
		   "Times counting was built again because a device that went away came back",
		   (double)rl->devices_back);
	put_scalar(b, f, "pmumon_series_dropped_total", "counter", NULL,
		   "Series a reload's coarser places dropped to stay within --max-series",
		   (double)rl->series_dropped);
	if (rl->last_ok_s > 0) {
		put_scalar(b, f, "pmumon_config_last_reload_success_timestamp_seconds", "gauge",
			   "seconds", "Wall clock of the last good SIGHUP reload", rl->last_ok_s);
		return 6;
	}
	return 5;
}

static long put_health(struct sbuf *b, enum expo_format f, const struct expo_meta *m,
		       const struct expo_health *h, const struct expo_hold *hold,
		       const struct pm_report *total)
{
	static const char *codes[HTTP__N] = { "400", "401", "403", "404", "405", "413",
					      "414", "431", "500", "503", "505" };
	static const char *refusals[REFUSED__N] = { "header_timeout", "address_limit",
						    "connection_limit" };
	bool first = true;
	long n = 7;

	put_family(b, f, "pmumon_build_info", "info", NULL,
		   "pmumon's version, the platform it counts and whether the machine is simulated");
	sbuf_puts(b, "pmumon_build_info");
	put_label(b, &first, "version", m->version);
	put_label(b, &first, "platform", m->platform);
	put_label(b, &first, "simulated", m->simulated ? "true" : "false");
	sbuf_puts(b, "} 1\n");
	put_scalar(b, f, "pmumon_samples_total", "counter", NULL, "Samples the sampler took",
		   (double)h->samples);
	put_scalar(b, f, "pmumon_sample_duration_seconds", "gauge", "seconds",
		   "How long the last sample's read took", h->read_s);
	put_scalar(b, f, "pmumon_sample_lateness_seconds", "gauge", "seconds",
		   "How late after its deadline the last sample's read started", h->late_s);
	put_scalar(b, f, "pmumon_last_sample_timestamp_seconds", "gauge", "seconds",
		   "Wall clock of the last sample, seconds since the epoch", h->last_sample_s);
	put_scalar(b, f, "pmumon_interval_seconds", "gauge", "seconds",
		   "The sampler's interval (-I)", m->interval_s);
	put_scalar(b, f, "pmumon_estimates_held_total", "counter", NULL,
		   "Times a counter's scaled estimate would have gone down and was held",
		   (double)hold->held);
	put_family(b, f, "pmumon_http_errors_total", "counter", NULL,
		   "Requests answered with an error, by status code");
	for (size_t i = 0; i < HTTP__N; i++, n++)
		sbuf_printf(b, "pmumon_http_errors_total{code=\"%s\"} %llu\n", codes[i],
			    (unsigned long long)h->access.errors[i]);
	put_family(b, f, "pmumon_http_refused_total", "counter", NULL,
		   "Connections the HTTP front closed before answering them, by reason");
	for (size_t i = 0; i < REFUSED__N; i++, n++)
		sbuf_printf(b, "pmumon_http_refused_total{reason=\"%s\"} %llu\n", refusals[i],
			    (unsigned long long)h->access.refused[i]);
	if (h->store) {
		put_scalar(b, f, "pmumon_store_written_total", "counter", NULL,
			   "Intervals serve --store wrote to its recording",
			   (double)h->store_written);
		put_scalar(b, f, "pmumon_store_dropped_total", "counter", NULL,
			   "Intervals serve --store dropped: its queue was full (a slow disk)",
			   (double)h->store_dropped);
		put_scalar(b, f, "pmumon_store_failed", "gauge", NULL,
			   "1 once writing the recording failed (serve goes on without it)",
			   h->store_failed ? 1 : 0);
		n += 3;
	}
	n += put_reloads(b, f, &h->reloads);
	put_family(b, f, "pmumon_device_up", "gauge", NULL,
		   "1 while a PMU instance counts, 0 once it went away (per-device rows only)");
	for (size_t i = 0; i < total->n_rows; i++) {
		const struct pm_row *r = &total->rows[i];
		bool seen = false;

		if (!r->device || (r->flags & PM_ROW_METRIC))
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = total->rows[j].device && !(total->rows[j].flags & PM_ROW_METRIC) &&
			       !strcmp(total->rows[j].device, r->device);
		if (seen)
			continue;
		first = true;
		sbuf_puts(b, "pmumon_device_up");
		put_label(b, &first, "device", r->device);
		sbuf_printf(b, "} %d\n", (r->flags & PM_ROW_LOST) ? 0 : 1);
		n++;
	}
	return n;
}

long expo_render(struct sbuf *b, enum expo_format f, const struct pm_report *interval,
		 const struct pm_report *total, const struct expo_meta *m,
		 const struct expo_health *h, struct expo_hold *hold)
{
	bool *done;
	long n;

	if (hold->n != total->n_rows) {
		free(hold->last);
		hold->last = malloc(total->n_rows * sizeof(*hold->last) + 1);
		hold->n = hold->last ? total->n_rows : 0;
		for (size_t i = 0; i < hold->n; i++)
			hold->last[i] = NAN;
	}
	done = calloc(interval->n_rows + 1, sizeof(*done));
	if (!done)
		return -ENOMEM;
	n = put_events(b, f, total, m, hold);
	n += put_quality(b, f, interval, m, hold);
	for (size_t i = 0; i < interval->n_rows && n >= 0; i++)
		if ((interval->rows[i].flags & PM_ROW_METRIC) && !done[i]) {
			long k = put_metric(b, f, interval, total, i, m, hold, done);

			n = k < 0 ? k : n + k;
		}
	free(done);
	if (n < 0)
		return n;
	n += put_peak(b, f, interval, m, hold);
	n += put_health(b, f, m, h, hold, total);
	if (f == EXPO_OPENMETRICS)
		sbuf_puts(b, "# EOF\n");
	return b->err ? b->err : n;
}
