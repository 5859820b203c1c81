// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz what an -e spec becomes on a machine: parsed and resolved against the
 * simulated Yitian 710 (ali_drw aliases and formats, software, tracepoint and
 * tool PMUs; NAME/terms/ after a symbol or an alias, cpu= terms, modifiers).
 * Any bytes: no crash, no leak, no undefined behaviour; a refusal has a
 * message and its caret inside the input. Also pm_spec__same_terms: a term
 * list that parses is the same as itself.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "pmumon/pmumon.h"
#include "pmumon/sim.h"
#include "spec.h"

static struct pm_ctx *machine(void)
{
	static struct pm_ctx *ctx;
	struct pm_ctx_opts o = { .size = sizeof(o), .os_ops = pm_sim__ops(), .simulated = true };
	struct pm_sim *sim = NULL;
	char err[256];

	if (ctx)
		return ctx;
	if (pm_sim__new_platform("yitian710", &sim, err, sizeof(err)) < 0)
		abort();
	o.os = sim;
	if (pm_ctx__new(&o, &ctx) < 0 || pm_ctx__discover(ctx) < 0)
		abort();
	return ctx;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *spec = malloc(size + 1);
	struct pm_evlist *l = NULL;
	struct pm_spec_event ev;
	struct pm_diag d;

	if (!spec)
		return 0;
	memcpy(spec, data, size);
	spec[size] = '\0';
	if (strlen(spec) == size && pm_evlist__new(machine(), &l) == 0) {
		pm_diag__init(&d);
		if (pm_evlist__add(l, spec, &d) < 0 &&
		    (!d.msg[0] || d.pos > (int)size || d.pos + d.len > (int)size + 1))
			abort(); /* refused without saying why, or pointing outside the input */
		pm_evlist__free(l);
		if (pm_spec__parse_terms(spec, size, &ev, NULL) == 0) {
			if (!pm_spec__same_terms(spec, spec))
				abort();
			pm_spec__done_event(&ev);
		}
	}
	free(spec);
	return 0;
}
