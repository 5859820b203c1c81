// SPDX-License-Identifier: GPL-2.0-only
/*
 * serve --config's parser (cli/serve/config.c), table-driven: each file's
 * arguments (one "--name[=value]" per option line, with its line) or its
 * refusal ("FILE:LINE: why"). The table of names mirrors serve's kinds of
 * option: a value required (metrics, attribute-cgroups,
 * attribute-proxy-error), none (per-channel) or optional (attribute-pods,
 * "attribute-pods" or "attribute-pods = containers"). That serve's own
 * table holds these names is tests/cli/test_attrib.py's (a file that
 * attributes, and a SIGHUP that starts attributing).
 */
#include <errno.h>
#include <getopt.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "serve.h"

static const struct option allowed[] = {
	{ "metrics", required_argument, NULL, 'M' },
	{ "per-channel", no_argument, NULL, 1 },
	{ "interval", required_argument, NULL, 'I' },
	{ "attribute-cgroups", required_argument, NULL, 2 },
	{ "attribute-pods", optional_argument, NULL, 3 },
	{ "attribute-proxy-error", required_argument, NULL, 4 },
	{ 0 },
};

struct ccase {
	const char *text;
	const char *want[4]; /* the arguments, NULL-ended; or NULL with err */
	unsigned lines[4];
	const char *err; /* the refusal's start, NULL: parses */
};

static const struct ccase cases[] = {
	{ "attribute-pods\n", { "--attribute-pods" }, { 1 }, NULL },
	{ "attribute-pods = containers\n", { "--attribute-pods=containers" }, { 1 }, NULL },
	{ "  attribute-pods=pods  \r\n", { "--attribute-pods=pods" }, { 1 }, NULL },
	{ "# per pod\n\nattribute-pods\nattribute-proxy-error = 10%\n",
	  { "--attribute-pods", "--attribute-proxy-error=10%" },
	  { 3, 4 },
	  NULL },
	{ "attribute-cgroups = system.slice,user.slice\nper-channel\n",
	  { "--attribute-cgroups=system.slice,user.slice", "--per-channel" },
	  { 1, 2 },
	  NULL },
	/* the parser only splits: which values and combinations are right is the options' */
	{ "attribute-cgroups = a\nattribute-pods\n",
	  { "--attribute-cgroups=a", "--attribute-pods" },
	  { 1, 2 },
	  NULL },
	{ "attribute-cgroups\n", { NULL }, { 0 }, "s.conf:1: 'attribute-cgroups' needs a value" },
	{ "attribute-cgroups =\n", { NULL }, { 0 }, "s.conf:1: 'attribute-cgroups' has an empty" },
	{ "attribute-pods =  \n", { NULL }, { 0 }, "s.conf:1: 'attribute-pods' has an empty value" },
	{ "attribute-pods containers\n",
	  { NULL },
	  { 0 },
	  "s.conf:1: 'attribute-pods' and its value are written attribute-pods = VALUE" },
	{ "interval = 1000\nattribute-proxy-error\n",
	  { NULL },
	  { 0 },
	  "s.conf:2: 'attribute-proxy-error' needs a value" },
	{ "attribute-pod\n", { NULL }, { 0 }, "s.conf:1: 'attribute-pod' is not an option" },
	{ "per-channel = yes\n", { NULL }, { 0 }, "s.conf:1: 'per-channel' is a flag" },
	{ "metrics = a\0b\n", { NULL }, { 0 }, "s.conf:1: a NUL byte" },
	{ "", { NULL }, { 0 }, NULL },
};

static void test_table(void **state)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct ccase *c = &cases[i];
		/* the NUL case's length runs past its NUL */
		size_t len = strlen(c->text) + (strstr(c->err ? c->err : "", "NUL") ? 3 : 0);
		struct serve_config cfg = { 0 };
		char err[256] = "x";
		size_t n = 0;
		int r = serve_config_parse("s.conf", c->text, len, allowed, &cfg, err, sizeof(err));

		if (c->err) {
			if (r != -EINVAL || strncmp(err, c->err, strlen(c->err)) != 0)
				fail_msg("case %zu: %d '%s', want '%s'", i, r, err, c->err);
			assert_null(cfg.argv); /* untouched on failure */
			continue;
		}
		if (r != 0)
			fail_msg("case %zu: %d '%s'", i, r, err);
		assert_string_equal(err, "");
		while (n < 4 && c->want[n])
			n++;
		assert_int_equal(cfg.argc, n);
		for (size_t k = 0; k < n; k++) {
			assert_string_equal(cfg.argv[k], c->want[k]);
			assert_int_equal(cfg.line[k], c->lines[k]);
		}
		serve_config_free(&cfg);
		assert_null(cfg.argv);
	}
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
