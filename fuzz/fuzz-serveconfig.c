// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz serve's --config parser (cli/serve/config.c): any file parses or is
 * refused with "FILE:LINE: why", without a leak or a read past its end;
 * what parses is one "--name" or "--name=value" per option line, each a
 * name of the table, with a value exactly when the option takes one, never
 * for a flag, and either way for one whose value is optional
 * (attribute-pods, attribute-pods = containers).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "serve/serve.h"

static const struct option allowed[] = {
	{ "metrics", required_argument, NULL, 'M' },
	{ "per-channel", no_argument, NULL, 1 },
	{ "define", required_argument, NULL, 2 },
	{ "interval", required_argument, NULL, 'I' },
	{ "attribute-cgroups", required_argument, NULL, 3 },
	{ "attribute-pods", optional_argument, NULL, 4 },
	{ "attribute-proxy-error", required_argument, NULL, 5 },
	{ 0 },
};

static void check(const char *arg)
{
	const char *eq = strchr(arg, '=');
	size_t n = eq ? (size_t)(eq - arg - 2) : strlen(arg) - 2;
	const struct option *o;

	if (strncmp(arg, "--", 2) != 0)
		abort();
	for (o = allowed; o->name; o++)
		if (strlen(o->name) == n && !strncmp(o->name, arg + 2, n))
			break;
	if (!o->name || (o->has_arg == required_argument && !eq) ||
	    (o->has_arg == no_argument && eq) || (eq && !eq[1]))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct serve_config c;
	char err[512];

	if (serve_config_parse("fuzz.conf", (const char *)data, size, allowed, &c, err,
			       sizeof(err)) < 0) {
		if (strncmp(err, "fuzz.conf:", 10) != 0 && strcmp(err, "") != 0)
			abort();
		return 0;
	}
	for (size_t i = 0; i < c.argc; i++) {
		check(c.argv[i]);
		if (i && c.line[i] <= c.line[i - 1])
			abort();
	}
	serve_config_free(&c);
	return 0;
}
