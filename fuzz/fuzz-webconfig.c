// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz serve's --web.config.file parser (cli/serve/webconfig.c): any file
 * parses or is refused with "FILE:LINE: why", without a leak or a read
 * past its end; what parses holds together (TLS has its files). The same
 * input goes to --remote-write.config's parser, in the same file: every
 * entry it accepts has a url.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "serve/serve.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct webcfg c;
	struct rwcfg rw;
	char err[512];

	if (rwcfg_parse("fuzz.yml", (const char *)data, size, &rw, err, sizeof(err)) < 0) {
		if (strncmp(err, "fuzz.yml:", 9) != 0 && strcmp(err, "") != 0)
			abort();
	} else {
		for (size_t i = 0; i < rw.n; i++)
			if (!rw.t[i].url || (!rw.t[i].cert_file != !rw.t[i].key_file))
				abort();
		rwcfg_free(&rw);
	}
	if (webcfg_parse("fuzz.yml", (const char *)data, size, &c, err, sizeof(err)) < 0) {
		if (strncmp(err, "fuzz.yml:", 9) != 0 && strcmp(err, "") != 0)
			abort();
		return 0;
	}
	if (c.tls && (!c.cert_file || !c.key_file))
		abort();
	webcfg_free(&c);
	return 0;
}
