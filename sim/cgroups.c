// SPDX-License-Identifier: GPL-2.0-only
/*
 * The scenario's cgroups on the simulated machine (docs/simulator.md,
 * "cgroups in scenarios"): their directories under sys/fs/cgroup, made and
 * removed at their times; the kubelet hierarchy of --sim kubelet=systemd or
 * kubelet=cgroupfs with the pods' /var/log/pods and /var/log/containers
 * entries; and what a perf event opened in a cgroup directory counts of them.
 *
 * Facts (kubelet's pkg/kubelet/cm/cgroup_manager_linux.go): a pod's cgroup
 * is "pod" + its UID under kubepods (guaranteed), kubepods/burstable or
 * kubepods/besteffort; the systemd driver joins the parts with '-' into
 * nested slices (kubepods.slice/kubepods-burstable.slice/
 * kubepods-burstable-pod<uid>.slice) with each part's dashes escaped to
 * underscores (escapeSystemdCgroupName). The log trees' names are the
 * issue's (33): /var/log/pods/NAMESPACE_NAME_UID/CONTAINER/,
 * /var/log/containers/POD_NAMESPACE_CONTAINER-ID.log.
 *
 * Model choices: a container's cgroup is its 64-hex-digit ID under the
 * pod's (cgroupfs) or cri-containerd-ID.scope (systemd, containerd's
 * naming); the /var/log/containers entries are plain files here (links on a
 * real node: pmumon reads only their names); UIDs and IDs come from the
 * seed; a pod's traffic is shared evenly by its containers; the kubelet's
 * QoS directories are made whether or not a pod uses them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"
#include "sim-internal.h"
#include "util/cpus.h"
#include "util/util.h"

#define CG_ROOT "sys/fs/cgroup/"

struct sim_cgroups {
	const char *kubelet;  /* "systemd", "cgroupfs", or NULL */
	struct pm_cpus *cpus; /* per scenario cgroup: where its tasks run (n 0: every CPU) */
	size_t n;
	bool *made, *gone;
};

static void hex_of(const struct sim_scenario *s, uint64_t a, uint64_t b, char *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out[i] = "0123456789abcdef"[(int)sim_scenario__background(s, a, b * 131 + i, 0, 16)];
	out[n] = '\0';
}

/* A pod's UID (8-4-4-4-12 hex), its containers' IDs, and its cgroup path by the driver. */
static void place_pod(struct pm_sim *sim, const char *kubelet, size_t i, struct sim_scn_cgroup *g)
{
	const struct sim_scenario *s = sim_scn(sim);
	char h[33], esc[40];
	bool systemd = !strcmp(kubelet, "systemd"), guaranteed = !strcmp(g->qos, "guaranteed");

	hex_of(s, 0x706f64u, i, h, 32);
	snprintf(g->uid, sizeof(g->uid), "%.8s-%.4s-%.4s-%.4s-%.12s", h, h + 8, h + 12, h + 16,
		 h + 20);
	for (int k = 0; k < g->n_containers; k++)
		hex_of(s, 0x637472u + (uint64_t)k, i, g->container_id[k], 64);
	snprintf(esc, sizeof(esc), "%s", g->uid);
	for (char *c = esc; *c; c++)
		if (*c == '-')
			*c = '_';
	if (systemd && guaranteed)
		snprintf(g->path, sizeof(g->path), "kubepods.slice/kubepods-pod%s.slice", esc);
	else if (systemd)
		snprintf(g->path, sizeof(g->path),
			 "kubepods.slice/kubepods-%s.slice/kubepods-%s-pod%s.slice", g->qos, g->qos,
			 esc);
	else if (guaranteed)
		snprintf(g->path, sizeof(g->path), "kubepods/pod%s", g->uid);
	else
		snprintf(g->path, sizeof(g->path), "kubepods/%s/pod%s", g->qos, g->uid);
}

static int container_dir(const struct sim_cgroups *cg, const struct sim_scn_cgroup *g, int k,
			 char *buf, size_t size)
{
	return pm_snprintf(buf, size,
			   !strcmp(cg->kubelet ? cg->kubelet : "", "systemd") ? CG_ROOT
				   "%s/cri-containerd-%s.scope" :
										CG_ROOT "%s/%s",
			   g->path, g->container_id[k]);
}

/* Make (or remove) cgroup i's directories, and a pod's log entries. */
static int cg_apply(struct pm_sim *sim, struct sim_cgroups *cg, size_t i, bool make)
{
	struct sim_scn_cgroup *g = sim_scenario__cgroup(sim->scn, i);
	char path[640];
	int r;

	if (!make) {
		r = pm_snprintf(path, sizeof(path), CG_ROOT "%s", g->path);
		if (r == 0)
			sim_vfs__remove(sim->vfs, path);
		if (g->pod && pm_snprintf(path, sizeof(path), "var/log/pods/%s_%s_%s", g->ns,
					  g->name, g->uid) == 0)
			sim_vfs__remove(sim->vfs, path);
		for (int k = 0; g->pod && k < g->n_containers; k++)
			if (pm_snprintf(path, sizeof(path), "var/log/containers/%s_%s_%s-%s.log",
					g->name, g->ns, g->containers[k], g->container_id[k]) == 0)
				sim_vfs__remove(sim->vfs, path);
		cg->gone[i] = true;
		return 0;
	}
	r = sim_writef(sim, "", CG_ROOT "%s/cgroup.procs", g->path);
	for (int k = 0; r == 0 && g->pod && k < g->n_containers; k++) {
		r = container_dir(cg, g, k, path, sizeof(path) - 16);
		if (r == 0)
			r = sim_writef(sim, "", "%s/cgroup.procs", path);
		if (r == 0)
			r = sim_writef(sim, "", "var/log/pods/%s_%s_%s/%s/0.log", g->ns, g->name,
				       g->uid, g->containers[k]);
		if (r == 0)
			r = sim_writef(sim, "", "var/log/containers/%s_%s_%s-%s.log", g->name,
				       g->ns, g->containers[k], g->container_id[k]);
	}
	cg->made[i] = true;
	return r;
}

static void cg_free(struct sim_cgroups *cg)
{
	for (size_t i = 0; cg && i < cg->n; i++)
		pm_cpus__done(&cg->cpus[i]);
	if (cg) {
		free(cg->cpus);
		free(cg->made);
		free(cg->gone);
	}
	free(cg);
}

void sim_cgroups_free(struct pm_sim *sim)
{
	cg_free(sim->cgroups);
	sim->cgroups = NULL;
}

int sim_cgroups_build(struct pm_sim *sim, const char *kubelet, char *err, size_t errsz)
{
	size_t n = sim->scn ? sim_scenario__cgroup_count(sim->scn) : 0;
	struct sim_cgroups *cg;
	int r = 0;

	if (!n && !kubelet)
		return 0;
	cg = calloc(1, sizeof(*cg));
	if (!cg)
		return -ENOMEM;
	cg->kubelet = kubelet;
	cg->n = n;
	cg->cpus = calloc(n + 1, sizeof(*cg->cpus));
	cg->made = calloc(n + 1, sizeof(*cg->made));
	cg->gone = calloc(n + 1, sizeof(*cg->gone));
	sim->cgroups = cg;
	if (!cg->cpus || !cg->made || !cg->gone)
		return -ENOMEM;
	if (kubelet) { /* the kubelet's own directories, as it makes them at its start */
		bool sd = !strcmp(kubelet, "systemd");
		static const char *const qos[] = { "burstable", "besteffort" };

		r = sim_writef(sim, "", CG_ROOT "%s/cgroup.procs",
			       sd ? "kubepods.slice" : "kubepods");
		for (size_t q = 0; r == 0 && q < PM_ARRAY_SIZE(qos); q++)
			r = sd ? sim_writef(sim, "",
					    CG_ROOT "kubepods.slice/kubepods-%s.slice/cgroup.procs",
					    qos[q]) :
				 sim_writef(sim, "", CG_ROOT "kubepods/%s/cgroup.procs", qos[q]);
		if (r == 0)
			r = sim_vfs__mkdir(sim->vfs, "var/log/pods");
		if (r == 0)
			r = sim_vfs__mkdir(sim->vfs, "var/log/containers");
	}
	for (size_t i = 0; r == 0 && i < n; i++) {
		struct sim_scn_cgroup *g = sim_scenario__cgroup(sim->scn, i);

		if (g->pod && !kubelet) {
			snprintf(err, errsz,
				 "line %d: pod %s/%s needs a kubelet hierarchy: --sim %s:kubelet=systemd "
				 "or kubelet=cgroupfs",
				 g->line, g->ns, g->name, sim->plat ? sim->plat->name : "PLATFORM");
			return -EINVAL;
		}
		if (g->pod)
			place_pod(sim, kubelet, i, g);
		if (g->cpus[0] && pm_cpus__parse(g->cpus, strlen(g->cpus), &cg->cpus[i]) < 0)
			return -EINVAL; /* checked when parsed */
		for (size_t k = 0; k < cg->cpus[i].n; k++) {
			if (cg->cpus[i].cpu[k] >= sim->n_cpus) {
				snprintf(err, errsz,
					 "line %d: cpus %s: the simulated %s has CPUs 0-%d",
					 g->line, g->cpus, sim->plat ? sim->plat->name : "machine",
					 sim->n_cpus - 1);
				return -EINVAL;
			}
		}
		if (g->t_create == 0)
			r = cg_apply(sim, cg, i, true);
	}
	return r;
}

void sim_cgroups_tick(struct pm_sim *sim)
{
	struct sim_cgroups *cg = sim->cgroups;
	uint64_t now;

	if (!cg || !cg->n)
		return;
	now = sim_scn_now(sim);
	for (size_t i = 0; i < cg->n; i++) {
		const struct sim_scn_cgroup *g = sim_scenario__cgroup(sim->scn, i);

		if (!cg->made[i] && g->t_create <= now && g->t_remove > now)
			cg_apply(sim, cg, i, true);
		if (cg->made[i] && !cg->gone[i] && g->t_remove <= now)
			cg_apply(sim, cg, i, false);
	}
}

bool sim_cgroup_cpu(const struct pm_sim *sim, size_t c, int cpu, int *ret_n_cpus)
{
	const struct sim_cgroups *cg = sim->cgroups;
	const struct pm_cpus *p = cg && c < cg->n ? &cg->cpus[c] : NULL;

	if (!p || !p->n) {
		*ret_n_cpus = sim->n_cpus;
		return cpu >= 0 && cpu < sim->n_cpus;
	}
	*ret_n_cpus = (int)p->n;
	return pm_cpus__has(p, cpu);
}

/* Is node the directory at path, or one of its ancestors under the cgroup2 mount? */
static bool is_at_or_above(struct pm_sim *sim, const struct sim_node *node, const char *path)
{
	char buf[640];
	size_t len;

	if (pm_snprintf(buf, sizeof(buf), CG_ROOT "%s", path) < 0)
		return false;
	len = strlen(buf);
	for (;;) {
		if (sim_vfs__lookup(sim->vfs, buf) == node)
			return true;
		while (len > strlen(CG_ROOT) && buf[len - 1] != '/')
			len--;
		if (len <= strlen(CG_ROOT))
			return false;
		buf[--len] = '\0';
	}
}

int sim_cgroups_parts(struct pm_sim *sim, const struct sim_node *node, int cpu,
		      struct sim_cg_part **ret, size_t *ret_n, uint32_t *ret_share_ppm)
{
	struct sim_cgroups *cg = sim->cgroups;
	struct sim_cg_part *parts = NULL;
	size_t n = 0, cap = 0;
	bool runs = false;

	for (size_t i = 0; cg && i < cg->n; i++) {
		const struct sim_scn_cgroup *g = sim_scenario__cgroup(sim->scn, i);
		double frac = 0;
		int ncpu;

		if (!cg->made[i] || cg->gone[i])
			continue;
		if (is_at_or_above(sim, node, g->path)) {
			frac = 1;
		} else {
			for (int k = 0; g->pod && k < g->n_containers; k++) {
				char path[640];

				if (container_dir(cg, g, k, path, sizeof(path)) == 0 &&
				    sim_vfs__lookup(sim->vfs, path) == node)
					frac = 1.0 / g->n_containers;
			}
		}
		if (frac <= 0)
			continue;
		if (pm_grow((void **)&parts, &cap, n + 1, sizeof(*parts)) < 0) {
			free(parts);
			return -ENOMEM;
		}
		parts[n++] = (struct sim_cg_part){ .cgroup = i, .frac = frac };
		runs |= sim_cgroup_cpu(sim, i, cpu, &ncpu);
	}
	*ret = parts;
	*ret_n = n;
	if (n)
		*ret_share_ppm = runs ? 1000000 : 0;
	return 0;
}
