// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the screens (`pmumon top`, serve's live page) show of a report:
 * kinds, labelled places, shown units and totals (cli/screen.h). Made once
 * while the rows stay the same; each interval only reads values through it.
 *
 * Totals are pcm-memory's NODE and System lines: per die, per socket and
 * for the machine, of what adds up — a rate (MB/s, /s) or an amount in the
 * interval (shown per second) is the sum of its places; a ratio whose rows
 * give their parts (PM_ROW_RATIO: pm_row.num, den) is its places' summed
 * numerators over their summed denominators, never an average of ratios (a
 * socket's 20 % of 10 accesses and another's 80 % of 1000 are 79.4 %, not
 * 50 %). A ratio without parts, a frequency or a current value has no
 * total, and its kind says why. A total that adds fewer places than it
 * stands for (one was not counted) says so as a row does: PARTIAL, covered
 * of instances.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "screen.h"

struct screen_name {
	char *metric, *name, *labels;
};

struct screen_info {
	struct screen_name *names;
	size_t n_names, cap_names;
};

int screen_info_empty(struct screen_info **ret)
{
	struct screen_info *in = calloc(1, sizeof(*in));

	if (!in)
		return -ENOMEM;
	*ret = in;
	return 0;
}

void screen_info_free(struct screen_info *in)
{
	if (!in)
		return;
	for (size_t i = 0; i < in->n_names; i++) {
		free(in->names[i].metric);
		free(in->names[i].name);
		free(in->names[i].labels);
	}
	free(in->names);
	free(in);
}

int screen_info_add_name(struct screen_info *in, const char *metric, const char *name,
			 const char *labels)
{
	struct screen_name n;

	if (PM_GROW(in->names, in->cap_names, in->n_names + 1) < 0)
		return -ENOMEM;
	n = (struct screen_name){ strdup(metric), strdup(name), strdup(labels ? labels : "") };
	if (!n.metric || !n.name || !n.labels) {
		free(n.metric);
		free(n.name);
		free(n.labels);
		return -ENOMEM;
	}
	in->names[in->n_names++] = n;
	return 0;
}

int screen_info_new(struct pm_ctx *ctx, struct screen_info **ret)
{
	const struct pm_monitor_name *m;
	struct screen_info *in = NULL;
	int r = screen_info_empty(&in);

	for (size_t i = 0; r == 0 && (m = pm_ctx__monitor(ctx, i)); i++)
		r = screen_info_add_name(in, m->metric, m->name, m->labels);
	if (r < 0) {
		screen_info_free(in);
		return r;
	}
	*ret = in;
	return 0;
}

static const struct screen_name *name_of(const struct screen_info *in, const char *metric)
{
	for (size_t i = 0; in && i < in->n_names; i++)
		if (!strcmp(in->names[i].metric, metric))
			return &in->names[i];
	return NULL;
}

/* The value of key in "channel=3,bank=1", or -1. */
static int label_num(const char *labels, const char *key)
{
	size_t k = strlen(key);

	for (const char *p = labels; p && *p;) {
		if (!strncmp(p, key, k) && p[k] == '=')
			return atoi(p + k + 1);
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	return -1;
}

static bool unit_is(const char *unit, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(unit, *list))
			return true;
	return false;
}

/*
 * How a row's values add up, and the unit they are shown in: what the
 * library says a metric is (PM_ROW_AMOUNT, PM_ROW_RATIO), else its unit.
 */
static enum screen_measure measure_of(const struct pm_row *r, char *unit, size_t size, char *from,
				      size_t from_size)
{
	static const char *const freqs[] = { "Hz", "kHz", "MHz", "GHz", NULL };
	const char *u = r->unit ? r->unit : "";
	size_t n = strlen(u);

	snprintf(unit, size, "%s", u);
	from[0] = '\0';
	if (r->flags & PM_ROW_SNAPSHOT)
		return SCREEN_LEVEL;
	if (r->flags & PM_ROW_METRIC && !(r->flags & PM_ROW_AMOUNT)) {
		if (r->flags & PM_ROW_RATIO || !strcmp(u, "%") || !u[0]) {
			if (!u[0]) /* CPI: a unit on every line */
				snprintf(unit, size, "ratio");
			return SCREEN_RATIO;
		}
		if (n >= 2 && !strcmp(u + n - 2, "/s"))
			return SCREEN_RATE;
		if (unit_is(u, freqs))
			return SCREEN_FREQUENCY;
		return SCREEN_OTHER;
	}
	/* an event's count (in its unit: msec for cpu-clock), a metric that is an amount */
	snprintf(unit, size, "%s/s", u);
	snprintf(from, from_size, "%s", u);
	return SCREEN_AMOUNT;
}

static void why_no_total(struct screen_kind *k)
{
	const char *why = "";

	switch (k->measure) {
	case SCREEN_RATIO:
		why = "a ratio adds only as its parts, which its rows do not give";
		break;
	case SCREEN_FREQUENCY:
		why = "frequencies average, they do not add (no cycles to weigh them by)";
		break;
	case SCREEN_LEVEL:
		why = "current values, not amounts: they do not add";
		break;
	case SCREEN_OTHER:
		snprintf(k->no_total, sizeof(k->no_total),
			 "pmumon does not know whether %s adds up", k->unit);
		return;
	default:
		break;
	}
	snprintf(k->no_total, sizeof(k->no_total), "%s", why);
}

/* Whether a kind has totals: sums, or a ratio of summed parts. */
static bool adds(const struct screen_kind *k)
{
	return k->measure == SCREEN_RATE || k->measure == SCREEN_AMOUNT ||
	       (k->measure == SCREEN_RATIO && k->parts);
}

void screen_free(struct screen *s)
{
	free(s->kind);
	free(s->item);
	free(s->total);
	*s = (struct screen){ 0 };
}

static bool key_is(const char *p, size_t len, const char *key)
{
	return strlen(key) == len && !strncmp(p, key, len);
}

/* Where a row was counted, as a label: socket, die, channel, sub-channel, then what else
 * tells it apart (the pack's labels: bank; the device, domain or CPU where nothing else
 * does, or where device says it). */
static void make_label(const struct pm_row *r, const char *labels, bool device, bool socket,
		       char *buf, size_t size)
{
	size_t off = 0;
	bool topo = false;
	int ch = label_num(labels, "channel"), sub = label_num(labels, "subchannel");

#define PART(...)                                                                             \
	do {                                                                                  \
		if (off < size)                                                               \
			off += (size_t)snprintf(buf + off, size - off, "%s", off ? "/" : ""); \
		if (off < size)                                                               \
			off += (size_t)snprintf(buf + off, size - off, __VA_ARGS__);          \
	} while (0)

	buf[0] = '\0';
	if (socket && r->socket >= 0)
		PART("S%d", r->socket);
	if (r->place && ch < 0 && sub < 0) {
		PART("%s", r->place); /* the pack's decoding: "die0/ch2/sub1" */
		topo = true;
	} else {
		if (r->die >= 0) {
			PART("die%d", r->die);
			topo = true;
		}
		if (ch >= 0 || r->channel >= 0) {
			PART("ch%d", ch >= 0 ? ch : r->channel);
			topo = true;
		}
		if (sub >= 0 || (ch < 0 && r->subchannel >= 0)) {
			PART("sub%d", sub >= 0 ? sub : r->subchannel);
			topo = true;
		}
	}
	if (device || !topo) {
		if (r->device)
			PART("%s", r->device);
		else if (r->domain)
			PART("%s", r->domain);
		else if (r->cpu >= 0)
			PART("cpu%d", r->cpu);
	}
	for (const char *p = labels; p && *p;) { /* the pack's other labels: bank=1 -> bank1 */
		const char *eq = strchr(p, '='), *end = strchr(p, ',');
		size_t klen = eq ? (size_t)(eq - p) : 0;

		if (!end)
			end = p + strlen(p);
		if (eq && eq < end && !key_is(p, klen, "channel") && !key_is(p, klen, "subchannel"))
			PART("%.*s%.*s", (int)klen, p, (int)(end - eq - 1), eq + 1);
		p = *end ? end + 1 : end;
	}
	if (!off && r->socket >= 0) /* one socket: still where it was counted */
		PART("S%d", r->socket);
	if (!off)
		PART("all");
	if (r->cgroup && r->cgroup[0] && off < size)
		snprintf(buf + off, size - off, " in %s", r->cgroup);
#undef PART
}

/*
 * An attributed row's label (docs/attribution.md): whose share it is — the pod
 * (NAMESPACE/NAME, /CONTAINER with --attribute-pods=containers), else the
 * cgroup's path, or <unattributed> — after its socket where there are several.
 */
static void attrib_label(const struct pm_row *r, bool socket, char *buf, size_t size)
{
	char where[16] = "";

	if (socket && r->socket >= 0)
		snprintf(where, sizeof(where), "S%d ", r->socket);
	if (r->pod && r->container)
		snprintf(buf, size, "%s%s/%s/%s", where, r->pod_namespace ? r->pod_namespace : "",
			 r->pod, r->container);
	else if (r->pod)
		snprintf(buf, size, "%s%s/%s", where, r->pod_namespace ? r->pod_namespace : "",
			 r->pod);
	else
		snprintf(buf, size, "%s%s", where, r->cgroup ? r->cgroup : "");
}

struct sort_key {
	size_t kind, row;
	int socket, die, ch, sub, cgroup;
};

static int cmp_int(int a, int b)
{
	return a < b ? -1 : a > b;
}

static int cmp_key(const void *pa, const void *pb)
{
	const struct sort_key *a = pa, *b = pb;
	int c;

	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if ((c = cmp_int(a->cgroup, b->cgroup)) || (c = cmp_int(a->socket, b->socket)) ||
	    (c = cmp_int(a->die, b->die)) || (c = cmp_int(a->ch, b->ch)) ||
	    (c = cmp_int(a->sub, b->sub)))
		return c;
	return a->row < b->row ? -1 : a->row > b->row; /* stable: the report's order */
}

static int cgroup_id(const struct pm_report *rep, size_t i)
{
	const char *cg = rep->rows[i].cgroup;

	/* attributed shares never nest: they add up to their total, as places do */
	if (!cg || !cg[0] || (rep->rows[i].flags & PM_ROW_ATTRIBUTED))
		return -1;
	for (size_t j = 0; j < i; j++)
		if (rep->rows[j].cgroup && !strcmp(rep->rows[j].cgroup, cg))
			return (int)j;
	return (int)i;
}

static bool row_shown(const struct pm_row *r, enum screen_rows which)
{
	return (r->flags & PM_ROW_METRIC) ? (which & SCREEN_METRICS) : (which & SCREEN_EVENTS);
}

/* "A", "A, B", "A, B, C", "A ... Z": the metrics a kind shows, one more (a new one). */
static void add_what(struct screen_kind *k, const char *metric, size_t n_what)
{
	size_t off = strlen(k->what);
	char *cut = strchr(k->what, ',');

	if (n_what < 3)
		snprintf(k->what + off, sizeof(k->what) - off, "%s%s", off ? ", " : "", metric);
	else if (cut) /* "A ... metric" */
		snprintf(cut, sizeof(k->what) - (size_t)(cut - k->what), " ... %s", metric);
	else if ((cut = strstr(k->what, " ... ")))
		snprintf(cut, sizeof(k->what) - (size_t)(cut - k->what), " ... %s", metric);
}

/* A row's identity, to see that a report's rows are still the ones a screen was made for. */
static unsigned long row_hash(const struct pm_row *r)
{
	const char *parts[] = { r->event, r->device, r->place, r->domain, r->cgroup };
	unsigned long h = 1469598103934665603ul;

	for (size_t i = 0; i < PM_ARRAY_SIZE(parts); i++) {
		for (const char *p = parts[i]; p && *p; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ul;
		h = (h ^ 0xff) * 1099511628211ul;
	}
	h ^= (unsigned long)(r->socket + 1) * 31u + (unsigned long)(r->die + 1) * 7u +
	     (unsigned long)(r->cpu + 1) * 131u;
	return h;
}

static int add_total(struct screen *s, enum screen_level level, int socket, int die, int cgroup,
		     const char *cgname)
{
	struct screen_total *t;
	char where[48];

	if (PM_GROW(s->total, s->cap_totals, s->n_totals + 1) < 0)
		return -ENOMEM;
	t = &s->total[s->n_totals++];
	*t = (struct screen_total){ .level = level, .socket = socket, .die = die, .cgroup = cgroup };
	if (level == SCREEN_DIE && socket >= 0 && s->n_sockets > 1)
		snprintf(where, sizeof(where), "S%d/die%d", socket, die);
	else if (level == SCREEN_DIE)
		snprintf(where, sizeof(where), "die%d", die);
	else if (level == SCREEN_SOCKET)
		snprintf(where, sizeof(where), "S%d", socket);
	else
		snprintf(where, sizeof(where), "machine");
	if (cgname && cgname[0])
		snprintf(t->label, sizeof(t->label), "%s total in %s", where, cgname);
	else
		snprintf(t->label, sizeof(t->label), "%s total", where);
	return 0;
}

/* Is item it in total t's group? */
static bool member(const struct screen_total *t, const struct screen_item *it)
{
	if (t->cgroup != it->cgroup)
		return false;
	if (t->level == SCREEN_MACHINE)
		return true;
	if (t->level == SCREEN_SOCKET)
		return it->socket == t->socket;
	return it->socket == t->socket && it->die == t->die;
}

/* The totals of kind k: per die where a socket has several dies, per socket where there
 * are several, for the machine; each only where it adds two items or more somewhere. */
static int kind_totals(struct screen *s, const struct pm_report *rep, struct screen_kind *k)
{
	struct screen_item *it = &s->item[k->item0];
	size_t n = k->n_items;
	/* the levels, each tried over the groups its items fall in */
	for (int level = SCREEN_DIE; level <= SCREEN_MACHINE; level++) {
		size_t first = s->n_totals;
		bool some_adds = false, several = false;

		for (size_t i = 0; i < n; i++) {
			bool seen = false;
			int die = level == SCREEN_DIE ? it[i].die : -1;
			int socket = level == SCREEN_MACHINE ? -1 : it[i].socket;

			if (level == SCREEN_DIE && it[i].die < 0)
				continue;
			if (level == SCREEN_SOCKET && it[i].socket < 0)
				continue;
			for (size_t t = first; t < s->n_totals; t++)
				if (s->total[t].socket == socket && s->total[t].die == die &&
				    s->total[t].cgroup == it[i].cgroup)
					seen = true;
			if (!seen &&
			    add_total(s, (enum screen_level)level, socket, die, it[i].cgroup,
				      it[i].cgroup >= 0 ? rep->rows[it[i].cgroup].cgroup : NULL) <
				    0)
				return -ENOMEM;
		}
		/* worth showing: some group adds two items, and the groups are not one
		 * level up's (the dies of a socket with one die are the socket) */
		for (size_t t = first; t < s->n_totals; t++) {
			size_t members = 0;

			for (size_t i = 0; i < n; i++)
				members += member(&s->total[t], &it[i]);
			some_adds |= members >= 2;
		}
		if (level == SCREEN_DIE) /* several dies in one socket (and cgroup) */
			for (size_t a = first; a < s->n_totals; a++)
				for (size_t b = a + 1; b < s->n_totals; b++)
					several |= s->total[a].socket == s->total[b].socket &&
						   s->total[a].cgroup == s->total[b].cgroup;
		else if (level == SCREEN_SOCKET) /* several sockets (in one cgroup) */
			for (size_t a = first; a < s->n_totals; a++)
				for (size_t b = a + 1; b < s->n_totals; b++)
					several |= s->total[a].cgroup == s->total[b].cgroup;
		else
			several = true;
		if (!some_adds || !several)
			s->n_totals = first;
	}
	return 0;
}

int screen_build(struct screen *s, const struct pm_report *rep, const struct screen_info *info,
		 enum screen_rows which)
{
	struct sort_key *keys = calloc(rep->n_rows + 1, sizeof(*keys));
	const char *by = "cgroup";
	size_t n = 0;
	int ret = -ENOMEM;

	s->n_kinds = s->n_items = s->n_totals = 0;
	s->n_rows = rep->n_rows;
	s->n_sockets = 0;
	if (!keys)
		return -ENOMEM;
	/* whose shares the attributed rows are (<unattributed> is the rest of any of them) */
	for (size_t i = 0; i < rep->n_rows; i++)
		if (rep->rows[i].flags & PM_ROW_ATTRIBUTED && rep->rows[i].pod)
			by = rep->rows[i].container ? "container" : "pod";
	/* each shown row's kind: the pack's neutral name (and the unit shown), else its own */
	for (size_t i = 0; i < rep->n_rows; i++) {
		const struct pm_row *r = &rep->rows[i];
		const struct screen_name *nm = r->flags & PM_ROW_METRIC ? name_of(info, r->event) :
									  NULL;
		char unit[sizeof(s->kind->unit)], from[sizeof(s->kind->from)],
			name[sizeof(s->kind->name)];
		enum screen_measure m = measure_of(r, unit, sizeof(unit), from, sizeof(from));
		size_t k;

		if (!row_shown(r, which))
			continue;
		snprintf(name, sizeof(name), "%s", nm ? nm->name : r->event);
		for (char *p = name; nm && *p; p++)
			*p = *p == '_' ? ' ' : *p;  /* memory_read: "memory read" */
		if (r->flags & PM_ROW_ATTRIBUTED) { /* its shares: a block of their own */
			size_t len = strlen(name);

			/* and whether its intervals hold the proxies' bias (docs/attribution.md) */
			if (r->flags & PM_ROW_PROXY_BIAS_INCLUDED)
				snprintf(name + len, sizeof(name) - len,
					 " by %s (\u00b1%g %% proxy error declared)", by,
					 100 * r->proxy_error);
			else
				snprintf(name + len, sizeof(name) - len,
					 " by %s (proxy bias excluded)", by);
		}
		for (k = 0; k < s->n_kinds; k++)
			if (!strcmp(s->kind[k].name, name) && !strcmp(s->kind[k].unit, unit) &&
			    s->kind[k].metric == !!(r->flags & PM_ROW_METRIC))
				break;
		if (k == s->n_kinds) {
			struct screen_kind *kd;

			if (PM_GROW(s->kind, s->cap_kinds, s->n_kinds + 1) < 0)
				goto out;
			kd = &s->kind[s->n_kinds++];
			*kd = (struct screen_kind){ .measure = m,
						    .metric = !!(r->flags & PM_ROW_METRIC) };
			snprintf(kd->name, sizeof(kd->name), "%s", name);
			snprintf(kd->unit, sizeof(kd->unit), "%s", unit);
			snprintf(kd->from, sizeof(kd->from), "%s", from);
		}
		s->kind[k].parts |= !!(r->flags & PM_ROW_RATIO);
		s->kind[k].attributed |= !!(r->flags & PM_ROW_ATTRIBUTED);
		keys[n++] = (struct sort_key){
			.kind = k,
			.row = i,
			.socket = r->socket,
			.die = r->die,
			.ch = nm && label_num(nm->labels, "channel") >= 0 ?
				      label_num(nm->labels, "channel") :
				      r->channel,
			.sub = nm && label_num(nm->labels, "subchannel") >= 0 ?
				       label_num(nm->labels, "subchannel") :
				       r->subchannel,
			.cgroup = cgroup_id(rep, i),
		};
	}
	qsort(keys, n, sizeof(*keys), cmp_key);
	if (PM_GROW(s->item, s->cap_items, n + 1) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		struct screen_item *it = &s->item[s->n_items++];

		*it = (struct screen_item){ .row = keys[i].row,
					    .socket = keys[i].socket,
					    .die = keys[i].die,
					    .cgroup = keys[i].cgroup,
					    .hash = row_hash(&rep->rows[keys[i].row]) };
		if (it->socket >= 0 && it->socket + 1 > s->n_sockets)
			s->n_sockets = it->socket + 1;
	}
	for (size_t k = 0, i = 0; k < s->n_kinds; k++) {
		struct screen_kind *kd = &s->kind[k];
		size_t n_what = 0;
		bool dup = false;

		kd->item0 = i;
		while (i < s->n_items && keys[i].kind == k)
			i++;
		kd->n_items = i - kd->item0;
		/* labels; the device too where they would not tell the places apart */
		for (int pass = 0; pass < 2; pass++) {
			for (size_t j = kd->item0; j < i; j++) {
				const struct pm_row *r = &rep->rows[s->item[j].row];
				const struct screen_name *nm = kd->metric ?
								       name_of(info, r->event) :
								       NULL;

				if (r->flags & PM_ROW_ATTRIBUTED)
					attrib_label(r, s->n_sockets > 1, s->item[j].label,
						     sizeof(s->item[j].label));
				else
					make_label(r, nm ? nm->labels : NULL, dup, s->n_sockets > 1,
						   s->item[j].label, sizeof(s->item[j].label));
				bool seen = false;

				for (size_t e = kd->item0; pass == 0 && !seen && e < j; e++)
					seen = !strcmp(rep->rows[s->item[e].row].event, r->event);
				if (pass == 0 && kd->metric && !seen)
					add_what(kd, r->event, n_what++);
			}
			for (size_t a = kd->item0; !dup && a < i; a++)
				for (size_t b = a + 1; b < i; b++)
					if (!strcmp(s->item[a].label, s->item[b].label))
						dup = true;
			if (!dup)
				break;
		}
		if (!strcmp(kd->what, kd->name) ||
		    (!strncmp(kd->name, kd->what, strlen(kd->what)) &&
		     !strncmp(kd->name + strlen(kd->what), " by ", 4))) /* "X by cgroup" */
			kd->what[0] = '\0';
		kd->total0 = s->n_totals;
		if (kd->n_items >= 2 && !adds(kd))
			why_no_total(kd);
		else if (kd->n_items >= 2 && kind_totals(s, rep, kd) < 0)
			goto out;
		kd->n_totals = s->n_totals - kd->total0;
	}
	ret = 0;
out:
	free(keys);
	return ret;
}

bool screen_fits(const struct screen *s, const struct pm_report *rep)
{
	if (!s->kind || s->n_rows != rep->n_rows)
		return false;
	for (size_t i = 0; i < s->n_items; i++) {
		if (row_hash(&rep->rows[s->item[i].row]) != s->item[i].hash)
			return false;
	}
	for (size_t k = 0; k < s->n_kinds; k++) /* a ratio's parts, first given now */
		for (size_t i = 0; s->kind[k].measure == SCREEN_RATIO && !s->kind[k].parts &&
				   i < s->kind[k].n_items;
		     i++)
			if (rep->rows[s->item[s->kind[k].item0 + i].row].flags & PM_ROW_RATIO)
				return false;
	return true;
}

static const struct screen_kind *kind_of(const struct screen *s, size_t item)
{
	for (size_t k = 0; k < s->n_kinds; k++)
		if (item >= s->kind[k].item0 && item < s->kind[k].item0 + s->kind[k].n_items)
			return &s->kind[k];
	return NULL;
}

static double shown(const struct screen_kind *k, const struct pm_report *rep, size_t row)
{
	double v = row < rep->n_rows ? rep->rows[row].value : NAN;
	double secs = (double)rep->duration_ns / 1e9;

	if (k->measure == SCREEN_AMOUNT)
		return secs > 0 ? v / secs : NAN;
	return v;
}

double screen_value(const struct screen *s, const struct pm_report *rep, size_t item)
{
	const struct screen_kind *k = kind_of(s, item);

	return k ? shown(k, rep, s->item[item].row) : NAN;
}

/*
 * An attributed kind's total is the total its shares were cut from (docs/attribution.md:
 * the rows, <unattributed> included, add up to it exactly), so its interval is that
 * total's own, not its shares' ends added: theirs move against each other (what one
 * cgroup is given, another or <unattributed> is not). The total's own rows are the
 * report's rows of that metric outside any cgroup, in t's group; their ends added,
 * as the plain kind's total adds them. Their doubts too: the shares' approximate flag
 * is not the total's; but a share not counted (missing: PM_ROW_PARTIAL) stays said, and
 * a total's row not counted (its bucket's shares are not either) is left out as they are.
 */
static void attributed_total_bounds(const struct screen_total *t, const struct pm_report *rep,
				    const char *event, double f, unsigned doubts, unsigned missing,
				    struct pm_row *sum)
{
	struct pm_row own = { .lo = 0, .hi = 0, .bound = PM_BOUND_EXACT };
	size_t found = 0;

	for (size_t i = 0; i < rep->n_rows; i++) {
		const struct pm_row *r = &rep->rows[i];

		if (strcmp(r->event, event) || (r->flags & PM_ROW_ATTRIBUTED) ||
		    (r->cgroup && r->cgroup[0]) ||
		    (t->level != SCREEN_MACHINE && r->socket != t->socket))
			continue;
		if (isnan(r->value)) { /* its bucket's shares are NaN too: not in the sum */
			own.flags |= PM_ROW_PARTIAL;
			continue;
		}
		found++;
		own.lo += r->lo * f;
		own.hi += r->hi * f;
		if (r->bound > own.bound)
			own.bound = r->bound;
		own.flags |= r->flags & doubts;
	}
	if (!found) { /* the total is not among the rows: nothing says how far it is */
		sum->lo = sum->hi = NAN;
		sum->bound = PM_BOUND_UNMEASURED;
		return;
	}
	sum->lo = own.lo;
	sum->hi = own.hi;
	sum->bound = own.bound;
	/* a share not counted (PM_ROW_PARTIAL: the sum lacks it) is no doubt of the shares' */
	sum->flags = (sum->flags & ~doubts) | own.flags | (sum->flags & missing);
}

void screen_total_value(const struct screen *s, const struct pm_report *rep, size_t total,
			struct pm_row *ret)
{
	const unsigned doubts = PM_ROW_MULTIPLEXED | PM_ROW_APPROXIMATE | PM_ROW_WRAP_UNCERTAIN |
				PM_ROW_REPROGRAMMED | PM_ROW_RESET | PM_ROW_PARTIAL;
	const struct screen_total *t = &s->total[total];
	const struct screen_kind *k = NULL;
	unsigned lost = 0, counted = 0, missing = 0;
	struct pm_row sum = { .event = "",
			      .unit = "",
			      .value = 0,
			      .running = NAN,
			      .num = 0,
			      .den = 0,
			      .lo = 0,
			      .hi = 0,
			      .bound = PM_BOUND_EXACT };
	double secs = (double)rep->duration_ns / 1e9;

	for (size_t i = 0; i < s->n_kinds && !k; i++)
		if (total >= s->kind[i].total0 && total < s->kind[i].total0 + s->kind[i].n_totals)
			k = &s->kind[i];
	for (size_t i = 0; k && i < k->n_items; i++) {
		const struct screen_item *it = &s->item[k->item0 + i];
		const struct pm_row *r = it->row < rep->n_rows ? &rep->rows[it->row] : NULL;
		double v = shown(k, rep, it->row);
		bool ratio = k->measure == SCREEN_RATIO;

		if (!member(t, it))
			continue;
		if (isnan(v) || !r ||
		    (ratio &&
		     (!(r->flags & PM_ROW_RATIO) || !isfinite(r->num) || !isfinite(r->den)))) {
			sum.instances += r && r->instances ? r->instances : 1;
			sum.flags |= PM_ROW_PARTIAL;
			missing = PM_ROW_PARTIAL;
			lost += r && (r->flags & PM_ROW_LOST);
			continue;
		}
		counted++;
		sum.value += v;
		if (ratio) { /* a ratio's total: its summed parts */
			sum.num += r->num;
			sum.den += r->den;
		} else { /* a sum's interval: its items' ends added (no independence assumed) */
			double f = k->measure == SCREEN_AMOUNT ? 1 / secs : 1;

			sum.lo += r->lo * f;
			sum.hi += r->hi * f;
		}
		if (r->bound > sum.bound)
			sum.bound = r->bound; /* the worst of its items' */
		sum.covered += r->covered;
		sum.instances += r->instances;
		sum.flags |= r->flags & doubts;
		if (!isnan(r->running) && !(r->running >= sum.running))
			sum.running = r->running;
	}
	if (k && k->measure == SCREEN_RATIO && counted) {
		sum.value = sum.den != 0 ? sum.num / sum.den : NAN;
		sum.flags |= PM_ROW_RATIO | (sum.den != 0 ? 0 : PM_ROW_UNDEFINED);
		/* the parts carry no interval of their own: an estimated ratio's total has none */
		sum.lo = sum.hi = sum.bound == PM_BOUND_EXACT ? sum.value : NAN;
		if (sum.bound != PM_BOUND_EXACT)
			sum.bound = PM_BOUND_UNMEASURED;
	}
	if (k && k->attributed && counted)
		attributed_total_bounds(t, rep, rep->rows[s->item[k->item0].row].event,
					k->measure == SCREEN_AMOUNT ? 1 / secs : 1, doubts, missing,
					&sum);
	if (!counted) {
		sum.value = sum.lo = sum.hi = NAN;
		sum.flags = lost ? PM_ROW_LOST : PM_ROW_NOT_COUNTED;
		sum.bound = PM_BOUND_NO_VALUE;
	}
	sum.unit = k ? k->unit : "";
	*ret = sum;
}
