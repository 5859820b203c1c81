// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory traffic per cgroup (docs/attribution.md): the uncore total a
 * platform pack's "Attribution" names, apportioned to listed cgroups by the
 * core proxy events counted in each, the rest as <unattributed>. The event
 * list gets the total's metric and the proxies in cgroup mode
 * (pm_evlist__attribute_cgroups); a session's reports get one row per
 * cgroup and one for the rest in each bucket (the machine, or each socket),
 * after the metric rows (report.c).
 *
 * For a bucket with total U (in the total metric's unit) and the cgroups'
 * proxies P_g (their counts x bytes, in U's unit): A_g = P_g when their sum
 * S <= U, else P_g x U / S (flagged); the rest is U - sum(A_g). Per socket,
 * a cgroup's traffic into socket s's DRAM is its local fills on s's CPUs,
 * its remote fills on the other socket's, and its prefetches split as each
 * socket's CPUs' fills are (a model choice: a prefetch does not say where).
 */
#include "attrib.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aggr.h"
#include "ctx.h"
#include "db/pack.h"
#include "metric/metric.h"
#include "util/util.h"

struct pm_attrib {
	const struct pm_attrib_recipe *recipe; /* the pack's, owned by the context's db */
	size_t total_metric;		       /* its index in the list's metrics */
	size_t n_cg;
	struct pm_attrib_target *cg; /* strings owned */
	/* per cgroup and proxy, the events [first, first + n) that count it */
	size_t *ev_first, *ev_n;
	/* the proxies' declared relative error (the pack's, or the caller's); NaN: none */
	double proxy_error;
};

/* A session's attribution rows: n_buckets x (n_cg + 1), each bucket's rest last. */
struct pm_attrib_rows {
	size_t n_buckets;
	int *socket;	   /* per bucket: -1 the machine */
	size_t *row_proxy; /* per event row: proxy index + 1 of cgroup row_cg, 0 none */
	size_t *row_cg;
};

static void free_targets(struct pm_attrib *a)
{
	for (size_t i = 0; a && i < a->n_cg; i++) {
		free((char *)a->cg[i].cgroup);
		free((char *)a->cg[i].pod_namespace);
		free((char *)a->cg[i].pod);
		free((char *)a->cg[i].container);
	}
}

void pm_attrib__free(struct pm_attrib *a)
{
	if (!a)
		return;
	free_targets(a);
	free(a->cg);
	free(a->ev_first);
	free(a->ev_n);
	free(a);
}

/* Is a the same cgroup as b, or one of its ancestors (a's counts include b's)? */
static bool contains(const char *a, const char *b)
{
	const char *x, *y;
	size_t nx = pm_cgroup_trim(a, &x), ny = pm_cgroup_trim(b, &y);

	if (nx == 0)
		return true; /* the root holds every cgroup */
	return nx <= ny && !strncmp(x, y, nx) && (ny == nx || y[nx] == '/');
}

static int check_targets(const struct pm_attrib_target *t, size_t n, struct pm_diag *reterr)
{
	for (size_t i = 0; i < n; i++) {
		if (!t[i].cgroup || !t[i].cgroup[0] || strstr(t[i].cgroup, "..")) {
			pm_diag_set(reterr,
				    "name a directory under the cgroup2 mount, without '..'",
				    "'%s' is no cgroup to attribute to",
				    t[i].cgroup ? t[i].cgroup : "");
			return -EINVAL;
		}
		for (size_t j = 0; j < n; j++) {
			if (i == j || !t[j].cgroup || !contains(t[i].cgroup, t[j].cgroup))
				continue;
			pm_diag_set(reterr,
				    "list cgroups none of which holds another: a cgroup's counts "
				    "include its children's, so theirs would be counted twice",
				    "cgroup '%s' %s '%s'", t[i].cgroup,
				    contains(t[j].cgroup, t[i].cgroup) ? "is listed twice, as" :
									 "holds",
				    t[j].cgroup);
			return -EINVAL;
		}
	}
	return 0;
}

static int copy_targets(struct pm_attrib *a, const struct pm_attrib_target *t, size_t n)
{
	a->cg = calloc(n + 1, sizeof(*a->cg));
	if (!a->cg)
		return -ENOMEM;
	a->n_cg = n;
	for (size_t i = 0; i < n; i++) {
		a->cg[i] = (struct pm_attrib_target){ .cgroup = strdup(t[i].cgroup),
						      .pod_namespace = pm_strdup0(
							      t[i].pod_namespace),
						      .pod = pm_strdup0(t[i].pod),
						      .container = pm_strdup0(t[i].container) };
		if (!a->cg[i].cgroup || (t[i].pod_namespace && !a->cg[i].pod_namespace) ||
		    (t[i].pod && !a->cg[i].pod) || (t[i].container && !a->cg[i].container))
			return -ENOMEM;
	}
	return 0;
}

int pm_evlist__attribute_cgroups(struct pm_evlist *l, const struct pm_attrib_target *t, size_t n,
				 struct pm_diag *reterr)
{
	struct pm_diag scratch;
	struct pm_diag *d = reterr ? reterr : &scratch;
	const struct pm_attrib_recipe *rc;
	struct pm_attrib *a = NULL;
	size_t n_ev, n_inst, n_metrics;
	int n_groups, r;

	pm_diag__init(d);
	if (!l || (!t && n) || l->attrib)
		return -EINVAL;
	for (size_t e = 0; e < l->n_ev; e++)
		if (l->ev[e].cgroup) {
			pm_diag_set(d, "attribute without counting events in cgroups too",
				    "'%s' is counted in a cgroup already: attribution counts its "
				    "proxies in each cgroup itself",
				    l->ev[e].label);
			return -EINVAL;
		}
	r = check_targets(t, n, d);
	if (r < 0)
		return r;
	rc = l->ctx->db ? pm_db__attribution(l->ctx->db) : NULL;
	if (!rc) {
		pm_diag_set(d,
			    "attribution needs a platform pack that names an uncore total and its "
			    "proxies: yitian710 and amdzen2 do (docs/attribution.md)",
			    "no platform pack here says how to apportion memory traffic to cgroups "
			    "(packs: %s)",
			    l->ctx->db && pm_db__matched_names(l->ctx->db)[0] ?
				    pm_db__matched_names(l->ctx->db) :
				    "none");
		return -EOPNOTSUPP;
	}
	n_ev = l->n_ev, n_inst = l->n_inst, n_metrics = l->n_metrics, n_groups = l->n_groups;
	a = calloc(1, sizeof(*a));
	r = a ? copy_targets(a, t, n) : -ENOMEM;
	if (r == 0) {
		a->recipe = rc;
		a->proxy_error = rc->proxy_error;
		a->ev_first = calloc(n * rc->n_proxies + 1, sizeof(*a->ev_first));
		a->ev_n = calloc(n * rc->n_proxies + 1, sizeof(*a->ev_n));
		r = a->ev_first && a->ev_n ? 0 : -ENOMEM;
	}
	/* the total, counted as ever (on the uncore, whoever runs) */
	if (r == 0)
		r = pm_evlist__add_metrics(l, rc->total, d);
	if (r == 0) {
		a->total_metric = SIZE_MAX;
		/* the one just added, or the list's own when it had the metric already */
		for (size_t m = 0; m < l->n_metrics && a->total_metric == SIZE_MAX; m++)
			if (!strcmp(l->metrics[m].def->name, rc->total) && !l->metrics[m].cgroup)
				a->total_metric = m;
		r = a->total_metric == SIZE_MAX ? -ENOENT : 0;
	}
	/* each proxy in each cgroup */
	for (size_t g = 0; g < n && r == 0; g++) {
		for (size_t p = 0; p < rc->n_proxies && r == 0; p++) {
			size_t first = l->n_ev, k = g * rc->n_proxies + p;

			r = pm_evlist__add(l, rc->proxies[p].event, d);
			for (size_t e = first; e < l->n_ev && r == 0; e++)
				r = pm_evlist__set_cgroup(l, e, t[g].cgroup);
			a->ev_first[k] = first;
			a->ev_n[k] = l->n_ev - first;
		}
	}
	if (r < 0) {
		for (size_t i = n_metrics; i < l->n_metrics; i++)
			pm_metric__done(&l->metrics[i]);
		l->n_metrics = n_metrics;
		pm_evlist_truncate(l, n_ev, n_inst, n_groups);
		pm_attrib__free(a);
		if (r == -ENOMEM && !d->msg[0])
			pm_diag_set(d, NULL, "out of memory");
		return r;
	}
	l->attrib = a;
	l->attrib_free = pm_attrib__free;
	return 0;
}

int pm_evlist__attribute_proxy_error(struct pm_evlist *l, double rel)
{
	if (!l || !l->attrib || !(isnan(rel) || (rel >= 0 && rel < 1)))
		return -EINVAL;
	l->attrib->proxy_error = rel;
	return 0;
}

/* ---- rows ----------------------------------------------------------------------- */

static bool is_total_row(const struct pm_session *s, size_t i)
{
	return s->rows->mrows[i].metric == s->l->attrib->total_metric;
}

int pm_attrib__build_rows(struct pm_session *s)
{
	const struct pm_attrib *a = s->l->attrib;
	struct pm_rows *rw = s->rows;
	struct pm_attrib_rows *ar;
	bool per_socket, local = false;

	if (!a)
		return 0;
	ar = calloc(1, sizeof(*ar));
	if (!ar)
		return -ENOMEM;
	rw->arows = ar;
	ar->row_proxy = calloc(rw->n_rows + 1, sizeof(*ar->row_proxy));
	ar->row_cg = calloc(rw->n_rows + 1, sizeof(*ar->row_cg));
	ar->socket = calloc(2, sizeof(*ar->socket));
	if (!ar->row_proxy || !ar->row_cg || !ar->socket)
		return -ENOMEM;
	for (size_t r = 0; r < rw->n_rows; r++)
		for (size_t k = 0; k < a->n_cg * a->recipe->n_proxies; k++)
			if (rw->acc[r].event >= a->ev_first[k] &&
			    rw->acc[r].event < a->ev_first[k] + a->ev_n[k]) {
				ar->row_proxy[r] = k % a->recipe->n_proxies + 1;
				ar->row_cg[r] = k / a->recipe->n_proxies;
			}
	for (size_t p = 0; p < a->recipe->n_proxies; p++)
		local |= a->recipe->proxies[p].dram != PM_ATTRIB_ANY;
	/* per socket: a 2-socket machine whose total's rows and proxies' rows name sockets */
	per_socket = local && s->opts.aggr == PM_AGGR_SOCKET && pm_ctx__package_count(s->ctx) == 2;
	ar->n_buckets = per_socket ? 2 : 1;
	ar->socket[0] = per_socket ? 0 : -1;
	ar->socket[1] = per_socket ? 1 : -1;
	rw->n_arows = ar->n_buckets * (a->n_cg + 1);
	return 0;
}

void pm_attrib__rows_done(struct pm_session *s)
{
	struct pm_attrib_rows *ar = s->rows ? s->rows->arows : NULL;

	if (!ar)
		return;
	free(ar->row_proxy);
	free(ar->row_cg);
	free(ar->socket);
	free(ar);
	s->rows->arows = NULL;
}

static size_t first_arow(const struct pm_session *s)
{
	return s->rows->n_rows + s->rows->n_mrows;
}

void pm_attrib__label_rows(struct pm_session *s, struct pm_row *rows)
{
	const struct pm_attrib *a = s->l->attrib;
	const struct pm_attrib_rows *ar = s->rows->arows;
	const struct pm_row *tmpl = NULL;

	if (!a || !ar)
		return;
	for (size_t i = 0; i < s->rows->n_mrows && !tmpl; i++)
		if (is_total_row(s, i))
			tmpl = &rows[s->rows->n_rows + i];
	for (size_t b = 0; b < ar->n_buckets; b++) {
		for (size_t g = 0; g <= a->n_cg; g++) {
			struct pm_row *row = &rows[first_arow(s) + b * (a->n_cg + 1) + g];
			const struct pm_attrib_target *t = g < a->n_cg ? &a->cg[g] : NULL;

			*row = (struct pm_row){ .event = tmpl ? tmpl->event : a->recipe->total,
						.unit = tmpl ? tmpl->unit : "",
						.cgroup = t ? t->cgroup : PM_ATTRIB_UNATTRIBUTED,
						.pod_namespace = t ? t->pod_namespace : NULL,
						.pod = t ? t->pod : NULL,
						.container = t ? t->container : NULL,
						.cpu = -1,
						.die = -1,
						.socket = ar->socket[b],
						.channel = -1,
						.subchannel = -1 };
		}
	}
}

/* A proxy row's value: NaN for a cgroup that never ran where it was counted is 0 traffic. */
static bool never_ran(const struct pm_row *r)
{
	return isnan(r->value) && r->enabled_ns == 0 && !(r->flags & PM_ROW_UNSUPPORTED);
}

static void take(struct pm_row *dst, const struct pm_row *src)
{
	dst->flags |= src->flags & PM_ROW_QUALITY;
	if (!isnan(src->running) && (isnan(dst->running) || src->running < dst->running)) {
		dst->running = src->running;
		dst->enabled_ns = src->enabled_ns;
		dst->running_ns = src->running_ns;
	}
}

/* An input of a bucket's rows: its value, 95 % interval and PM_BOUND_*. */
struct bucket_in {
	double v, lo, hi;
	unsigned bound;
};

/* Row r added to input x (scaled by f): values and ends add, the worst bound is kept. */
static void add_in(struct bucket_in *x, const struct pm_row *r, double f)
{
	if (never_ran(r))
		return; /* 0, exactly */
	x->v += r->value * f;
	x->lo += r->lo * f;
	x->hi += r->hi * f;
	if (r->bound != PM_BOUND_NO_VALUE || isnan(r->value))
		x->bound = PM_MAX(x->bound, isnan(r->value) ? PM_BOUND_NO_VALUE : r->bound);
}

/*
 * A cgroup's traffic into the bucket from its proxies' bytes x[socket * 3 + kind] (kind:
 * PM_ATTRIB_ANY, _LOCAL, _REMOTE; socket the CPUs they were counted on): into socket sk, its
 * local fills on sk, its remote fills on the other, and each socket's prefetches split as its
 * fills are; the machine (sk < 0): all of it.
 */
static double into_bucket(const double *x, int sk)
{
	const double *me, *ot;
	double fm, fo;

	if (sk < 0)
		return x[0] + x[1] + x[2] + x[3] + x[4] + x[5];
	me = &x[sk * 3];
	ot = &x[(1 - sk) * 3];
	fm = me[PM_ATTRIB_LOCAL] + me[PM_ATTRIB_REMOTE];
	fo = ot[PM_ATTRIB_LOCAL] + ot[PM_ATTRIB_REMOTE];
	return me[PM_ATTRIB_LOCAL] + ot[PM_ATTRIB_REMOTE] +
	       me[PM_ATTRIB_ANY] * (fm > 0 ? me[PM_ATTRIB_LOCAL] / fm : 1) +
	       ot[PM_ATTRIB_ANY] * (fo > 0 ? ot[PM_ATTRIB_REMOTE] / fo : 0);
}

/* The cgroups' share of total u when their proxies add up to sum. */
static double capped_scale(double sum, double u)
{
	return sum > u ? u / sum : 1;
}

/* A move of a row's value to a and b: what propagate (metric.c) adds to its down and up. */
static void moves(double v, double a, double b, double *down, double *up)
{
	*down += v - fmin(v, fmin(a, b));
	*up += fmax(v, fmax(a, b)) - v;
}

/*
 * One bucket's attributed values and their intervals. The inputs are the
 * total u and each cgroup's proxy bytes x[g * 6 + ...]; a row's interval
 * moves each input to its lo and its hi, the others at their values, and
 * adds the moves up input by input, as a metric's (docs/bounds.md): no
 * independence assumed. An input moves its own cgroup's row, and every
 * row through the cap's scale: A_h = P_h x scale, so its move for h is P_h
 * times the scale's, added up over the inputs not h's own (DSD, DSU).
 */
static void bucket_rows(const struct bucket_in *u, const struct bucket_in *x, size_t n_cg, int sk,
			double to_unit, double bias, struct pm_row *out)
{
	double *pv = calloc(n_cg * 3 + 1, sizeof(*pv)), *own_d, *own_u, dsd = 0, dsu = 0;
	double sum = 0, scale, rest, rd = 0, ru = 0;
	unsigned worst = u->bound;

	/* a declared proxy error is an interval, as a measured input's (the exact are not) */
	if (!isnan(bias) && bias > 0 && n_cg)
		worst = PM_MAX(worst, PM_BOUND_MEASURED);

	if (!pv) {
		for (size_t g = 0; g <= n_cg; g++) {
			out[g].value = out[g].lo = out[g].hi = NAN;
			out[g].bound = PM_BOUND_NO_VALUE;
		}
		return;
	}
	own_d = pv + n_cg, own_u = own_d + n_cg;
	for (size_t g = 0; g < n_cg; g++) {
		double v[6];

		for (int j = 0; j < 6; j++) {
			v[j] = x[g * 6 + (size_t)j].v;
			worst = PM_MAX(worst, x[g * 6 + (size_t)j].bound);
		}
		pv[g] = into_bucket(v, sk) * to_unit;
		sum += pv[g];
	}
	if (isnan(u->v) || isnan(sum)) {
		/* no total, or a cgroup's proxies unknown: nothing says what the cap is */
		for (size_t g = 0; g <= n_cg; g++) {
			out[g].value = out[g].lo = out[g].hi = NAN;
			out[g].bound = PM_BOUND_NO_VALUE;
		}
		free(pv);
		return;
	}
	scale = capped_scale(sum, u->v);
	if (u->bound == PM_BOUND_MEASURED) { /* the total's move: the scale's, the rest's */
		double sa = capped_scale(sum, u->lo), sb = capped_scale(sum, u->hi);

		moves(scale, sa, sb, &dsd, &dsu);
		moves(fmax(u->v - sum, 0), fmax(u->lo - sum, 0), fmax(u->hi - sum, 0), &rd, &ru);
	}
	for (size_t g = 0; g < n_cg; g++) {
		double v[6], self_d = 0, self_u = 0, a_g = pv[g] * scale;

		for (int j = 0; j < 6; j++)
			v[j] = x[g * 6 + (size_t)j].v;
		for (int j = 0; j < 6; j++) {
			const struct bucket_in *xi = &x[g * 6 + (size_t)j];
			double pa, pb, sa, sb;

			if (xi->bound != PM_BOUND_MEASURED || (xi->lo == xi->v && xi->hi == xi->v))
				continue;
			v[j] = xi->lo;
			pa = into_bucket(v, sk) * to_unit;
			v[j] = xi->hi;
			pb = into_bucket(v, sk) * to_unit;
			v[j] = xi->v;
			sa = capped_scale(sum - pv[g] + pa, u->v);
			sb = capped_scale(sum - pv[g] + pb, u->v);
			moves(a_g, pa * sa, pb * sb, &self_d, &self_u);
			moves(scale, sa, sb, &own_d[g], &own_u[g]);
			moves(fmax(u->v - sum, 0), fmax(u->v - (sum - pv[g] + pa), 0),
			      fmax(u->v - (sum - pv[g] + pb), 0), &rd, &ru);
		}
		if (!isnan(bias) && bias > 0) {
			/* the proxies' declared bias: the traffic within [P / (1 + b), P / (1 - b)]
			 * of its proxies P, one more input moved to each end as the others */
			double pa = pv[g] / (1 + bias), pb = pv[g] / (1 - bias);
			double sa = capped_scale(sum - pv[g] + pa, u->v);
			double sb = capped_scale(sum - pv[g] + pb, u->v);

			moves(a_g, pa * sa, pb * sb, &self_d, &self_u);
			moves(scale, sa, sb, &own_d[g], &own_u[g]);
			moves(fmax(u->v - sum, 0), fmax(u->v - (sum - pv[g] + pa), 0),
			      fmax(u->v - (sum - pv[g] + pb), 0), &rd, &ru);
		}
		dsd += own_d[g];
		dsu += own_u[g];
		out[g].value = a_g;
		out[g].lo = a_g - self_d; /* the other inputs' moves below */
		out[g].hi = a_g + self_u;
	}
	for (size_t g = 0; g < n_cg; g++) {
		out[g].lo -= pv[g] * (dsd - own_d[g]);
		out[g].hi += pv[g] * (dsu - own_u[g]);
	}
	sum = 0;
	for (size_t g = 0; g < n_cg; g++)
		sum += out[g].value;
	rest = u->v - sum;
	if (rest < 0 && rest > -1e-9 * fabs(u->v))
		rest = 0; /* rounding of the scaled shares */
	out[n_cg].value = rest;
	out[n_cg].lo = rest - rd;
	out[n_cg].hi = rest + ru;
	for (size_t g = 0; g <= n_cg; g++) {
		struct pm_row *o = &out[g];

		o->bound = worst;
		if (scale < 1) /* the proxies exceeded the total: scaled down to it */
			o->flags |= PM_ROW_ATTRIB_SCALED;
		if (!isfinite(o->value)) {
			o->lo = o->hi = NAN;
			o->bound = PM_BOUND_NO_VALUE;
		} else if (worst == PM_BOUND_EXACT) {
			o->lo = o->hi = o->value;
		} else if (worst != PM_BOUND_MEASURED || !isfinite(o->lo) || !isfinite(o->hi)) {
			o->lo = o->hi = NAN;
			if (worst == PM_BOUND_MEASURED)
				o->bound = PM_BOUND_FEW; /* as a metric's (metric_bounds) */
		} else if (o->lo < 0 && o->value >= 0) {
			/* the moves add up (no independence assumed) and may pass zero: traffic
			 * is never below it (the total 100, two cgroups at 45 with 20 % declared:
			 * the rest 10 [-10, 25] before) */
			o->lo = 0;
		}
	}
	free(pv);
}

void pm_attrib__compute(struct pm_session *s, const struct pm_report *rep, struct pm_row *rows)
{
	const struct pm_attrib *a = s->l->attrib;
	const struct pm_attrib_rows *ar = s->rows->arows;
	const struct pm_attrib_recipe *rc;
	double to_unit;
	struct bucket_in *x;
	size_t n_cg;

	if (!a || !ar)
		return;
	rc = a->recipe;
	n_cg = a->n_cg;
	to_unit = rc->per_byte;
	if (rc->per_second)
		to_unit = rep->duration_ns ? to_unit * 1e9 / (double)rep->duration_ns : NAN;
	/* per cgroup and socket (0, 1; the machine: 0): bytes by kind (any, local, remote) */
	x = calloc(n_cg * 6 + 1, sizeof(*x));
	for (size_t b = 0; b < ar->n_buckets; b++) {
		struct pm_row *out = &rows[first_arow(s) + b * (n_cg + 1)];
		struct pm_row agg = { .running = NAN };
		struct bucket_in u = { 0 };
		bool any_total = false;

		for (size_t g = 0; g <= n_cg; g++) { /* afresh for this report */
			out[g].flags = 0;
			out[g].running = NAN;
			out[g].enabled_ns = out[g].running_ns = 0;
		}
		for (size_t i = 0; i < s->rows->n_mrows; i++) {
			const struct pm_row *t = &rows[s->rows->n_rows + i];

			if (!is_total_row(s, i) ||
			    (ar->socket[b] >= 0 && t->socket != ar->socket[b]))
				continue;
			add_in(&u, t, 1);
			any_total = true;
			take(&agg, t);
			agg.flags |= t->flags & (PM_ROW_AMOUNT | PM_ROW_RATIO);
		}
		if (!any_total) {
			u.v = NAN;
			u.bound = PM_BOUND_NO_VALUE;
		}
		if (x)
			memset(x, 0, (n_cg * 6 + 1) * sizeof(*x));
		for (size_t r = 0; x && r < s->rows->n_rows; r++) {
			size_t k = ar->row_proxy[r], g = ar->row_cg[r];
			int sk = ar->n_buckets > 1 ? rows[r].socket : 0;

			if (!k || sk < 0 || sk > 1)
				continue;
			k--;
			add_in(&x[g * 6 + (size_t)sk * 3 + (size_t)rc->proxies[k].dram], &rows[r],
			       rc->proxies[k].bytes);
			take(&out[g], &rows[r]);
		}
		if (x) {
			bucket_rows(&u, x, n_cg, ar->socket[b], to_unit, a->proxy_error, out);
		} else {
			for (size_t g = 0; g <= n_cg; g++) {
				out[g].value = out[g].lo = out[g].hi = NAN;
				out[g].bound = PM_BOUND_NO_VALUE;
			}
		}
		for (size_t g = 0; g <= n_cg; g++) {
			take(&out[g], &agg);
			out[g].flags |= PM_ROW_METRIC | PM_ROW_APPROXIMATE | PM_ROW_ATTRIBUTED |
					(agg.flags & (PM_ROW_AMOUNT | PM_ROW_RATIO)) |
					(isnan(out[g].value) ? PM_ROW_NOT_COUNTED : 0) |
					(isnan(a->proxy_error) ? PM_ROW_PROXY_BIAS_EXCLUDED :
								 PM_ROW_PROXY_BIAS_INCLUDED);
			out[g].proxy_error = a->proxy_error;
			if (isnan(out[g].running))
				out[g].running = agg.running;
		}
	}
	free(x);
}
