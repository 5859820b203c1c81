// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz the kubelet's names (lib/pods.c): pod cgroup directories of either
 * driver, container cgroups, /var/log/pods and /var/log/containers entries.
 * The input is lines; each is tried as every kind of name, and what parses
 * must be what the kubelet would have written: a UID of 36 with its dashes,
 * put back in either driver's form and parsed again to the same; an ID of
 * 64 hex digits; a log directory made again from its parts; and with lines
 * 2, 3 and 4 as a pod, its namespace and a container ID, line 1 as a
 * container's log, the same log made again from the container's name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "pods.h"

#define MAX_LINES 8

static bool is_uid36(const char *u)
{
	if (strlen(u) != 36)
		return false;
	for (int i = 0; i < 36; i++)
		if (i == 8 || i == 13 || i == 18 || i == 23 ?
			    u[i] != '-' :
			    !strchr("0123456789abcdef", u[i]) || !u[i])
			return false;
	return true;
}

static void check_uid(const char *line)
{
	char uid[37], again[37], name[128];

	if (!pm_pods__cgroup_uid(line, uid))
		return;
	if (!is_uid36(uid))
		abort();
	snprintf(name, sizeof(name), "pod%s", uid); /* cgroupfs */
	if (!pm_pods__cgroup_uid(name, again) || strcmp(again, uid))
		abort();
	snprintf(name, sizeof(name), "kubepods-burstable-pod%s.slice", uid); /* systemd */
	for (char *c = name + strlen("kubepods-burstable-pod"); *c != '.'; c++)
		*c = *c == '-' ? '_' : *c;
	if (!pm_pods__cgroup_uid(name, again) || strcmp(again, uid))
		abort();
}

static void check_id(const char *line)
{
	char id[65], again[65], name[128];

	if (!pm_pods__container_id(line, id))
		return;
	if (strlen(id) != 64 || strspn(id, "0123456789abcdef") != 64 || !strstr(line, id))
		abort();
	snprintf(name, sizeof(name), "cri-containerd-%s.scope", id);
	if (!pm_pods__container_id(name, again) || strcmp(again, id))
		abort();
}

static void check_log_dir(const char *line)
{
	size_t ns, off, len;
	char again[4096];

	if (!pm_pods__log_dir(line, &ns, &off, &len))
		return;
	if (!ns || !len || off != ns + 1 || memchr(line, '_', ns) || memchr(line + off, '_', len) ||
	    !line[off + len + 1] || strchr(line + off + len + 1, '_'))
		abort();
	snprintf(again, sizeof(again), "%.*s_%.*s_%s", (int)ns, line, (int)len, line + off,
		 line + off + len + 1);
	if (strcmp(again, line))
		abort();
}

static void check_container_log(const char *log, const char *pod, const char *ns, const char *id)
{
	char name[256], again[8192];

	if (!pm_pods__container_log(log, pod, ns, id, name, sizeof(name)))
		return;
	if (!name[0])
		abort();
	snprintf(again, sizeof(again), "%s_%s_%s-%s.log", pod, ns, name, id);
	if (strcmp(again, log))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text, *line[MAX_LINES], *save = NULL;
	size_t n = 0;

	if (size > 4096)
		return 0;
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (char *l = strtok_r(text, "\n", &save); l && n < MAX_LINES;
	     l = strtok_r(NULL, "\n", &save))
		line[n++] = l;
	for (size_t i = 0; i < n; i++) {
		check_uid(line[i]);
		check_id(line[i]);
		check_log_dir(line[i]);
	}
	if (n >= 4)
		check_container_log(line[0], line[1], line[2], line[3]);
	free(text);
	return 0;
}
