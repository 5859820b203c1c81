// SPDX-License-Identifier: GPL-2.0-only
/*
 * The perf source's BPF path (perf-bpf.h): the design of Linux perf's
 * tools/perf/util/bpf_counter_cgroup.c (perf stat --bpf-counters
 * --for-each-cgroup), our own code. Each distinct event counted in a cgroup
 * (a kind: the same attr in several cgroups is one) is opened once per CPU,
 * CPU-wide, into the program's counters map; the program (perf-bpf.bpf.c)
 * runs on every context switch of each CPU (the sched_switch raw tracepoint:
 * perf runs it on the cgroup-switches event, which lost switches here, see
 * perf-bpf.bpf.c) and adds each kind's delta since the CPU's last switch to
 * the outgoing cgroup and its listed ancestors. A read first runs
 * the program on every CPU (BPF_PROG_TEST_RUN with BPF_F_TEST_RUN_ON_CPU,
 * as perf's bperf_trigger_reading) so that the cgroup running there now is
 * accounted, then reads the per-CPU sums: a counter (event in cgroup g on
 * CPU c) reads as its cgroup-mode perf event would, value, time enabled
 * (while g ran on c) and time running.
 *
 * cgroup v2 only: a cgroup is its id on the cgroup2 mount (the file handle
 * name_to_handle_at gives, as perf's read_cgroup_id), the program walks the
 * current task's ancestors with bpf_get_current_ancestor_cgroup_id.
 *
 * The os seam (pmumon/os.h) has no bpf(): libbpf makes its syscalls itself,
 * so this path runs on the real kernel only (the simulator's os is refused
 * here, by name). The perf events it opens go through the seam's perf_open.
 */
#include "source/perf/perf-bpf.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "evlist.h"
#include "source/counters.h"
#include "util/cpus.h"
#include "util/util.h"

#ifndef PM_HAVE_BPF

bool pm_perf_bpf__built(const char **ret_why)
{
	if (ret_why)
		*ret_why = PM_BPF_MISSING;
	return false;
}

int pm_perf_bpf__open(struct pm_session *s, const struct pm_perf_bpf_ops *ops,
		      struct pm_perf_bpf **ret, struct pm_diag *reterr)
{
	(void)ops;
	*ret = NULL;
	pm_diag_set(reterr,
		    "rebuild with libbpf (Debian: apt-get install libbpf-dev clang; meson "
		    "setup -Dbpf=enabled), or count without BPF counters",
		    "this pmumon was built without the BPF path: %s", PM_BPF_MISSING);
	return -EOPNOTSUPP;
}

int pm_perf_bpf__switch(struct pm_session *s, struct pm_perf_bpf *b, bool on)
{
	return b ? -EOPNOTSUPP : 0;
}

int pm_perf_bpf__read(struct pm_session *s, struct pm_perf_bpf *b, bool publish)
{
	return b ? -EOPNOTSUPP : 0;
}

void pm_perf_bpf__free(struct pm_session *s, struct pm_perf_bpf *b)
{
}

#else

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <stdarg.h>

/* The program's object (perf-bpf.bpf.c, built with clang -target bpf), embedded. */
extern const unsigned char pm_perf_bpf_obj[];
extern const size_t pm_perf_bpf_obj_len;

#define MAX_KINDS 32  /* as perf-bpf.bpf.c */
#define MAX_LEVELS 16 /* as perf-bpf.bpf.c: a cgroup's level must be below it */

struct cfg { /* as perf-bpf.bpf.c */
	__u32 n_kinds;
	__u32 n_cpus;
	__u32 on;
};

struct pm_perf_bpf {
	const struct pm_perf_bpf_ops *ops; /* the perf source's, given at open */
	struct bpf_object *obj;
	int cfg_fd, acc_fd, read_fd;
	size_t n_cpus; /* possible CPUs: the per-CPU maps' width */
	size_t n_kinds, n_cg;
	struct perf_event_attr kind[MAX_KINDS];
	char **cg;	       /* the listed cgroups' paths, as the events name them */
	size_t *c_kind;	       /* per counter: its kind, SIZE_MAX: not this path's */
	size_t *c_cg;	       /* per counter: its cgroup */
	bool *cpu_used;	       /* per possible CPU: some counter counts on it */
	int *counter_fd;       /* [kind * n_cpus + cpu], -1: none */
	struct bpf_link *link; /* the program on sched_switch */
	/* the counters of sum key (cgroup * n_kinds + kind): by_key[key_at[key] ..
	 * key_at[key + 1]) */
	size_t *key_at, *by_key;
	/* a read: every sum ([key * n_cpus + cpu]), their keys, whether batched */
	struct bpf_perf_event_value *all;
	__u32 *keys;
	bool batch;
};

/* libbpf's own messages: never printed (the library never prints); the first since
 * the step began kept for the error that follows it (the cause; later ones say what
 * failed with it), but its warning that it could not raise RLIMIT_MEMLOCK, which it
 * gives before anything fails. */
static __thread char libbpf_last[256];

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level != LIBBPF_DEBUG && !libbpf_last[0] && !strstr(fmt, "RLIMIT_MEMLOCK")) {
		size_t n;

		vsnprintf(libbpf_last, sizeof(libbpf_last), fmt, ap);
		n = strlen(libbpf_last);
		while (n && libbpf_last[n - 1] == '\n')
			libbpf_last[--n] = '\0';
	}
	return 0;
}

bool pm_perf_bpf__built(const char **ret_why)
{
	if (ret_why)
		*ret_why = "";
	return true;
}

void pm_perf_bpf__free(struct pm_session *s, struct pm_perf_bpf *b)
{
	if (!b)
		return;
	bpf_link__destroy(b->link);
	for (size_t i = 0; b->counter_fd && i < b->n_kinds * b->n_cpus; i++)
		if (b->counter_fd[i] >= 0)
			s->ctx->ops->close(s->ctx->os, b->counter_fd[i]);
	bpf_object__close(b->obj);
	for (size_t i = 0; b->cg && i < b->n_cg; i++)
		free(b->cg[i]);
	free(b->cg);
	free(b->c_kind);
	free(b->c_cg);
	free(b->cpu_used);
	free(b->counter_fd);
	free(b->key_at);
	free(b->by_key);
	free(b->all);
	free(b->keys);
	free(b);
}

/* The counters this path counts: a kind and a cgroup each. 0, or -errno (said). */
static int classify(struct pm_session *s, struct pm_perf_bpf *b, struct pm_diag *d)
{
	for (size_t k = 0; k < s->n_c; k++) {
		struct pm_counter *c = &s->c[k];
		const struct pm_event *ev = &s->l->ev[c->event];
		struct perf_event_attr attr;
		const char *p;
		size_t n, i;

		b->c_kind[k] = SIZE_MAX;
		if (c->source != PM_SRC_PERF || !ev->cgroup || c->dropped || c->unsupported)
			continue;
		if (c->cpu < 0 || (size_t)c->cpu >= b->n_cpus) {
			pm_diag_set(d, "count it on CPUs (-a or -C)",
				    "'%s' in cgroup '%s' is not counted on one of this machine's CPUs",
				    ev->label, ev->cgroup);
			return -EINVAL;
		}
		b->ops->counter_attr(s, k, &attr);
		for (i = 0; i < b->n_kinds && memcmp(&b->kind[i], &attr, sizeof(attr)); i++)
			;
		if (i == b->n_kinds) {
			if (b->n_kinds == MAX_KINDS) {
				pm_diag_set(d,
					    "count fewer distinct events in cgroups, or count "
					    "without --bpf-counters",
					    "more than %d distinct events counted in cgroups: the BPF "
					    "program reads at most %d on each cgroup switch",
					    MAX_KINDS, MAX_KINDS);
				return -E2BIG;
			}
			b->kind[b->n_kinds++] = attr;
		}
		b->c_kind[k] = i;
		n = pm_cgroup_trim(ev->cgroup, &p);
		for (i = 0; i < b->n_cg; i++) {
			const char *q;
			size_t m = pm_cgroup_trim(b->cg[i], &q);

			if (m == n && !strncmp(p, q, n))
				break;
		}
		if (i == b->n_cg) {
			b->cg[b->n_cg] = strdup(ev->cgroup);
			if (!b->cg[b->n_cg])
				return -ENOMEM;
			b->n_cg++;
		}
		b->c_cg[k] = i;
		b->cpu_used[c->cpu] = true;
	}
	return 0;
}

/* A listed cgroup's id on the cgroup2 mount (its directory's file handle, as perf's
 * read_cgroup_id) and its level (the root's 0). 0, or -errno (said). */
static int cgroup_id(struct pm_session *s, const char *root, const char *cg, uint64_t *ret_id,
		     struct pm_diag *d)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h = { .fh.handle_bytes = sizeof(uint64_t) };
	char path[512];
	const char *p;
	size_t n, level = 0;
	int fd, mount_id, r;

	n = pm_cgroup_trim(cg, &p);
	for (size_t i = 0; i < n; i++)
		level += i == 0 || p[i] == '/';
	if (level >= MAX_LEVELS) {
		pm_diag_set(d, "count a cgroup nearer the root, or count without --bpf-counters",
			    "cgroup '%s' is %zu levels deep: the BPF program looks at %d", cg,
			    level, MAX_LEVELS - 1);
		return -E2BIG;
	}
	snprintf(path, sizeof(path), "%s/%.*s", root, (int)n, p);
	fd = s->ctx->ops->open(s->ctx->os, path, O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		pm_diag_set(d, "name a directory under the cgroup2 mount (its path there)",
			    "no cgroup '%s' to count in: /%s: %s", cg, path, strerror(-fd));
		return fd;
	}
	r = name_to_handle_at(fd, "", &h.fh, &mount_id, AT_EMPTY_PATH) < 0 ? -errno : 0;
	s->ctx->ops->close(s->ctx->os, fd);
	if (r < 0 || h.fh.handle_bytes != sizeof(uint64_t)) {
		pm_diag_set(d,
			    "count without --bpf-counters: it knows a cgroup by its cgroup v2 id",
			    "cannot find the id of cgroup '%s' (/%s): %s", cg, path,
			    r < 0 ? strerror(-r) : "not a cgroup v2 directory");
		return r < 0 ? r : -EINVAL;
	}
	*ret_id = h.id;
	return 0;
}

/* Why the kernel refused to load or run the program, and the fix. */
static void bpf_refused(struct pm_diag *d, const char *what, int err)
{
	if (err == -EPERM || err == -EACCES) /* what libbpf adds says no more */
		pm_diag_set(d,
			    "run as root, or grant CAP_BPF and CAP_PERFMON (setcap "
			    "cap_bpf,cap_perfmon+ep pmumon), or count without --bpf-counters",
			    "no permission to %s the BPF program of --bpf-counters: %s", what,
			    strerror(-err));
	else
		pm_diag_set(d, "count without --bpf-counters (each cgroup then has its own events)",
			    "the kernel cannot %s the BPF program of --bpf-counters: %s%s%s", what,
			    strerror(-err), libbpf_last[0] ? "; " : "", libbpf_last);
}

static int run_on(struct pm_perf_bpf *b, size_t cpu)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = (__u32)cpu);

	return bpf_prog_test_run_opts(b->read_fd, &o) < 0 ? -errno : 0;
}

/*
 * Run the program on every CPU counted: their running cgroups accounted up to now. A
 * CPU gone offline (the kernel's test run: -ENXIO) runs nothing: its last switch, to
 * its idle task, accounted what ran there, and its sums stand, as the plain path's
 * counters of that CPU stand.
 */
static int sync_cpus(struct pm_perf_bpf *b)
{
	for (size_t cpu = 0; cpu < b->n_cpus; cpu++) {
		int r = b->cpu_used[cpu] ? run_on(b, cpu) : 0;

		if (r < 0 && r != -ENXIO)
			return r;
	}
	return 0;
}

static int map_sizes(struct pm_perf_bpf *b)
{
	struct {
		const char *name;
		size_t n;
	} m[] = { { "counters", b->n_kinds * b->n_cpus },
		  { "cgroup_index", b->n_cg },
		  { "last", b->n_kinds },
		  { "acc", b->n_cg * b->n_kinds } };

	for (size_t i = 0; i < PM_ARRAY_SIZE(m); i++) {
		struct bpf_map *map = bpf_object__find_map_by_name(b->obj, m[i].name);

		if (!map || bpf_map__set_max_entries(map, (__u32)m[i].n) < 0)
			return -EINVAL;
	}
	return 0;
}

static int map_fd(struct pm_perf_bpf *b, const char *name)
{
	struct bpf_map *map = bpf_object__find_map_by_name(b->obj, name);

	return map ? bpf_map__fd(map) : -EINVAL;
}

/* Load the program: 0 or -errno (said). */
static int load(struct pm_session *s, struct pm_perf_bpf *b, struct pm_diag *d)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = "pmumon_cgroup");
	struct bpf_program *prog;
	struct cfg cf = { .n_kinds = (__u32)b->n_kinds, .n_cpus = (__u32)b->n_cpus };
	__u32 zero = 0;
	int r;

	libbpf_last[0] = '\0';
	b->obj = bpf_object__open_mem(pm_perf_bpf_obj, pm_perf_bpf_obj_len, &oo);
	if (!b->obj) {
		r = -errno;
		bpf_refused(d, "open", r);
		return r;
	}
	r = map_sizes(b);
	if (r == 0)
		r = bpf_object__load(b->obj);
	if (r < 0) {
		bpf_refused(d, "load", r);
		return r;
	}
	prog = bpf_object__find_program_by_name(b->obj, "on_switch");
	b->cfg_fd = map_fd(b, "cfg");
	b->acc_fd = map_fd(b, "acc");
	b->read_fd = prog ? bpf_program__fd(prog) : -EINVAL;
	if (b->cfg_fd < 0 || b->acc_fd < 0 || b->read_fd < 0)
		return -EINVAL;
	r = bpf_map_update_elem(b->cfg_fd, &zero, &cf, BPF_ANY) < 0 ? -errno : 0;
	if (r < 0)
		bpf_refused(d, "configure", r);
	return r;
}

/* Each listed cgroup's id -> its index. A cgroup listed again spelled another way
 * ("a/./b", "a//b": one directory, one id) is the first's: its counters read those sums. */
static int fill_cgroups(struct pm_session *s, struct pm_perf_bpf *b, struct pm_diag *d)
{
	int fd = map_fd(b, "cgroup_index");
	char root[256];

	pm_cgroup_root(s->ctx, root, sizeof(root));
	for (size_t i = 0; i < b->n_cg; i++) {
		uint64_t id;
		__u32 idx = (__u32)i, first;
		int r = cgroup_id(s, root, b->cg[i], &id, d);

		if (r < 0)
			return r;
		if (bpf_map_update_elem(fd, &id, &idx, BPF_NOEXIST) < 0) {
			r = -errno;
			if (r == -EEXIST && bpf_map_lookup_elem(fd, &id, &first) == 0) {
				for (size_t k = 0; k < s->n_c; k++)
					if (b->c_kind[k] != SIZE_MAX && b->c_cg[k] == i)
						b->c_cg[k] = first;
				continue;
			}
			bpf_refused(d, "fill the cgroups map of", r);
			return r;
		}
	}
	return 0;
}

/* Each kind CPU-wide on each CPU it is counted on, into the counters map. An event the
 * kernel refuses is <not supported> in every cgroup (as the plain path's rows), or an
 * error (said). */
static int open_counters(struct pm_session *s, struct pm_perf_bpf *b, struct pm_diag *d)
{
	int map = map_fd(b, "counters");

	for (size_t k = 0; k < s->n_c; k++) {
		const struct pm_counter *c = &s->c[k];
		size_t kind = b->c_kind[k], slot;
		__u32 key;
		int fd;

		if (kind == SIZE_MAX || c->dropped || c->unsupported)
			continue;
		slot = kind * b->n_cpus + (size_t)c->cpu;
		if (b->counter_fd[slot] >= 0)
			continue;
		fd = s->ctx->ops->perf_open(s->ctx->os, &b->kind[kind], -1, c->cpu, -1, 0);
		if (fd < 0) {
			if (!b->ops->refused(s, k, fd, d))
				return fd;
			for (size_t m = 0; m < s->n_c; m++) /* its event's counters: not ours */
				if (s->c[m].event == c->event)
					b->c_kind[m] = SIZE_MAX;
			continue;
		}
		b->counter_fd[slot] = fd;
		key = (__u32)slot;
		if (bpf_map_update_elem(map, &key, &fd, BPF_ANY) < 0) {
			int r = -errno;

			bpf_refused(d, "take a counter into", r);
			return r;
		}
	}
	return 0;
}

/* The program on the sched_switch raw tracepoint: every CPU's context switches. */
static int attach(struct pm_perf_bpf *b, struct pm_diag *d)
{
	struct bpf_program *prog = bpf_object__find_program_by_name(b->obj, "on_switch");

	if (!prog)
		return -EINVAL;
	libbpf_last[0] = '\0';
	b->link = bpf_program__attach_raw_tracepoint(prog, "sched_switch");
	if (!b->link) {
		int r = -errno;

		bpf_refused(d, "attach to the sched_switch tracepoint", r);
		return r;
	}
	return 0;
}

/* The counters of each sum, so that a read goes through each once. */
static int index_keys(struct pm_session *s, struct pm_perf_bpf *b)
{
	size_t n_keys = b->n_cg * b->n_kinds;

	b->key_at = calloc(n_keys + 2, sizeof(*b->key_at));
	b->by_key = calloc(s->n_c + 1, sizeof(*b->by_key));
	b->all = calloc(n_keys * b->n_cpus + 1, sizeof(*b->all));
	b->keys = calloc(n_keys + 1, sizeof(*b->keys));
	if (!b->key_at || !b->by_key || !b->all || !b->keys)
		return -ENOMEM;
	b->batch = true;
	for (size_t k = 0; k < s->n_c; k++)
		if (b->c_kind[k] != SIZE_MAX)
			b->key_at[b->c_cg[k] * b->n_kinds + b->c_kind[k] + 2]++;
	for (size_t i = 2; i < n_keys + 2; i++)
		b->key_at[i] += b->key_at[i - 1];
	for (size_t k = 0; k < s->n_c; k++)
		if (b->c_kind[k] != SIZE_MAX)
			b->by_key[b->key_at[b->c_cg[k] * b->n_kinds + b->c_kind[k] + 1]++] = k;
	return 0;
}

/*
 * The per-CPU maps give a value per possible CPU, packed in their order, and the
 * sums here are kept by CPU number: the two agree when the possible CPUs are 0 to
 * n - 1, as on every machine seen; else refused, not read from another CPU's slot.
 */
static int possible_dense(struct pm_ctx *ctx, int n_cpus, struct pm_diag *d)
{
	char buf[256] = "";
	struct pm_cpus c = { 0 };
	ssize_t n = pm_read_file(ctx, "sys/devices/system/cpu/possible", buf, sizeof(buf));
	bool dense;

	if (n <= 0 || pm_cpus__parse(buf, (size_t)n, &c) < 0)
		return 0; /* libbpf counted them from this file: as it read it */
	dense = c.n == (size_t)n_cpus && c.cpu[c.n - 1] == n_cpus - 1;
	pm_cpus__done(&c);
	if (dense)
		return 0;
	pm_diag_set(d, "count without --bpf-counters",
		    "this machine's possible CPUs are %s, not 0 to %d: --bpf-counters keeps its "
		    "sums by CPU number, the kernel's per-CPU maps by position",
		    buf, n_cpus - 1);
	return -EOPNOTSUPP;
}

int pm_perf_bpf__open(struct pm_session *s, const struct pm_perf_bpf_ops *ops,
		      struct pm_perf_bpf **ret, struct pm_diag *reterr)
{
	struct pm_perf_bpf *b;
	libbpf_print_fn_t old_print;
	int n_cpus, r;
	bool any = false;

	*ret = NULL;
	for (size_t k = 0; k < s->n_c && !any; k++)
		any = s->c[k].source == PM_SRC_PERF && s->l->ev[s->c[k].event].cgroup;
	/* a command's or threads' counters in a cgroup are refused as ever (perf.c) */
	if (!any || s->opts.target == PM_TARGET_TASK || s->opts.target == PM_TARGET_THREADS)
		return 0;
	if (strcmp(s->ctx->ops->name, "linux")) {
		pm_diag_set(reterr, "count without --bpf-counters on this os",
			    "--bpf-counters needs the real kernel's bpf(): the %s os has none",
			    s->ctx->ops->name);
		return -EOPNOTSUPP;
	}
	n_cpus = libbpf_num_possible_cpus();
	if (n_cpus <= 0) {
		pm_diag_set(reterr, "check /sys/devices/system/cpu/possible",
			    "cannot tell this machine's possible CPUs: %s", strerror(-n_cpus));
		return n_cpus < 0 ? n_cpus : -EINVAL;
	}
	r = possible_dense(s->ctx, n_cpus, reterr);
	if (r < 0)
		return r;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->ops = ops;
	b->n_cpus = (size_t)n_cpus;
	b->cg = calloc(s->n_c + 1, sizeof(*b->cg));
	b->c_kind = calloc(s->n_c + 1, sizeof(*b->c_kind));
	b->c_cg = calloc(s->n_c + 1, sizeof(*b->c_cg));
	b->cpu_used = calloc(b->n_cpus, sizeof(*b->cpu_used));
	r = b->cg && b->c_kind && b->c_cg && b->cpu_used ? 0 : -ENOMEM;
	if (r == 0)
		r = classify(s, b, reterr);
	if (r == 0) {
		b->counter_fd = malloc((b->n_kinds * b->n_cpus + 1) * sizeof(*b->counter_fd));
		r = b->counter_fd ? 0 : -ENOMEM;
		for (size_t i = 0; r == 0 && i < b->n_kinds * b->n_cpus; i++)
			b->counter_fd[i] = -1;
	}
	/* libbpf prints through one function per process: ours while this opens (the
	 * library never prints), the embedder's again after */
	old_print = libbpf_set_print(libbpf_quiet);
	if (r == 0)
		r = load(s, b, reterr);
	if (r == 0)
		r = fill_cgroups(s, b, reterr);
	if (r == 0)
		r = open_counters(s, b, reterr);
	if (r == 0)
		r = attach(b, reterr);
	if (r == 0) {
		/* the reading program must run on a chosen CPU (Linux 5.10), or a read would
		 * miss the share of each cgroup running at the time */
		for (size_t cpu = 0; cpu < b->n_cpus && r == 0; cpu++)
			if (b->cpu_used[cpu]) {
				r = run_on(b, cpu);
				if (r < 0)
					pm_diag_set(reterr,
						    "count without --bpf-counters, or on Linux 5.10 "
						    "or later",
						    "the kernel cannot run --bpf-counters' reading "
						    "program on CPU %zu (BPF_PROG_TEST_RUN of a raw "
						    "tracepoint program): %s",
						    cpu, strerror(-r));
				break;
			}
	}
	libbpf_set_print(old_print);
	if (r < 0) {
		if (r == -ENOMEM && reterr && !reterr->msg[0])
			pm_diag_set(reterr, NULL, "out of memory");
		pm_perf_bpf__free(s, b);
		return r;
	}
	r = index_keys(s, b);
	if (r < 0) {
		pm_diag_set(reterr, NULL, "out of memory");
		pm_perf_bpf__free(s, b);
		return r;
	}
	for (size_t k = 0; k < s->n_c; k++) {
		struct pm_counter *c = &s->c[k];

		if (b->c_kind[k] == SIZE_MAX)
			continue;
		c->open = true;
		c->fd = -1;
		c->leader = k; /* read on its own, from the sums */
	}
	*ret = b;
	return 0;
}

int pm_perf_bpf__switch(struct pm_session *s, struct pm_perf_bpf *b, bool on)
{
	struct cfg cf = { .n_kinds = (__u32)b->n_kinds, .n_cpus = (__u32)b->n_cpus, .on = on };
	__u32 zero = 0;
	int r = sync_cpus(b);

	if (r == 0 && bpf_map_update_elem(b->cfg_fd, &zero, &cf, BPF_ANY) < 0)
		r = -errno;
	if (r < 0)
		pm_session__fail(s, "check dmesg", "--bpf-counters: cannot %s counting: %s",
				 on ? "start" : "stop", strerror(-r));
	return r;
}

/* Every sum into b->all ([key * n_cpus + cpu]): one batched lookup where the kernel has
 * it (5.6+, array maps), else a lookup per key. 0 or -errno (said). */
static int read_sums(struct pm_session *s, struct pm_perf_bpf *b)
{
	size_t n_keys = b->n_cg * b->n_kinds;
	__u32 out = 0, count = (__u32)n_keys;
	int r = 0;

	if (b->batch) {
		LIBBPF_OPTS(bpf_map_batch_opts, o);

		r = bpf_map_lookup_batch(b->acc_fd, NULL, &out, b->keys, b->all, &count, &o);
		r = r < 0 ? -errno : 0;
		if ((r == 0 || r == -ENOENT) && count == n_keys) {
			bool in_order = true; /* an array's keys come in order: sum i at i */

			for (size_t i = 0; i < n_keys && in_order; i++)
				in_order = b->keys[i] == i;
			if (in_order)
				return 0;
			r = -EINVAL;
		}
		if (r != -EINVAL && r != -ENOTSUP && r != -EOPNOTSUPP && r != -ENOENT) {
			pm_session__fail(s, "check dmesg",
					 "--bpf-counters: cannot read the cgroups' sums: %s",
					 strerror(-r));
			return r;
		}
		b->batch = false; /* a kernel without it: a key at a time from now on */
	}
	for (size_t key = 0; key < n_keys; key++) {
		__u32 k32 = (__u32)key;

		if (b->key_at[key] == b->key_at[key + 1])
			continue; /* an event the kernel refused */
		if (bpf_map_lookup_elem(b->acc_fd, &k32, &b->all[key * b->n_cpus]) < 0) {
			r = -errno;
			pm_session__fail(s, "check dmesg",
					 "--bpf-counters: cannot read the sums of cgroup '%s': %s",
					 b->cg[key / b->n_kinds], strerror(-r));
			return r;
		}
	}
	return 0;
}

int pm_perf_bpf__read(struct pm_session *s, struct pm_perf_bpf *b, bool publish)
{
	int r = sync_cpus(b);

	if (r < 0) {
		pm_session__fail(s, "check dmesg",
				 "--bpf-counters: cannot run the reading program: %s",
				 strerror(-r));
		return r;
	}
	r = read_sums(s, b);
	if (r < 0)
		return r;
	for (size_t key = 0; key < b->n_cg * b->n_kinds; key++) {
		for (size_t i = b->key_at[key]; i < b->key_at[key + 1]; i++) {
			struct pm_counter *c = &s->c[b->by_key[i]];
			const struct bpf_perf_event_value *v =
				&b->all[key * b->n_cpus + (size_t)c->cpu];

			c->last_good = (struct pm_reading){ v->counter, v->enabled, v->running };
			if (publish)
				c->cur = c->last_good;
		}
	}
	return 0;
}

#endif
