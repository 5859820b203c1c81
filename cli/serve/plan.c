// SPDX-License-Identifier: GPL-2.0-only
/*
 * What each row of a counting becomes in the exposition, decided once per
 * counting (its rows are the same rows in the same order from one read to
 * the next): its kind of counter, the factor to base units, its family and
 * its labels. docs/serve.md, "Series", says why each kind is exported as it
 * is:
 *
 * - an event's count: pmumon_event_total in base units (cpu-clock in
 *   seconds, not msec), the sum of its intervals' scaled counts;
 * - an event that is a current value (.snapshot): pmumon_event_value;
 * - a metric in a unit per time (B/s, /s, Hz): its amount, the sum of value
 *   x interval (pmumon_memory_read_bytes_total), so that rate() over any
 *   window of two samples or more is the window's mean;
 * - a ratio of two counted amounts (a hit ratio, CPI: PM_ROW_RATIO): its
 *   numerator and denominator, each summed, so that rate(num) / rate(den)
 *   is the window's ratio, not a mean of ratios;
 * - a metric that is an amount itself (PM_ROW_AMOUNT: MiB, a count): the
 *   sum of its values;
 * - anything else (a share of time, a formula of non-linear parts): value
 *   x interval summed, as "_seconds_total": rate() of it is the value's
 *   mean over the window, each interval weighed by its length, whatever the
 *   scrape interval.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve.h"

/* ---- units ------------------------------------------------------------------------- */

/*
 * A unit pmumon knows how to put in base units: the factor, whether it is
 * per second (then value x seconds is an amount), the suffix of a counter
 * of its amount, and an event's unit label in base units.
 */
struct base_unit {
	const char *unit;
	double factor;
	bool per_time;
	const char *amount; /* "_bytes_total" */
	const char *label;  /* "seconds", "bytes"; NULL: a plain count */
};

static const struct base_unit units[] = {
	{ "", 1, false, "_total", NULL },
	{ "%", 0.01, false, "_seconds_total", NULL },
	{ "/s", 1, true, "_total", NULL },
	{ "1/s", 1, true, "_total", NULL },
	{ "B/s", 1, true, "_bytes_total", NULL },
	{ "KB/s", 1e3, true, "_bytes_total", NULL },
	{ "MB/s", 1e6, true, "_bytes_total", NULL },
	{ "GB/s", 1e9, true, "_bytes_total", NULL },
	{ "KiB/s", 1024.0, true, "_bytes_total", NULL },
	{ "MiB/s", 1048576.0, true, "_bytes_total", NULL },
	{ "GiB/s", 1073741824.0, true, "_bytes_total", NULL },
	{ "Hz", 1, true, "_cycles_total", NULL },
	{ "KHz", 1e3, true, "_cycles_total", NULL },
	{ "MHz", 1e6, true, "_cycles_total", NULL },
	{ "GHz", 1e9, true, "_cycles_total", NULL },
	{ "B", 1, false, "_bytes_total", "bytes" },
	{ "KiB", 1024.0, false, "_bytes_total", "bytes" },
	{ "MiB", 1048576.0, false, "_bytes_total", "bytes" },
	{ "GiB", 1073741824.0, false, "_bytes_total", "bytes" },
	{ "KB", 1e3, false, "_bytes_total", "bytes" },
	{ "MB", 1e6, false, "_bytes_total", "bytes" },
	{ "GB", 1e9, false, "_bytes_total", "bytes" },
	{ "ns", 1e-9, false, "_seconds_total", "seconds" },
	{ "us", 1e-6, false, "_seconds_total", "seconds" },
	{ "msec", 1e-3, false, "_seconds_total", "seconds" },
	{ "ms", 1e-3, false, "_seconds_total", "seconds" },
	{ "s", 1, false, "_seconds_total", "seconds" },
	{ "Joules", 1, false, "_joules_total", "joules" },
	{ "J", 1, false, "_joules_total", "joules" },
};

static const struct base_unit *base_unit(const char *unit)
{
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(units[i].unit, unit ? unit : ""))
			return &units[i];
	return NULL;
}

/* ---- labels ------------------------------------------------------------------------ */

void expo_put_label(struct sbuf *b, bool *first, const char *name, const char *value)
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
	char num[16];

	if (v < 0)
		return;
	snprintf(num, sizeof(num), "%d", v);
	expo_put_label(b, first, name, num);
}

/* The PMU family of an event label ("ali_drw/hif_rd/" -> "ali_drw"), if it names one. */
static void put_pmu_label(struct sbuf *b, bool *first, const char *event)
{
	const char *slash = strchr(event, '/');
	char pmu[128];

	if (!slash || slash == event || (size_t)(slash - event) >= sizeof(pmu))
		return;
	memcpy(pmu, event, (size_t)(slash - event));
	pmu[slash - event] = '\0';
	expo_put_label(b, first, "pmu", pmu);
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

/* The labels "k=v,k=v" of a platform-neutral name (the pack's, checked when loaded). */
static void put_set_labels(struct sbuf *b, bool *first, const char *labels)
{
	while (labels && *labels) {
		const char *eq = strchr(labels, '='), *end = strchr(labels, ',');
		char name[64], value[128];

		if (!eq || (end && end < eq))
			return;
		snprintf(name, sizeof(name), "%.*s", (int)(eq - labels), labels);
		snprintf(value, sizeof(value), "%.*s",
			 (int)(end ? (size_t)(end - eq - 1) : strlen(eq + 1)), eq + 1);
		expo_put_label(b, first, name, value);
		labels = end ? end + 1 : "";
	}
}

/* Where a row's value was counted, as labels (the names --per-* prints), but for those
 * a platform-neutral name sets (its own "channel=3" says more than the row). */
static void put_place(struct sbuf *b, bool *first, const struct pm_row *r, const char *set)
{
	if (r->device && r->device[0])
		expo_put_label(b, first, "device", r->device);
	put_int_label(b, first, "socket", sets_label(set, "socket") ? -1 : r->socket);
	put_int_label(b, first, "die", sets_label(set, "die") ? -1 : r->die);
	put_int_label(b, first, "channel", sets_label(set, "channel") ? -1 : r->channel);
	put_int_label(b, first, "subchannel", sets_label(set, "subchannel") ? -1 : r->subchannel);
	put_int_label(b, first, "cpu", r->cpu);
	if (r->domain && r->domain[0])
		expo_put_label(b, first, "domain", r->domain);
	if (r->place && r->place[0])
		expo_put_label(b, first, "place", r->place);
	if (r->cgroup && r->cgroup[0]) /* -G, --for-each-cgroup: one series per cgroup */
		expo_put_label(b, first, "cgroup", r->cgroup);
	/* --attribute-pods: the pod a row's memory traffic was apportioned to */
	if (r->pod_namespace && r->pod_namespace[0])
		expo_put_label(b, first, "namespace", r->pod_namespace);
	if (r->pod && r->pod[0])
		expo_put_label(b, first, "pod", r->pod);
	if (r->container && r->container[0])
		expo_put_label(b, first, "container", r->container);
}

/* ---- names ------------------------------------------------------------------------- */

/* A pack metric's platform-neutral name, or NULL. */
static const struct expo_name *neutral(const struct expo_meta *m, const struct pm_row *r)
{
	for (size_t i = 0; (r->flags & PM_ROW_METRIC) && i < m->n_names; i++)
		if (!strcmp(m->names[i].metric, r->event))
			return &m->names[i];
	return NULL;
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
 * pmumon_ + a metric's name in Prometheus's snake_case + suffix: a capital
 * after a small letter starts a word, capitals go small, anything else but
 * digits is '_', and no '_' doubles ("CpuClockUnhalted" ->
 * cpu_clock_unhalted, "DF_CH0_GBps" -> df_ch0_gbps, "ddr_read_bandwidth.all"
 * -> ddr_read_bandwidth_all).
 */
void expo_metric_name(char *buf, size_t size, const char *name, const char *suffix)
{
	size_t n = (size_t)snprintf(buf, size, "pmumon_");

	for (const char *p = name; *p && n + 2 < size; p++) {
		char c = *p;

		if (is_upper(c) && p > name && is_lower(p[-1]) && buf[n - 1] != '_')
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
	snprintf(buf + n, size - n, "%s", suffix);
}

/* ---- the plan ---------------------------------------------------------------------- */

/* Row i (part den or not) into family `name`, made with type, unit and help the first
 * time: 0 or -ENOMEM. */
static int join(struct expo_plan *p, const char *name, const char *type, const char *help, size_t i,
		bool den)
{
	struct expo_family *f = NULL;

	for (size_t k = 0; k < p->n_fams && !f; k++)
		if (!strcmp(p->fams[k].name, name))
			f = &p->fams[k];
	if (!f) {
		if (p->n_fams == p->cap_fams) {
			size_t cap = p->cap_fams ? 2 * p->cap_fams : 16;
			struct expo_family *n = realloc(p->fams, cap * sizeof(*n));

			if (!n)
				return -ENOMEM;
			p->fams = n;
			p->cap_fams = cap;
		}
		f = &p->fams[p->n_fams++];
		*f = (struct expo_family){ .name = strdup(name),
					   .type = type,
					   .help = strdup(help),
					   .den = den };
		if (!f->name || !f->help)
			return -ENOMEM;
	}
	f->rows = realloc(f->rows, (f->n_rows + 1) * sizeof(*f->rows));
	if (!f->rows)
		return -ENOMEM;
	f->rows[f->n_rows++] = i;
	if (!den)
		p->rows[i].fam = (size_t)(f - p->fams);
	return 0;
}

/* An event row: its kind, factor and family. */
static int plan_event(struct expo_plan *p, size_t i, const struct pm_row *r)
{
	struct expo_plan_row *pr = &p->rows[i];
	const struct base_unit *u = base_unit(r->unit);

	pr->factor = u ? u->factor : 1;
	if (r->flags & PM_ROW_SNAPSHOT) {
		pr->kind = EXPO_VALUE;
		return join(p, "pmumon_event_value", "gauge",
			    "An event that is a current value (a snapshot), not a count, as of "
			    "the last interval",
			    i, false);
	}
	pr->kind = EXPO_COUNT;
	return join(p, "pmumon_event_total", "counter",
		    "Events counted since pmumon started, in base units (the unit label: "
		    "seconds, bytes, joules; none for a count), each interval's count scaled for "
		    "multiplexing (count x enabled / running) and added",
		    i, false);
}

/* A metric row: its kind, factor and families (a ratio's two). */
static int plan_metric(struct expo_plan *p, size_t i, const struct pm_row *r,
		       const struct expo_name *nm)
{
	struct expo_plan_row *pr = &p->rows[i];
	const struct base_unit *u = base_unit(r->unit);
	const char *base = nm ? nm->name : r->event;
	char what[320], name[256], help[640];
	bool pct = u && !strcmp(u->unit, "%");
	int ret;

	if (nm)
		snprintf(what, sizeof(what),
			 "pmumon's platform-neutral %s (the pack metric in the metric label)",
			 nm->name);
	else
		snprintf(what, sizeof(what), "pmumon metric %s%s%s", r->event,
			 r->unit && r->unit[0] ? " in " : "", r->unit ? r->unit : "");
	pr->factor = u ? u->factor : 1;
	if (u && u->per_time) {
		pr->kind = EXPO_RATE;
		expo_metric_name(name, sizeof(name), base, u->amount);
		snprintf(help, sizeof(help),
			 "%s: the amount since pmumon started, each interval's value x its "
			 "length added, in base units; rate() is its mean over any window",
			 what);
	} else if (r->flags & PM_ROW_RATIO) {
		pr->kind = EXPO_RATIO;
		expo_metric_name(name, sizeof(name), base,
				 pct ? "_ratio_numerator_total" : "_numerator_total");
		snprintf(help, sizeof(help),
			 "%s: the numerator of the ratio, each interval's added since pmumon "
			 "started; rate(numerator) / rate(denominator) is the ratio over any window",
			 what);
		ret = join(p, name, "counter", help, i, false);
		if (ret < 0)
			return ret;
		expo_metric_name(name, sizeof(name), base,
				 pct ? "_ratio_denominator_total" : "_denominator_total");
		snprintf(help, sizeof(help),
			 "%s: the denominator of the ratio, each interval's added since pmumon "
			 "started",
			 what);
		return join(p, name, "counter", help, i, true);
	} else if (r->flags & PM_ROW_AMOUNT) {
		pr->kind = EXPO_AMOUNT;
		expo_metric_name(name, sizeof(name), base, u ? u->amount : "_total");
		snprintf(help, sizeof(help),
			 "%s: an amount, each interval's added since pmumon started", what);
	} else {
		pr->kind = EXPO_MEAN;
		expo_metric_name(name, sizeof(name), base, "_seconds_total");
		snprintf(help, sizeof(help),
			 "%s: each interval's value x its length added since pmumon started; "
			 "rate() is the value's mean over any window, each interval weighed by "
			 "its length",
			 what);
	}
	return join(p, name, "counter", help, i, false);
}

/* Row r's labels, '{metric="...",channel="3",...' without the closing brace ("": none). */
static char *labels_of(const struct pm_row *r, const struct expo_name *nm)
{
	const struct base_unit *u = base_unit(r->unit);
	struct sbuf b = { 0 };
	bool first = true;

	if (r->flags & PM_ROW_METRIC) {
		expo_put_label(&b, &first, "metric", r->event);
		put_set_labels(&b, &first, nm ? nm->labels : NULL);
	} else {
		put_pmu_label(&b, &first, r->event);
		expo_put_label(&b, &first, "event", r->event);
	}
	/* a unit pmumon cannot put in base units stays as it is, said in a label */
	if (u ? !(r->flags & PM_ROW_METRIC) && u->label : r->unit && r->unit[0])
		expo_put_label(&b, &first, "unit", u ? u->label : r->unit);
	put_place(&b, &first, r, nm ? nm->labels : NULL);
	sbuf_put(&b, "", 0);
	return b.err ? NULL : b.data;
}

void expo_plan_unref(struct expo_plan *p)
{
	if (!p || atomic_fetch_sub(&p->refs, 1) != 1)
		return;
	for (size_t i = 0; i < p->n_rows; i++)
		free(p->rows[i].labels);
	for (size_t k = 0; k < p->n_fams; k++) {
		free(p->fams[k].name);
		free(p->fams[k].help);
		free(p->fams[k].rows);
	}
	free(p->rows);
	free(p->fams);
	free(p);
}

struct expo_plan *expo_plan_ref(struct expo_plan *p)
{
	if (p)
		atomic_fetch_add(&p->refs, 1);
	return p;
}

int expo_plan_new(const struct pm_report *rep, const struct expo_meta *m, struct expo_plan **ret)
{
	struct expo_plan *p = calloc(1, sizeof(*p));
	int r = 0;

	if (!p)
		return -ENOMEM;
	atomic_init(&p->refs, 1);
	p->rows = calloc(rep->n_rows + 1, sizeof(*p->rows));
	p->n_rows = p->rows ? rep->n_rows : 0;
	if (!p->rows)
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i < rep->n_rows; i++) {
		const struct pm_row *row = &rep->rows[i];
		const struct expo_name *nm = neutral(m, row);

		p->rows[i].labels = labels_of(row, nm);
		if (!p->rows[i].labels)
			r = -ENOMEM;
		else if (row->flags & PM_ROW_METRIC)
			r = plan_metric(p, i, row, nm);
		else
			r = plan_event(p, i, row);
	}
	if (r < 0) {
		expo_plan_unref(p);
		return r;
	}
	*ret = p;
	return 0;
}
