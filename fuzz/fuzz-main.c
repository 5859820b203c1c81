// SPDX-License-Identifier: GPL-2.0-only
/*
 * Run a fuzz target over files named on the command line, without libFuzzer,
 * so the corpus and past crashes run as ordinary regression tests (the
 * systemd fuzz-main.c pattern).
 */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		static uint8_t buf[1 << 20];
		size_t n;

		if (!f) {
			perror(argv[i]);
			return 1;
		}
		n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		LLVMFuzzerTestOneInput(buf, n);
	}
	printf("%d input(s) ran\n", argc - 1);
	return 0;
}
