// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sideband programming list (docs/sideband.md): per group, the event
 * select writes to replay and each counter's control and data registers,
 * as a user captured them from Intel's tools on real hardware
 * (../shared/facts/merrifield.md §7).
 *
 *   # comment
 *   group UNC_SOC_Memory_DDR_BW
 *   write PORT OPCODE OFFSET VALUE
 *   counter N PORT CTL DATA
 *   start VALUE
 *
 * Numbers are hexadecimal with 0x or decimal; a leading 0 without x is
 * refused (C would read it as octal, a capture means hex). Two counters of
 * a group sharing a register (the same port and offset) are refused: one
 * would report the other's count. A write line may target a counter's
 * register: it is replayed as captured, before pmumon stops and clears
 * the counters, so it cannot make one counter read another's.
 */
#include "source/sideband/sideband.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ctx.h"
#include "util/util.h"

#define MAX_TOKENS 8
#define MAX_LINE 1024
#define MAX_WRITES 4096 /* per group: a bound on what a file may ask */

struct parser {
	const char *name;
	unsigned line;
	struct pm_diag *d;
	const char *text; /* the line, for the diag */
	size_t text_len;
};

static int bad(struct parser *p, const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int bad(struct parser *p, const char *hint, const char *fmt, ...)
{
	char what[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	pm_diag_set(p->d, hint, "%s:%u: %s", p->name, p->line, what);
	if (p->d && p->text) {
		/* the line, pointed at as a whole */
		snprintf(p->d->input, sizeof(p->d->input), "%.*s", (int)p->text_len, p->text);
		p->d->pos = 0;
		p->d->len = (int)strlen(p->d->input);
	}
	return -EINVAL;
}

/* A number: 0x hex or decimal, at most max. */
static int number(struct parser *p, const char *tok, const char *what, uint64_t max, uint64_t *ret)
{
	size_t n = strlen(tok);
	uint64_t v;

	if (n > 1 && tok[0] == '0' && tok[1] != 'x' && tok[1] != 'X')
		return bad(p,
			   "write hexadecimal numbers with 0x (0x10), decimal ones without a leading 0",
			   "%s '%s' has a leading 0: octal or hex?", what, tok);
	if (pm_parse_u64(tok, n, 0, &v) < 0 || v > max) {
		char hint[96];

		snprintf(hint, sizeof(hint), "a %s is a number from 0 to 0x%llx", what,
			 (unsigned long long)max);
		return bad(p, hint, "%s '%s' is not a number in range", what, tok);
	}
	*ret = v;
	return 0;
}

static int add_group(struct pm_sb_list *l, struct parser *p, const char *name)
{
	struct pm_sb_group *g;

	for (size_t i = 0; i < l->n_g; i++)
		if (!strcasecmp(l->g[i].name, name))
			return bad(p, "give each group once", "group '%s' again", name);
	if (pm_grow((void **)&l->g, &l->cap_g, l->n_g + 1, sizeof(*g)) < 0)
		return -ENOMEM;
	g = &l->g[l->n_g];
	*g = (struct pm_sb_group){ .line = p->line, .start = PM_SB_CMD_START };
	g->name = strdup(name);
	if (!g->name)
		return -ENOMEM;
	l->n_g++;
	return 0;
}

/*
 * Counter n (just read) may not share a register with another counter of
 * its group: a register is a port and an offset, and two counters on one
 * data register would each report the other's count, a control register
 * shared takes one's STOP, SAMPLE and START for the other's, and a data
 * register that is another's control register gets commands written into
 * the count. Say both counters, with their lines.
 */
static int check_shared(struct parser *p, const struct pm_sb_group *g, unsigned n,
			const struct pm_sb_counter *c)
{
	static const char *const hint =
		"each counter of a group has its own control and data registers: check the "
		"capture (docs/sideband.md)";

	if (c->ctl == c->data)
		return bad(p, hint,
			   "counter %u's control and data registers are both 0x%x: SAMPLE would "
			   "overwrite its count",
			   n, c->ctl);
	for (unsigned k = 0; k < PM_SB_COUNTERS; k++) {
		const struct pm_sb_counter *o = &g->ctr[k];
		const uint32_t mine[2] = { c->ctl, c->data }, theirs[2] = { o->ctl, o->data };
		static const char *const what[2] = { "control", "data" };

		if (!o->present || o->port != c->port)
			continue;
		for (int i = 0; i < 2; i++)
			for (int j = 0; j < 2; j++)
				if (mine[i] == theirs[j])
					return bad(p, hint,
						   "counter %u's %s register 0x%x on port 0x%02x "
						   "is counter %u's %s register too (line %u): "
						   "one would report the other's count",
						   n, what[i], mine[i], c->port, k, what[j],
						   o->line);
	}
	return 0;
}

/* write PORT OPCODE OFFSET VALUE: one sideband write of the group's programming. */
static int parse_write(struct pm_sb_group *g, struct parser *p, char **tok, int n)
{
	uint64_t v[4];
	struct pm_sb_write *w;

	if (n != 5)
		return bad(p, "write: write PORT OPCODE OFFSET VALUE", "'write' takes 4 numbers");
	if (number(p, tok[1], "port", 0xff, &v[0]) < 0 ||
	    number(p, tok[2], "opcode", 0xff, &v[1]) < 0 ||
	    number(p, tok[3], "offset", 0xffffffff, &v[2]) < 0 ||
	    number(p, tok[4], "value", 0xffffffff, &v[3]) < 0)
		return -EINVAL;
	if (!(v[1] & 1))
		return bad(p,
			   "a write has an odd opcode (1 for the counter block): iosf_sb "
			   "reads on an even one",
			   "opcode %s is even: that is a read, not a write", tok[2]);
	if (g->n_w == MAX_WRITES)
		return bad(p, NULL, "more than 4096 writes in group '%s'", g->name);
	if (pm_grow((void **)&g->w, &g->cap_w, g->n_w + 1, sizeof(*w)) < 0)
		return -ENOMEM;
	g->w[g->n_w++] = (struct pm_sb_write){ .port = (uint8_t)v[0],
					       .opcode = (uint8_t)v[1],
					       .offset = (uint32_t)v[2],
					       .value = (uint32_t)v[3],
					       .line = p->line };
	return 0;
}

/* counter N PORT CTL DATA: where the group's counter N is read and controlled. */
static int parse_counter(struct pm_sb_group *g, struct parser *p, char **tok, int n)
{
	uint64_t v[4];
	int r;
	struct pm_sb_counter *c;

	if (n != 5)
		return bad(p, "write: counter N PORT CTL DATA (counter 0 0x17 0x10 0x14)",
			   "'counter' takes 4 numbers");
	r = number(p, tok[1], "counter", PM_SB_COUNTERS - 1, &v[0]);
	if (r == 0)
		r = number(p, tok[2], "port", 0xff, &v[1]);
	if (r == 0)
		r = number(p, tok[3], "control register offset", 0xffffffff, &v[2]);
	if (r == 0)
		r = number(p, tok[4], "data register offset", 0xffffffff, &v[3]);
	if (r < 0)
		return r;
	c = &g->ctr[v[0]];
	if (c->present)
		return bad(p, "give each counter of a group once", "counter %s again in group '%s'",
			   tok[1], g->name);
	r = check_shared(p, g, (unsigned)v[0],
			 &(struct pm_sb_counter){ .port = (uint8_t)v[1],
						  .ctl = (uint32_t)v[2],
						  .data = (uint32_t)v[3] });
	if (r < 0)
		return r;
	*c = (struct pm_sb_counter){ .present = true,
				     .port = (uint8_t)v[1],
				     .ctl = (uint32_t)v[2],
				     .data = (uint32_t)v[3],
				     .line = p->line };
	return 0;
}

static int parse_line(struct pm_sb_list *l, struct parser *p, char *line)
{
	struct pm_sb_group *g = l->n_g ? &l->g[l->n_g - 1] : NULL;
	char *tok[MAX_TOKENS], *save = NULL;
	uint64_t v[4];
	int n = 0, r = 0;

	line[strcspn(line, "#")] = '\0';
	for (char *t = strtok_r(line, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
		if (n == MAX_TOKENS)
			return bad(p, NULL, "too many words on one line");
		tok[n++] = t;
	}
	if (n == 0)
		return 0;
	if (!strcmp(tok[0], "group")) {
		if (n != 2)
			return bad(p, "write: group NAME (group UNC_SOC_Memory_DDR_BW)",
				   "'group' takes one name");
		return add_group(l, p, tok[1]);
	}
	if (!g)
		return bad(p, "start the list with: group NAME", "'%s' before any 'group' line",
			   tok[0]);
	if (!strcmp(tok[0], "write"))
		return parse_write(g, p, tok, n);
	if (!strcmp(tok[0], "counter"))
		return parse_counter(g, p, tok, n);
	if (!strcmp(tok[0], "start")) {
		if (n != 2)
			return bad(p, "write: start VALUE (start 0x00110000)",
				   "'start' takes one number");
		r = number(p, tok[1], "start command", 0xffffffff, &v[0]);
		if (r == 0)
			g->start = (uint32_t)v[0];
		return r;
	}
	return bad(p,
		   "lines are: group NAME, write PORT OPCODE OFFSET VALUE, counter N PORT CTL DATA, start VALUE",
		   "unknown keyword '%s'", tok[0]);
}

int pm_sb_list__parse(const char *buf, size_t len, const char *name, struct pm_sb_list **ret,
		      struct pm_diag *reterr)
{
	struct pm_sb_list *l = calloc(1, sizeof(*l));
	struct parser p = { .name = name ? name : "programming list", .d = reterr };
	char line[MAX_LINE + 1];
	size_t pos = 0;
	int r = 0;

	if (!l)
		return -ENOMEM;
	pm_diag__init(reterr);
	while (pos < len && r == 0) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (buf + pos)) : len - pos;

		p.line++;
		p.text = buf + pos;
		p.text_len = n;
		if (memchr(buf + pos, '\0', n)) {
			r = bad(&p, "is this a text file?", "a NUL byte");
			break;
		}
		if (n > MAX_LINE) {
			r = bad(&p, NULL, "a line longer than 1024 characters");
			break;
		}
		memcpy(line, buf + pos, n);
		line[n] = '\0';
		r = parse_line(l, &p, line);
		pos += n + 1;
	}
	if (r == 0 && l->n_g == 0) {
		p.line = 0;
		pm_diag_set(reterr, "docs/sideband.md describes the format",
			    "%s: no group in it (a list starts with: group NAME)", p.name);
		r = -EINVAL;
	}
	for (size_t i = 0; r == 0 && i < l->n_g; i++) {
		bool any = false;

		for (size_t k = 0; k < PM_SB_COUNTERS; k++)
			any |= l->g[i].ctr[k].present;
		if (!any) {
			p.line = l->g[i].line;
			p.text = NULL;
			p.text_len = 0;
			r = bad(&p, "each group declares its counters: counter N PORT CTL DATA",
				"group '%s' declares no counter", l->g[i].name);
		}
	}
	if (r < 0) {
		pm_sb_list__free(l);
		return r;
	}
	*ret = l;
	return 0;
}

void pm_sb_list__free(struct pm_sb_list *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n_g; i++) {
		free(l->g[i].name);
		free(l->g[i].w);
	}
	free(l->g);
	free(l);
}

const struct pm_sb_group *pm_sb_list__group(const struct pm_sb_list *l, const char *name)
{
	for (size_t i = 0; l && i < l->n_g; i++)
		if (!strcasecmp(l->g[i].name, name))
			return &l->g[i];
	return NULL;
}
