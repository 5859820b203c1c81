// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz remote write's reading of the exposition's labels strings
 * (cli/serve/rwwalk.c, rw_labels_parse): any string parses or is refused
 * without a read past its end or a write past strlen + 1 of its scratch;
 * what parses holds label names and is what the exposition's own escaping
 * (expo_put_label) writes back, byte for byte.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "serve/serve.h"

static bool is_name(const char *s)
{
	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
		return false;
	for (s++; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_' ||
		      (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), *scratch = malloc(size + 1);
	struct rw_label l[RW_MAX_LABELS];
	struct sbuf b = { 0 };
	bool first = true;
	long n;

	if (!s || !scratch)
		goto out;
	memcpy(s, data, size);
	s[size] = '\0';
	n = rw_labels_parse(s, scratch, l, RW_MAX_LABELS);
	if (n < 0)
		goto out;
	for (long i = 0; i < n; i++) {
		if (!is_name(l[i].name))
			abort();
		expo_put_label(&b, &first, l[i].name, l[i].value);
	}
	sbuf_put(&b, "", 0);
	if (!b.err && strcmp(b.data, s) != 0)
		abort();
out:
	sbuf_free(&b);
	free(scratch);
	free(s);
	return 0;
}
