// SPDX-License-Identifier: GPL-2.0-only
/* Workload scenarios: parsing the phase format and integrating its rates. */
#include "scenario.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cpus.h"
#include "util/util.h"

struct phase {
	char name[32];
	uint64_t start_ns, len_ns; /* start within one cycle of the phases */
	double *v;		   /* [total instances] */
};

struct sim_scenario {
	const struct sim_quantity *q;
	size_t n_q;
	size_t *off; /* first value of quantity i in a values array */
	size_t n_values;
	double *base; /* where the first phase starts */
	struct phase *ph;
	size_t n_ph, cap_ph;
	bool repeat;
	double jitter;
	uint64_t seed;
	bool seed_fixed; /* set by the command line: the text's seed line yields */
	uint64_t cycle_ns;
	struct sim_fault *faults;
	size_t n_faults, cap_faults;
	uint64_t frozen_ns; /* the freeze faults' durations, added up */
	/*
	 * Declared cgroups: each has a block of values after the machine's
	 * n_values in every phase (and in base): one per instance of each
	 * traffic quantity (unit B/s; cg_off[q] its first, -1 for the others),
	 * then its proxy factor. n_slots: all of them.
	 */
	struct sim_scn_cgroup *cg;
	size_t n_cg, cap_cg;
	int *cg_off;
	size_t cg_block; /* values per cgroup block, its proxy factor last */
	size_t n_slots;
	struct cg_assign {
		int ph; /* -1: from the start (before the first phase, or an `at` block) */
		size_t seq, slot;
		double v;
	} * asg;
	size_t n_asg, cap_asg;
	/* per value: its integral at each phase's start (n_ph + 1), made the first time
	 * the value is integrated, so that a scenario of thousands of phases integrates
	 * in a binary search, not a walk (NULL: not yet) */
	double **cum;
};

int sim_scenario__new(const struct sim_quantity *q, size_t n, struct sim_scenario **ret)
{
	struct sim_scenario *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->q = q;
	s->n_q = n;
	s->seed = 1;
	s->off = calloc(n ? n : 1, sizeof(*s->off));
	for (size_t i = 0; s->off && i < n; i++) {
		s->off[i] = s->n_values;
		s->n_values += (size_t)(q[i].instances > 0 ? q[i].instances : 1);
	}
	s->base = calloc(s->n_values ? s->n_values : 1, sizeof(*s->base));
	s->cg_off = calloc(n ? n : 1, sizeof(*s->cg_off));
	s->n_slots = s->n_values;
	for (size_t i = 0; s->cg_off && i < n; i++) {
		s->cg_off[i] = -1;
		if (!strcmp(q[i].unit, "B/s")) {
			s->cg_off[i] = (int)s->cg_block;
			s->cg_block += (size_t)(q[i].instances > 0 ? q[i].instances : 1);
		}
	}
	s->cg_block++; /* the proxy factor */
	if (!s->off || !s->base || !s->cg_off) {
		sim_scenario__free(s);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < (q[i].instances > 0 ? q[i].instances : 1); k++)
			s->base[s->off[i] + (size_t)k] = q[i].dflt;
	*ret = s;
	return 0;
}

void sim_scenario__free(struct sim_scenario *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_ph; i++)
		free(s->ph[i].v);
	for (size_t i = 0; s->cum && i < s->n_slots; i++)
		free(s->cum[i]);
	free(s->cum);
	free(s->ph);
	free(s->faults);
	free(s->base);
	free(s->off);
	free(s->cg_off);
	free(s->cg);
	free(s->asg);
	free(s);
}

/* ---- values and durations ------------------------------------------------------ */

int sim_parse_value(const char *str, double *ret)
{
	static const struct {
		char c;
		double m;
	} suffix[] = { { 'k', 1e3 }, { 'K', 1e3 },  { 'M', 1e6 },
		       { 'G', 1e9 }, { 'T', 1e12 }, { '%', 1e-2 } };
	size_t len = strlen(str);
	double mul = 1, v;

	for (size_t i = 0; len && i < PM_ARRAY_SIZE(suffix); i++) {
		if (str[len - 1] == suffix[i].c) {
			mul = suffix[i].m;
			len--;
			break;
		}
	}
	if (!len || pm_parse_double(str, len, &v) < 0 || v < 0)
		return -EINVAL;
	if (v * mul > SIM_VALUE_MAX)
		return -ERANGE;
	*ret = v * mul;
	return 0;
}

int sim_parse_duration(const char *str, uint64_t *ret_ns)
{
	static const struct {
		const char *s;
		double ns;
	} unit[] = { { "ms", 1e6 }, { "us", 1e3 }, { "s", 1e9 }, { "m", 60e9 }, { "h", 3600e9 } };
	size_t len = strlen(str);
	double mul = 1e9, v;

	for (size_t i = 0; i < PM_ARRAY_SIZE(unit); i++) {
		size_t ul = strlen(unit[i].s);

		if (len > ul && !strcmp(str + len - ul, unit[i].s)) {
			mul = unit[i].ns;
			len -= ul;
			break;
		}
	}
	if (!len || pm_parse_double(str, len, &v) < 0 || v < 0 || v * mul > (double)SIM_TIME_MAX)
		return -EINVAL;
	*ret_ns = (uint64_t)llround(v * mul);
	return 0;
}

/* ---- seeded numbers ------------------------------------------------------------- */

static uint64_t mix(uint64_t x)
{
	/* splitmix64's finaliser */
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static double unit_interval(uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t h = mix(seed ^ mix(a ^ mix(b ^ mix(c))));

	return (double)(h >> 11) / 9007199254740992.0; /* [0, 1) */
}

double sim_scenario__background(const struct sim_scenario *s, uint64_t a, uint64_t b, double lo,
				double hi)
{
	return lo + (hi - lo) * unit_interval(s->seed, a, b, 0x6261636b);
}

void sim_scenario__set_seed(struct sim_scenario *s, uint64_t seed)
{
	s->seed = seed;
	s->seed_fixed = true;
}

/* ---- parsing -------------------------------------------------------------------- */

struct parser {
	struct sim_scenario *s;
	const char *name;
	int line;
	char *err;
	size_t errsz;
	double *cur; /* values being set: base, or the current phase's */
	int ph;	     /* the current phase's index, -1 before the first */
	int cg;	     /* the cgroup block being read, -1: none (the machine's background) */
	int cg_ph;   /* the phase its values are for (-1: from the start, an `at` block) */
	size_t seq;  /* assignments in text order */
};

static int fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct parser *p, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(p->err, p->errsz, "%s:%d: %s", p->name, p->line, msg);
	return -EINVAL;
}

int sim_scenario__find(const struct sim_scenario *s, const char *key)
{
	for (size_t i = 0; i < s->n_q; i++)
		if (!strcmp(s->q[i].key, key))
			return (int)i;
	return -1;
}

/* ---- cgroups ------------------------------------------------------------------ */

/* The cgroups' values a scenario may hold, over all its phases (a scenario of 10000 phases
 * and many cgroups must not take gigabytes). The machine's own values are bounded by
 * SIM_MAX_PHASES alone, as before cgroups: the calibration suite's EPYC scenarios hold
 * more than this many of them (tests/sim/test-bounds.c). */
#define SIM_MAX_SLOTS (1u << 24)

static size_t cg_slot0(const struct sim_scenario *s, size_t c)
{
	return s->n_values + c * s->cg_block;
}

/* A value of the current cgroup block, set when its phase (or the start) begins. */
static int cg_assign(struct parser *p, size_t off, double v)
{
	struct sim_scenario *s = p->s;

	if (pm_grow((void **)&s->asg, &s->cap_asg, s->n_asg + 1, sizeof(*s->asg)) < 0)
		return -ENOMEM;
	s->asg[s->n_asg++] = (struct cg_assign){ .ph = p->cg_ph,
						 .seq = p->seq++,
						 .slot = cg_slot0(s, (size_t)p->cg) + off,
						 .v = v };
	return 0;
}

/* Room for one more cgroup block in base and every phase made so far. */
static int cg_grow(struct parser *p)
{
	struct sim_scenario *s = p->s;
	size_t n = s->n_slots + s->cg_block;
	bool cur_base = p->cur == s->base;
	double *b;

	if ((double)(n - s->n_values) * (double)(s->n_ph + 1) > SIM_MAX_SLOTS)
		return fail(p, "too many cgroups for this many phases (at most %u of their values)",
			    SIM_MAX_SLOTS);
	b = realloc(s->base, n * sizeof(*b));
	if (!b)
		return -ENOMEM;
	s->base = b;
	for (size_t i = 0; i < s->n_ph; i++) {
		double *v = realloc(s->ph[i].v, n * sizeof(*v) + 1);

		if (!v)
			return -ENOMEM;
		if (p->cur == s->ph[i].v)
			p->cur = v;
		s->ph[i].v = v;
	}
	if (cur_base)
		p->cur = s->base;
	s->n_slots = n;
	return 0;
}

static bool cg_path_ok(const char *path)
{
	if (!path[0] || path[0] == '/' || strlen(path) >= 256)
		return false;
	for (const char *c = path; *c; c++)
		if ((unsigned char)*c < 0x21 || *c == 0x7f)
			return false;
	for (const char *c = path; c;) { /* no empty, "." or ".." component */
		size_t l = strcspn(c, "/");

		if (l == 0 || (l == 1 && c[0] == '.') || (l == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		c = c[l] ? c + l + 1 : NULL;
	}
	return true;
}

static bool pod_key_ok(const char *key, char *ns, size_t ns_sz, char *name, size_t name_sz)
{
	const char *sl = strchr(key, '/');

	if (!sl || strchr(sl + 1, '/') || sl == key || !sl[1] || (size_t)(sl - key) >= ns_sz ||
	    strlen(sl + 1) >= name_sz)
		return false;
	for (const char *c = key; *c; c++) /* DNS labels: what namespaces and pods are named */
		if (*c != '/' && *c != '-' && *c != '.' && !(*c >= 'a' && *c <= 'z') &&
		    !(*c >= '0' && *c <= '9'))
			return false;
	snprintf(ns, ns_sz, "%.*s", (int)(sl - key), key);
	snprintf(name, name_sz, "%s", sl + 1);
	return true;
}

/* The cgroup a declaration names (made if new): its index, or -errno (said). */
static int cg_find_or_add(struct parser *p, char **tok, int n, bool pod)
{
	struct sim_scenario *s = p->s;
	struct sim_scn_cgroup c = { .t_remove = UINT64_MAX, .line = p->line };
	int r;

	if (pod) {
		static const char *const qos[] = { "guaranteed", "burstable", "besteffort" };
		bool qos_ok = false;

		if (n < 2 || n > 3 ||
		    !pod_key_ok(tok[0], c.ns, sizeof(c.ns), c.name, sizeof(c.name)))
			return fail(p, "a pod is written: pod NAMESPACE/NAME QOS [CONTAINER,...] "
				       "(names of lowercase letters, digits, '-' and '.'; QOS "
				       "guaranteed, burstable or besteffort)");
		for (size_t i = 0; i < PM_ARRAY_SIZE(qos); i++)
			qos_ok |= !strcmp(tok[1], qos[i]);
		if (!qos_ok)
			return fail(p, "'%s' is no QoS class: guaranteed, burstable or besteffort",
				    tok[1]);
		snprintf(c.qos, sizeof(c.qos), "%s", tok[1]);
		for (char *save = NULL, *t = n > 2 ? strtok_r(tok[2], ",", &save) : NULL; t;
		     t = strtok_r(NULL, ",", &save)) {
			if (c.n_containers == SIM_MAX_CONTAINERS || strlen(t) >= 64)
				return fail(p,
					    "a pod has at most %d containers, each named in at "
					    "most 63 characters",
					    SIM_MAX_CONTAINERS);
			snprintf(c.containers[c.n_containers++], 64, "%s", t);
		}
		if (!c.n_containers)
			snprintf(c.containers[c.n_containers++], 64, "%s", "main");
		c.pod = true;
	} else {
		if (n != 1 || !cg_path_ok(tok[0]))
			return fail(p,
				    "a cgroup is written: cgroup PATH (its path under the cgroup2 "
				    "mount, without a leading '/', '.' or '..')");
		snprintf(c.path, sizeof(c.path), "%s", tok[0]);
	}
	for (size_t i = 0; i < s->n_cg; i++) {
		if (s->cg[i].pod != c.pod ||
		    (pod ? strcmp(s->cg[i].ns, c.ns) || strcmp(s->cg[i].name, c.name) :
			   strcmp(s->cg[i].path, c.path)))
			continue;
		if (pod && (strcmp(s->cg[i].qos, c.qos) ||
			    (n > 2 && s->cg[i].n_containers != c.n_containers)))
			return fail(p,
				    "pod %s/%s was declared at line %d with another QoS class or "
				    "other containers",
				    c.ns, c.name, s->cg[i].line);
		return (int)i;
	}
	if (s->n_cg == SIM_MAX_CGROUPS)
		return fail(p, "more than %d cgroups", SIM_MAX_CGROUPS);
	r = cg_grow(p);
	if (r < 0)
		return r;
	if (pm_grow((void **)&s->cg, &s->cap_cg, s->n_cg + 1, sizeof(*s->cg)) < 0)
		return -ENOMEM;
	s->cg[s->n_cg] = c;
	return (int)s->n_cg++;
}

/* Lines inside a cgroup block that are not a machine key: cpus LIST, proxy.error P. */
static int cg_line(struct parser *p, char **tok, int n, bool *ret_done)
{
	struct sim_scenario *s = p->s;
	double v;

	*ret_done = true;
	if (!strcmp(tok[0], "cpus")) {
		struct pm_cpus cpus;

		if (n != 2 || strlen(tok[1]) >= sizeof(s->cg[0].cpus) ||
		    pm_cpus__parse(tok[1], strlen(tok[1]), &cpus) < 0)
			return fail(p, "cpus is written: cpus LIST (0-15,64-79)");
		pm_cpus__done(&cpus);
		snprintf(s->cg[p->cg].cpus, sizeof(s->cg[p->cg].cpus), "%s", tok[1]);
		return 0;
	}
	if (!strcmp(tok[0], "proxy.error")) {
		if (n != 2 || sim_parse_value(tok[1], &v) < 0 || v >= 1)
			return fail(p,
				    "proxy.error is written: proxy.error P (below 100%%, e.g. 5%%)");
		return cg_assign(p, s->cg_block - 1, v);
	}
	*ret_done = false;
	return 0;
}

/* `at T cgroup PATH`, `at T pod NS/NAME QOS [C,...]`, `at T remove PATH|NS/NAME`. */
static int cg_at(struct parser *p, char **tok, int n, uint64_t t)
{
	struct sim_scenario *s = p->s;
	int c;

	if (!strcmp(tok[2], "remove")) {
		char ns[64], name[128];
		bool pod = n == 4 && pod_key_ok(tok[3], ns, sizeof(ns), name, sizeof(name));

		if (n != 4)
			return fail(p, "'remove' is written: at T remove PATH|NAMESPACE/NAME");
		for (size_t i = 0; i < s->n_cg; i++) {
			if (s->cg[i].pod ?
				    !pod || strcmp(s->cg[i].ns, ns) || strcmp(s->cg[i].name, name) :
				    strcmp(s->cg[i].path, tok[3]) != 0)
				continue;
			if (t < s->cg[i].t_create || s->cg[i].t_remove != UINT64_MAX)
				return fail(p, "'%s' is removed before it is made, or twice",
					    tok[3]);
			s->cg[i].t_remove = t;
			p->cg = -1;
			return 0;
		}
		return fail(p, "no cgroup or pod '%s' declared before this line", tok[3]);
	}
	c = cg_find_or_add(p, tok + 3, n - 3, !strcmp(tok[2], "pod"));
	if (c < 0)
		return c;
	if (s->cg[c].t_create || s->cg[c].t_remove != UINT64_MAX)
		return fail(p, "'%s' is made at a time once, before it is removed", tok[3]);
	s->cg[c].t_create = t;
	p->cg = c;
	p->cg_ph = -1; /* its values hold from the start (while it exists) */
	return 0;
}

static int cmp_asg(const void *a, const void *b)
{
	const struct cg_assign *x = a, *y = b;

	if (x->ph != y->ph)
		return x->ph < y->ph ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The cgroups' values in base and every phase: each holds from phase to phase until set
 * again, as the machine's do; then each phase's proxy factor from its proxy.error. */
static int cg_resolve(struct sim_scenario *s)
{
	size_t n = s->n_cg * s->cg_block, a = 0;
	double *cur;

	if (!s->n_cg)
		return 0;
	cur = calloc(n, sizeof(*cur));
	if (!cur)
		return -ENOMEM;
	if (s->n_asg)
		qsort(s->asg, s->n_asg, sizeof(*s->asg), cmp_asg);
	for (int ph = -1; ph < (int)s->n_ph; ph++) {
		double *v = ph < 0 ? s->base : s->ph[ph].v;

		for (; a < s->n_asg && s->asg[a].ph == ph; a++)
			cur[s->asg[a].slot - s->n_values] = s->asg[a].v;
		memcpy(v + s->n_values, cur, n * sizeof(*cur));
		for (size_t c = 0; ph >= 0 && c < s->n_cg; c++) {
			double *f = &v[cg_slot0(s, c) + s->cg_block - 1];
			double u = unit_interval(s->seed, (uint64_t)ph, 0x636700u + c, 0x6572) * 2 -
				   1;

			*f = 1 + *f * u;
		}
	}
	free(cur);
	return 0;
}

/* "key", "key[3]" or "key[0-3]" */
static int set_value(struct parser *p, char *key, const char *val)
{
	struct sim_scenario *s = p->s;
	char *br = strchr(key, '[');
	int q, lo = 0, hi, n, r;
	double v;

	if (br) {
		char *end = strchr(br, ']'), *dash;

		if (!end || end[1])
			return fail(p, "'%s': an instance is written key[N] or key[N-M]", key);
		*br = *end = '\0';
		dash = strchr(br + 1, '-');
		if (dash)
			*dash = '\0';
		if (pm_parse_int_str(br + 1, &lo) < 0 ||
		    pm_parse_int_str(dash ? dash + 1 : br + 1, &hi) < 0 || lo > hi)
			return fail(p, "'%s[%s%s%s]': not an instance number or range", key, br + 1,
				    dash ? "-" : "", dash ? dash + 1 : "");
	}
	q = sim_scenario__find(s, key);
	if (q < 0) {
		char known[1024] = "";

		for (size_t i = 0; i < s->n_q; i++) {
			size_t l = strlen(known);

			snprintf(known + l, sizeof(known) - l, "%s%s", i ? ", " : "", s->q[i].key);
		}
		return fail(p, "unknown quantity '%s'; this platform has: %s", key, known);
	}
	n = s->q[q].instances > 0 ? s->q[q].instances : 1;
	if (!br)
		hi = n - 1;
	if (hi >= n)
		return fail(p, "'%s' has instances 0-%d, not %d", key, n - 1, hi);
	r = sim_parse_value(val, &v);
	if (r == -ERANGE)
		return fail(p, "%s %s is more than the simulator counts (at most 1000T per second)",
			    key, val);
	if (r < 0)
		return fail(p,
			    "'%s' is not a value for %s (a number >= 0, optionally with k, M, G, "
			    "T or %%)",
			    val, key);
	if (!strcmp(s->q[q].unit, "ratio") && v > 1)
		return fail(p, "%s is a ratio between 0 and 1 (or 0%%-100%%), not %s", key, val);
	if (p->cg >= 0) {
		if (s->cg_off[q] < 0)
			return fail(p,
				    "%s is not traffic: a cgroup block takes the machine's B/s keys, "
				    "proxy.error and cpus (end the block with 'end' first)",
				    key);
		for (int k = lo; r == 0 && k <= hi; k++)
			r = cg_assign(p, (size_t)s->cg_off[q] + (size_t)k, v);
		return r;
	}
	for (int k = lo; k <= hi; k++)
		p->cur[s->off[q] + (size_t)k] = v;
	return 0;
}

static int add_phase(struct parser *p, const char *name, const char *dur)
{
	struct sim_scenario *s = p->s;
	const double *from = s->n_ph ? s->ph[s->n_ph - 1].v : s->base;
	struct phase *ph;
	uint64_t ns;

	if (!name || !dur)
		return fail(p, "a phase is written: phase NAME DURATION (e.g. phase busy 10s)");
	if (sim_parse_duration(dur, &ns) < 0 || ns == 0)
		return fail(p, "'%s' is not a duration (e.g. 500ms, 10s, 2m)", dur);
	if (s->n_ph == SIM_MAX_PHASES)
		return fail(p, "more than %d phases", SIM_MAX_PHASES);
	if (s->n_ph &&
	    ns > SIM_TIME_MAX - (s->ph[s->n_ph - 1].start_ns + s->ph[s->n_ph - 1].len_ns))
		return fail(p, "the phases add up to more than 1e18 ns (31 years)");
	if (pm_grow((void **)&s->ph, &s->cap_ph, s->n_ph + 1, sizeof(*s->ph)) < 0)
		return -ENOMEM;
	ph = &s->ph[s->n_ph];
	*ph = (struct phase){ .len_ns = ns };
	snprintf(ph->name, sizeof(ph->name), "%s", name);
	if ((double)(s->n_slots - s->n_values) * (double)(s->n_ph + 1) > SIM_MAX_SLOTS)
		return fail(p, "too many phases for this many cgroups (at most %u of their values)",
			    SIM_MAX_SLOTS);
	ph->v = malloc(s->n_slots * sizeof(double) + 1);
	if (!ph->v)
		return -ENOMEM;
	memcpy(ph->v, from, s->n_slots * sizeof(double));
	ph->start_ns = s->n_ph ? s->ph[s->n_ph - 1].start_ns + s->ph[s->n_ph - 1].len_ns : 0;
	s->n_ph++;
	p->cur = ph->v;
	return 0;
}

static const struct {
	const char *name;
	int err;
} errnos[] = {
	{ "EIO", EIO },	      { "EBUSY", EBUSY },   { "EACCES", EACCES },
	{ "EPERM", EPERM },   { "ENODEV", ENODEV }, { "EINVAL", EINVAL },
	{ "EFAULT", EFAULT }, { "ENOENT", ENOENT }, { "EOPNOTSUPP", EOPNOTSUPP },
};

int sim_fault_errno(const char *name)
{
	for (size_t i = 0; i < PM_ARRAY_SIZE(errnos); i++)
		if (!strcmp(errnos[i].name, name))
			return errnos[i].err;
	return 0;
}

_Static_assert(SIM_STEAL_CPUS == 64, "the steal message says CPU 0-63");

/* sideband's PORT and OPCODE fit 8 bits, OFFSET and VALUE 32 (merrifield.md §2). */
static bool sideband_numbers(const struct sim_fault *f)
{
	static const uint64_t max[4] = { 0xff, 0xff, 0xffffffff, 0xffffffff };
	uint64_t v;

	for (int i = 0; i < 4; i++)
		if (pm_parse_u64_str(f->arg[i], 0, &v) < 0 || v > max[i])
			return false;
	return true;
}

/* What a fault's words must be; its target is checked against the machine later. */
static int check_fault(struct parser *p, const struct sim_fault *f, int n_args)
{
	static const struct {
		const char *what, *usage;
		int n_args;
	} kinds[] = {
		{ "vanish", "at T vanish PMU|PATH", 1 },
		{ "return", "at T return PMU|PATH", 1 },
		{ "error", "at T error PATH ERRNO", 2 },
		{ "open-error", "at T open-error PMU ERRNO", 2 },
		{ "steal", "at T steal PMU CPU N", 3 },
		{ "freeze", "at T freeze DURATION", 1 },
		{ "poke", "at T poke PATH OFFSET VALUE", 3 },
		{ "write", "at T write PATH TEXT", 2 },
		{ "sideband", "at T sideband PORT OPCODE OFFSET VALUE", 4 },
	};
	uint64_t u, ns;
	int cpu, n;

	for (size_t i = 0; i < PM_ARRAY_SIZE(kinds); i++) {
		if (strcmp(f->what, kinds[i].what) != 0)
			continue;
		if (n_args != kinds[i].n_args ||
		    (!strcmp(f->what, "error") && !sim_fault_errno(f->arg[1])) ||
		    (!strcmp(f->what, "open-error") && !sim_fault_errno(f->arg[1])) ||
		    (!strcmp(f->what, "steal") && (pm_parse_int_str(f->arg[1], &cpu) < 0 ||
						   pm_parse_int_str(f->arg[2], &n) < 0 || cpu < 0 ||
						   cpu >= SIM_STEAL_CPUS || n < 0)) ||
		    (!strcmp(f->what, "freeze") && sim_parse_duration(f->arg[0], &ns) < 0) ||
		    (!strcmp(f->what, "poke") && (pm_parse_u64_str(f->arg[1], 0, &u) < 0 ||
						  pm_parse_u64_str(f->arg[2], 0, &u) < 0)) ||
		    (!strcmp(f->what, "sideband") && !sideband_numbers(f)))
			return fail(p, "'%s' is written: %s%s", f->what, kinds[i].usage,
				    strstr(kinds[i].usage, "ERRNO") ?
					    " (ERRNO one of EIO, EBUSY, EACCES, EPERM, ENODEV, "
					    "EINVAL, EFAULT, ENOENT, EOPNOTSUPP)" :
				    strstr(kinds[i].usage, "CPU") ? " (CPU 0-63, N >= 0)" :
								    "");
		return 0;
	}
	return fail(p,
		    "unknown fault '%s'; faults are vanish, return, error, open-error, steal, freeze, "
		    "poke, write, sideband",
		    f->what);
}

static int add_fault(struct parser *p, char **tok, int n)
{
	struct sim_scenario *s = p->s;
	struct sim_fault f;
	uint64_t t;
	int r;

	if (n < 3)
		return fail(p, "a fault is written: at TIME WHAT [ARGS] (e.g. at 2s vanish "
			       "ali_drw_21000)");
	if (sim_parse_duration(tok[1], &t) < 0)
		return fail(p, "'%s' is not a time (e.g. 2.5s)", tok[1]);
	if (s->n_faults == SIM_MAX_FAULTS)
		return fail(p, "more than %d faults", SIM_MAX_FAULTS);
	f = (struct sim_fault){ .t_ns = t, .line = p->line };
	if (pm_snprintf(f.what, sizeof(f.what), "%s", tok[2]) < 0)
		return fail(p, "unknown fault '%.*s...'", (int)sizeof(f.what) - 1, tok[2]);
	for (int i = 3; i < n && i < 3 + (int)PM_ARRAY_SIZE(f.arg); i++)
		if (pm_snprintf(f.arg[i - 3], sizeof(f.arg[0]), "%s", tok[i]) < 0)
			return fail(p, "'%.20s...' is longer than %zu characters", tok[i],
				    sizeof(f.arg[0]) - 1);
	r = check_fault(p, &f, n - 3);
	if (r < 0)
		return r;
	if (!strcmp(f.what, "freeze")) {
		uint64_t ns = 0;

		sim_parse_duration(f.arg[0], &ns);
		if (ns > SIM_TIME_MAX - s->frozen_ns)
			return fail(p, "the freezes add up to more than 1e18 ns (31 years)");
		s->frozen_ns += ns;
	}
	if (pm_grow((void **)&s->faults, &s->cap_faults, s->n_faults + 1, sizeof(*s->faults)) < 0)
		return -ENOMEM;
	s->faults[s->n_faults++] = f;
	return 0;
}

static int parse_line(struct parser *p, char *line)
{
	struct sim_scenario *s = p->s;
	char *tok[8], *save = NULL;
	int n = 0;

	for (char *t = strtok_r(line, " \t\r", &save); t && n < 8;
	     t = strtok_r(NULL, " \t\r", &save))
		tok[n++] = t;
	if (n == 0)
		return 0;
	if (!strcmp(tok[0], "cgroup") || !strcmp(tok[0], "pod")) {
		int c = cg_find_or_add(p, tok + 1, n - 1, !strcmp(tok[0], "pod"));

		if (c < 0)
			return c;
		p->cg = c;
		p->cg_ph = p->ph;
		return 0;
	}
	if (!strcmp(tok[0], "end")) {
		if (p->cg < 0 || n != 1)
			return fail(p,
				    "'end' closes a cgroup or pod block, and takes nothing after it");
		p->cg = -1;
		return 0;
	}
	if (p->cg >= 0) {
		bool done;
		int r = cg_line(p, tok, n, &done);

		if (r < 0 || done)
			return r;
	}
	if (!strcmp(tok[0], "phase")) {
		if (n > 3)
			return fail(p, "unexpected '%s' after the phase's duration", tok[3]);
		p->cg = -1;
		p->ph = (int)s->n_ph;
		return add_phase(p, n > 1 ? tok[1] : NULL, n > 2 ? tok[2] : NULL);
	}
	if (!strcmp(tok[0], "repeat")) {
		s->repeat = true;
		return n == 1 ? 0 : fail(p, "'repeat' takes nothing after it");
	}
	if (!strcmp(tok[0], "at")) {
		uint64_t t;

		p->cg = -1;
		if (n >= 3 && (!strcmp(tok[2], "cgroup") || !strcmp(tok[2], "pod") ||
			       !strcmp(tok[2], "remove"))) {
			if (sim_parse_duration(tok[1], &t) < 0)
				return fail(p, "'%s' is not a time (e.g. 2.5s)", tok[1]);
			return cg_at(p, tok, n, t);
		}
		return add_fault(p, tok, n);
	}
	if (n != 2)
		return fail(p, "expected 'KEY VALUE', 'phase NAME DURATION', 'seed N', 'jitter P', "
			       "'repeat' or 'at TIME FAULT ...'");
	if (!strcmp(tok[0], "seed")) {
		uint64_t seed;

		if (pm_parse_u64_str(tok[1], 0, &seed) < 0)
			return fail(p, "'%s' is not a seed (a whole number)", tok[1]);
		if (!s->seed_fixed)
			s->seed = seed;
		return 0;
	}
	if (!strcmp(tok[0], "jitter")) {
		double j;

		if (sim_parse_value(tok[1], &j) < 0 || j >= 1)
			return fail(p, "'%s' is not a jitter (e.g. 2%%, below 100%%)", tok[1]);
		s->jitter = j;
		return 0;
	}
	return set_value(p, tok[0], tok[1]);
}

static void apply_jitter(struct sim_scenario *s)
{
	if (s->jitter <= 0)
		return;
	for (size_t ph = 0; ph < s->n_ph; ph++) {
		for (size_t q = 0; q < s->n_q; q++) {
			int n = s->q[q].instances > 0 ? s->q[q].instances : 1;

			if (!strcmp(s->q[q].unit, "ratio") || !strcmp(s->q[q].unit, "Hz"))
				continue; /* rates vary; ratios and clocks stay as set */
			for (int k = 0; k < n; k++) {
				double u = unit_interval(s->seed, ph, q, (uint64_t)k) * 2 - 1;

				s->ph[ph].v[s->off[q] + (size_t)k] *= 1 + s->jitter * u;
			}
		}
	}
}

static int cmp_fault(const void *a, const void *b)
{
	const struct sim_fault *x = a, *y = b;

	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line); /* same time: file order */
}

int sim_scenario__parse(struct sim_scenario *s, const char *text, size_t len, const char *name,
			char *err, size_t errsz)
{
	struct parser p = { .s = s,
			    .name = name,
			    .err = err,
			    .errsz = errsz,
			    .cur = s->base,
			    .ph = -1,
			    .cg = -1 };
	char *copy, *save = NULL;
	int r = 0;

	if (s->n_ph)
		return -EBUSY; /* one scenario per simulation */
	copy = malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, text, len);
	copy[len] = '\0';
	for (char *l = copy; r == 0 && l; l = save) {
		char *nl = memchr(l, '\n', len - (size_t)(l - copy)), *hash;
		size_t ll = nl ? (size_t)(nl - l) : len - (size_t)(l - copy);

		save = nl ? nl + 1 : NULL;
		p.line++;
		if (memchr(l, '\0', ll)) {
			r = fail(&p, "a NUL byte: a scenario is a text file");
			break;
		}
		if (nl)
			*nl = '\0';
		hash = strchr(l, '#');
		if (hash)
			*hash = '\0';
		r = parse_line(&p, l);
	}
	free(copy);
	if (r < 0)
		return r;
	if (s->n_ph == 0) {
		p.line = 0;
		r = add_phase(&p, "steady", "1h"); /* no phases: the base values forever */
		if (r < 0)
			return r;
	}
	r = cg_resolve(s);
	if (r < 0)
		return r;
	apply_jitter(s);
	if (s->n_faults) /* qsort's base may not be NULL, even for no elements */
		qsort(s->faults, s->n_faults, sizeof(*s->faults), cmp_fault); /* in time order */
	s->cycle_ns = s->ph[s->n_ph - 1].start_ns + s->ph[s->n_ph - 1].len_ns;
	s->cum = calloc(s->n_slots + 1, sizeof(*s->cum)); /* the cgroups' values too */
	return s->cum ? 0 : -ENOMEM;
}

size_t sim_scenario__fault_count(const struct sim_scenario *s)
{
	return s->n_faults;
}

const struct sim_fault *sim_scenario__fault(const struct sim_scenario *s, size_t i)
{
	return i < s->n_faults ? &s->faults[i] : NULL;
}

/* ---- evaluation ------------------------------------------------------------------ */

static void check_instance(const struct sim_scenario *s, int q, int inst)
{
	/* a model asking for an instance its quantity lacks is a bug: stop loudly */
	assert(q >= 0 && (size_t)q < s->n_q && inst >= 0 &&
	       inst < (s->q[q].instances > 0 ? s->q[q].instances : 1));
}

/*
 * The integral of f over [0, t] where f is constant in each phase, built so
 * that rounding can never make it decrease in t (a count from it would jump
 * back, and a counter's growth wrap to 2^64): each phase adds to the sum at
 * its start, the value inside a phase is capped by the one at its end,
 * computed by the same expression, and inside the n-th cycle the sum is
 * capped by the (n+1)-th cycle's start.
 */
/* Value i's integral at each phase's start, as integrate's walk adds it up; NULL: no memory. */
static const double *cum_of(const struct sim_scenario *s, size_t i)
{
	double *c;

	if (!s->cum)
		return NULL;
	if (s->cum[i])
		return s->cum[i];
	c = malloc((s->n_ph + 1) * sizeof(*c));
	if (!c)
		return NULL;
	c[0] = 0;
	for (size_t k = 0; k < s->n_ph; k++)
		c[k + 1] = c[k] + s->ph[k].v[i] * (double)s->ph[k].len_ns / 1e9;
	s->cum[i] = c;
	return c;
}

/* The walk below in a binary search: the same sums, so the same numbers to the bit. */
static double integrate_one(const struct sim_scenario *s, const double *c, size_t ia, uint64_t t)
{
	uint64_t full = 0, rest = t;
	size_t lo = 0, hi = s->n_ph - 1; /* the first phase whose end is at or after rest */
	double part, at_end, top;
	const struct phase *ph;

	if (s->repeat) {
		full = t / s->cycle_ns;
		rest = t % s->cycle_ns;
	}
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;

		if (rest <= s->ph[m].start_ns + s->ph[m].len_ns)
			hi = m;
		else
			lo = m + 1;
	}
	ph = &s->ph[lo];
	at_end = c[lo + 1];
	part = c[lo] + ph->v[ia] * (double)(rest - ph->start_ns) / 1e9;
	if (!(lo == s->n_ph - 1 && !s->repeat) && part > at_end)
		part = at_end;
	if (!s->repeat)
		return part;
	top = full == UINT64_MAX ? INFINITY : (double)(full + 1) * c[s->n_ph];
	return fmin((double)full * c[s->n_ph] + part, top);
}

static double integrate(const struct sim_scenario *s, size_t ia, size_t ib, bool product,
			uint64_t t)
{
	double at_start = 0, part = -1, lo, hi;
	uint64_t full = 0, rest = t;
	const double *c = !product && s->n_ph ? cum_of(s, ia) : NULL;

	if (c)
		return integrate_one(s, c, ia, t);
	if (s->repeat) {
		full = t / s->cycle_ns;
		rest = t % s->cycle_ns;
	}
	for (size_t i = 0; i < s->n_ph; i++) {
		const struct phase *ph = &s->ph[i];
		double v = product ? ph->v[ia] * ph->v[ib] : ph->v[ia];
		double at_end = at_start + v * (double)ph->len_ns / 1e9;
		bool forever = i == s->n_ph - 1 && !s->repeat;

		if (part < 0 && (rest <= ph->start_ns + ph->len_ns || forever)) {
			part = at_start + v * (double)(rest - ph->start_ns) / 1e9;
			if (!forever && part > at_end)
				part = at_end;
			if (!s->repeat)
				return part;
		}
		at_start = at_end; /* after the last phase: one whole cycle */
	}
	lo = (double)full * at_start;
	hi = full == UINT64_MAX ? INFINITY : (double)(full + 1) * at_start;
	return fmin(lo + part, hi);
}

/* The integral of cgroup c's slot (times slot b with product) while the cgroup exists. */
static double cg_integrate(const struct sim_scenario *s, size_t c, size_t a, size_t b, bool product,
			   uint64_t t)
{
	const struct sim_scn_cgroup *g = &s->cg[c];
	uint64_t end = t < g->t_remove ? t : g->t_remove;

	if (end <= g->t_create)
		return 0;
	return integrate(s, a, b, product, end) -
	       (g->t_create ? integrate(s, a, b, product, g->t_create) : 0);
}

double sim_scenario__integral(const struct sim_scenario *s, int q, int inst, uint64_t t_ns)
{
	size_t i;
	double v;

	check_instance(s, q, inst);
	i = s->off[q] + (size_t)inst;
	v = integrate(s, i, i, false, t_ns);
	for (size_t c = 0; s->cg_off[q] >= 0 && c < s->n_cg; c++) {
		size_t k = cg_slot0(s, c) + (size_t)s->cg_off[q] + (size_t)inst;

		v += cg_integrate(s, c, k, k, false, t_ns); /* the cgroups' traffic adds */
	}
	return v;
}

size_t sim_scenario__cgroup_count(const struct sim_scenario *s)
{
	return s->n_cg;
}

struct sim_scn_cgroup *sim_scenario__cgroup(struct sim_scenario *s, size_t i)
{
	return i < s->n_cg ? &s->cg[i] : NULL;
}

double sim_scenario__cgroup_integral(const struct sim_scenario *s, size_t c, int q, int inst,
				     uint64_t t_ns, bool proxy)
{
	size_t k;

	check_instance(s, q, inst);
	if (c >= s->n_cg || s->cg_off[q] < 0)
		return 0;
	k = cg_slot0(s, c) + (size_t)s->cg_off[q] + (size_t)inst;
	return cg_integrate(s, c, k, proxy ? cg_slot0(s, c) + s->cg_block - 1 : k, proxy, t_ns);
}

double sim_scenario__integral2(const struct sim_scenario *s, int qa, int ia, int qb, int ib,
			       uint64_t t_ns)
{
	size_t b = s->off[qb] + (size_t)ib;
	double v;

	check_instance(s, qa, ia);
	check_instance(s, qb, ib);
	v = integrate(s, s->off[qa] + (size_t)ia, b, true, t_ns);
	for (size_t c = 0; s->cg_off[qa] >= 0 && c < s->n_cg; c++) /* a cgroup's traffic too */
		v += cg_integrate(s, c, cg_slot0(s, c) + (size_t)s->cg_off[qa] + (size_t)ia, b,
				  true, t_ns);
	return v;
}
