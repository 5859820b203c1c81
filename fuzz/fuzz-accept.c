// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz pmumon serve's Accept and Accept-Encoding parsers (cli/serve/accept.c):
 * any header a client sends gives one of the two formats, without reading
 * past its end; and the answer does not depend on bytes after a NUL.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "serve/serve.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	enum expo_format f;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	f = expo_negotiate(s);
	if (f != EXPO_TEXT && f != EXPO_OPENMETRICS)
		abort();
	(void)expo_accepts_gzip(s);
	free(s);
	return 0;
}
