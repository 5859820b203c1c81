// SPDX-License-Identifier: GPL-2.0-only
#include "helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"

char th_log[16384];

static char th_reasons[4096];

static void capture(enum pm_log_level level, const char *msg, void *userdata)
{
	size_t n = strlen(th_log);

	snprintf(th_log + n, sizeof(th_log) - n, "%s\n", msg);
}

/* A message with a reason: in th_log as the library's log_fn would have it, and its reason. */
static void capture_diag(enum pm_log_level level, const struct pm_diag *d, void *userdata)
{
	size_t n = strlen(th_log);

	snprintf(th_log + n, sizeof(th_log) - n, d->hint[0] ? "%s (%s)\n" : "%s\n", d->msg,
		 d->hint);
	n = strlen(th_reasons);
	snprintf(th_reasons + n, sizeof(th_reasons) - n, "%d %s\n", (int)d->reason, d->device);
}

const char *th_fixtures(void)
{
	const char *d = getenv("PMUMON_TEST_SYSFS");

	if (!d) {
		fprintf(stderr, "PMUMON_TEST_SYSFS is not set (run the tests with meson test)\n");
		exit(1);
	}
	return d;
}

struct pm_ctx *th_ctx_fixture(const char *machine)
{
	struct pm_ctx_opts o = { .size = sizeof(o), .log_fn = capture, .log_level = PM_LOG_DEBUG };
	struct pm_ctx *ctx = NULL;
	char root[4096];

	snprintf(root, sizeof(root), "%s/%s", th_fixtures(), machine);
	o.root = root;
	assert_int_equal(pm_ctx__new(&o, &ctx), 0);
	return ctx;
}

struct pm_sim *th_sim_fixture(const char *machine)
{
	struct pm_sim *sim = NULL;
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s/%s", th_fixtures(), machine);
	assert_int_equal(pm_sim__new(&sim), 0);
	assert_int_equal(pm_sim__load_tree(sim, dir, ""), 0);
	return sim;
}

struct pm_sim *th_sim_platform(const char *spec)
{
	struct pm_sim *sim = NULL;
	char err[512] = "";

	if (pm_sim__new_platform(spec, &sim, err, sizeof(err)) < 0)
		fail_msg("--sim %s: %s", spec, err);
	return sim;
}

struct pm_sim *th_sim_platform_with(const char *spec, const char *scenario)
{
	char full[512];
	const char *path = th_temp_file(scenario);
	struct pm_sim *sim;

	snprintf(full, sizeof(full), "%s%sscenario=%s", spec, strchr(spec, ':') ? "," : ":", path);
	sim = th_sim_platform(full);
	unlink(path); /* read when the machine is built */
	return sim;
}

const char *th_temp_file(const char *text)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/pmumon-test-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

ssize_t th_sim_read(struct pm_sim *sim, const char *path, char *buf, size_t size)
{
	const struct pm_os_ops *ops = pm_sim__ops();
	int fd = ops->open(sim, path, O_RDONLY);
	size_t len = 0;
	ssize_t n;

	if (fd < 0)
		return fd;
	while ((n = ops->read(sim, fd, buf + len, PM_MIN((size_t)97, size - 1 - len))) > 0)
		len += (size_t)n;
	ops->close(sim, fd);
	buf[len] = '\0';
	return n < 0 ? n : (ssize_t)len;
}

const char *th_sim_text(struct pm_sim *sim, const char *path)
{
	static char buf[8192];

	if (th_sim_read(sim, path, buf, sizeof(buf)) < 0)
		fail_msg("read %s failed", path);
	return buf;
}

struct pm_ctx *th_ctx_sim(struct pm_sim *sim)
{
	struct pm_ctx_opts o = { .size = sizeof(o),
				 .os_ops = pm_sim__ops(),
				 .os = sim,
				 .simulated = true,
				 .log_fn = capture,
				 .log_diag_fn = capture_diag,
				 .log_level = PM_LOG_DEBUG };
	struct pm_ctx *ctx = NULL;

	assert_int_equal(pm_ctx__new(&o, &ctx), 0);
	return ctx;
}

void th_lab(struct th_run *r, struct pm_sim *sim, const char *metrics_json)
{
	static const char pack[] = "{\"Pack\": \"lab\", \"Match\": {\"Pmu\": \"amd_l3\"}, "
				   "\"Metrics\": [\"m.json\"]}";
	const struct pm_file files[] = {
		{ "d0/lab/pack.json", pack, sizeof(pack) - 1 },
		{ "d0/lab/m.json", metrics_json, strlen(metrics_json) },
	};
	struct pm_ctx_opts o = { .size = sizeof(o),
				 .os_ops = pm_sim__ops(),
				 .os = sim,
				 .simulated = true,
				 .extra_files = files,
				 .n_extra_files = sizeof(files) / sizeof(files[0]),
				 .log_fn = capture,
				 .log_diag_fn = capture_diag,
				 .log_level = PM_LOG_DEBUG };

	*r = (struct th_run){ .sim = sim };
	pm_diag__init(&r->d);
	assert_int_equal(pm_ctx__new(&o, &r->ctx), 0);
	assert_int_equal(pm_evlist__new(r->ctx, &r->l), 0);
}

const char *const th_df8[] = {
	"amd_df/event=0x7,umask=0x38/",
	"amd_df/event=0x47,umask=0x38/",
	"amd_df/event=0x87,umask=0x38/",
	"amd_df/event=0xc7,umask=0x38/",
	"amd_df/event=0x107,umask=0x38/",
	"amd_df/event=0x147,umask=0x38/",
	"amd_df/event=0x187,umask=0x38/",
	"amd_df/event=0x1c7,umask=0x38/",
	NULL,
};

static int start_common(struct th_run *r, struct pm_sim *sim, const char *const *specs,
			const char *metrics, const struct pm_session_opts *o, const char *define,
			double value)
{
	int e = 0;

	memset(r, 0, sizeof(*r));
	pm_diag__init(&r->d);
	r->sim = sim;
	r->ctx = th_ctx_sim(sim);
	assert_int_equal(pm_evlist__new(r->ctx, &r->l), 0);
	if (define)
		assert_int_equal(pm_evlist__define(r->l, define, value), 0);
	for (size_t i = 0; specs && specs[i]; i++)
		if (pm_evlist__add(r->l, specs[i], &r->d) < 0)
			fail_msg("'%s': %s", specs[i], r->d.msg);
	if (metrics)
		e = pm_evlist__add_metrics(r->l, metrics, &r->d);
	if (e == 0)
		e = pm_session__new(r->l, o, &r->s, &r->d);
	if (e == 0)
		e = pm_session__open(r->s, &r->d);
	if (e == 0)
		e = pm_session__enable(r->s);
	return e;
}

int th_start(struct th_run *r, struct pm_sim *sim, const char *const *specs, const char *metrics,
	     enum pm_aggr aggr, const char *define, double value)
{
	struct pm_session_opts o = { .size = sizeof(o), .target = PM_TARGET_SYSTEM, .aggr = aggr };

	return start_common(r, sim, specs, metrics, &o, define, value);
}

int th_start_opts(struct th_run *r, struct pm_sim *sim, const char *const *specs,
		  const char *metrics, const struct pm_session_opts *o)
{
	return start_common(r, sim, specs, metrics, o, NULL, 0);
}

void th_run_until(struct th_run *r, uint64_t t)
{
	for (;;) {
		uint64_t now = pm_sim__now(r->sim), poll = pm_session__next_poll(r->s);

		if (poll >= t) {
			pm_sim__advance(r->sim, t - now);
			return;
		}
		pm_sim__advance(r->sim, poll > now ? poll - now : 0);
		assert_int_equal(pm_session__poll(r->s), 0);
	}
}

void th_stop(struct th_run *r)
{
	pm_session__free(r->s);
	pm_evlist__free(r->l);
	pm_ctx__free(r->ctx); /* frees the sim */
}

int th_logged(const char *s)
{
	return strstr(th_log, s) != NULL;
}

int th_logged_reason(enum pm_reason reason, const char *device)
{
	char line[128];

	snprintf(line, sizeof(line), "%d %s\n", (int)reason, device);
	return strstr(th_reasons, line) != NULL;
}

void th_log_clear(void)
{
	th_log[0] = th_reasons[0] = '\0';
}

int th_rate_count(void *data, const struct perf_event_attr *attr, int cpu, uint64_t t_ns,
		  uint64_t *ret)
{
	const struct th_rate_model *m = data;
	double rate = m->rate(attr, cpu);

	if (rate < 0)
		return -ENOENT;
	if (t_ns <= m->start_ns) {
		*ret = 0;
		return 0;
	}
	*ret = (uint64_t)floor(rate * (double)(t_ns - m->start_ns) / 1e9);
	return 0;
}

void th_assert_near_(double got, double want, double tol, const char *file, int line)
{
	if (fabs(got - want) <= tol)
		return;
	print_error("%.17g, want %.17g within %g\n", got, want, tol);
	_fail(file, line);
}
