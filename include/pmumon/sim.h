/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libpmumon-sim: pmumon's simulated machines, for programs that embed
 * libpmumon and want to run without the hardware (tests, demos, CI). A
 * simulation implements the os seam (pmumon/os.h): hand pm_sim__ops() and
 * the simulation to pm_ctx_opts, and discovery, counting and metrics run
 * against a simulated Yitian 710, EPYC Zen 2, BlueField-2/3 or Merrifield as
 * against the real one. Every count comes from a workload scenario, so the
 * true answer is known (pm_sim__truth). docs/simulator.md has the platforms,
 * their options and the scenario format.
 *
 *	struct pm_sim *sim;
 *	char err[256];
 *	pm_sim__new_platform("yitian710", &sim, err, sizeof(err));
 *	struct pm_ctx_opts o = { .size = sizeof(o), .os_ops = pm_sim__ops(),
 *				 .os = sim, .simulated = true };
 *	pm_ctx__new(&o, &ctx);	// the context owns sim from here on
 *
 * The clock is virtual unless the spec says clock=real: it moves only when
 * pmumon waits (pm_os_ops.wait) or pm_sim__advance is called, so a 60 s run
 * takes milliseconds. A simulation is used by one thread at a time, like the
 * context that owns it. Link: pkg-config --cflags --libs libpmumon-sim.
 */
#ifndef PMUMON_SIM_H
#define PMUMON_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmumon/os.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pm_sim;

/*
 * A whole simulated machine from a spec "PLATFORM[:KEY=VALUE,...]":
 * platforms yitian710, amdzen2, bluefield2, bluefield3, merrifield; keys
 * clock=virtual|real, scenario=FILE, seed=N, and the platform's own
 * (sockets=, channels=, msr=, user=). On failure err says why.
 */
PM_API int pm_sim__new_platform(const char *spec, struct pm_sim **ret, char *err, size_t errsz);
/* The platforms, for help texts: name and one-line summary; NULL past the end. */
PM_API const char *pm_sim__platform_info(size_t i, const char **ret_summary);
/* Scenario quantity i of a platform, for help and docs; false past the end. */
PM_API bool pm_sim__platform_quantity(const char *platform, size_t i, const char **ret_key,
				      const char **ret_unit, int *ret_instances,
				      double *ret_default, const char **ret_doc);
/*
 * SIMULATION-ONLY: the programming list (docs/sideband.md) the simulated
 * Merrifield needs for each of seed 001's groups, made from the simulator's
 * invented register map (sim/platform/merrifield-map.h) as a user with real
 * hardware would capture one from Intel's tools. It counts nothing on real
 * hardware. *ret_text is the caller's (free()). -ENOENT: the platform has
 * no sideband counters.
 */
PM_API int pm_sim__sideband_program(const char *platform, char **ret_text);
/* Does the simulation follow wall time (clock=real)? */
PM_API bool pm_sim__real_clock(const struct pm_sim *sim);
/* The platform this simulation runs, or NULL for a bare simulator. */
PM_API const char *pm_sim__platform_name(const struct pm_sim *sim);
/*
 * The truth: the integral of scenario quantity key[inst] from the start of
 * the scenario to scenario time t_ns (bytes for a bytes/s rate). -ENOENT for
 * an unknown key or instance.
 */
PM_API int pm_sim__truth(const struct pm_sim *sim, const char *key, int inst, uint64_t t_ns,
			 double *ret);
/* The integral of key_a[inst_a] * key_b[inst_b] (accesses x hit ratio = hits). */
PM_API int pm_sim__truth2(const struct pm_sim *sim, const char *key_a, int inst_a,
			  const char *key_b, int inst_b, uint64_t t_ns, double *ret);
/* Monotonic simulator time at which the scenario starts. */
PM_API uint64_t pm_sim__scenario_start(const struct pm_sim *sim);
/* The ops to hand to pm_ctx_opts with the sim as os; destroy frees the sim. */
PM_API const struct pm_os_ops *pm_sim__ops(void);
/* Free a simulation no context took over. */
PM_API void pm_sim__free(struct pm_sim *sim);

/* Time: ns since the simulated boot, and moving the virtual clock on. */
PM_API uint64_t pm_sim__now(const struct pm_sim *sim);
PM_API void pm_sim__advance(struct pm_sim *sim, uint64_t ns);

#ifdef __cplusplus
}
#endif
#endif
