// SPDX-License-Identifier: GPL-2.0-only
/* The strict option values every command uses. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

int cli_parse_separator(const char *opt, const char *arg, char *ret)
{
	if (!strcmp(arg, "\\t")) {
		*ret = '\t';
		return 0;
	}
	if (strlen(arg) != 1) {
		cli_error("option %s wants one separator character such as , or ';' (or \\t), "
			  "not '%s'",
			  opt, arg);
		return -EINVAL;
	}
	/* numbers (-1.5e+09) and quoting are made of these: a field could not be told apart */
	if (strchr("0123456789.-+eE\"\n\r", arg[0])) {
		cli_error("option %s: '%s' cannot separate fields, as numbers and quoting use "
			  "digits, '.', '-', '+', 'e', '\"', newline and carriage return; use , ; | "
			  "or \\t",
			  opt, arg);
		return -EINVAL;
	}
	*ret = arg[0];
	return 0;
}

int cli_parse_define(const char *arg, char *name, size_t size, double *ret)
{
	const char *eq = strchr(arg, '=');
	double v;
	int r;

	if (!eq || eq == arg || (size_t)(eq - arg) >= size) {
		cli_error("--define wants NAME=NUMBER (ddrc_freq=1.6e9), not '%s'", arg);
		return -EINVAL;
	}
	snprintf(name, size, "%.*s", (int)(eq - arg), arg);
	r = cli_parse_double(eq + 1, &v);
	if (r == -ERANGE) {
		cli_error("--define %s: the value '%s' is out of range", name, eq + 1);
		return r;
	}
	if (r < 0) {
		cli_error("--define %s: '%s' is not a number (write it as 1.6e9 or 1600000000)",
			  name, eq + 1);
		return r;
	}
	/* every constant a pack names is a clock rate or a size (the Constants of data/PACK/pack.json) */
	if (!(v > 0)) {
		cli_error("--define %s=%s: a constant is a clock rate or a size, so it must be "
			  "greater than 0",
			  name, eq + 1);
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

int cli_parse_uint(const char *opt, const char *s, unsigned long max, unsigned long *ret)
{
	uint64_t v;

	if (cli_parse_u64(s, &v) < 0 || v > max) {
		cli_error("option %s wants a whole number up to %lu, not '%s'", opt, max, s);
		return -EINVAL;
	}
	*ret = (unsigned long)v;
	return 0;
}
