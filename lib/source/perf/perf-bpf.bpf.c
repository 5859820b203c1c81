// SPDX-License-Identifier: GPL-2.0-only
/*
 * Counts per cgroup from counters opened once per CPU (source/perf/perf-bpf.c,
 * docs/attribution.md): the design of Linux perf's bperf_cgroup.bpf.c
 * (tools/perf/util/bpf_skel/, 5.15+), our own code, cgroup v2 only.
 *
 * on_switch runs on every context switch of a CPU (the sched_switch raw
 * tracepoint, run by __schedule while the outgoing task is current, before
 * the kernel counts the switch itself), and by the reader on each CPU
 * (BPF_PROG_TEST_RUN, BPF_F_TEST_RUN_ON_CPU) so that the cgroup running
 * there now gets its share before the accumulators are read: each kind's
 * counter on this CPU is read (bpf_perf_event_read_value), and what it
 * counted since this CPU's last run goes to the current task's cgroup and
 * each of its ancestors that is listed. perf's design runs it on the
 * cgroup-switches event instead (fewer runs), but on this project's 6.18
 * VM the kernel skipped that perf_event program on every switch out of one
 * CPU's idle task (bpf_overflow_handler returns without running it while
 * bpf_prog_active is held on the CPU: the likely guard, not proven), whose
 * time and counts then went to the next cgroup switched out there
 * (docs/attribution.md).
 *
 * Maps: counters[kind * n_cpus + cpu] the perf events; cgroup_index a
 * listed cgroup's id -> its index; last[kind] per CPU what the counter read
 * at the last run; acc[cgroup * n_kinds + kind] per CPU the sums; cfg[0]
 * n_kinds, n_cpus and whether counting is on (the reader syncs every CPU
 * before it turns it on, so the first delta starts there).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define MAX_KINDS 32  /* counters per CPU (source/perf/perf-bpf.c refuses more) */
#define MAX_LEVELS 16 /* cgroup levels looked at: the root is 0 (refused deeper) */
#define NONE 0xffffffffu

struct cfg {
	__u32 n_kinds;
	__u32 n_cpus;
	__u32 on;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(int));
	__uint(max_entries, 1); /* set before load */
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(key_size, sizeof(__u64));
	__uint(value_size, sizeof(__u32));
	__uint(max_entries, 1);
} cgroup_index SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct bpf_perf_event_value));
	__uint(max_entries, 1);
} last SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct bpf_perf_event_value));
	__uint(max_entries, 1);
} acc SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct cfg));
	__uint(max_entries, 1);
} cfg SEC(".maps");

static __always_inline int account(void)
{
	__u32 key = 0, cpu = bpf_get_smp_processor_id(), idx[MAX_LEVELS];
	struct bpf_perf_event_value now, *prev, *sum;
	struct cfg *c = bpf_map_lookup_elem(&cfg, &key);

	if (!c)
		return 0;
	/* the listed cgroups among the current task's and its ancestors, by level (NONE:
	 * not listed); a slot per level, not a count, keeps the verifier's paths few */
	for (int level = 0; level < MAX_LEVELS; level++)
		idx[level] = NONE;
	for (int level = 0; level < MAX_LEVELS; level++) {
		__u64 id = bpf_get_current_ancestor_cgroup_id(level);
		__u32 *i;

		if (!id)
			break;
		i = bpf_map_lookup_elem(&cgroup_index, &id);
		if (i)
			idx[level] = *i;
	}
	for (__u32 k = 0; k < MAX_KINDS && k < c->n_kinds; k++) {
		__u64 dc, de, dr;

		key = k;
		prev = bpf_map_lookup_elem(&last, &key);
		if (!prev)
			continue;
		if (bpf_perf_event_read_value(&counters, k * c->n_cpus + cpu, &now, sizeof(now)))
			continue;
		dc = now.counter - prev->counter;
		de = now.enabled - prev->enabled;
		dr = now.running - prev->running;
		*prev = now;
		if (!c->on)
			continue;
		for (int level = 0; level < MAX_LEVELS; level++) {
			if (idx[level] == NONE)
				continue;
			key = idx[level] * c->n_kinds + k;
			sum = bpf_map_lookup_elem(&acc, &key);
			if (!sum)
				continue;
			sum->counter += dc;
			sum->enabled += de;
			sum->running += dr;
		}
	}
	return 0;
}

SEC("raw_tp")
int on_switch(void *ctx)
{
	return account();
}

char LICENSE[] SEC("license") = "GPL";
