// SPDX-License-Identifier: GPL-2.0-only
#include "spec.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

struct parser {
	const char *s;
	size_t len, pos;
	struct pm_spec out;
	size_t cap;
	struct pm_spec_err err;
};

static int fail(struct parser *p, size_t pos, size_t len, const char *msg, int r)
{
	p->err.pos = pos;
	p->err.len = len ? len : 1;
	p->err.msg = msg;
	return r;
}

static bool is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

/* PMU names may be globs over a family: ali_drw_*, uncore_imc_? */
static bool is_pmu_char(char c)
{
	return is_name_char(c) || c == '*' || c == '?';
}

static char *dup_span(const char *s, size_t len)
{
	char *d = malloc(len + 1);

	if (d) {
		memcpy(d, s, len);
		d[len] = '\0';
	}
	return d;
}

static bool at(struct parser *p, char c)
{
	return p->pos < p->len && p->s[p->pos] == c;
}

static size_t span(struct parser *p, bool (*ok)(char))
{
	size_t start = p->pos;

	while (p->pos < p->len && ok(p->s[p->pos]))
		p->pos++;
	return p->pos - start;
}

/* The modifier letters perf knows (tools/perf/util/parse-events.l, 6.1): "x:LETTERS" is x
 * with modifiers, not a tracepoint. */
#define MOD_LETTERS "ukhGHIDepPSWb"

/* Each letter's bit; 0 for p (counted) and for a letter that is none. */
static unsigned mod_bit(char c)
{
	static const struct {
		char letter;
		unsigned bit;
	} mods[] = {
		{ 'u', PM_MOD_U },	{ 'k', PM_MOD_K },    { 'h', PM_MOD_H },
		{ 'G', PM_MOD_GUEST },	{ 'H', PM_MOD_HOST }, { 'I', PM_MOD_NOIDLE },
		{ 'D', PM_MOD_PINNED }, { 'e', PM_MOD_EXCL }, { 'P', PM_MOD_PMAX },
		{ 'S', PM_MOD_SREAD },	{ 'W', PM_MOD_WEAK }, { 'b', PM_MOD_BPF },
	};

	for (size_t i = 0; i < PM_ARRAY_SIZE(mods); i++)
		if (mods[i].letter == c)
			return mods[i].bit;
	return 0;
}

static int parse_mods(struct parser *p, struct pm_spec_event *ev)
{
	size_t start = p->pos;

	while (p->pos < p->len && p->s[p->pos] != ',' && p->s[p->pos] != '}') {
		char c = p->s[p->pos];

		if (c == 'p') {
			/* parse-events.c get_event_modifier: "if (precise > 3) goto error" */
			if (ev->precise == 3)
				return fail(p, p->pos, 1, "at most 'ppp' (precise_ip 3)", -EINVAL);
			ev->precise++;
		} else if (mod_bit(c)) {
			ev->mods |= mod_bit(c);
		} else {
			return fail(p, p->pos, 1,
				    "unknown modifier (perf's are u k h G H I D e p P S W b)",
				    -EINVAL);
		}
		p->pos++;
	}
	if (p->pos == start)
		return fail(p, start, 1, "expected a modifier (u k h G H I D e p P S W b)",
			    -EINVAL);
	ev->mods_pos = start;
	return 0;
}

/* perf takes blanks after the ',' between events */
static void skip_blanks(struct parser *p)
{
	while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t'))
		p->pos++;
}

static bool is_value_char(char c)
{
	return is_name_char(c) || c == ':';
}

static int parse_term(struct parser *p, struct pm_spec_term *t)
{
	size_t start = p->pos, n;

	n = span(p, is_name_char);
	if (n == 0)
		return fail(p, p->pos, 1, "expected a term such as event=0x1 or an event name",
			    -EINVAL);
	t->name = dup_span(p->s + start, n);
	if (!t->name)
		return -ENOMEM;
	t->pos = start;
	if (at(p, '=')) {
		size_t vstart;

		p->pos++;
		vstart = p->pos;
		t->value_pos = vstart;
		if (at(p, '\'') || at(p, '"')) {
			char q = p->s[p->pos++];
			const char *end = memchr(p->s + p->pos, q, p->len - p->pos);

			if (!end)
				return fail(p, vstart, p->len - vstart, "unterminated string",
					    -EINVAL);
			t->value = dup_span(p->s + p->pos, (size_t)(end - (p->s + p->pos)));
			t->value_pos = p->pos;
			p->pos = (size_t)(end - p->s) + 1;
		} else {
			n = span(p, is_value_char);
			if (n == 0)
				return fail(p, vstart, 1, "expected a value after '='", -EINVAL);
			t->value = dup_span(p->s + vstart, n);
		}
		if (!t->value)
			return -ENOMEM;
	}
	t->len = p->pos - start;
	return 0;
}

/* Terms up to a closing '/', or (closing == false) up to the end of input. */
static int parse_terms(struct parser *p, struct pm_spec_event *ev, bool closing)
{
	size_t cap = 0;
	int r;

	while (closing ? !at(p, '/') : p->pos < p->len) {
		if (p->pos >= p->len)
			return fail(p, ev->pos, p->pos - ev->pos, "missing closing '/'", -EINVAL);
		if (ev->n_terms == PM_SPEC_MAX_TERMS)
			return fail(p, p->pos, 1, "too many terms", -E2BIG);
		r = pm_grow((void **)&ev->terms, &cap, ev->n_terms + 1, sizeof(*ev->terms));
		if (r < 0)
			return r;
		r = parse_term(p, &ev->terms[ev->n_terms++]);
		if (r < 0)
			return r;
		if (closing && p->pos >= p->len)
			return fail(p, ev->pos, p->pos - ev->pos, "missing closing '/'", -EINVAL);
		if (at(p, ',') && (closing || p->pos + 1 < p->len)) {
			p->pos++;
			if (closing && at(p, '/'))
				return fail(p, p->pos, 1, "expected a term after ','", -EINVAL);
		} else if (closing ? !at(p, '/') : p->pos < p->len)
			return fail(p, p->pos, 1,
				    closing ? "expected ',' or '/' after a term" :
					      "expected ',' after a term",
				    -EINVAL);
	}
	if (closing)
		p->pos++; /* closing '/' */
	return 0;
}

/* Does s[0..n) consist only of modifier letters? Then "x:s" is x with modifiers. */
static bool all_mods(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!strchr(MOD_LETTERS, s[i]))
			return false;
	return true;
}

static bool is_dec(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_hex(char c)
{
	return isxdigit((unsigned char)c) != 0;
}

/* perf's raw event: 'r' and hex digits only (parse-events.l: r{num_raw_hex}), so "r0x3c"
 * is not one, as perf refuses it. */
static bool is_raw(const char *s, size_t n, uint64_t *ret)
{
	if (n < 2 || s[0] != 'r')
		return false;
	for (size_t i = 1; i < n; i++) /* within n: the input has no NUL at its end */
		if (!is_hex(s[i]))
			return false;
	return pm_parse_u64(s + 1, n - 1, 16, ret) == 0;
}

static bool is_tp_char(char c)
{
	return is_name_char(c) || c == '*' || c == '?';
}

/*
 * A PMU with a device path, "bfperf/tile2/HNF_REQUESTS/": is what follows
 * the PMU's '/' a block name, a '/', terms and a closing '/', then the end
 * of the event (',', '}', ':' or the end)? Returns the block name's length,
 * 0 if not. A probe: it parses ahead and leaves the parser as it was, so
 * "cpu/cycles/u" and "cpu/cycles/u,cpu/k,event=0x3c/" keep perf's reading.
 */
static size_t device_path_len(struct parser *p)
{
	struct pm_spec_event probe = { .group = -1 };
	struct pm_spec_err err = p->err;
	size_t save = p->pos, n = span(p, is_pmu_char), found = 0;

	if (n && at(p, '/') && p->pos + 1 < p->len && is_name_char(p->s[p->pos + 1])) {
		p->pos++;
		/* ends the event: modifiers, if any, only after ':' */
		if (parse_terms(p, &probe, true) == 0 &&
		    (p->pos == p->len || at(p, ',') || at(p, '}') || at(p, ':')))
			found = n;
	}
	pm_spec__done_event(&probe);
	p->err = err;
	p->pos = save;
	return found;
}

/* A number of perf's <mem> lexer state: num_dec [0-9]+ or num_hex 0x[a-fA-F0-9]+, 64 bits
 * (its value() refuses what strtoull cannot hold). */
static int bp_number(struct parser *p, const char *what, uint64_t *ret)
{
	size_t start = p->pos, n;
	int base = 10;

	if (p->pos + 1 < p->len && p->s[p->pos] == '0' && p->s[p->pos + 1] == 'x') {
		p->pos += 2;
		base = 16;
		n = span(p, is_hex);
	} else {
		n = span(p, is_dec);
	}
	if (n == 0)
		return fail(p, start, 1, what, -EINVAL);
	if (pm_parse_u64(p->s + p->pos - n, n, base, ret) < 0)
		return fail(p, start, p->pos - start, "a breakpoint's number must fit in 64 bits",
			    -EINVAL);
	return 0;
}

/*
 * perf's breakpoint, p at the ':' after "mem" (parse-events.l's <mem> state,
 * parse-events.y's event_legacy_mem, parse_breakpoint_type; Linux 6.1):
 * ADDR, then '/' LEN, then ':' and one to three of r w x, each at most once;
 * then, as after any event, ':' and modifiers, or modifiers straight after
 * the type or the number ("mem:0x1000:wu", "mem:0x1000u"), or a lone ':'. What the kernel refuses (r alone
 * and rwx on x86, a length it has not) is its to say, as with perf.
 */
static int parse_breakpoint(struct parser *p, struct pm_spec_event *ev)
{
	int r;

	ev->kind = PM_SPEC_BREAKPOINT;
	p->pos++; /* ':' */
	r = bp_number(p, "expected an address after 'mem:' (decimal or 0x hex)", &ev->raw);
	if (r == 0 && at(p, '/')) {
		p->pos++;
		r = bp_number(p, "expected a length after '/' (decimal or 0x hex)", &ev->bp_len);
	}
	if (r < 0)
		return r;
	if (at(p, ':')) {
		p->pos++;
		for (size_t i = 0; i < 3 && p->pos < p->len && strchr("rwx", p->s[p->pos]); i++) {
			unsigned bit = p->s[p->pos] == 'r' ? 1 : p->s[p->pos] == 'w' ? 2 : 4;

			if (ev->bp_type & bit)
				return fail(p, p->pos, 1,
					    "a breakpoint type names each of r, w, x once",
					    -EINVAL);
			ev->bp_type |= bit;
			p->pos++;
		}
		if (ev->bp_type && at(p, ':'))
			p->pos++;
	}
	if (p->pos < p->len && p->s[p->pos] != ',' && p->s[p->pos] != '}')
		return parse_mods(p, ev);
	return 0;
}

/* After an event's closing '/' or number: perf's sep_dc (an optional ':'), then modifiers. */
static int parse_tail_mods(struct parser *p, struct pm_spec_event *ev)
{
	if (at(p, ':'))
		p->pos++;
	if (p->pos < p->len && p->s[p->pos] != ',' && p->s[p->pos] != '}')
		return parse_mods(p, ev);
	return 0;
}

/* An optional '/' terms '/' (perf's opt_event_config: '/' '/' too), p at the '/'. */
static int parse_opt_terms(struct parser *p, struct pm_spec_event *ev)
{
	if (!at(p, '/'))
		return 0;
	p->pos++;
	return parse_terms(p, ev, true);
}

/*
 * perf's event_legacy_numeric (parse-events.y 6.1): PE_VALUE ':' PE_VALUE
 * opt_event_config sep_dc, an attr's type and config as numbers (decimal or
 * 0x hex): 1:1 is the software PMU's task-clock, 4:0x3c/name=x/ a raw one.
 */
static int parse_numeric(struct parser *p, struct pm_spec_event *ev, size_t start)
{
	uint64_t type;
	int r;

	ev->kind = PM_SPEC_NUMERIC;
	p->pos = start;
	r = bp_number(p, "expected a PMU type number", &type);
	if (r < 0)
		return r;
	if (type > UINT32_MAX)
		return fail(p, start, p->pos - start, "a PMU type is a 32-bit number", -EINVAL);
	ev->type = (uint32_t)type;
	p->pos++; /* ':' */
	r = bp_number(p, "expected a config number after the type's ':'", &ev->raw);
	if (r == 0)
		r = parse_opt_terms(p, ev);
	return r < 0 ? r : parse_tail_mods(p, ev);
}

/* A whole number as perf's lexer takes one: [0-9]+ or 0x[a-fA-F0-9]+. */
static bool is_number(const char *s, size_t n)
{
	size_t i = n > 2 && s[0] == '0' && s[1] == 'x' ? 2 : 0;

	if (i == n)
		return false;
	for (; i < n; i++)
		if (n > 2 && s[1] == 'x' ? !is_hex(s[i]) : !is_dec(s[i]))
			return false;
	return true;
}

/* pmu '/' [block '/'] terms '/' [[':'] mods], p at the first '/', the PMU's name n long. */
static int parse_pmu_event(struct parser *p, struct pm_spec_event *ev, size_t start, size_t n)
{
	size_t block;
	int r;

	ev->kind = PM_SPEC_PMU;
	p->pos++;
	block = device_path_len(p);
	if (block) {
		n += 1 + block;
		p->pos += block + 1;
	}
	ev->pmu = dup_span(p->s + start, n);
	if (!ev->pmu)
		return -ENOMEM;
	r = parse_terms(p, ev, true);
	if (r < 0)
		return r;
	if (at(p, ':'))
		p->pos++;
	if (p->pos < p->len && p->s[p->pos] != ',' && p->s[p->pos] != '}')
		return parse_mods(p, ev);
	return 0;
}

static int parse_event(struct parser *p, struct pm_spec_event *ev, int group)
{
	size_t start = p->pos, n;
	int r;

	ev->pos = start;
	ev->group = group;
	n = span(p, is_pmu_char);
	if (n == 0)
		return fail(p, start, 1, "expected an event", -EINVAL);
	if (n == 3 && !memcmp(p->s + start, "mem", 3) && at(p, ':')) {
		r = parse_breakpoint(p, ev);
		ev->len = p->pos - start;
		return r;
	}
	if (is_number(p->s + start, n) && at(p, ':') && p->pos + 1 < p->len &&
	    is_dec(p->s[p->pos + 1])) {
		r = parse_numeric(p, ev, start);
		ev->len = p->pos - start;
		return r;
	}
	if (at(p, '/') && is_raw(p->s + start, n, &ev->raw)) {
		/* perf's event_legacy_raw: PE_RAW opt_event_config (r1a/name=x/) */
		ev->kind = PM_SPEC_RAW;
		r = parse_opt_terms(p, ev);
		if (r == 0)
			r = parse_tail_mods(p, ev);
		ev->len = p->pos - start;
		return r;
	}
	if (at(p, '/')) {
		r = parse_pmu_event(p, ev, start, n);
		ev->len = p->pos - start;
		return r;
	}
	if (memchr(p->s + start, '*', n) || memchr(p->s + start, '?', n)) {
		/* a glob is only allowed as a PMU name or a tracepoint name */
		if (!at(p, ':'))
			return fail(p, start, n,
				    "a glob must name PMUs (pmu*/event/) or tracepoints", -EINVAL);
	}
	if (at(p, ':')) {
		size_t colon = p->pos, m;

		p->pos++;
		m = span(p, is_tp_char);
		if (!all_mods(p->s + colon + 1, m)) {
			if (m == 0)
				return fail(p, colon, 1, "expected a tracepoint name after ':'",
					    -EINVAL);
			ev->kind = PM_SPEC_TRACEPOINT;
			ev->name = dup_span(p->s + start, p->pos - start);
			if (!ev->name)
				return -ENOMEM;
			if (at(p, ':')) {
				p->pos++;
				r = parse_mods(p, ev);
				if (r < 0)
					return r;
			}
			ev->len = p->pos - start;
			return 0;
		}
		p->pos = colon + 1;
		r = parse_mods(p, ev);
		if (r < 0)
			return r;
	}
	if (is_raw(p->s + start, n, &ev->raw)) {
		ev->kind = PM_SPEC_RAW;
	} else {
		ev->kind = PM_SPEC_SYMBOL;
		ev->name = dup_span(p->s + start, n);
		if (!ev->name)
			return -ENOMEM;
	}
	ev->len = p->pos - start;
	return 0;
}

static int add_event(struct parser *p, int group)
{
	int r;

	if (p->out.n == PM_SPEC_MAX_EVENTS)
		return fail(p, p->pos, 1, "too many events", -E2BIG);
	r = pm_grow((void **)&p->out.ev, &p->cap, p->out.n + 1, sizeof(*p->out.ev));
	if (r < 0)
		return r;
	p->out.n++;
	return parse_event(p, &p->out.ev[p->out.n - 1], group);
}

static int parse_group(struct parser *p)
{
	size_t open = p->pos, first = p->out.n;
	int group = (int)p->out.n_groups++;
	struct pm_spec_event mods = { 0 };
	int r;

	p->pos++; /* '{' */
	for (;;) {
		r = add_event(p, group);
		if (r < 0)
			return r;
		if (at(p, '}'))
			break;
		if (!at(p, ','))
			return fail(p, open, p->pos - open, "missing closing '}'", -EINVAL);
		p->pos++;
		skip_blanks(p);
	}
	p->pos++; /* '}' */
	if (at(p, ':')) {
		p->pos++;
		r = parse_mods(p, &mods);
		if (r < 0)
			return r;
		for (size_t i = first; i < p->out.n; i++) {
			if (!p->out.ev[i].mods && !p->out.ev[i].precise)
				p->out.ev[i].mods_pos = mods.mods_pos;
			p->out.ev[i].mods |= mods.mods;
			p->out.ev[i].precise = PM_MAX(p->out.ev[i].precise, mods.precise);
		}
	}
	return 0;
}

int pm_spec__parse(const char *s, size_t len, struct pm_spec *ret, struct pm_spec_err *reterr)
{
	struct parser p = { .s = s, .len = len };
	int r;

	if (!s || len == 0) {
		r = fail(&p, 0, 0, "empty event list", -EINVAL);
		goto out;
	}
	if (len > PM_SPEC_MAX_LEN) {
		r = fail(&p, PM_SPEC_MAX_LEN, 0, "event list too long", -E2BIG);
		goto out;
	}
	if (memchr(s, '\0', len)) {
		r = fail(&p, (size_t)((const char *)memchr(s, '\0', len) - s), 1,
			 "NUL byte in event list", -EINVAL);
		goto out;
	}
	for (;;) {
		size_t name = p.pos;

		/* perf's group_def: PE_NAME '{' events '}', a named group; the name goes */
		if (span(&p, is_name_char) == 0 || !at(&p, '{'))
			p.pos = name;
		r = at(&p, '{') ? parse_group(&p) : add_event(&p, -1);
		if (r < 0)
			goto out;
		if (p.pos == len)
			break;
		if (!at(&p, ',')) {
			r = fail(&p, p.pos, 1, "unexpected character", -EINVAL);
			goto out;
		}
		p.pos++;
		skip_blanks(&p);
		if (p.pos == len) {
			r = fail(&p, p.pos - 1, 1, "trailing ','", -EINVAL);
			goto out;
		}
	}
	*ret = p.out;
	p.out = (struct pm_spec){ 0 };
	r = 0;
out:
	if (r < 0 && reterr)
		*reterr = p.err;
	pm_spec__done(&p.out);
	return r;
}

void pm_spec__done_event(struct pm_spec_event *ev)
{
	for (size_t t = 0; t < ev->n_terms; t++) {
		free(ev->terms[t].name);
		free(ev->terms[t].value);
	}
	free(ev->terms);
	free(ev->pmu);
	free(ev->name);
	*ev = (struct pm_spec_event){ .group = -1 };
}

void pm_spec__done(struct pm_spec *spec)
{
	if (!spec)
		return;
	for (size_t i = 0; i < spec->n; i++)
		pm_spec__done_event(&spec->ev[i]);
	free(spec->ev);
	*spec = (struct pm_spec){ 0 };
}

int pm_spec__parse_terms(const char *s, size_t len, struct pm_spec_event *ret,
			 struct pm_spec_err *reterr)
{
	struct parser p = { .s = s, .len = len };
	struct pm_spec_event ev = { .kind = PM_SPEC_PMU, .group = -1 };
	int r;

	if (len > PM_SPEC_MAX_LEN)
		r = fail(&p, 0, 0, "terms too long", -E2BIG);
	else if (memchr(s, '\0', len))
		r = fail(&p, 0, 0, "NUL byte in terms", -EINVAL);
	else
		r = parse_terms(&p, &ev, false);
	if (r < 0) {
		if (reterr)
			*reterr = p.err;
		pm_spec__done_event(&ev);
		return r;
	}
	ev.len = len;
	*ret = ev;
	return 0;
}

/* A term's value as a number where it is one; a bare term is 1, as perf takes it. */
static bool term_value(const struct pm_spec_term *t, uint64_t *v)
{
	if (!t->value) {
		*v = 1;
		return true;
	}
	return pm_parse_u64_str(t->value, 0, v) == 0;
}

bool pm_spec__same_terms(const char *a, const char *b)
{
	struct pm_spec_event x = { 0 }, y = { 0 };
	bool same = false;

	if (pm_spec__parse_terms(a, strlen(a), &x, NULL) < 0 ||
	    pm_spec__parse_terms(b, strlen(b), &y, NULL) < 0)
		goto out;
	same = x.n_terms == y.n_terms && x.n_terms <= PM_SPEC_MAX_TERMS;
	/* one to one: a=1,a=1 is not a=1,b=2 */
	bool used[PM_SPEC_MAX_TERMS] = { false };

	for (size_t i = 0; same && i < x.n_terms; i++) {
		bool found = false;

		for (size_t j = 0; !found && j < y.n_terms; j++) {
			uint64_t u, v;

			if (used[j] || strcmp(x.terms[i].name, y.terms[j].name))
				continue;
			if (term_value(&x.terms[i], &u) && term_value(&y.terms[j], &v))
				found = u == v;
			else
				found = x.terms[i].value && y.terms[j].value &&
					!strcmp(x.terms[i].value, y.terms[j].value);
			used[j] = found;
		}
		same = found;
	}
out:
	pm_spec__done_event(&x);
	pm_spec__done_event(&y);
	return same;
}
