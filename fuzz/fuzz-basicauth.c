// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz serve's Authorization header reader (web_basic_credentials in
 * cli/serve/webconfig.c): any header is read or refused without a read or
 * write past its end; what is read is a user without a colon and a
 * password, neither with a NUL, both inside the buffer.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "serve/serve.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *header = malloc(size + 1), buf[96];
	const char *user = NULL, *pass = NULL;

	if (!header)
		return 0;
	memcpy(header, data, size);
	header[size] = '\0'; /* a header value is a C string (libmicrohttpd's) */
	if (web_basic_credentials(header, buf, sizeof(buf), &user, &pass) == 0) {
		if (user != buf || pass < buf || pass >= buf + sizeof(buf) || strchr(user, ':') ||
		    pass != user + strlen(user) + 1 || pass + strlen(pass) >= buf + sizeof(buf))
			abort();
	} else if (user || pass) {
		abort(); /* untouched on failure */
	}
	free(header);
	return 0;
}
