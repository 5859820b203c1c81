/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The names the kubelet gives pods, containers and their logs (pods.c,
 * docs/attribution.md "Pods"): pure parsers of one directory or file name
 * each, for pm_ctx__pods, its table tests and fuzz/fuzz-pods.c.
 */
#ifndef PM_PODS_H
#define PM_PODS_H

#include <stdbool.h>
#include <stddef.h>

/* A pod's cgroup directory name, either driver: cgroupfs pod<UID>; systemd
 * kubepods[-QOS]-pod<UID, '_' for '-'>.slice. The UID with dashes into uid. */
bool pm_pods__cgroup_uid(const char *name, char uid[37]);
/* A container's cgroup directory name (cri-containerd-ID.scope, crio-ID.scope,
 * docker-ID.scope, or ID): its 64 hex digits into id. */
bool pm_pods__container_id(const char *name, char id[65]);
/* /var/log/pods/NAMESPACE_NAME_UID: namespace [0, *ret_ns_len), name
 * [*ret_name_off, + *ret_name_len), the UID the rest (namespaces and names are DNS
 * labels, without '_'; each part not empty). */
bool pm_pods__log_dir(const char *name, size_t *ret_ns_len, size_t *ret_name_off,
		      size_t *ret_name_len);
/* /var/log/containers/POD_NAMESPACE_CONTAINER-ID.log of pod in namespace with container
 * id (64 hex): the container's name into ret (size); false when the log is another's. */
bool pm_pods__container_log(const char *log, const char *pod, const char *pod_namespace,
			    const char *id, char *ret, size_t size);

#endif
