// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kubelet's names (lib/pods.c, docs/attribution.md "Pods"), table by
 * table: pod cgroups of either driver and QoS, container cgroups of each
 * runtime, /var/log/pods directories and /var/log/containers logs, with
 * the near misses each must refuse.
 */
#include "helpers.h"

#include <string.h>

#include "pods.h"
#include "util/util.h"

#define UID "0f5b2c3d-1a2b-4c3d-8e9f-0123456789ab"
#define UID_ "0f5b2c3d_1a2b_4c3d_8e9f_0123456789ab"
#define ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static void test_pod_cgroups(void **state)
{
	static const struct {
		const char *name;
		bool ok;
	} t[] = {
		{ "pod" UID, true },				  /* cgroupfs, any QoS */
		{ "kubepods-pod" UID_ ".slice", true },		  /* systemd, guaranteed */
		{ "kubepods-burstable-pod" UID_ ".slice", true }, /* systemd, burstable */
		{ "kubepods-besteffort-pod" UID_ ".slice", true },
		{ "kubepods-burstable-pod" UID ".slice", true }, /* dashes kept: still the UID */
		{ "pod" UID_, false },				 /* cgroupfs keeps the dashes */
		{ "pod" UID "0", false },			 /* too long */
		{ "pod0F5B2C3D-1A2B-4C3D-8E9F-0123456789AB", false }, /* the kubelet's are lower */
		{ "kubepods-burstable-pod" UID_, false },	      /* no .slice */
		{ "kubepods-burstable-pod" UID_ ".scope", false },
		{ "system-pod" UID_ ".slice", false }, /* not the kubelet's */
		{ "kubepods-pod.slice", false },
		{ "kubepods.slice", false },
		{ "kubepods-burstable.slice", false },
		{ "pod", false },
		{ "", false },
	};

	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++) {
		char uid[37] = "";
		bool ok = pm_pods__cgroup_uid(t[i].name, uid);

		if (ok != t[i].ok)
			fail_msg("'%s': %s, want %s", t[i].name, ok ? "a pod" : "none",
				 t[i].ok ? "a pod" : "none");
		if (ok)
			assert_string_equal(uid, UID);
	}
}

static void test_container_cgroups(void **state)
{
	static const struct {
		const char *name;
		bool ok;
	} t[] = {
		{ "cri-containerd-" ID ".scope", true },
		{ "crio-" ID ".scope", true },
		{ "docker-" ID ".scope", true },
		{ ID, true }, /* cgroupfs */
		{ "cri-containerd-" ID, false },
		{ "cri-containerd-" ID "0.scope", false },
		{ "crio-" ID ".slice", false },
		{ "crio-conmon-" ID ".scope", false }, /* CRI-O's monitor, not the container */
		{ "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef", false },
		{ ID "0", false },
		{ "", false },
	};

	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++) {
		char id[65] = "";
		bool ok = pm_pods__container_id(t[i].name, id);

		if (ok != t[i].ok)
			fail_msg("'%s': %s", t[i].name, ok ? "taken" : "refused");
		if (ok)
			assert_string_equal(id, ID);
	}
}

static void test_log_dirs(void **state)
{
	static const struct {
		const char *name, *ns, *pod;
	} t[] = {
		{ "default_web-0_" UID, "default", "web-0" },
		{ "kube-system_coredns-5d78c9869d-x2x7q_" UID, "kube-system",
		  "coredns-5d78c9869d-x2x7q" },
		{ "_web-0_" UID, NULL, NULL },	  /* no namespace */
		{ "default__" UID, NULL, NULL },  /* no name */
		{ "default_web-0_", NULL, NULL }, /* no UID */
		{ "default_web_0_" UID, NULL, NULL },
		{ "default-web-0-" UID, NULL, NULL },
	};

	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++) {
		size_t ns = 0, off = 0, len = 0;
		bool ok = pm_pods__log_dir(t[i].name, &ns, &off, &len);

		if (ok != !!t[i].ns)
			fail_msg("'%s': %s", t[i].name, ok ? "taken" : "refused");
		if (!ok)
			continue;
		assert_int_equal(ns, strlen(t[i].ns));
		assert_memory_equal(t[i].name, t[i].ns, ns);
		assert_int_equal(len, strlen(t[i].pod));
		assert_memory_equal(t[i].name + off, t[i].pod, len);
		assert_string_equal(t[i].name + off + len + 1, UID);
	}
}

static void test_container_logs(void **state)
{
	static const struct {
		const char *log, *pod, *ns, *want;
	} t[] = {
		{ "web-0_default_nginx-" ID ".log", "web-0", "default", "nginx" },
		{ "web-0_default_log-shipper-" ID ".log", "web-0", "default", "log-shipper" },
		{ "web-0_default_-" ID ".log", "web-0", "default", NULL }, /* no name */
		{ "web-0_default_nginx-" ID ".txt", "web-0", "default", NULL },
		{ "web-1_default_nginx-" ID ".log", "web-0", "default", NULL },	  /* another pod */
		{ "web-0_other_nginx-" ID ".log", "web-0", "default", NULL },	  /* namespace */
		{ "web-0-x_default_nginx-" ID ".log", "web-0", "default", NULL }, /* a prefix */
		{ "web-0_default_nginx-" ID "0.log", "web-0", "default", NULL },
		{ "web-0_default_nginx_" ID ".log", "web-0", "default", NULL },
		{ "x-" ID ".log", "web-0-a-very-long-pod-name-longer-than-the-log", "default",
		  NULL },
	};

	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++) {
		char name[256] = "";
		bool ok = pm_pods__container_log(t[i].log, t[i].pod, t[i].ns, ID, name,
						 sizeof(name));

		if (ok != !!t[i].want)
			fail_msg("'%s': %s", t[i].log, ok ? name : "refused");
		if (ok)
			assert_string_equal(name, t[i].want);
	}
	/* a name longer than the caller's room: refused, not cut */
	{
		char small[4];

		assert_false(pm_pods__container_log("web-0_default_nginx-" ID ".log", "web-0",
						    "default", ID, small, sizeof(small)));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pod_cgroups),
		cmocka_unit_test(test_container_cgroups),
		cmocka_unit_test(test_log_dirs),
		cmocka_unit_test(test_container_logs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
