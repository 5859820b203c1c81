// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz the reading of a recording (cli/store): any bytes as a FILE.db —
 * a damaged or hand-made SQLite file — opened, its run, intervals and
 * series read, every series' values decoded (numbers and blocks), and the
 * feed a replay plays built: no crash, no leak, no undefined behaviour; a
 * refusal says why.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "pmumon/pmumon.h"
#include "store/store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/pmumon-fuzz-recording-XXXXXX";
	struct store *st = NULL;
	struct store_run_info *info = calloc(1, sizeof(*info));
	struct store_sample *axis = NULL;
	struct store_series *s = NULL;
	const char *why = "";
	long n = 0, n_s = 0;
	int fd = mkstemp(path);

	if (fd < 0 || !info) {
		free(info);
		return 0;
	}
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		unlink(path);
		free(info);
		return 0;
	}
	close(fd);
	if (store_open_read(path, &st, &why) < 0) {
		if (!why || !why[0])
			abort(); /* refused without a reason */
		goto out;
	}
	if (store_run(st, 0, info) < 0)
		goto out;
	n = store_samples(st, info->id, 0, INT64_MAX, &axis);
	n_s = store_series(st, info->id, &s);
	if (n > 0 && n_s > 0) {
		long long *ids = calloc((size_t)n_s, sizeof(*ids));
		double **v = calloc((size_t)n_s, sizeof(*v));
		unsigned **fl = calloc((size_t)n_s, sizeof(*fl));
		bool ok = ids && v && fl;

		for (long i = 0; ok && i < n_s; i++) {
			ids[i] = s[i].id;
			v[i] = malloc((size_t)n * sizeof(**v));
			fl[i] = malloc((size_t)n * sizeof(**fl));
			ok = v[i] && fl[i];
		}
		if (ok)
			store_values(st, info->id, axis, (size_t)n, ids, (size_t)n_s, v, fl, NULL,
				     NULL, NULL);
		for (long i = 0; v && fl && i < n_s; i++) {
			free(v[i]);
			free(fl[i]);
		}
		free(ids);
		free(v);
		free(fl);
	}
	if (n > 0) {
		struct pm_replay *rp = NULL;
		struct store_feed *f = NULL;

		why = "";
		if (store_feed(st, info->id, axis[0].t_ns, axis[n - 1].t_ns, &rp, &f, &why) == 0) {
			pm_replay__free(rp);
			store_feed_free(f);
		} else if (!why || !why[0]) {
			abort();
		}
	}
out:
	free(axis);
	free(s);
	free(info);
	store_close(st);
	unlink(path);
	return 0;
}
