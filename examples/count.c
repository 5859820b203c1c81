// SPDX-License-Identifier: GPL-2.0-only
/*
 * Count a simulated Yitian 710's DDR reads for 3 s through libpmumon's public
 * API only (docs/library.md). Build it against the installed library:
 *   cc count.c $(pkg-config --cflags --libs libpmumon-sim pmumon) -o count
 */
#include <pmumon/pmumon.h>
#include <pmumon/sim.h>
#include <string.h>

int main(void)
{
	struct pm_ctx *ctx = NULL;
	struct pm_evlist *l = NULL;
	struct pm_session *s = NULL;
	struct pm_out *out = NULL;
	struct pm_sim *sim = NULL;
	struct pm_diag d;
	char err[256] = "";
	int r = pm_sim__new_platform("yitian710", &sim, err, sizeof(err));

	pm_diag__init(&d);
	if (r == 0) {
		struct pm_ctx_opts o = { .size = sizeof(o),
					 .os_ops = pm_sim__ops(),
					 .os = sim,
					 .simulated = true };
		if ((r = pm_ctx__new(&o, &ctx)) < 0) /* from here on the context owns sim */
			pm_sim__free(sim);
	}
	if (r == 0 && (r = pm_evlist__new(ctx, &l)) == 0 &&
	    (r = pm_evlist__add(l, "ali_drw/hif_rd/", &d)) == 0 &&
	    (r = pm_evlist__add_metrics(l, "ddr_read_bandwidth.all", &d)) == 0) {
		struct pm_session_opts o = { .size = sizeof(o), .target = PM_TARGET_SYSTEM };
		r = pm_session__new(l, &o, &s, &d);
	}
	if (r == 0 && (r = pm_session__open(s, &d)) == 0 && (r = pm_session__enable(s)) == 0) {
		const struct pm_os_ops *os = pm_ctx__os_ops(ctx); /* the same on a real machine */
		int status;

		r = os->wait(pm_ctx__os(ctx), os->mono_ns(pm_ctx__os(ctx)) + 3000000000ull, NULL,
			     &status);
	}
	if (r == 0 && (r = pm_session__read(s)) == 0) {
		struct pm_out_opts o = { .size = sizeof(o),
					 .format = PM_OUT_TABLE,
					 .simulated = true,
					 .sim_platform = "yitian710" };
		if ((r = pm_out__new(stdout, &o, &out)) == 0)
			r = pm_out__report(out, pm_session__report(s, false));
	}
	if (r < 0 && s && pm_session__last_error(s)->msg[0])
		d = *pm_session__last_error(s); /* enable or read failed: why, and on what */
	if (r < 0)
		fprintf(stderr, "count: %s%s%s\n", strerror(-r), err[0] || d.msg[0] ? ": " : "",
			err[0] ? err : d.msg);
	pm_out__free(out);
	pm_session__free(s);
	pm_evlist__free(l);
	pm_ctx__free(ctx);
	return r < 0;
}
