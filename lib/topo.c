// SPDX-License-Identifier: GPL-2.0-only
#include "topo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "util/util.h"

static int read_id(struct pm_ctx *ctx, int cpu, const char *file, int fallback, int *ret)
{
	char path[128], buf[32];
	ssize_t n;

	snprintf(path, sizeof(path), "sys/devices/system/cpu/cpu%d/topology/%s", cpu, file);
	n = pm_read_file(ctx, path, buf, sizeof(buf));
	if (n == -ENOENT) {
		*ret = fallback;
		return 0;
	}
	if (n < 0)
		return (int)n;
	if (pm_parse_int_str(buf, ret) < 0) {
		pm_log(ctx, PM_LOG_WARN, "malformed sysfs file '%s': '%s', taking %d", path, buf,
		       fallback);
		*ret = fallback;
	}
	return 0;
}

static int count_distinct(const int *keys, size_t n)
{
	int count = 0;

	for (size_t i = 0; i < n; i++) {
		size_t j = 0;

		while (j < i && keys[j] != keys[i])
			j++;
		if (j == i)
			count++;
	}
	return count;
}

int pm_topo__read(struct pm_ctx *ctx, struct pm_topo *ret)
{
	struct pm_topo t = { 0 };
	char buf[4096];
	int *pkg = NULL, *die = NULL;
	ssize_t n;
	int r;

	n = pm_read_file(ctx, "sys/devices/system/cpu/online", buf, sizeof(buf));
	if (n < 0) {
		pm_log(ctx, PM_LOG_WARN, "cannot read sys/devices/system/cpu/online: %s",
		       strerror((int)-n));
		return (int)n;
	}
	r = pm_cpus__parse(buf, (size_t)n, &t.online);
	if (r < 0) {
		pm_log(ctx, PM_LOG_WARN,
		       "malformed sysfs file 'sys/devices/system/cpu/online': '%s'", buf);
		return r;
	}
	if (t.online.n == 0) {
		r = -ENODEV;
		goto fail;
	}
	t.nr_cpu_ids = t.online.cpu[t.online.n - 1] + 1;
	t.cpu = calloc((size_t)t.nr_cpu_ids, sizeof(*t.cpu));
	pkg = calloc(t.online.n, sizeof(int));
	die = calloc(t.online.n, sizeof(int));
	if (!t.cpu || !pkg || !die) {
		r = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < t.online.n; i++) {
		int cpu = t.online.cpu[i];
		struct pm_cpu_topo *c = &t.cpu[cpu];

		r = read_id(ctx, cpu, "physical_package_id", 0, &c->package);
		if (r == 0)
			r = read_id(ctx, cpu, "die_id", 0, &c->die);
		if (r == 0)
			r = read_id(ctx, cpu, "core_id", cpu, &c->core);
		if (r < 0)
			goto fail;
		pkg[i] = c->package;
		die[i] = c->package * 256 + c->die;
	}
	t.n_packages = count_distinct(pkg, t.online.n);
	t.n_dies = count_distinct(die, t.online.n);
	free(pkg);
	free(die);
	*ret = t;
	return 0;
fail:
	free(pkg);
	free(die);
	pm_topo__done(&t);
	return r;
}

void pm_topo__done(struct pm_topo *t)
{
	if (!t)
		return;
	pm_cpus__done(&t->online);
	free(t->cpu);
	*t = (struct pm_topo){ 0 };
}

const struct pm_cpu_topo *pm_topo__cpu(const struct pm_topo *t, int cpu)
{
	if (cpu < 0 || cpu >= t->nr_cpu_ids || !pm_cpus__has(&t->online, cpu))
		return NULL;
	return &t->cpu[cpu];
}

int pm_topo__die_key(const struct pm_topo *t, int cpu)
{
	const struct pm_cpu_topo *c = pm_topo__cpu(t, cpu);

	return c ? c->package * 256 + c->die : -1;
}
