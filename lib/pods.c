// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kubelet's pods from the host's files alone (pmumon.h, pm_ctx__pods;
 * docs/attribution.md): their cgroups for either cgroup driver (kubelet's
 * pkg/kubelet/cm/cgroup_manager_linux.go: "pod" + UID, the systemd driver's
 * parts joined with '-' into slices, each part's '-' escaped to '_'), their
 * names from /var/log/pods/NAMESPACE_NAME_UID/, their containers from
 * /var/log/containers/POD_NAMESPACE_CONTAINER-ID.log.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "pods.h"
#include "util/util.h"

#define MAX_DEPTH 6
#define MAX_PODS 100000

struct walk {
	struct pm_ctx *ctx;
	struct pm_pod *pods;
	size_t n, cap;
	char root[256]; /* the cgroup2 mount, from the machine's root */
};

static bool is_uid(const char *s, size_t n)
{
	if (n != 36)
		return false;
	for (size_t i = 0; i < n; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? s[i] != '-' && s[i] != '_' :
			   !((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	}
	return true;
}

bool pm_pods__cgroup_uid(const char *name, char uid[37])
{
	size_t n = strlen(name);
	const char *p;

	if (!strncmp(name, "pod", 3) && is_uid(name + 3, n - 3)) {
		snprintf(uid, 37, "%s", name + 3);
		for (char *c = uid; *c; c++) /* pod<UID> has dashes */
			if (*c == '_')
				return false;
		return true;
	}
	p = strstr(name, "-pod");
	if (strncmp(name, "kubepods", 8) || !p || n < 6 || strcmp(name + n - 6, ".slice") ||
	    p + 4 > name + n - 6 || !is_uid(p + 4, (size_t)(name + n - 6 - (p + 4))))
		return false;
	snprintf(uid, 37, "%s", p + 4);
	for (char *c = uid; *c; c++)
		if (*c == '_')
			*c = '-';
	return true;
}

static int add(struct walk *w, const char *cgroup, const char *uid, const char *container)
{
	struct pm_pod *p;

	if (w->n == MAX_PODS)
		return -E2BIG;
	if (pm_grow((void **)&w->pods, &w->cap, w->n + 1, sizeof(*w->pods)) < 0)
		return -ENOMEM;
	p = &w->pods[w->n];
	memset(p, 0, sizeof(*p));
	if (pm_snprintf(p->cgroup, sizeof(p->cgroup), "%s", cgroup) < 0)
		return 0; /* a path too long for a row: left out */
	snprintf(p->uid, sizeof(p->uid), "%s", uid);
	snprintf(p->pod, sizeof(p->pod), "%s", uid); /* until its log directory names it */
	snprintf(p->container, sizeof(p->container), "%s", container ? container : "");
	w->n++;
	return 0;
}

bool pm_pods__container_id(const char *name, char id[65])
{
	static const char *const prefix[] = { "cri-containerd-", "crio-", "docker-", "" };
	size_t n = strlen(name);

	for (size_t i = 0; i < PM_ARRAY_SIZE(prefix); i++) {
		size_t pl = strlen(prefix[i]);

		if (strncmp(name, prefix[i], pl) || n != pl + 64 + (pl ? 6 : 0) ||
		    (pl && strcmp(name + n - 6, ".scope")))
			continue;
		if (strspn(name + pl, "0123456789abcdef") < 64)
			continue;
		snprintf(id, 65, "%.64s", name + pl);
		return true;
	}
	return false;
}

static int walk_dir(struct walk *w, const char *rel, int depth, bool containers)
{
	struct pm_names names = { 0 };
	char path[1024];
	int r;

	if (pm_snprintf(path, sizeof(path), "%s%s%s", w->root, rel[0] ? "/" : "", rel) < 0)
		return 0;
	r = pm_list_names(w->ctx, path, true, NULL, &names);
	for (size_t i = 0; r == 0 && i < names.n; i++) {
		const char *name = names.name[i];
		char sub[1024], uid[37];

		if (pm_snprintf(sub, sizeof(sub), "%s%s%s", rel, rel[0] ? "/" : "", name) < 0)
			continue;
		if (pm_pods__cgroup_uid(name, uid)) {
			struct pm_names ctr = { 0 };
			char id[65];

			if (!containers) {
				r = add(w, sub, uid, NULL);
				continue;
			}
			if (pm_snprintf(path, sizeof(path), "%s/%s", w->root, sub) == 0 &&
			    pm_list_names(w->ctx, path, true, NULL, &ctr) == 0)
				for (size_t k = 0; r == 0 && k < ctr.n; k++) {
					char cg[1024];

					if (pm_pods__container_id(ctr.name[k], id) &&
					    pm_snprintf(cg, sizeof(cg), "%s/%s", sub,
							ctr.name[k]) == 0)
						r = add(w, cg, uid, id); /* named below */
				}
			pm_names__done(&ctr);
			continue;
		}
		/* kubepods, kubepods.slice, its QoS levels, a kubelet's own slice: at any depth */
		if (depth < MAX_DEPTH && strstr(name, "kubepods"))
			r = walk_dir(w, sub, depth + 1, containers);
		else if (depth < MAX_DEPTH && depth > 0 &&
			 (!strcmp(name, "burstable") || !strcmp(name, "besteffort")))
			r = walk_dir(w, sub, depth + 1, containers);
	}
	pm_names__done(&names);
	return r == -ENOENT ? 0 : r;
}

bool pm_pods__log_dir(const char *name, size_t *ret_ns_len, size_t *ret_name_off,
		      size_t *ret_name_len)
{
	const char *a = strchr(name, '_'), *b = a ? strchr(a + 1, '_') : NULL;

	if (!b || strchr(b + 1, '_') || a == name || b == a + 1 || !b[1])
		return false;
	*ret_ns_len = (size_t)(a - name);
	*ret_name_off = (size_t)(a + 1 - name);
	*ret_name_len = (size_t)(b - a - 1);
	return true;
}

/* Each pod's namespace and name from its log directory's, matched by UID. */
static void name_pods(struct walk *w)
{
	struct pm_names logs = { 0 };

	if (pm_list_names(w->ctx, "var/log/pods", true, NULL, &logs) < 0)
		return;
	for (size_t i = 0; i < logs.n; i++) {
		const char *e = logs.name[i];
		size_t ns, off, len;

		if (!pm_pods__log_dir(e, &ns, &off, &len))
			continue;
		for (size_t k = 0; k < w->n; k++) {
			if (strcmp(w->pods[k].uid, e + off + len + 1) != 0)
				continue;
			snprintf(w->pods[k].pod_namespace, sizeof(w->pods[k].pod_namespace), "%.*s",
				 (int)ns, e);
			snprintf(w->pods[k].pod, sizeof(w->pods[k].pod), "%.*s", (int)len, e + off);
		}
	}
	pm_names__done(&logs);
}

bool pm_pods__container_log(const char *log, const char *pod, const char *pod_namespace,
			    const char *id, char *ret, size_t size)
{
	size_t n = strlen(log), lp = strlen(pod), ln = strlen(pod_namespace), end;

	/* POD _ NAMESPACE _ CONTAINER - ID(64) .log */
	if (strlen(id) != 64 || n < lp + ln + 2 + 1 + 65 + 4 || strcmp(log + n - 4, ".log") ||
	    log[n - 4 - 65] != '-' || strncmp(log + n - 4 - 64, id, 64) || strncmp(log, pod, lp) ||
	    log[lp] != '_' || strncmp(log + lp + 1, pod_namespace, ln) || log[lp + 1 + ln] != '_')
		return false;
	end = n - 4 - 65; /* the container's name: [lp + ln + 2, end), not empty */
	return pm_snprintf(ret, size, "%.*s", (int)(end - (lp + ln + 2)), log + lp + ln + 2) == 0;
}

/* POD_NAMESPACE_CONTAINER-ID.log: the container named where its ID is in a cgroup found. */
static void name_containers(struct walk *w)
{
	struct pm_names logs = { 0 };

	if (pm_list_names(w->ctx, "var/log/containers", false, "*.log", &logs) < 0)
		return;
	for (size_t i = 0; i < logs.n; i++) {
		for (size_t k = 0; k < w->n; k++) {
			struct pm_pod *p = &w->pods[k];
			char name[sizeof(p->container)];

			if (p->container[0] &&
			    pm_pods__container_log(logs.name[i], p->pod, p->pod_namespace,
						   p->container, name, sizeof(name)))
				memcpy(p->container, name, sizeof(name));
		}
	}
	pm_names__done(&logs);
}

static int cmp_pod(const void *a, const void *b)
{
	return strcmp(((const struct pm_pod *)a)->cgroup, ((const struct pm_pod *)b)->cgroup);
}

int pm_ctx__pods(struct pm_ctx *ctx, bool containers, struct pm_pod **ret, size_t *ret_n)
{
	struct walk w = { .ctx = ctx };
	int r;

	if (!ctx || !ret || !ret_n)
		return -EINVAL;
	if (!ctx->ops)
		return -EOPNOTSUPP; /* a recording has no files */
	pm_cgroup_root(ctx, w.root, sizeof(w.root));
	r = walk_dir(&w, "", 0, containers);
	if (r < 0) {
		free(w.pods);
		return r;
	}
	name_pods(&w);
	if (containers) {
		name_containers(&w);
		/* a container no log names is no container of the pod's (the sandbox's pause) */
		for (size_t k = 0; k < w.n;) {
			if (strlen(w.pods[k].container) == 64 &&
			    strspn(w.pods[k].container, "0123456789abcdef") == 64)
				w.pods[k] = w.pods[--w.n];
			else
				k++;
		}
	}
	if (w.n)
		qsort(w.pods, w.n, sizeof(*w.pods), cmp_pod);
	*ret = w.pods;
	*ret_n = w.n;
	return 0;
}
