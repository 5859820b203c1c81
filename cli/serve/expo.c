// SPDX-License-Identifier: GPL-2.0-only
/*
 * One sample as Prometheus reads it: the text format 0.0.4 and OpenMetrics
 * 1.0.0. Raw events are counters (the multiplex-scaled estimate since the
 * start, held when it would go down), metrics gauges in base units (or
 * counters where the metric is an amount), and the trust in each value has
 * series of its own. A value that was not counted is absent, never 0.
 * docs/serve.md is the table of families and labels; tests/cli/test_serve.py
 * holds a golden exposition.
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
		for (size_t k = 0; k < h->n_labels[w]; k++)
			free(h->labels[w][k]);
		free(h->labels[w]);
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

/* Where a row's value was counted, as labels (the names --per-* prints). */
static void put_place(struct sbuf *b, bool *first, const struct pm_row *r)
{
	if (r->device)
		put_label(b, first, "device", r->device);
	put_int_label(b, first, "socket", r->socket);
	put_int_label(b, first, "die", r->die);
	put_int_label(b, first, "channel", r->channel);
	put_int_label(b, first, "subchannel", r->subchannel);
	put_int_label(b, first, "cpu", r->cpu);
	if (r->domain)
		put_label(b, first, "domain", r->domain);
	if (r->place)
		put_label(b, first, "place", r->place);
}

/* The labels of row r, '{pmu="ali_drw",event=...' (no closing brace), in b: an event's
 * PMU, name and unit, or a metric's name; then its place. */
static void row_labels(struct sbuf *b, const struct pm_row *r)
{
	bool first = true;

	if (r->flags & PM_ROW_METRIC) {
		put_label(b, &first, "metric", r->event);
	} else {
		put_pmu_label(b, &first, r->event);
		put_label(b, &first, "event", r->event);
		if (r->unit && r->unit[0])
			put_label(b, &first, "unit", r->unit);
	}
	put_place(b, &first, r);
}

/*
 * Row i's labels of a report (which: 0 interval, 1 totals), made once: the
 * rows of a session's reports are the same rows in the same order from one
 * read to the next, only their values change. NULL when out of memory.
 */
static const char *labels_of(struct expo_hold *h, int which, const struct pm_report *rep, size_t i)
{
	struct sbuf b = { 0 };

	if (h->n_labels[which] != rep->n_rows) {
		for (size_t k = 0; k < h->n_labels[which]; k++)
			free(h->labels[which][k]);
		free(h->labels[which]);
		h->labels[which] = calloc(rep->n_rows + 1, sizeof(char *));
		h->n_labels[which] = h->labels[which] ? rep->n_rows : 0;
	}
	if (i >= h->n_labels[which])
		return NULL;
	if (h->labels[which][i])
		return h->labels[which][i];
	row_labels(&b, &rep->rows[i]);
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
		       struct expo_hold *hold)
{
	long n = 0;

	put_family(b, f, "pmumon_event_total", "counter", NULL,
		   "Events counted since pmumon started, scaled for multiplexing "
		   "(count x enabled / running); held when the estimate would go down");
	for (size_t i = 0; i < total->n_rows; i++) {
		const struct pm_row *r = &total->rows[i];

		if (!is_count(r) || isnan(r->value))
			continue;
		put_series(b, "pmumon_event_total", labels_of(hold, 1, total, i), NULL, NULL,
			   held_value(hold, i, r->value));
		n++;
	}
	put_family(b, f, "pmumon_event_value", "gauge", NULL,
		   "Events that are a current value (a snapshot), not a count");
	for (size_t i = 0; i < total->n_rows; i++) {
		const struct pm_row *r = &total->rows[i];

		if ((r->flags & PM_ROW_SNAPSHOT) && !(r->flags & PM_ROW_METRIC) &&
		    !isnan(r->value)) {
			put_series(b, "pmumon_event_value", labels_of(hold, 1, total, i), NULL,
				   NULL, r->value);
			n++;
		}
	}
	return n;
}

static long put_quality(struct sbuf *b, enum expo_format f, const struct pm_report *interval,
			struct expo_hold *hold)
{
	long n = 0;

	put_family(b, f, "pmumon_event_running_ratio", "gauge", "ratio",
		   "Share of the last interval an event's counter ran (1: all of it; "
		   "less: multiplexed, its value extrapolated)");
	for (size_t i = 0; i < interval->n_rows; i++) {
		const struct pm_row *r = &interval->rows[i];

		if (is_count(r) && !isnan(r->running)) {
			put_series(b, "pmumon_event_running_ratio", labels_of(hold, 0, interval, i),
				   NULL, NULL, r->running);
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
			put_series(b, "pmumon_quality_flag", labels_of(hold, 0, interval, i),
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

/* pmumon_ + the metric's name in [a-zA-Z0-9_] + its unit's suffix. */
static void metric_name(char *buf, size_t size, const char *metric, const struct base_unit *u)
{
	size_t n = (size_t)snprintf(buf, size, "pmumon_");

	for (const char *p = metric; *p && n + 1 < size; p++) {
		char c = *p;

		buf[n++] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
					   (c >= '0' && c <= '9') ?
				   c :
				   '_';
	}
	buf[n] = '\0';
	snprintf(buf + n, size - n, "%s", u ? u->suffix : "");
}

/* Is row j the first metric row of its name? */
static bool first_of_name(const struct pm_report *r, size_t j)
{
	for (size_t i = 0; i < j; i++)
		if ((r->rows[i].flags & PM_ROW_METRIC) &&
		    !strcmp(r->rows[i].event, r->rows[j].event))
			return false;
	return true;
}

/* One metric's family: its rows from the interval (a rate) or the totals (an amount). */
static long put_metric(struct sbuf *b, enum expo_format f, const struct pm_report *interval,
		       const struct pm_report *total, size_t first, struct expo_hold *hold)
{
	const struct pm_row *r0 = &interval->rows[first];
	const struct base_unit *u = base_unit(r0->unit);
	const struct pm_report *from = u && u->amount ? total : interval;
	char name[256], help[512];
	long n = 0;

	metric_name(name, sizeof(name), r0->event, u);
	snprintf(help, sizeof(help), "pmumon metric %s (%s%s%s)%s", r0->event,
		 r0->unit && r0->unit[0] ? "computed in " : "a plain number",
		 r0->unit ? r0->unit : "", u ? ", shown in base units" : ", unit label as computed",
		 u && u->amount ? ", since pmumon started" : ", over the last interval");
	put_family(b, f, name, u && u->amount ? "counter" : "gauge", u ? u->om_unit : NULL, help);
	for (size_t i = 0; i < from->n_rows; i++) {
		const struct pm_row *r = &from->rows[i];
		double v;

		if (!(r->flags & PM_ROW_METRIC) || strcmp(r->event, r0->event) || isnan(r->value))
			continue;
		v = r->value * (u ? u->factor : 1);
		if (u && u->amount)
			v = held_value(hold, i, v);
		put_series(b, name, labels_of(hold, from == total, from, i), u ? NULL : "unit",
			   u ? NULL : r->unit, v);
		n++;
	}
	return n;
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
	static const char *codes[] = { "404", "405", "413", "503" };
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
	for (size_t i = 0; i < 4; i++, n++)
		sbuf_printf(b, "pmumon_http_errors_total{code=\"%s\"} %llu\n", codes[i],
			    (unsigned long long)h->http_errors[i]);
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
	long n;

	if (hold->n != total->n_rows) {
		free(hold->last);
		hold->last = malloc(total->n_rows * sizeof(*hold->last) + 1);
		hold->n = hold->last ? total->n_rows : 0;
		for (size_t i = 0; i < hold->n; i++)
			hold->last[i] = NAN;
	}
	n = put_events(b, f, total, hold);
	n += put_quality(b, f, interval, hold);
	for (size_t i = 0; i < interval->n_rows; i++)
		if ((interval->rows[i].flags & PM_ROW_METRIC) && first_of_name(interval, i))
			n += put_metric(b, f, interval, total, i, hold);
	n += put_health(b, f, m, h, hold, total);
	if (f == EXPO_OPENMETRICS)
		sbuf_puts(b, "# EOF\n");
	return b->err ? b->err : n;
}
