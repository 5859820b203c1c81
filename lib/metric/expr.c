// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf's MetricExpr: a recursive-descent parser with bison's precedences
 * from tools/perf/util/expr.y (lowest first: `if else`, |, ^, &, < >, + -,
 * * / %, unary minus) and expr.l's tokens, emitting a stack program. The
 * evaluator runs that program on a fixed-size stack: no allocation, and the
 * same value on every call for the same slots.
 */
#include "metric/expr.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "util/util.h"

#define STACK_MAX 64  /* deepest evaluation stack a program may need */
#define NEST_MAX 200  /* deepest parser recursion (fuzzed input stays bounded) */
#define NAME_MAX_ 512 /* longest name */

enum op {
	OP_NUM,
	OP_SLOT,
	OP_ADD,
	OP_SUB,
	OP_MUL,
	OP_DIV,
	OP_MOD,
	OP_OR,
	OP_AND,
	OP_XOR,
	OP_LT,
	OP_GT,
	OP_NEG,
	OP_MIN,
	OP_MAX,
	OP_DRATIO,
	OP_SELECT, /* a c b: c ? a : b */
};

struct insn {
	enum op op;
	int slot;
	double num;
};

struct ref {
	char *name;
	enum pm_expr_ref kind;
	int slot;
	size_t pos, len; /* its first appearance in the text, for a message */
};

struct pm_expr {
	struct insn *code;
	size_t n_code, cap_code;
	struct ref *refs;
	size_t n_refs, cap_refs;
	/* a ratio (find_ratio): factor * code[num_at, num_end) / code[num_end, den_end),
	 * two subtrees of the program; ratio false: none */
	bool ratio;
	size_t num_at, num_end, den_end;
	double factor;
};

static void find_ratio(struct pm_expr *e);

/* ---- tokens ---------------------------------------------------------------------- */

enum tok {
	T_END,
	T_NUM,
	T_NAME,
	T_LITERAL,
	T_IF,
	T_ELSE,
	T_MIN,
	T_MAX,
	T_DRATIO,
	T_SOURCE_COUNT,
	T_HAS_EVENT,
	T_CPUID,
	T_CHAR, /* one of | ^ & < > - + * / % ( ) , */
	T_BAD,
	T_BIG, /* a number out of a double's range */
};

static const struct {
	const char *word;
	enum tok tok;
} keywords[] = {
	{ "if", T_IF },
	{ "else", T_ELSE },
	{ "min", T_MIN },
	{ "max", T_MAX },
	{ "d_ratio", T_DRATIO },
	{ "source_count", T_SOURCE_COUNT },
	{ "has_event", T_HAS_EVENT },
	{ "strcmp_cpuid_str", T_CPUID },
};

struct parser {
	const char *s;
	size_t pos;
	/* the current token */
	enum tok tok;
	size_t tok_pos, tok_len;
	char c;	    /* T_CHAR */
	double num; /* T_NUM */
	char name[NAME_MAX_];
	int depth, stack, stack_max;
	struct pm_expr *e;
	pm_expr_resolve_fn resolve;
	void *ud;
	struct pm_diag *err;
	int r; /* first error */
};

static bool is_sym(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       c == '_' || c == '.' || c == ':' || c == '@' || c == '?';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* expr.l: ([0-9]+\.?[0-9]*|[0-9]*\.?[0-9]+)(e-?[0-9]+)? */
static size_t number_len(const char *s)
{
	size_t i = 0, digits = 0;

	while (is_digit(s[i]))
		i++, digits++;
	if (s[i] == '.') {
		i++;
		while (is_digit(s[i]))
			i++, digits++;
	}
	if (!digits)
		return 0;
	if (s[i] == 'e') {
		size_t j = i + 1;

		if (s[j] == '-')
			j++;
		if (is_digit(s[j])) {
			while (is_digit(s[j]))
				j++;
			i = j;
		}
	}
	return i;
}

/* expr.l: symbol ({spec}|{sym})+ with spec \\[-,=] */
static size_t symbol_len(const char *s)
{
	size_t i = 0;

	for (;;) {
		if (is_sym(s[i]))
			i++;
		else if (s[i] == '\\' && (s[i + 1] == '-' || s[i + 1] == ',' || s[i + 1] == '='))
			i += 2;
		else
			return i;
	}
}

static int lex_fail(struct parser *p, size_t pos, size_t len, const char *msg)
{
	if (p->r == 0) {
		pm_diag_set(p->err, "metric expressions use perf's MetricExpr syntax", "%s", msg);
		pm_diag_point(p->err, p->s, pos, len);
		p->r = -EINVAL;
	}
	return p->r;
}

static void copy_name(struct parser *p, size_t start, size_t len)
{
	size_t o = 0;

	/* drop the escapes' backslashes, as perf's normalize() does */
	for (size_t i = 0; i < len && o + 1 < sizeof(p->name); i++) {
		if (p->s[start + i] == '\\')
			i++;
		p->name[o++] = p->s[start + i];
	}
	p->name[o] = '\0';
}

static void next(struct parser *p)
{
	const char *s = p->s;
	size_t nl, sl;

	while (s[p->pos] == ' ' || s[p->pos] == '\t' || s[p->pos] == '\n' || s[p->pos] == '\r')
		p->pos++;
	p->tok_pos = p->pos;
	p->tok_len = 0;
	if (!s[p->pos]) {
		p->tok = T_END;
		return;
	}
	if (s[p->pos] == '#') { /* expr.l: literal #[0-9a-zA-Z_\.\-]+ */
		size_t i = p->pos + 1;

		while (s[i] == '-' || s[i] == '_' || s[i] == '.' || (s[i] >= '0' && s[i] <= '9') ||
		       (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z'))
			i++;
		if (i == p->pos + 1) {
			p->tok = T_BAD;
			p->tok_len = 1;
			return;
		}
		p->tok = T_LITERAL;
		p->tok_len = i - p->pos;
		copy_name(p, p->pos, p->tok_len);
		p->pos = i;
		return;
	}
	nl = number_len(s + p->pos);
	sl = symbol_len(s + p->pos);
	if (nl && nl >= sl) {
		/* flex: the longest match; a tie goes to the earlier rule, number */
		if (pm_parse_double(s + p->pos, nl, &p->num) < 0) {
			p->tok = T_BIG;
			p->tok_len = nl;
			return;
		}
		p->tok = T_NUM;
		p->tok_len = nl;
		p->pos += nl;
		return;
	}
	if (sl) {
		p->tok = T_NAME;
		p->tok_len = sl;
		copy_name(p, p->pos, sl);
		for (size_t k = 0; k < PM_ARRAY_SIZE(keywords); k++)
			if (!strcmp(p->name, keywords[k].word))
				p->tok = keywords[k].tok;
		p->pos += sl;
		return;
	}
	if (strchr("|^&<>-+*/%(),", s[p->pos])) {
		p->tok = T_CHAR;
		p->c = s[p->pos];
		p->tok_len = 1;
		p->pos++;
		return;
	}
	p->tok = T_BAD;
	p->tok_len = 1;
}

static bool is_char(const struct parser *p, char c)
{
	return p->tok == T_CHAR && p->c == c;
}

static int expect_char(struct parser *p, char c, const char *what)
{
	char msg[96];

	if (is_char(p, c)) {
		next(p);
		return 0;
	}
	snprintf(msg, sizeof(msg), "expected '%c' %s", c, what);
	return lex_fail(p, p->tok_pos, p->tok_len, msg);
}

/* ---- emitting -------------------------------------------------------------------- */

static int emit(struct parser *p, enum op op, int slot, double num)
{
	static const int effect[] = {
		[OP_NUM] = 1,	  [OP_SLOT] = 1,    [OP_ADD] = -1, [OP_SUB] = -1, [OP_MUL] = -1,
		[OP_DIV] = -1,	  [OP_MOD] = -1,    [OP_OR] = -1,  [OP_AND] = -1, [OP_XOR] = -1,
		[OP_LT] = -1,	  [OP_GT] = -1,	    [OP_NEG] = 0,  [OP_MIN] = -1, [OP_MAX] = -1,
		[OP_DRATIO] = -1, [OP_SELECT] = -2,
	};
	struct pm_expr *e = p->e;

	if (p->r)
		return p->r;
	if (pm_grow((void **)&e->code, &e->cap_code, e->n_code + 1, sizeof(*e->code)) < 0)
		return p->r = -ENOMEM;
	e->code[e->n_code++] = (struct insn){ .op = op, .slot = slot, .num = num };
	p->stack += effect[op];
	if (p->stack > p->stack_max)
		p->stack_max = p->stack;
	if (p->stack_max > STACK_MAX)
		return lex_fail(p, p->tok_pos, p->tok_len, "expression too deeply nested");
	return 0;
}

/*
 * A name: its OP_SLOT holds the index of its ref until the program is folded
 * and only the refs left are resolved (pm_expr__compile_folded), so a name
 * in a branch that cannot be taken is never bound, as in perf.
 */
static int emit_ref(struct parser *p, const char *name, enum pm_expr_ref kind, size_t pos,
		    size_t len)
{
	struct pm_expr *e = p->e;
	int idx = -1;

	if (p->r)
		return p->r;
	for (size_t i = 0; i < e->n_refs && idx < 0; i++)
		if (e->refs[i].kind == kind && !strcmp(e->refs[i].name, name))
			idx = (int)i;
	if (idx < 0) {
		if (pm_grow((void **)&e->refs, &e->cap_refs, e->n_refs + 1, sizeof(*e->refs)) < 0)
			return p->r = -ENOMEM;
		e->refs[e->n_refs] = (struct ref){ .name = strdup(name),
						   .kind = kind,
						   .slot = -1,
						   .pos = pos,
						   .len = len };
		if (!e->refs[e->n_refs].name)
			return p->r = -ENOMEM;
		idx = (int)e->n_refs++;
	}
	return emit(p, OP_SLOT, idx, 0);
}

/* ---- parsing --------------------------------------------------------------------- */

static int parse_if(struct parser *p);
static int parse_bin(struct parser *p, int min_prec);

static int binary_prec(const struct parser *p, enum op *ret)
{
	static const struct {
		char c;
		int prec;
		enum op op;
	} ops[] = {
		{ '|', 1, OP_OR },  { '^', 2, OP_XOR }, { '&', 3, OP_AND }, { '<', 4, OP_LT },
		{ '>', 4, OP_GT },  { '+', 5, OP_ADD }, { '-', 5, OP_SUB }, { '*', 6, OP_MUL },
		{ '/', 6, OP_DIV }, { '%', 6, OP_MOD },
	};

	if (p->tok != T_CHAR)
		return 0;
	for (size_t i = 0; i < PM_ARRAY_SIZE(ops); i++) {
		if (ops[i].c == p->c) {
			*ret = ops[i].op;
			return ops[i].prec;
		}
	}
	return 0;
}

/* f(expr, expr) */
static int parse_call2(struct parser *p, enum op op)
{
	next(p);
	if (expect_char(p, '(', "after min, max or d_ratio") || parse_bin(p, 1) ||
	    expect_char(p, ',', "between the two arguments") || parse_bin(p, 1) ||
	    expect_char(p, ')', "after the second argument"))
		return p->r;
	return emit(p, op, 0, 0);
}

/* f(name) */
static int parse_call_name(struct parser *p, enum pm_expr_ref kind)
{
	char name[NAME_MAX_];
	size_t pos, len;

	next(p);
	if (expect_char(p, '(', "after source_count, has_event or strcmp_cpuid_str"))
		return p->r;
	if (p->tok != T_NAME)
		return lex_fail(p, p->tok_pos, p->tok_len, "expected a name");
	pos = p->tok_pos;
	len = p->tok_len;
	snprintf(name, sizeof(name), "%s", p->name);
	next(p);
	if (expect_char(p, ')', "after the name"))
		return p->r;
	return emit_ref(p, name, kind, pos, len);
}

static int parse_primary(struct parser *p)
{
	size_t pos = p->tok_pos, len = p->tok_len;
	char name[NAME_MAX_];

	if (++p->depth > NEST_MAX)
		return lex_fail(p, pos, len, "expression too deeply nested");
	switch (p->tok) {
	case T_NUM: {
		double v = p->num;

		next(p);
		emit(p, OP_NUM, 0, v);
		break;
	}
	case T_NAME:
	case T_LITERAL: {
		enum pm_expr_ref kind = p->tok == T_LITERAL ? PM_EXPR_LITERAL : PM_EXPR_VALUE;

		snprintf(name, sizeof(name), "%s", p->name); /* next() reuses p->name */
		next(p);
		emit_ref(p, name, kind, pos, len);
		break;
	}
	case T_MIN:
		parse_call2(p, OP_MIN);
		break;
	case T_MAX:
		parse_call2(p, OP_MAX);
		break;
	case T_DRATIO:
		parse_call2(p, OP_DRATIO);
		break;
	case T_SOURCE_COUNT:
		parse_call_name(p, PM_EXPR_SOURCE_COUNT);
		break;
	case T_HAS_EVENT:
		parse_call_name(p, PM_EXPR_HAS_EVENT);
		break;
	case T_CPUID:
		parse_call_name(p, PM_EXPR_CPUID);
		break;
	case T_CHAR:
		if (p->c == '(') {
			next(p);
			if (parse_if(p) == 0)
				expect_char(p, ')', "to close the '('");
			break;
		}
		if (p->c == '-') { /* unary minus binds tighter than any operator */
			next(p);
			if (parse_primary(p) == 0)
				emit(p, OP_NEG, 0, 0);
			break;
		}
		lex_fail(p, pos, len, "expected a number, a name or '('");
		break;
	case T_END:
		lex_fail(p, pos, 1, "the expression ends where a value was expected");
		break;
	case T_BAD:
		lex_fail(p, pos, len, "unexpected character");
		break;
	case T_BIG:
		lex_fail(p, pos, len, "number out of range");
		break;
	default:
		lex_fail(p, pos, len, "expected a number, a name or '('");
		break;
	}
	p->depth--;
	return p->r;
}

/* Binary operators, left-associative, at or above min_prec. */
static int parse_bin(struct parser *p, int min_prec)
{
	enum op op;
	int prec;

	if (parse_primary(p))
		return p->r;
	while ((prec = binary_prec(p, &op)) >= min_prec && prec > 0) {
		next(p);
		if (parse_bin(p, prec + 1) || emit(p, op, 0, 0))
			return p->r;
	}
	return p->r;
}

/* if_expr: expr IF expr ELSE if_expr | expr */
static int parse_if(struct parser *p)
{
	if (parse_bin(p, 1))
		return p->r;
	if (p->tok != T_IF)
		return 0;
	next(p);
	if (parse_bin(p, 1))
		return p->r;
	if (p->tok != T_ELSE)
		return lex_fail(p, p->tok_pos, p->tok_len ? p->tok_len : 1,
				"expected 'else' (perf writes: A if CONDITION else B)");
	next(p);
	if (parse_if(p))
		return p->r;
	return emit(p, OP_SELECT, 0, 0);
}

void pm_expr__free(struct pm_expr *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->n_refs; i++)
		free(e->refs[i].name);
	free(e->refs);
	free(e->code);
	free(e);
}

/* ---- constant folding (perf's expr.y with compute_ids) ------------------------------ */

static double binop(enum op op, double a, double b);

/* The program as a tree: node k's operands are nodes a, b (and c: SELECT's condition). */
struct node {
	enum op op;
	int slot; /* OP_SLOT: its ref */
	double num;
	int a, b, c;
	bool folded; /* OP_NUM made by folding: no ref below it any more */
};

struct folder {
	struct node *n;
	size_t count;
	const struct pm_expr *e;
	pm_expr_const_fn constant;
	void *ud;
};

/* A constant in perf's sense (expr.y is_const): a finite value. */
static bool is_const(const struct folder *f, int k)
{
	return f->n[k].op == OP_NUM && isfinite(f->n[k].num);
}

static int make_num(struct folder *f, int k, double v)
{
	f->n[k] = (struct node){ .op = OP_NUM, .num = v, .a = -1, .b = -1, .c = -1, .folded = true };
	return k;
}

/*
 * Fold node k in place, as perf 6.x's expr.y computes ids: an operation of
 * constants is its value; a branch a constant condition does not take goes,
 * and so do both when they are the same constant; x & 0 is 0, x / 0 and
 * x % 0 no number, d_ratio(x, 0) 0, whatever x (the ids of x dropped).
 * Constants are numbers and the names the caller's constant function gives
 * a finite value (a #literal, has_event(), a --define).
 */
static int fold(struct folder *f, int k)
{
	struct node *n = &f->n[k];
	int a, b, c;

	switch (n->op) {
	case OP_NUM:
		return k;
	case OP_SLOT: {
		const struct ref *r = &f->e->refs[n->slot];
		double v;

		if (f->constant && f->constant(r->name, r->kind, f->ud, &v) == 1 && isfinite(v))
			return make_num(f, k, v);
		return k;
	}
	case OP_NEG:
		a = fold(f, n->a);
		n = &f->n[k];
		n->a = a;
		return is_const(f, a) ? make_num(f, k, -f->n[a].num) : k;
	case OP_SELECT:
		c = fold(f, n->c);
		if (is_const(f, c)) /* the branch taken alone */
			return fold(f, f->n[c].num != 0 ? f->n[k].a : f->n[k].b);
		a = fold(f, f->n[k].a);
		b = fold(f, f->n[k].b);
		n = &f->n[k];
		n->a = a, n->b = b, n->c = c;
		if (is_const(f, a) && is_const(f, b) && f->n[a].num == f->n[b].num)
			return make_num(f, k, f->n[a].num);
		return k;
	default:
		a = fold(f, n->a);
		b = fold(f, f->n[k].b);
		n = &f->n[k];
		n->a = a, n->b = b;
		if (is_const(f, a) && is_const(f, b))
			return make_num(f, k, binop(n->op, f->n[a].num, f->n[b].num));
		if (n->op == OP_AND &&
		    ((is_const(f, a) && f->n[a].num == 0) || (is_const(f, b) && f->n[b].num == 0)))
			return make_num(f, k, 0);
		if ((n->op == OP_DIV || n->op == OP_MOD) && is_const(f, b) && f->n[b].num == 0)
			return make_num(f, k, NAN);
		if (n->op == OP_DRATIO && is_const(f, b) && f->n[b].num == 0)
			return make_num(f, k, 0);
		return k;
	}
}

/* Node k's program into code (room for at least as many instructions as before). */
static void emit_node(const struct folder *f, int k, struct insn *code, size_t *n)
{
	const struct node *nd = &f->n[k];

	switch (nd->op) {
	case OP_NUM:
		code[(*n)++] = (struct insn){ .op = OP_NUM, .num = nd->num };
		return;
	case OP_SLOT:
		code[(*n)++] = (struct insn){ .op = OP_SLOT, .slot = nd->slot };
		return;
	case OP_NEG:
		emit_node(f, nd->a, code, n);
		break;
	case OP_SELECT: /* a c b */
		emit_node(f, nd->a, code, n);
		emit_node(f, nd->c, code, n);
		emit_node(f, nd->b, code, n);
		break;
	default:
		emit_node(f, nd->a, code, n);
		emit_node(f, nd->b, code, n);
		break;
	}
	code[(*n)++] = (struct insn){ .op = nd->op };
}

/* The postfix program as a tree (each instruction a node), folded and written back. */
static int fold_program(struct pm_expr *e, pm_expr_const_fn constant, void *ud)
{
	struct folder f = { .e = e, .constant = constant, .ud = ud };
	int *stack = calloc(e->n_code + 1, sizeof(*stack)), root;
	size_t sp = 0, n = 0;

	f.n = calloc(e->n_code + 1, sizeof(*f.n));
	if (!stack || !f.n) {
		free(stack);
		free(f.n);
		return -ENOMEM;
	}
	for (size_t i = 0; i < e->n_code; i++) {
		const struct insn *in = &e->code[i];
		struct node *nd = &f.n[i];

		*nd = (struct node){ .op = in->op,
				     .slot = in->slot,
				     .num = in->num,
				     .a = -1,
				     .b = -1,
				     .c = -1 };
		if (in->op == OP_SELECT) {
			nd->b = stack[--sp];
			nd->c = stack[--sp];
			nd->a = stack[--sp];
		} else if (in->op == OP_NEG) {
			nd->a = stack[--sp];
		} else if (in->op != OP_NUM && in->op != OP_SLOT) {
			nd->b = stack[--sp];
			nd->a = stack[--sp];
		}
		stack[sp++] = (int)i;
	}
	root = fold(&f, stack[0]);
	emit_node(&f, root, e->code, &n);
	e->n_code = n;
	free(stack);
	free(f.n);
	return 0;
}

/*
 * The refs the folded program still names, each resolved in order of first
 * appearance (its slot from resolve), the program's OP_SLOT pointed at the
 * slots, the others dropped: 0, or the first failure (said in p->err).
 */
static int resolve_refs(struct parser *p)
{
	struct pm_expr *e = p->e;
	size_t kept = 0;
	int *slot = calloc(e->n_refs + 1, sizeof(*slot));
	bool *used = calloc(e->n_refs + 1, sizeof(*used));

	if (!slot || !used) {
		free(slot);
		free(used);
		return p->r = -ENOMEM;
	}
	for (size_t i = 0; i < e->n_code; i++)
		if (e->code[i].op == OP_SLOT)
			used[e->code[i].slot] = true;
	for (size_t i = 0; i < e->n_refs && !p->r; i++) {
		const struct ref *r = &e->refs[i];

		if (!used[i])
			continue;
		slot[i] = p->resolve(r->name, r->kind, p->ud);
		if (slot[i] < 0) {
			char msg[NAME_MAX_ + 64];

			snprintf(msg, sizeof(msg), "'%s' is %s", r->name,
				 slot[i] == -ENOENT ?
					 "not an event, metric or constant known here" :
					 "not usable here");
			lex_fail(p, r->pos, r->len, msg);
			if (slot[i] != -ENOENT)
				p->r = slot[i];
		}
	}
	/* the refs left, resolved; the others (and all, after a failure) go */
	for (size_t i = 0; i < e->n_refs; i++) {
		if (!p->r && used[i]) {
			e->refs[i].slot = slot[i];
			e->refs[kept++] = e->refs[i];
		} else {
			free(e->refs[i].name);
		}
	}
	e->n_refs = kept;
	for (size_t i = 0; !p->r && i < e->n_code; i++)
		if (e->code[i].op == OP_SLOT)
			e->code[i].slot = slot[e->code[i].slot];
	free(slot);
	free(used);
	return p->r;
}

int pm_expr__compile_folded(const char *text, pm_expr_const_fn constant, pm_expr_resolve_fn resolve,
			    void *userdata, struct pm_expr **ret_expr, struct pm_diag *reterr)
{
	struct parser p = { .s = text, .resolve = resolve, .ud = userdata, .err = reterr };

	p.e = calloc(1, sizeof(*p.e));
	if (!p.e)
		return -ENOMEM;
	next(&p);
	if (p.tok == T_END)
		lex_fail(&p, 0, 1, "the expression is empty");
	else if (parse_if(&p) == 0 && p.tok != T_END)
		lex_fail(&p, p.tok_pos, p.tok_len,
			 is_char(&p, ')') ? "a ')' without its '('" :
			 p.tok == T_BAD	  ? "unexpected character" :
					    "expected an operator here");
	if (!p.r && fold_program(p.e, constant, userdata) < 0)
		p.r = -ENOMEM;
	if (!p.r)
		resolve_refs(&p);
	if (p.r) {
		pm_expr__free(p.e);
		return p.r;
	}
	find_ratio(p.e);
	*ret_expr = p.e;
	return 0;
}

int pm_expr__compile(const char *text, pm_expr_resolve_fn resolve, void *userdata,
		     struct pm_expr **ret_expr, struct pm_diag *reterr)
{
	return pm_expr__compile_folded(text, NULL, resolve, userdata, ret_expr, reterr);
}

int pm_expr__copy(const struct pm_expr *e, struct pm_expr **ret_expr)
{
	struct pm_expr *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->code = malloc((e->n_code + 1) * sizeof(*c->code));
	c->refs = calloc(e->n_refs + 1, sizeof(*c->refs));
	if (!c->code || !c->refs) {
		pm_expr__free(c);
		return -ENOMEM;
	}
	memcpy(c->code, e->code, e->n_code * sizeof(*c->code));
	c->n_code = c->cap_code = e->n_code;
	c->ratio = e->ratio;
	c->num_at = e->num_at;
	c->num_end = e->num_end;
	c->den_end = e->den_end;
	c->factor = e->factor;
	c->cap_refs = e->n_refs + 1;
	for (; c->n_refs < e->n_refs; c->n_refs++) {
		c->refs[c->n_refs] = e->refs[c->n_refs];
		c->refs[c->n_refs].name = strdup(e->refs[c->n_refs].name);
		if (!c->refs[c->n_refs].name) {
			pm_expr__free(c);
			return -ENOMEM;
		}
	}
	*ret_expr = c;
	return 0;
}

static int any_slot(const char *name, enum pm_expr_ref ref, void *userdata)
{
	return 0;
}

int pm_expr__check(const char *text, struct pm_diag *reterr)
{
	struct pm_expr *e = NULL;
	int r = pm_expr__compile(text, any_slot, NULL, &e, reterr);

	pm_expr__free(e);
	return r;
}

size_t pm_expr__ref_count(const struct pm_expr *e)
{
	return e->n_refs;
}

const char *pm_expr__ref(const struct pm_expr *e, size_t i, enum pm_expr_ref *ret_ref,
			 int *ret_slot)
{
	if (i >= e->n_refs)
		return NULL;
	if (ret_ref)
		*ret_ref = e->refs[i].kind;
	if (ret_slot)
		*ret_slot = e->refs[i].slot;
	return e->refs[i].name;
}

/* ---- evaluation ------------------------------------------------------------------ */

/* perf does integer ops on (long); out of that range there is no honest value */
static bool as_long(double v, long *ret)
{
	if (isnan(v) || v >= 9.2e18 || v <= -9.2e18)
		return false;
	*ret = (long)v;
	return true;
}

static double int_op(enum op op, double a, double b)
{
	long x, y;

	if (!as_long(a, &x) || !as_long(b, &y))
		return NAN;
	switch (op) {
	case OP_OR:
		return (double)(x | y);
	case OP_AND:
		return (double)(x & y);
	case OP_XOR:
		return (double)(x ^ y);
	default: /* OP_MOD */
		return y == 0 ? NAN : (double)(x % y);
	}
}

/* The value of the program code[0, n): a whole program or one of its subtrees. */
static double eval_code(const struct insn *code, size_t n, const double *slots)
{
	double st[STACK_MAX];
	size_t sp = 0;

	for (size_t i = 0; i < n; i++) {
		const struct insn *in = &code[i];
		double a, b, c;

		switch (in->op) {
		case OP_NUM:
			st[sp++] = in->num;
			continue;
		case OP_SLOT:
			st[sp++] = slots[in->slot];
			continue;
		case OP_NEG:
			st[sp - 1] = -st[sp - 1];
			continue;
		case OP_SELECT:
			b = st[--sp];
			c = st[--sp];
			a = st[sp - 1];
			st[sp - 1] = isnan(c) ? NAN : c != 0 ? a : b;
			continue;
		default:
			break;
		}
		b = st[--sp];
		st[sp - 1] = binop(in->op, st[sp - 1], b);
	}
	return sp == 1 ? st[0] : NAN;
}

double pm_expr__eval(const struct pm_expr *e, const double *slots)
{
	return eval_code(e->code, e->n_code, slots);
}

/* A binary operator's value, for the evaluator and the folder alike. */
static double binop(enum op op, double a, double b)
{
	switch (op) {
	case OP_ADD:
		return a + b;
	case OP_SUB:
		return a - b;
	case OP_MUL:
		return a * b;
	case OP_DIV:
		return b == 0 ? NAN : a / b; /* perf aborts the metric: no value */
	case OP_DRATIO:
		/* perf's d_ratio, except that NaN stays NaN */
		return isnan(a) || isnan(b) ? NAN : b == 0 ? 0 : a / b;
	case OP_LT:
		return isnan(a) || isnan(b) ? NAN : a < b;
	case OP_GT:
		return isnan(a) || isnan(b) ? NAN : a > b;
	case OP_MIN:
		return isnan(a) || isnan(b) ? NAN : a < b ? a : b;
	case OP_MAX:
		return isnan(a) || isnan(b) ? NAN : a > b ? a : b;
	default:
		return int_op(op, a, b);
	}
}

/* metric.py ParsePerfJson(): an event name is what the regex
 * [a-zA-Z][^-+/\* \\\(\),]*(?:\\.[^-+/\* \\\(\),]*)* matches. */
static bool ends_perf_name(char c)
{
	return c == '\0' || strchr("-+/* \\(),", c) != NULL;
}

int pm_expr__perf_escapes(const char *text, char **ret)
{
	struct pm_strbuf b = { 0 };
	size_t i = 0;

	while (text[i]) {
		if (!isalpha((unsigned char)text[i])) {
			pm_strbuf__printf(&b, "%c", text[i++]);
			continue;
		}
		/* one name: _FixEscapes() puts a backslash before an unescaped ',' or '=' */
		for (; text[i] && (text[i] == '\\' || !ends_perf_name(text[i])); i++) {
			if (text[i] == '\\' && text[i + 1]) {
				pm_strbuf__printf(&b, "\\%c", text[i + 1]);
				i++;
				continue;
			}
			if (text[i] == '\\')
				break;
			pm_strbuf__printf(&b, "%s%c", text[i] == '=' ? "\\" : "", text[i]);
		}
	}
	if (b.oom) {
		pm_strbuf__done(&b);
		return -ENOMEM;
	}
	*ret = b.s ? pm_strbuf__steal(&b) : strdup("");
	return *ret ? 0 : -ENOMEM;
}

/* ---- parts and dimensions -------------------------------------------------------- */

/* How many values an instruction takes off the stack (it always leaves one). */
static int arity(enum op op)
{
	switch (op) {
	case OP_NUM:
	case OP_SLOT:
		return 0;
	case OP_NEG:
		return 1;
	case OP_SELECT:
		return 3;
	default:
		return 2;
	}
}

/* Where the subtree that ends at code[end - 1] (its root) begins. */
static size_t subtree_start(const struct insn *code, size_t end)
{
	size_t i = end;
	int need = 1;

	while (need > 0 && i > 0) {
		i--;
		need += arity(code[i].op) - 1;
	}
	return i;
}

static bool has_slot(const struct insn *code, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		if (code[i].op == OP_SLOT)
			return true;
	return false;
}

/*
 * The ratio inside e, if there is one: the program without constant factors
 * (x * 64, x / 1e6: subtrees with no name in them) is a / b or d_ratio(a,
 * b). perf's hit ratios, CPI and shares have that shape; so do the rates
 * (bytes / duration_time), whose parts the caller tells apart by what the
 * denominator counts.
 */
static void find_ratio(struct pm_expr *e)
{
	size_t at = 0, end = e->n_code;
	double factor = 1;

	e->ratio = false;
	while (end > at) {
		const struct insn *root = &e->code[end - 1];
		size_t right, left;

		if (root->op != OP_MUL && root->op != OP_DIV && root->op != OP_DRATIO)
			return;
		right = subtree_start(e->code, end - 1);
		left = subtree_start(e->code, right);
		if (root->op != OP_DRATIO && !has_slot(e->code, right, end - 1)) {
			double c = eval_code(e->code + right, end - 1 - right, NULL);

			if (!isfinite(c) || c == 0)
				return;
			factor = root->op == OP_MUL ? factor * c : factor / c;
			end = right; /* the left subtree [left, right) */
			at = left;
			continue;
		}
		if (root->op == OP_MUL && !has_slot(e->code, left, right)) {
			double c = eval_code(e->code + left, right - left, NULL);

			if (!isfinite(c) || c == 0)
				return;
			factor *= c;
			at = right;
			end -= 1; /* the right subtree [right, end - 1) */
			continue;
		}
		if (root->op == OP_MUL)
			return;
		e->ratio = true;
		e->num_at = left;
		e->num_end = right;
		e->den_end = end - 1;
		e->factor = factor;
		return;
	}
}

bool pm_expr__is_ratio(const struct pm_expr *e)
{
	return e->ratio;
}

bool pm_expr__eval_ratio(const struct pm_expr *e, const double *slots, double *ret_num,
			 double *ret_den)
{
	if (!e->ratio) {
		*ret_num = *ret_den = NAN;
		return false;
	}
	*ret_num = e->factor * eval_code(e->code + e->num_at, e->num_end - e->num_at, slots);
	*ret_den = eval_code(e->code + e->num_end, e->den_end - e->num_end, slots);
	return true;
}

/* Two degrees that must agree (a + b, min(a, b), either branch of an if). */
static int same_degree(int a, int b)
{
	return a == b ? a : PM_EXPR_NO_DEGREE;
}

int pm_expr__degree(const struct pm_expr *e, enum pm_expr_part part, const int *slot_degree)
{
	int st[STACK_MAX];
	size_t sp = 0, from = 0, to = e->n_code;

	if (part != PM_EXPR_WHOLE && !e->ratio)
		return PM_EXPR_NO_DEGREE;
	if (part == PM_EXPR_NUM)
		from = e->num_at, to = e->num_end;
	else if (part == PM_EXPR_DEN)
		from = e->num_end, to = e->den_end;
	for (size_t i = from; i < to; i++) {
		const struct insn *in = &e->code[i];
		int a, b, c;

		switch (in->op) {
		case OP_NUM:
			st[sp++] = 0;
			continue;
		case OP_SLOT:
			st[sp++] = slot_degree[in->slot];
			continue;
		case OP_NEG:
			continue;
		case OP_SELECT:
			b = st[--sp];
			sp--; /* the condition: any dimension */
			st[sp - 1] = same_degree(st[sp - 1], b);
			continue;
		default:
			break;
		}
		b = st[--sp];
		a = st[sp - 1];
		if (a == PM_EXPR_NO_DEGREE || b == PM_EXPR_NO_DEGREE)
			c = PM_EXPR_NO_DEGREE;
		else if (in->op == OP_MUL)
			c = a + b;
		else if (in->op == OP_DIV || in->op == OP_DRATIO)
			c = a - b;
		else if (in->op == OP_ADD || in->op == OP_SUB || in->op == OP_MIN ||
			 in->op == OP_MAX)
			c = same_degree(a, b);
		else if (in->op == OP_LT || in->op == OP_GT)
			c = 0; /* a truth: a plain number */
		else
			c = PM_EXPR_NO_DEGREE; /* %, |, &, ^ of amounts */
		st[sp - 1] = c;
	}
	return sp == 1 ? st[0] : PM_EXPR_NO_DEGREE;
}
