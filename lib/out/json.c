// SPDX-License-Identifier: GPL-2.0-only
/*
 * JSON Lines: one object per value per report, every one self-contained and
 * carrying the schema version (docs/output.md). A value not counted is null,
 * never 0; so is an undefined one (0/0), with counted true and undefined true.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out/jsonw.h"
#include "out/out.h"
#include "util/util.h"

static void opt_int(struct pm_jw *w, const char *key, int v)
{
	pm_jw__key(w, key);
	if (v >= 0)
		pm_jw__int(w, v);
	else
		pm_jw__null(w);
}

/* The flags schema 2 added (unsupported: schema 3), each a boolean named by pm_row_flag_name. */
static const unsigned schema2_flags[] = {
	PM_ROW_UNDEFINED, PM_ROW_WRAP_UNCERTAIN, PM_ROW_REPROGRAMMED, PM_ROW_RESET,
	PM_ROW_PARTIAL,	  PM_ROW_LOST,		 PM_ROW_UNSUPPORTED,
};

/* Where the row was counted: device, socket, die, CPU, a pack's place, a domain. */
static void json_place(struct pm_jw *w, const struct pm_row *row)
{
	PM_JW_KEY(w, "device");
	pm_jw__string(w, row->device);
	opt_int(w, "socket", row->socket);
	opt_int(w, "die", row->die);
	opt_int(w, "cpu", row->cpu);
	if (row->place) { /* a PMU a pack places: "die0/ch2/sub1", or a channel */
		PM_JW_KEY(w, "place");
		pm_jw__string(w, row->place);
		opt_int(w, "channel", row->channel);
		opt_int(w, "subchannel", row->subchannel);
	}
	if (row->domain) { /* the L3, die or socket an uncore CPU row reads for */
		PM_JW_KEY(w, "domain");
		pm_jw__string(w, row->domain);
	}
}

/* The flags as booleans, as text: every key, true or false. */
static void flag_keys(struct pm_jw *w, unsigned flags, bool counted)
{
	PM_JW_KEY(w, "multiplexed");
	pm_jw__bool(w, flags & PM_ROW_MULTIPLEXED);
	PM_JW_KEY(w, "counted");
	pm_jw__bool(w, counted);
	PM_JW_KEY(w, "snapshot");
	pm_jw__bool(w, flags & PM_ROW_SNAPSHOT);
	PM_JW_KEY(w, "metric");
	pm_jw__bool(w, flags & PM_ROW_METRIC);
	PM_JW_KEY(w, "approximate");
	pm_jw__bool(w, flags & PM_ROW_APPROXIMATE);
	for (size_t f = 0; f < sizeof(schema2_flags) / sizeof(schema2_flags[0]); f++) {
		pm_jw__key(w, pm_row_flag_name(schema2_flags[f]));
		pm_jw__bool(w, flags & schema2_flags[f]);
	}
}

/*
 * The flag keys of a row: the same text for every row with the same flags
 * (all false but counted, mostly), so the text of the last flags seen is
 * kept in the writer and copied.
 */
static void json_flags(struct pm_out *o, struct pm_jw *w, unsigned flags, bool counted)
{
	unsigned key = flags << 1 | counted;
	struct pm_jw tw;

	if (!o->flags_have || o->flags_key != key) {
		o->flags_text.len = 0;
		pm_jw__init(&tw, &o->flags_text);
		tw.depth = 1;
		tw.need_comma[1] = true; /* after running_pct */
		flag_keys(&tw, flags, counted);
		if (o->flags_text.err) {
			o->flags_text.err = 0;
			o->flags_have = false;
			flag_keys(w, flags, counted); /* written as it goes */
			return;
		}
		o->flags_key = key;
		o->flags_have = true;
	}
	pm_obuf__put(w->b, o->flags_text.p, o->flags_text.len);
	w->need_comma[w->depth] = true;
}

#define PUT_LIT(b, lit) pm_obuf__put((b), (lit), sizeof(lit) - 1)

/* A number, or null when there is none (not counted, not finite). */
static void put_num(struct pm_obuf *b, double v)
{
	if (isfinite(v))
		pm_obuf__double(b, v);
	else
		PUT_LIT(b, "null");
}

/* covered or instances: a count, null for a row that stands for no instance */
static void put_count(struct pm_obuf *b, bool any, unsigned n)
{
	if (any)
		pm_obuf__u64(b, n);
	else
		PUT_LIT(b, "null");
}

/*
 * The value, its raw count and times, every flag and the coverage, after
 * the row's place (so each key comes with its comma): written as fixed
 * fragments, the keys' text known when this is compiled.
 */
static void json_value(struct pm_out *o, struct pm_jw *w, const struct pm_row *row, bool counted)
{
	struct pm_obuf *b = w->b;

	double lo, hi;
	unsigned bound;

	PUT_LIT(b, ",\"value\":");
	put_num(b, counted ? row->value : NAN);
	/* the 95 % interval (schema 4, docs/bounds.md): null where there is none, and why */
	pm_out__bounds(row, &lo, &hi, &bound);
	PUT_LIT(b, ",\"lo\":");
	put_num(b, lo);
	PUT_LIT(b, ",\"hi\":");
	put_num(b, hi);
	PUT_LIT(b, ",\"bound\":\"");
	pm_obuf__puts(b, pm_row_bound_name(bound) ? pm_row_bound_name(bound) : "");
	PUT_LIT(b, "\"");
	PUT_LIT(b, ",\"unit\":");
	w->need_comma[w->depth] = false;
	pm_jw__string(w, row->unit);
	PUT_LIT(b, ",\"raw\":");
	if (row->flags & PM_ROW_METRIC)
		PUT_LIT(b, "null"); /* a metric has no raw count */
	else
		pm_obuf__u64(b, row->raw);
	PUT_LIT(b, ",\"enabled_ns\":");
	pm_obuf__u64(b, row->enabled_ns);
	PUT_LIT(b, ",\"running_ns\":");
	pm_obuf__u64(b, row->running_ns);
	PUT_LIT(b, ",\"running_pct\":");
	put_num(b, 100.0 * row->running);
	w->need_comma[w->depth] = true;
	json_flags(o, w, row->flags, counted);
	PUT_LIT(b, ",\"covered\":");
	put_count(b, row->instances, row->covered);
	PUT_LIT(b, ",\"instances\":");
	put_count(b, row->instances, row->instances);
	w->need_comma[w->depth] = true;
}

/*
 * What every row of a report begins with: schema, type, times, timestamp
 * and target are the report's, so they are written once into o->pre and
 * copied into each row; the run's tail (simulated, sim_platform) likewise.
 */
static void report_parts(struct pm_out *o, const struct pm_report *r)
{
	char ts[40];
	struct pm_jw w;

	pm_fmt_timestamp(ts, sizeof(ts), r->wall_ns);
	o->pre.len = 0;
	pm_jw__init(&w, &o->pre);
	pm_jw__object_begin(&w);
	PM_JW_KEY(&w, "schema");
	pm_jw__int(&w, PM_JSON_SCHEMA);
	PM_JW_KEY(&w, "type");
	pm_jw__string(&w, r->interval ? "interval" : "total");
	PM_JW_KEY(&w, "time_s");
	pm_jw__double(&w, (double)r->t_ns / 1e9);
	PM_JW_KEY(&w, "duration_s");
	pm_jw__double(&w, (double)r->duration_ns / 1e9);
	PM_JW_KEY(&w, "timestamp");
	pm_jw__string(&w, ts);
	PM_JW_KEY(&w, "target");
	pm_jw__string(&w, o->opts.target);
	o->pre_len = o->pre.len;
	/* the tail, after the row's own keys: a comma comes before it */
	w.need_comma[w.depth] = true;
	PM_JW_KEY(&w, "simulated");
	pm_jw__bool(&w, o->opts.simulated);
	if (o->opts.simulated) {
		PM_JW_KEY(&w, "sim_platform");
		pm_jw__string(&w, o->opts.sim_platform);
	}
	if (o->opts.cpuid && o->opts.cpuid[0]) { /* the counting machine's, for an import */
		PM_JW_KEY(&w, "cpuid");
		pm_jw__string(&w, o->opts.cpuid);
	}
	pm_jw__object_end(&w);
	pm_obuf__putc(&o->pre, '\n');
}

/* A row's event and place as JSON, after the report's keys. */
static void make_label(const struct pm_out *o, struct pm_obuf *b, enum pm_aggr aggr,
		       const struct pm_row *row)
{
	struct pm_jw w;

	(void)o;
	(void)aggr;
	pm_jw__init(&w, b);
	w.depth = 1;
	w.need_comma[1] = true;
	PM_JW_KEY(&w, "event");
	pm_jw__string(&w, row->event);
	json_place(&w, row);
}

static int json_report(struct pm_out *o, const struct pm_report *r)
{
	const struct pm_out_label *l;
	struct pm_jw w;

	report_parts(o, r);
	if (o->pre.err)
		return o->pre.err;
	for (size_t i = 0; i < r->n_rows; i++) {
		const struct pm_row *row = &r->rows[i];
		/* an undefined value (0/0) was counted: it is null, but says why */
		bool counted = !(row->flags & PM_ROW_NOT_COUNTED);

		pm_obuf__put(&o->buf, o->pre.p, o->pre_len);
		l = pm_out__label(o, i, r->aggr, row, make_label);
		if (!l)
			return -ENOMEM;
		pm_obuf__put(&o->buf, l->text, l->len);
		pm_jw__init(&w, &o->buf);
		w.depth = 1; /* inside the row's object, after its event and place */
		w.need_comma[1] = true;
		json_value(o, &w, row, counted);
		PUT_LIT(&o->buf, ",\"source\":");
		w.need_comma[w.depth] = false;
		pm_jw__string(&w, row->source);
		if (row->cgroup) { /* perf -j's "cgroup" */
			PUT_LIT(&o->buf, ",\"cgroup\":");
			w.need_comma[w.depth] = false;
			pm_jw__string(&w, row->cgroup);
		}
		if (row->flags & PM_ROW_ATTRIBUTED) { /* docs/attribution.md: its pod, its doubt */
			static const char *const key[] = { "pod_namespace", "pod", "container" };
			const char *val[] = { row->pod_namespace, row->pod, row->container };

			PUT_LIT(&o->buf, ",\"attributed\":true,\"proxies_exceed_total\":");
			if (row->flags & PM_ROW_ATTRIB_SCALED)
				PUT_LIT(&o->buf, "true");
			else
				PUT_LIT(&o->buf, "false");
			/* the proxies' declared error lo and hi hold; null: none, they exclude it */
			if (row->flags & PM_ROW_PROXY_BIAS_EXCLUDED)
				PUT_LIT(&o->buf, ",\"proxy_bias_excluded\":true");
			else
				PUT_LIT(&o->buf, ",\"proxy_bias_excluded\":false");
			PUT_LIT(&o->buf, ",\"proxy_error_pct\":");
			put_num(&o->buf, row->flags & PM_ROW_PROXY_BIAS_INCLUDED ?
						 100 * row->proxy_error :
						 NAN);
			for (size_t k = 0; k < 3; k++) {
				if (!val[k])
					continue;
				pm_obuf__put(&o->buf, ",\"", 2);
				pm_obuf__put(&o->buf, key[k], strlen(key[k]));
				pm_obuf__put(&o->buf, "\":", 2);
				w.need_comma[w.depth] = false;
				pm_jw__string(&w, val[k]);
			}
		}
		if (r->runs > 1) { /* -r: perf -j's "variance", the mean's stddev in % */
			PUT_LIT(&o->buf, ",\"spread_pct\":");
			put_num(&o->buf, counted ? row->spread_pct : NAN);
			PUT_LIT(&o->buf, ",\"runs\":");
			pm_obuf__u64(&o->buf, r->runs);
		}
		pm_obuf__put(&o->buf, o->pre.p + o->pre_len, o->pre.len - o->pre_len);
	}
	return pm_obuf__flush(&o->buf, o->f); /* one write per report */
}

const struct pm_out_ops pm_out_json = { .report = json_report };
