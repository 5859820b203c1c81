// SPDX-License-Identifier: GPL-2.0-only
/*
 * Touch N fresh pages, each once, so a page-fault count has a known floor:
 * touch-pages N. Used by the hw suite to compare pmumon and perf stat.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE), n = argc > 1 ? atol(argv[1]) : 0;
	volatile char *p;

	if (n <= 0) {
		fprintf(stderr, "usage: touch-pages N\n");
		return 2;
	}
	p = mmap(NULL, (size_t)(n * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (long i = 0; i < n; i++)
		p[i * page] = 1;
	return 0;
}
