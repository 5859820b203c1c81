// SPDX-License-Identifier: GPL-2.0-only
/*
 * Discovery of perf PMUs under sys/bus/event_source/devices (facts §0.1):
 * type, cpumask (or cpus), format/<term>, events/<event> with .scale, .unit,
 * .per-pkg and .snapshot side files, the identifier (file named `identifier`
 * or `<x>_identifier`, facts §1.6) and perf_event_mux_interval_ms.
 * A malformed file costs only that file (or that PMU, for `type`), with a
 * warning naming it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "pmu.h"
#include "source/perf/perf.h"
#include "util/util.h"

#define PERF_DEVICES "sys/bus/event_source/devices"

static int read_formats(struct pm_ctx *ctx, struct pm_pmu *p, const char *dir)
{
	struct pm_names l;
	char path[512], buf[256];
	int r;

	snprintf(path, sizeof(path), "%s/format", dir);
	r = pm_list_names(ctx, path, false, NULL, &l);
	if (r < 0)
		return r;
	for (size_t i = 0; i < l.n && r == 0; i++) {
		struct pm_format f;
		size_t col = 0;
		ssize_t n;

		snprintf(path, sizeof(path), "%s/format/%s", dir, l.name[i]);
		n = pm_read_file(ctx, path, buf, sizeof(buf));
		if (n < 0) {
			pm_log(ctx, PM_LOG_WARN, "cannot read '%s': %s, ignoring", path,
			       strerror((int)-n));
			continue;
		}
		if (pm_format__parse(buf, (size_t)n, &f, &col) < 0) {
			pm_log(ctx, PM_LOG_WARN,
			       "malformed sysfs file '%s': '%s' (at byte %zu; expected e.g. "
			       "'config:0-7,32-35'), ignoring term '%s'",
			       path, buf, col, l.name[i]);
			continue;
		}
		r = pm_pmu__add_format(p, l.name[i], buf, &f);
	}
	pm_names__done(&l);
	return r;
}

/* Read events/<name>.<side> into buf; false when absent or unreadable. */
static bool read_side(struct pm_ctx *ctx, const char *dir, const char *ev, const char *side,
		      char *buf, size_t size)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/events/%s.%s", dir, ev, side);
	return pm_read_file(ctx, path, buf, size) >= 0;
}

static int read_events(struct pm_ctx *ctx, struct pm_pmu *p, const char *dir)
{
	static const char *const sides[] = { ".scale", ".unit", ".per-pkg", ".snapshot" };
	struct pm_names l;
	char path[512], terms[1024], side[128], unit[128];
	int r;

	snprintf(path, sizeof(path), "%s/events", dir);
	r = pm_list_names(ctx, path, false, NULL, &l);
	if (r < 0)
		return r;
	for (size_t i = 0; i < l.n && r == 0; i++) {
		struct pm_alias a = { .name = l.name[i], .scale = 1.0, .origin = "sysfs" };
		bool is_side = false;
		ssize_t n;

		for (size_t s = 0; s < PM_ARRAY_SIZE(sides); s++)
			is_side |= pm_str_has_suffix(l.name[i], sides[s]);
		if (is_side)
			continue;
		snprintf(path, sizeof(path), "%s/events/%s", dir, l.name[i]);
		n = pm_read_file(ctx, path, terms, sizeof(terms));
		if (n < 0) {
			pm_log(ctx, PM_LOG_WARN, "cannot read '%s': %s, ignoring", path,
			       strerror((int)-n));
			continue;
		}
		a.terms = terms;
		if (read_side(ctx, dir, l.name[i], "scale", side, sizeof(side)) &&
		    pm_parse_double(side, strlen(side), &a.scale) < 0) {
			pm_log(ctx, PM_LOG_WARN,
			       "malformed sysfs file '%s.scale': '%s', counting event '%s' unscaled",
			       path, side, l.name[i]);
			a.scale = 1.0;
		}
		if (read_side(ctx, dir, l.name[i], "unit", unit, sizeof(unit)) && unit[0])
			a.unit = unit;
		if (read_side(ctx, dir, l.name[i], "per-pkg", side, sizeof(side)))
			a.per_pkg = !strcmp(side, "1");
		if (read_side(ctx, dir, l.name[i], "snapshot", side, sizeof(side)))
			a.snapshot = !strcmp(side, "1");
		r = pm_pmu__add_alias(p, &a);
	}
	pm_names__done(&l);
	return r;
}

static void read_identifier(struct pm_ctx *ctx, struct pm_pmu *p, const char *dir)
{
	struct pm_names l;
	char path[512], buf[256];

	snprintf(path, sizeof(path), "%s/identifier", dir);
	if (pm_read_file(ctx, path, buf, sizeof(buf)) >= 0) {
		p->identifier = strdup(buf);
		return;
	}
	/* facts §1.6: ali_drw names it ali_drw_pmu_identifier since a 2024 cleanup */
	if (pm_list_names(ctx, dir, false, NULL, &l) < 0)
		return;
	for (size_t i = 0; i < l.n; i++) {
		if (!pm_str_has_suffix(l.name[i], "_identifier"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, l.name[i]);
		if (pm_read_file(ctx, path, buf, sizeof(buf)) >= 0) {
			p->identifier = strdup(buf);
			break;
		}
	}
	pm_names__done(&l);
}

static int read_cpus(struct pm_ctx *ctx, struct pm_pmu *p, const char *dir)
{
	static const char *const files[] = { "cpumask", "cpus" };
	char path[512], buf[4096];

	for (size_t i = 0; i < PM_ARRAY_SIZE(files); i++) {
		ssize_t n;
		int r;

		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		n = pm_read_file(ctx, path, buf, sizeof(buf));
		if (n == -ENOENT)
			continue;
		if (n < 0)
			return (int)n;
		r = pm_cpus__parse(buf, (size_t)n, &p->cpus);
		if (r < 0) {
			pm_log(ctx, PM_LOG_WARN,
			       "malformed sysfs file '%s': '%s' (expected a CPU list such as "
			       "'0-3,8'), ignoring PMU '%s'",
			       path, buf, p->name);
			return r;
		}
		p->uncore = i == 0;
		return 0;
	}
	return 0;
}

static int read_pmu(struct pm_ctx *ctx, const char *name, struct pm_pmu **ret)
{
	struct pm_pmu *p = NULL;
	char dir[256], path[512];
	uint64_t v;
	int r;

	r = pm_pmu__new(name, &p);
	if (r < 0)
		return r;
	snprintf(dir, sizeof(dir), "%s/%s", PERF_DEVICES, name);
	snprintf(path, sizeof(path), "%s/type", dir);
	r = pm_read_u64(ctx, path, &v);
	if (r == 0 && v > UINT32_MAX)
		r = -ERANGE;
	if (r < 0) {
		if (r == -EINVAL || r == -ERANGE)
			pm_log(ctx, PM_LOG_WARN,
			       "malformed sysfs file '%s' (expected a perf type number), ignoring "
			       "PMU '%s'",
			       path, name);
		else
			pm_log(ctx, PM_LOG_WARN, "cannot read '%s': %s, ignoring PMU '%s'", path,
			       strerror(-r), name);
		r = r == -ENOMEM ? r : -EINVAL;
		goto out;
	}
	p->type = (uint32_t)v;
	r = read_cpus(ctx, p, dir);
	if (r == 0)
		r = read_formats(ctx, p, dir);
	if (r == 0)
		r = read_events(ctx, p, dir);
	if (r < 0)
		goto out;
	read_identifier(ctx, p, dir);
	snprintf(path, sizeof(path), "%s/perf_event_mux_interval_ms", dir);
	if (pm_read_u64(ctx, path, &v) == 0 && v <= INT32_MAX)
		p->mux_interval_ms = (int)v;
	*ret = p;
	p = NULL;
out:
	pm_pmu__free(p);
	return r;
}

/* perf orders instances by family, then by the suffix read as hex (pmu_name_cmp). */
static int cmp_pmu(const void *a, const void *b)
{
	const struct pm_pmu *x = *(struct pm_pmu *const *)a, *y = *(struct pm_pmu *const *)b;
	size_t lx = strlen(x->family), ly = strlen(y->family);
	uint64_t nx = 0, ny = 0;
	int c = strcmp(x->family, y->family);

	if (c)
		return c;
	if (x->name[lx] == '_' && y->name[ly] == '_' &&
	    pm_parse_u64_str(x->name + lx + 1, 16, &nx) == 0 &&
	    pm_parse_u64_str(y->name + ly + 1, 16, &ny) == 0 && nx != ny)
		return nx < ny ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Its type file is readable again: the driver registered it again. */
bool pm_perf__present(struct pm_ctx *ctx, const struct pm_pmu *p)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s/type", PERF_DEVICES, p->name);
	return pm_path_exists(ctx, path);
}

int pm_perf__discover(struct pm_ctx *ctx)
{
	struct pm_names l;
	int r;

	r = pm_list_names(ctx, PERF_DEVICES, true, NULL, &l);
	if (r < 0) {
		pm_log(ctx, PM_LOG_WARN, "cannot list %s: %s", PERF_DEVICES, strerror(-r));
		return r;
	}
	for (size_t i = 0; i < l.n; i++) {
		struct pm_pmu *p = NULL;

		r = read_pmu(ctx, l.name[i], &p);
		if (r == -ENOMEM)
			break;
		r = 0;
		if (p) {
			r = pm_ctx__add_pmu(ctx, p);
			if (r < 0) {
				pm_pmu__free(p);
				break;
			}
		}
	}
	pm_names__done(&l);
	if (r == 0 && ctx->n_pmus)
		qsort(ctx->pmus, ctx->n_pmus, sizeof(*ctx->pmus), cmp_pmu);
	return r;
}
