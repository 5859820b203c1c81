// SPDX-License-Identifier: GPL-2.0-only
/*
 * One sample as Prometheus reads it: the text format 0.0.4 and OpenMetrics
 * 1.0.0. Every amount is a counter (plan.c says which kind of sum each row
 * is, acc.c adds the intervals up), so that rate() is right over any window
 * whatever the scrape interval; the trust in each value has counters of its
 * own (running, enabled, uncounted seconds) and the last interval's doubts
 * a gauge. A value never counted is absent, never 0. docs/serve.md is the
 * table of families and labels; tests/data/serve/ holds golden expositions
 * (tests/cli/test_serve.py, Golden): a rename is a decision.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve.h"

/* An unsigned integer in decimal, without printf, at o: its length (20 at most). */
static size_t fmt_u64(char *o, uint64_t v)
{
	char num[24];
	size_t i = sizeof(num);

	do
		num[--i] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	memcpy(o, num + i, sizeof(num) - i);
	return sizeof(num) - i;
}

/*
 * %.15g of a, or %.17g where 15 digits do not read back as a, as glibc's printf writes
 * them, for 1 <= a < 1e14 not whole (a multiplexed count's or a metric's amount: most
 * of an exposition's values): the digits from a's exact binary value in 128-bit
 * integers, rounded half to even as printf rounds, and whether 15 read back decided as
 * strtod would (the nearest double, ties to even). num: at least 32 bytes. The length
 * written, or 0 for another a (the caller prints it).
 */
#ifdef __SIZEOF_INT128__
__extension__ typedef unsigned __int128 u128;

size_t expo_fmt_fraction(char *num, double a)
{
	static const uint64_t p10[] = { 1ull,
					10ull,
					100ull,
					1000ull,
					10000ull,
					100000ull,
					1000000ull,
					10000000ull,
					100000000ull,
					1000000000ull,
					10000000000ull,
					100000000000ull,
					1000000000000ull,
					10000000000000ull,
					100000000000000ull,
					1000000000000000ull,
					10000000000000000ull };
	u128 num10, q, r, half, qs, dist;
	uint64_t bits, m, ip, frac;
	unsigned sh, d = 1, f = 0, n = 0;
	char *o = num;

	if (!(a >= 1 && a < 1e14))
		return 0;
	memcpy(&bits, &a, sizeof(bits));
	m = (bits & ((1ull << 52) - 1)) | 1ull << 52; /* a = m / 2^sh */
	sh = 1075 - (unsigned)(bits >> 52);	      /* 6 to 52: 1 <= a < 1e14 */
	if (!(m & ((1ull << sh) - 1)))
		return 0; /* whole */
	ip = m >> sh;
	while (d < 14 && ip >= p10[d])
		d++; /* the digits of its whole part */
	for (unsigned prec = 15; prec <= 17; prec += 2) {
		f = prec - d; /* digits after the point: 1 to 16 */
		num10 = (u128)m * p10[f];
		half = (u128)1 << (sh - 1);
		q = num10 >> sh; /* a x 10^f = num10 / 2^sh, rounded */
		r = num10 & ((half << 1) - 1);
		if (r > half || (r == half && (q & 1)))
			q++;
		if (prec == 17)
			break;
		/* does q / 10^f read back as a: is it nearer a than half of a's gap to its
		 * neighbours? In units of 1 / (10^f 2^sh) the gap is 10^f on both sides (a is
		 * not whole, so not a power of two with a narrower gap below), and 15 digits are
		 * never a tie (a midpoint has sh + 1 decimal places: more than 15 in all) */
		qs = q << sh;
		dist = qs > num10 ? qs - num10 : num10 - qs;
		if (2 * dist < (u128)p10[f])
			break;
	}
	ip = (uint64_t)(q / p10[f]); /* q up to 10^prec: 1 to 10^14 */
	frac = (uint64_t)(q % p10[f]);
	do
		o[n++] = (char)('0' + ip % 10);
	while ((ip /= 10) != 0);
	for (unsigned i = 0; i < n / 2; i++) {
		char c = o[i];

		o[i] = o[n - 1 - i];
		o[n - 1 - i] = c;
	}
	if (frac) {
		while (frac % 10 == 0) { /* %g: no trailing zeros */
			frac /= 10;
			f--;
		}
		o[n++] = '.';
		for (unsigned i = f; i-- > 0; frac /= 10)
			o[n + i] = (char)('0' + frac % 10);
		n += f;
	}
	o[n] = '\0';
	return n;
}
#else
size_t expo_fmt_fraction(char *num, double a)
{
	(void)num;
	(void)a;
	return 0; /* no 128-bit integers: printf */
}
#endif

/* A sample value at o (VALUE_MAX bytes): integers exactly, others in the fewest of 15 or 17
 * digits that read back as the same double. Its length. */
#define VALUE_MAX 40
static size_t fmt_value(char *o, double v)
{
	size_t n;

	if (isinf(v)) {
		memcpy(o, v > 0 ? "+Inf" : "-Inf", 4);
		return 4;
	}
	if (v == floor(v) && fabs(v) < 9007199254740992.0) {
		n = v < 0 ? 1 : 0;
		o[0] = '-';
		return n + fmt_u64(o + n, (uint64_t)fabs(v));
	}
	n = v < 0 ? 1 : 0;
	o[0] = '-';
	if (expo_fmt_fraction(o + n, fabs(v)) == 0) {
		snprintf(o, VALUE_MAX, "%.15g", v);
		if (strtod(o, NULL) != v)
			snprintf(o, VALUE_MAX, "%.17g", v);
		return strlen(o);
	}
	return n + strlen(o + n);
}

/* ---- the walk ---------------------------------------------------------------------- */

struct walk {
	const struct expo_sample *s;
	const struct expo_sink *k;
	long n;
};

static void family(struct walk *w, const char *name, const char *type, const char *unit,
		   const char *help)
{
	w->k->family(w->k->ud, name, type, unit, help);
}

static void series(struct walk *w, const char *name, const char *labels, const char *extra,
		   const char *extra_value, double v)
{
	w->k->series(w->k->ud, name, labels, extra, extra_value, v);
	w->n++;
}

static void seconds(struct walk *w, const char *name, const char *labels, uint64_t ns)
{
	if (w->k->seconds_ns)
		w->k->seconds_ns(w->k->ud, name, labels, ns);
	else
		w->k->series(w->k->ud, name, labels, NULL, NULL, (double)ns / 1e9);
	w->n++;
}

/* A family of one series without labels. */
static void scalar(struct walk *w, const char *name, const char *type, const char *unit,
		   const char *help, double v)
{
	family(w, name, type, unit, help);
	series(w, name, "", NULL, NULL, v);
}

/* The counter families of the plan: events, metrics (a ratio's parts in two). */
static void put_counters(struct walk *w)
{
	const struct expo_counts *c = w->s->counts;
	const struct expo_plan *p = c->plan;
	const struct pm_report *iv = w->s->interval;

	for (size_t k = 0; k < p->n_fams; k++) {
		const struct expo_family *f = &p->fams[k];

		family(w, f->name, f->type, NULL, f->help);
		for (size_t j = 0; j < f->n_rows; j++) {
			size_t i = f->rows[j];
			const struct expo_plan_row *pr = &p->rows[i];
			double v;

			if (pr->kind == EXPO_VALUE) {
				v = i < iv->n_rows ? iv->rows[i].value * pr->factor : NAN;
				if (!isnan(v))
					series(w, f->name, pr->labels, NULL, NULL, v);
				continue;
			}
			if (c->v[i].seen)
				series(w, f->name, pr->labels, NULL, NULL,
				       f->den ? c->v[i].den : c->v[i].amount);
		}
	}
}

/* Time counters of every row counted (not the current values): how far to trust a
 * window's rate, as rules over the same window. */
static void put_quality(struct walk *w)
{
	static const struct {
		const char *name, *help;
		size_t off;
	} q[] = {
		{ "pmumon_enabled_seconds_total",
		  "Seconds a series' counters were enabled (a metric: its least running input's), "
		  "summed over the intervals",
		  offsetof(struct expo_count, enabled_ns) },
		{ "pmumon_running_seconds_total",
		  "Seconds a series' counters ran: rate(running) / rate(enabled) below 1 is the "
		  "share of a window its value was extrapolated (multiplexed)",
		  offsetof(struct expo_count, running_ns) },
		{ "pmumon_uncounted_seconds_total",
		  "Seconds of intervals in which a series had no value (not counted, undefined, its "
		  "device gone): its counters did not grow then, which is not an idle device",
		  offsetof(struct expo_count, uncounted_ns) },
	};
	const struct expo_counts *c = w->s->counts;
	const struct expo_plan *p = c->plan;

	for (size_t k = 0; k < sizeof(q) / sizeof(q[0]); k++) {
		family(w, q[k].name, "counter", "seconds", q[k].help);
		for (size_t i = 0; i < p->n_rows; i++)
			if (p->rows[i].kind != EXPO_VALUE)
				seconds(w, q[k].name, p->rows[i].labels,
					*(const uint64_t *)((const char *)&c->v[i] + q[k].off));
	}
}

/* The last interval's doubts, one series each. */
static void put_flags(struct walk *w)
{
	const struct expo_plan *p = w->s->counts->plan;
	const struct pm_report *iv = w->s->interval;

	family(w, "pmumon_quality_flag", "gauge", NULL,
	       "1 for each doubt about a series' value in the last interval (flag: multiplexed, "
	       "not_counted, approximate, undefined, wrap_uncertain, reprogrammed, reset, "
	       "partial, lost, unsupported); absent when there is none");
	for (size_t i = 0; i < p->n_rows && i < iv->n_rows; i++) {
		unsigned flags = iv->rows[i].flags & (PM_ROW_QUALITY | PM_ROW_APPROXIMATE);

		for (unsigned bit = 1; flags; bit <<= 1) {
			if (!(flags & bit))
				continue;
			flags &= ~bit;
			series(w, "pmumon_quality_flag", p->rows[i].labels, "flag",
			       pm_row_flag_name(bit), 1);
		}
	}
}

void expo_reloads_note(struct expo_reloads *rl, bool ok, double now_s)
{
	rl->ok += ok;
	rl->failed += !ok;
	rl->last_failed = !ok;
	if (ok)
		rl->last_ok_s = now_s;
}

/* --attribute-proxy-error: the proxies' declared error the attributed series' intervals
 * hold (docs/attribution.md); absent when none is (their flag proxy_bias_excluded). */
static void put_proxy_error(struct walk *w)
{
	const struct pm_report *iv = w->s->interval;

	for (size_t i = 0; i < iv->n_rows; i++)
		if (iv->rows[i].flags & PM_ROW_PROXY_BIAS_INCLUDED) {
			scalar(w, "pmumon_attribution_proxy_error_ratio", "gauge", NULL,
			       "The proxies' relative error declared (--attribute-proxy-error, or the pack's) "
			       "(0.1: 10 %): the attributed series' 95 % intervals hold it; absent "
			       "when none is declared (flag proxy_bias_excluded)",
			       iv->rows[i].proxy_error);
			return;
		}
}

/* The rebuilds of the counting: SIGHUP's reloads, devices back, --max-series. */
static void put_reloads(struct walk *w, const struct expo_reloads *rl)
{
	scalar(w, "pmumon_config_last_reload_successful", "gauge", NULL,
	       "0 when the last SIGHUP's options (--config, --web.config.file) were refused and "
	       "serve goes on with the ones before; 1 otherwise",
	       rl->last_failed ? 0 : 1);
	family(w, "pmumon_config_reloads_total", "counter", NULL,
	       "SIGHUP reloads of the options, by result");
	series(w, "pmumon_config_reloads_total", "", "result", "success", (double)rl->ok);
	series(w, "pmumon_config_reloads_total", "", "result", "failure", (double)rl->failed);
	scalar(w, "pmumon_devices_back_total", "counter", NULL,
	       "Times counting was built again because a device that went away came back",
	       (double)rl->devices_back);
	scalar(w, "pmumon_series_dropped_total", "counter", NULL,
	       "Series a reload's coarser places dropped to stay within --max-series",
	       (double)rl->series_dropped);
	if (rl->last_ok_s > 0)
		scalar(w, "pmumon_config_last_reload_success_timestamp_seconds", "gauge", "seconds",
		       "Wall clock of the last good SIGHUP reload", rl->last_ok_s);
}

/* Each device of the last interval (and its socket, where it spans several): up or gone. */
static void put_devices(struct walk *w)
{
	const struct pm_report *iv = w->s->interval;

	family(w, "pmumon_device_up", "gauge", NULL,
	       "1 while a PMU instance counts, 0 once it went away (per-device rows only)");
	for (size_t i = 0; i < iv->n_rows; i++) {
		const struct pm_row *r = &iv->rows[i];
		struct sbuf b = { 0 };
		bool seen = false, first = true;

		if (!r->device || (r->flags & PM_ROW_METRIC))
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = iv->rows[j].device && !(iv->rows[j].flags & PM_ROW_METRIC) &&
			       !strcmp(iv->rows[j].device, r->device) &&
			       iv->rows[j].socket == r->socket;
		if (seen)
			continue;
		expo_put_label(&b, &first, "device", r->device);
		if (r->socket >= 0) {
			char num[16];

			snprintf(num, sizeof(num), "%d", r->socket);
			expo_put_label(&b, &first, "socket", num);
		}
		sbuf_put(&b, "", 0);
		if (!b.err)
			series(w, "pmumon_device_up", b.data, NULL, NULL,
			       (r->flags & PM_ROW_LOST) ? 0 : 1);
		sbuf_free(&b);
	}
}

static void put_health(struct walk *w)
{
	static const char *codes[HTTP__N] = { "400", "401", "403", "404", "405", "413",
					      "414", "431", "500", "503", "505" };
	static const char *refusals[REFUSED__N] = { "header_timeout", "address_limit",
						    "connection_limit" };
	const struct expo_meta *m = w->s->meta;
	const struct expo_health *h = w->s->health;
	struct sbuf info = { 0 };
	bool first = true;

	family(w, "pmumon_build_info", "info", NULL,
	       "pmumon's version, the platform it counts and whether the machine is simulated");
	expo_put_label(&info, &first, "version", m->version);
	if (m->platform && m->platform[0])
		expo_put_label(&info, &first, "platform", m->platform);
	expo_put_label(&info, &first, "simulated", m->simulated ? "true" : "false");
	sbuf_put(&info, "", 0);
	if (!info.err)
		series(w, "pmumon_build_info", info.data, NULL, NULL, 1);
	sbuf_free(&info);
	scalar(w, "pmumon_samples_total", "counter", NULL, "Samples the sampler took",
	       (double)h->samples);
	family(w, "pmumon_sampled_seconds_total", "counter", "seconds",
	       "Seconds the samples' intervals covered, by the counting's own clock");
	seconds(w, "pmumon_sampled_seconds_total", "", w->s->counts->sampled_ns);
	scalar(w, "pmumon_samples_late_total", "counter", NULL,
	       "Samples whose read started more than half an interval after its deadline",
	       (double)h->samples_late);
	scalar(w, "pmumon_sample_duration_seconds", "gauge", "seconds",
	       "How long the last sample's read took", h->read_s);
	scalar(w, "pmumon_sample_lateness_seconds", "gauge", "seconds",
	       "How late after its deadline the last sample's read started", h->late_s);
	scalar(w, "pmumon_last_sample_timestamp_seconds", "gauge", "seconds",
	       "Wall clock of the last sample, seconds since the epoch", h->last_sample_s);
	scalar(w, "pmumon_interval_seconds", "gauge", "seconds", "The sampler's interval (-I)",
	       m->interval_s);
	scalar(w, "pmumon_estimates_held_total", "counter", NULL,
	       "Times a counter would have gone down (an interval's estimate below 0) and held",
	       (double)w->s->counts->held);
	family(w, "pmumon_http_errors_total", "counter", NULL,
	       "Requests answered with an error, by status code");
	for (size_t i = 0; i < HTTP__N; i++)
		series(w, "pmumon_http_errors_total", "", "code", codes[i],
		       (double)h->access.errors[i]);
	family(w, "pmumon_http_refused_total", "counter", NULL,
	       "Connections the HTTP front closed before answering them, by reason");
	for (size_t i = 0; i < REFUSED__N; i++)
		series(w, "pmumon_http_refused_total", "", "reason", refusals[i],
		       (double)h->access.refused[i]);
	if (h->store) {
		scalar(w, "pmumon_store_written_total", "counter", NULL,
		       "Intervals serve --store wrote to its recording", (double)h->store_written);
		scalar(w, "pmumon_store_dropped_total", "counter", NULL,
		       "Intervals serve --store dropped: its queue was full (a slow disk)",
		       (double)h->store_dropped);
		scalar(w, "pmumon_store_failed", "gauge", NULL,
		       "1 once writing the recording failed (serve goes on without it)",
		       h->store_failed ? 1 : 0);
	}
	put_reloads(w, &h->reloads);
	put_devices(w);
}

long expo_walk(const struct expo_sample *s, const struct expo_sink *sink)
{
	struct walk w = { .s = s, .k = sink };
	const struct expo_meta *m = s->meta;

	put_counters(&w);
	put_quality(&w);
	put_flags(&w);
	put_proxy_error(&w);
	if (m->channel_peak > 0 && isfinite(m->channel_peak))
		scalar(&w, "pmumon_memory_peak_bytes_per_second", "gauge", NULL,
		       "The memory channel peak given with --define channel_peak (B/s): the "
		       "rules' saturation is a channel's rate() over it",
		       m->channel_peak);
	put_health(&w);
	if (s->more) {
		long n = s->more(s->more_arg, sink);

		w.n += n > 0 ? n : 0;
	}
	return w.n;
}

/* ---- the text formats -------------------------------------------------------------- */

struct text {
	struct sbuf *b;
	enum expo_format f;
};

/* HELP, TYPE (and UNIT) of a family. OpenMetrics names a counter's family without _total
 * and an info's without _info; the text format has no info type (a gauge). */
static void text_family(void *ud, const char *name, const char *type, const char *unit,
			const char *help)
{
	struct text *t = ud;
	size_t n = strlen(name);

	if (t->f == EXPO_OPENMETRICS && !strcmp(type, "counter") && n > 6 &&
	    !strcmp(name + n - 6, "_total"))
		n -= 6;
	if (t->f == EXPO_OPENMETRICS && !strcmp(type, "info") && n > 5 &&
	    !strcmp(name + n - 5, "_info"))
		n -= 5;
	if (t->f == EXPO_TEXT && !strcmp(type, "info"))
		type = "gauge";
	sbuf_printf(t->b, "# HELP %.*s %s\n# TYPE %.*s %s\n", (int)n, name, help, (int)n, name,
		    type);
	if (t->f == EXPO_OPENMETRICS && unit)
		sbuf_printf(t->b, "# UNIT %.*s %s\n", (int)n, name, unit);
}

/* name{labels[,extra="..."]} value\n */
static void text_series(void *ud, const char *name, const char *labels, const char *extra,
			const char *extra_value, double v)
{
	struct sbuf *b = ((struct text *)ud)->b;
	size_t nl = strlen(name), ll = labels ? strlen(labels) : 0, n = 0;
	bool first = !ll;
	char *o;

	if (extra) { /* a label of its own after the series' (a flag, a code) */
		sbuf_put(b, name, nl);
		if (ll)
			sbuf_put(b, labels, ll); /* starts with '{' */
		expo_put_label(b, &first, extra, extra_value);
		ll = 1;
		nl = 0;
	}
	o = sbuf_room(b, nl + ll + 3 + VALUE_MAX);
	if (!o)
		return;
	memcpy(o, name, nl);
	n = nl;
	if (!extra) {
		memcpy(o + n, labels, ll);
		n += ll;
	}
	if (ll)
		o[n++] = '}';
	o[n++] = ' ';
	n += fmt_value(o + n, v);
	o[n++] = '\n';
	sbuf_commit(b, n);
}

/* name{labels} S.NNNNNNNNN\n: whole nanoseconds as seconds, exactly, without a float. */
static void text_seconds(void *ud, const char *name, const char *labels, uint64_t ns)
{
	struct sbuf *b = ((struct text *)ud)->b;
	size_t nl = strlen(name), ll = labels ? strlen(labels) : 0, n;
	uint64_t f = ns % 1000000000u;
	int digits = 9;
	char *o = sbuf_room(b, nl + ll + 3 + 20 + 11);

	if (!o)
		return;
	memcpy(o, name, nl);
	n = nl;
	if (ll) {
		memcpy(o + n, labels, ll);
		n += ll;
		o[n++] = '}';
	}
	o[n++] = ' ';
	n += fmt_u64(o + n, ns / 1000000000u);
	while (digits > 0 && f % 10 == 0) { /* 1.5, not 1.500000000; a whole second has no point */
		f /= 10;
		digits--;
	}
	if (digits) {
		o[n++] = '.';
		for (int i = digits; i-- > 0; f /= 10)
			o[n + (size_t)i] = (char)('0' + f % 10);
		n += (size_t)digits;
	}
	o[n++] = '\n';
	sbuf_commit(b, n);
}

long expo_render(struct sbuf *b, enum expo_format f, const struct expo_sample *s)
{
	struct text t = { b, f };
	struct expo_sink sink = { text_family, text_series, text_seconds, &t };
	long n = expo_walk(s, &sink);

	if (f == EXPO_OPENMETRICS)
		sbuf_puts(b, "# EOF\n");
	return b->err ? b->err : n;
}
