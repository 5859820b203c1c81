// SPDX-License-Identifier: GPL-2.0-only
/*
 * take-lock ROOT PATH: take the advisory lock at PATH (relative to ROOT) as
 * the sources do (pm_os_ops.lock of the real os) and say what came of it:
 * "taken", or the errno's name. For tests that run it inside a service's
 * sandbox (tests/cli/test_lock_sandbox.py).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pmumon/os.h"

int main(int argc, char **argv)
{
	const struct pm_os_ops *ops;
	struct pm_lock_info info = { 0 };
	void *os;
	int h;

	if (argc != 3 || pm_os_linux_new(argv[1], &ops, &os) < 0) {
		fprintf(stderr, "usage: take-lock ROOT PATH\n");
		return 2;
	}
	h = ops->lock(os, argv[2], &info);
	if (h >= 0) {
		puts("taken");
		ops->unlock(os, h);
	} else {
		printf("%s%s\n", strerrorname_np(-h) ? strerrorname_np(-h) : "?",
		       h == -EPERM && info.dir ? " (the directory)" : "");
	}
	ops->destroy(os);
	return h >= 0 ? 0 : 1;
}
