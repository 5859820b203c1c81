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
	t.caches_level = -1;
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

/* A CPU list file into ret: 0 or -errno; an empty file is an empty list. */
static int read_cpus(struct pm_ctx *ctx, const char *path, struct pm_cpus *ret)
{
	char buf[4096];
	ssize_t n = pm_read_file(ctx, path, buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	*ret = (struct pm_cpus){ 0 };
	return n ? pm_cpus__parse(buf, (size_t)n, ret) : 0;
}

/* The CPUs of node directory name ("node1"): 1, 0 for a name that is no node, -errno. */
static int read_node(struct pm_ctx *ctx, struct pm_topo *t, const char *name)
{
	struct pm_cpus cpus;
	char path[128];
	int node, r;

	if (strncmp(name, "node", 4) || pm_parse_int_str(name + 4, &node) < 0 || node < 0)
		return 0;
	snprintf(path, sizeof(path), "sys/devices/system/node/%s/cpulist", name);
	r = read_cpus(ctx, path, &cpus);
	if (r < 0) {
		pm_log(ctx, PM_LOG_WARN, "cannot read '%s' (%s): its CPUs are in no node", path,
		       strerror(-r));
		return 0;
	}
	for (size_t k = 0; k < cpus.n; k++)
		if (pm_topo__cpu(t, cpus.cpu[k]))
			t->cpu[cpus.cpu[k]].node = node;
	pm_cpus__done(&cpus);
	return 1;
}

int pm_topo__read_nodes(struct pm_ctx *ctx, struct pm_topo *t)
{
	struct pm_names dirs = { 0 };
	int r, found = 0;

	if (t->nodes_read)
		return 0;
	for (size_t i = 0; i < t->online.n; i++)
		t->cpu[t->online.cpu[i]].node = -1;
	r = pm_list_names(ctx, "sys/devices/system/node", true, "node*", &dirs);
	for (size_t i = 0; r == 0 && i < dirs.n; i++)
		found += read_node(ctx, t, dirs.name[i]);
	pm_names__done(&dirs);
	if (r < 0)
		return r;
	if (!found)
		return -ENOENT;
	for (size_t i = 0; i < t->online.n; i++)
		if (t->cpu[t->online.cpu[i]].node < 0)
			pm_log(ctx, PM_LOG_WARN,
			       "CPU %d is in no sys/devices/system/node/node*/cpulist: its counts "
			       "go to a row of their own",
			       t->online.cpu[i]);
	t->nodes_read = true;
	return 0;
}

/* One cache<N>/index<I> of cpu, if it is of level (0: above c's so far), into c. */
static void read_cache_index(struct pm_ctx *ctx, int cpu, const char *index, int level,
			     struct pm_cpu_topo *c)
{
	struct pm_cpus sharing;
	char path[160], buf[32];
	int lvl;

	snprintf(path, sizeof(path), "sys/devices/system/cpu/cpu%d/cache/%s/level", cpu, index);
	if (pm_read_file(ctx, path, buf, sizeof(buf)) < 0 || pm_parse_int_str(buf, &lvl) < 0 ||
	    lvl < 1 || (level ? lvl != level : lvl <= c->cache_lvl))
		return;
	snprintf(path, sizeof(path), "sys/devices/system/cpu/cpu%d/cache/%s/shared_cpu_list", cpu,
		 index);
	if (read_cpus(ctx, path, &sharing) < 0)
		return;
	c->cache_lvl = lvl;
	/* perf's cache ID: the lowest CPU sharing it, or the CPU itself when none is listed */
	c->cache_id = sharing.n ? sharing.cpu[0] : cpu;
	pm_cpus__done(&sharing);
}

int pm_topo__read_caches(struct pm_ctx *ctx, struct pm_topo *t, int level)
{
	int found = 0, r = 0;

	if (t->caches_level == level)
		return 0;
	for (size_t i = 0; r == 0 && i < t->online.n; i++) {
		int cpu = t->online.cpu[i];
		struct pm_cpu_topo *c = &t->cpu[cpu];
		struct pm_names idx = { 0 };
		char path[96];

		c->cache_lvl = 0;
		c->cache_id = -1;
		snprintf(path, sizeof(path), "sys/devices/system/cpu/cpu%d/cache", cpu);
		r = pm_list_names(ctx, path, true, "index*", &idx);
		for (size_t k = 0; r == 0 && k < idx.n; k++)
			read_cache_index(ctx, cpu, idx.name[k], level, c);
		pm_names__done(&idx);
		found += c->cache_id >= 0;
	}
	if (r < 0)
		return r;
	if (!found)
		return -ENOENT;
	for (size_t i = 0; i < t->online.n; i++) {
		char what[16] = "";

		if (t->cpu[t->online.cpu[i]].cache_id >= 0)
			continue;
		if (level)
			snprintf(what, sizeof(what), "L%d ", level);
		pm_log(ctx, PM_LOG_WARN,
		       "CPU %d has no %scache in sys/devices/system/cpu/cpu%d/cache/"
		       "index*/{level,shared_cpu_list}: its counts go to a row of their own",
		       t->online.cpu[i], what, t->online.cpu[i]);
	}
	t->caches_level = level;
	return 0;
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
