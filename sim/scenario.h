/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Workload scenarios: the truth every simulated counter derives from.
 *
 * A platform declares its quantities (per-channel read bytes/s, L3 hit
 * ratio per CCX, ...); a scenario is a list of phases, each with a duration
 * and values for some quantities. A quantity keeps its value from phase to
 * phase until a phase sets it again; the lines before the first phase set
 * where every quantity starts (after the platform's defaults). The last
 * phase lasts forever unless the scenario says `repeat`. The text format is
 * documented in docs/simulator.md.
 *
 * Everything is deterministic: the optional jitter and the rates of events
 * no quantity describes come from the seed, never from the clock.
 */
#ifndef PM_SIM_SCENARIO_H
#define PM_SIM_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The longest duration, phase cycle or sum of freezes: 1e18 ns, 31 years. */
#define SIM_TIME_MAX 1000000000000000000ull
/* The largest value a quantity takes: 1e15 (1000T) per second, so that a
 * count over SIM_TIME_MAX stays a finite number (the count itself wraps at
 * 64 bits, as a register does). */
#define SIM_VALUE_MAX 1e15
#define SIM_MAX_PHASES 10000
#define SIM_MAX_FAULTS 10000
/* `steal` reaches CPUs 0 to SIM_STEAL_CPUS - 1. */
#define SIM_STEAL_CPUS 64

/* One quantity a platform's workload has. */
struct sim_quantity {
	const char *key;  /* "ddr.read" */
	const char *unit; /* "B/s", "1/s", "ratio", "Hz" */
	int instances;	  /* channels, CCXs, tiles ... (1: one value) */
	double dflt;	  /* built-in default */
	const char *doc;  /* one line for docs and errors */
};

/* A fault the scenario schedules (`at 2.5s vanish ali_drw_21000`). */
struct sim_fault {
	uint64_t t_ns; /* scenario time */
	char what[32];
	char arg[4][128];
	int line;
};

struct sim_scenario;

int sim_scenario__new(const struct sim_quantity *q, size_t n, struct sim_scenario **ret);
void sim_scenario__free(struct sim_scenario *s);
/* Read the scenario text of len bytes (once); a NUL byte in it is an error.
 * On error err says "name:line: what". The faults' words are checked here,
 * what they name on the machine is the platform's to check. */
int sim_scenario__parse(struct sim_scenario *s, const char *text, size_t len, const char *name,
			char *err, size_t errsz);

/* Index of a quantity key, or -1. */
int sim_scenario__find(const struct sim_scenario *s, const char *key);
/* Its integral from scenario time 0 to t, in value-seconds (a rate in
 * bytes/s integrates to bytes). Nondecreasing in t for non-negative values. */
double sim_scenario__integral(const struct sim_scenario *s, int q, int inst, uint64_t t_ns);
/* The integral of value_a * value_b (a rate times a ratio: L3 hits). */
double sim_scenario__integral2(const struct sim_scenario *s, int qa, int ia, int qb, int ib,
			       uint64_t t_ns);

/* Fix the seed before parsing; the text's own `seed` line then yields. */
void sim_scenario__set_seed(struct sim_scenario *s, uint64_t seed);
/* A seeded rate in [lo, hi) for something no quantity describes. */
double sim_scenario__background(const struct sim_scenario *s, uint64_t a, uint64_t b, double lo,
				double hi);
size_t sim_scenario__fault_count(const struct sim_scenario *s);
const struct sim_fault *sim_scenario__fault(const struct sim_scenario *s, size_t i);

/*
 * Cgroups the scenario declares (docs/simulator.md, "cgroups in scenarios"):
 * `cgroup PATH` (a directory under sys/fs/cgroup) or `pod NS/NAME QOS
 * [CONTAINER,...]` (a pod the kubelet hierarchy of --sim kubelet= places),
 * each followed by its traffic in the machine's own keys, which adds to the
 * machine's (sim_scenario__integral includes it). A cgroup exists from
 * t_create (0, or `at T cgroup ...`) to t_remove (`at T remove ...`).
 */
#define SIM_MAX_CGROUPS 1000
#define SIM_MAX_CONTAINERS 8
struct sim_scn_cgroup {
	char path[256]; /* under sys/fs/cgroup; a pod's is set by the platform (kubelet=) */
	bool pod;
	char ns[64], name[128], qos[16]; /* a pod's namespace, name, QoS class */
	char uid[40];			 /* a pod's UID, made from the seed and its name */
	char containers[SIM_MAX_CONTAINERS][64];
	char container_id[SIM_MAX_CONTAINERS][65];
	int n_containers;
	char cpus[256];		     /* the CPUs its tasks run on ("" : every CPU) */
	uint64_t t_create, t_remove; /* scenario times; UINT64_MAX: never removed */
	int line;
};
size_t sim_scenario__cgroup_count(const struct sim_scenario *s);
/* Cgroup i (NULL past the end); mutable for the platform to place a pod. */
struct sim_scn_cgroup *sim_scenario__cgroup(struct sim_scenario *s, size_t i);
/*
 * The integral of cgroup c's quantity q[inst] from 0 to t while it exists;
 * with proxy, times its proxy factor (1 + proxy.error x u per phase, u in
 * [-1, 1) a hash of the seed, the phase and the cgroup): what its proxy
 * events see.
 */
double sim_scenario__cgroup_integral(const struct sim_scenario *s, size_t c, int q, int inst,
				     uint64_t t_ns, bool proxy);

/* The errno a fault names ("EIO"), or 0 for none of the known ones. */
int sim_fault_errno(const char *name);
/* A duration such as "500ms", "2s", "1.5m", "1h" (a bare number is seconds). */
int sim_parse_duration(const char *s, uint64_t *ret_ns);
/* A value such as "2.5G", "300M", "80%", "1e9": -EINVAL if it is none,
 * -ERANGE above SIM_VALUE_MAX. */
int sim_parse_value(const char *s, double *ret);

#endif
