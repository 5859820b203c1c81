// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz the metric expression compiler and evaluator: any bytes, no crash,
 * no leak, an error position inside the input, and evaluation of whatever
 * compiles (every name resolves to one of 8 slots).
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "metric/expr.h"

static int resolve(const char *name, enum pm_expr_ref ref, void *ud)
{
	size_t h = strlen(name) + (size_t)ref;

	return name[0] == 'X' ? -1 : (int)(h % 8); /* names starting with X are unknown */
}

/* names starting with C are constants (folded), #literals too, with values from their length */
static int constant(const char *name, enum pm_expr_ref ref, void *ud, double *ret)
{
	if (name[0] != 'C' && ref != PM_EXPR_LITERAL && ref != PM_EXPR_HAS_EVENT)
		return 0;
	*ret = (double)(strlen(name) % 3);
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const double slots[8] = { 0, 1, -1, 2.5, 1e300, -1e300, 0.5, 64 };
	char *text = malloc(size + 1);
	struct pm_expr *e = NULL;
	struct pm_diag d;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	pm_diag__init(&d);
	if (pm_expr__compile(text, resolve, NULL, &e, &d) == 0) {
		(void)pm_expr__eval(e, slots);
		pm_expr__free(e);
	} else if (d.pos > (int)strlen(text) + 1) {
		abort();
	}
	/* folded with constants: the branches they decide go, their names unbound */
	pm_diag__init(&d);
	e = NULL;
	if (pm_expr__compile_folded(text, constant, resolve, NULL, &e, &d) == 0) {
		(void)pm_expr__eval(e, slots);
		pm_expr__free(e);
	} else if (d.pos > (int)strlen(text) + 1) {
		abort();
	}
	free(text);
	return 0;
}
