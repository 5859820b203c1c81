/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The perf source's BPF path (pm_session_opts.bpf_counters): every event
 * counted in a cgroup is opened once per CPU, not once per cgroup per CPU,
 * and a BPF program on the sched_switch tracepoint adds what it counted to the
 * cgroup that ran (perf-bpf.c, perf-bpf.bpf.c, docs/attribution.md).
 */
#ifndef PM_SOURCE_PERF_BPF_H
#define PM_SOURCE_PERF_BPF_H

#include <stdbool.h>
#include <stddef.h>

struct perf_event_attr;
struct pm_diag;
struct pm_session;
struct pm_perf_bpf;

/* Built with libbpf? If not, *ret_why says why not (a static string). */
bool pm_perf_bpf__built(const char **ret_why);
/*
 * What the BPF path asks of the perf source that opens it (perf.c gives them, so this
 * file calls nothing of perf.c's: the perf source calls it, not the other way round).
 */
struct pm_perf_bpf_ops {
	/* counter k's attr as the perf source opens it on its own (no group) */
	void (*counter_attr)(struct pm_session *s, size_t k, struct perf_event_attr *attr);
	/* the kernel refused counter k's event with err: true when that makes its rows
	 * <not supported> (or leaves a default out), as the plain path does (said at the
	 * log); false when it is an error, said in reterr */
	bool (*refused)(struct pm_session *s, size_t k, int err, struct pm_diag *reterr);
};
/*
 * Open the session's perf counters that count in a cgroup through BPF:
 * each gets open, no fd, and its readings from pm_perf_bpf__read. 0 with
 * *ret (NULL: no such counter), or -errno (said: what refused and the fix).
 */
int pm_perf_bpf__open(struct pm_session *s, const struct pm_perf_bpf_ops *ops,
		      struct pm_perf_bpf **ret, struct pm_diag *reterr);
/* Count from now (on) or stop (every CPU's share taken first): 0 or -errno (said). */
int pm_perf_bpf__switch(struct pm_session *s, struct pm_perf_bpf *b, bool on);
/* Every CPU's running cgroup accounted, then each counter's last_good (and cur when
 * publish) from the accumulators: 0 or -errno (said). */
int pm_perf_bpf__read(struct pm_session *s, struct pm_perf_bpf *b, bool publish);
void pm_perf_bpf__free(struct pm_session *s, struct pm_perf_bpf *b);

#endif
