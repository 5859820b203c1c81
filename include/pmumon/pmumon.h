/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libpmumon: discover the machine's counting hardware, turn event specs into
 * counters, count, and report scaled values with their quality.
 *
 * Conventions: functions that can fail return 0 (or a count) or -errno;
 * out-parameters are named ret_* (reterr_* for diagnostics), come last and
 * are untouched on failure. Objects are opaque; getters return borrowed
 * pointers valid until their owner is freed. The library never prints: it
 * reports through the context's log callback and pm_diag.
 *
 * Options: struct pm_ctx_opts, pm_session_opts, pm_replay_opts and
 * pm_out_opts open with `size_t size`, which the caller sets to the size of
 * the struct it was built with:
 *
 *	struct pm_session_opts o = { .size = sizeof(o), .target = PM_TARGET_SYSTEM };
 *
 * The library reads only the fields within size and gives every field after
 * them its default (zero), so a caller built against an older header keeps
 * working when fields are added. A size of 0 (not set) is -EINVAL; bytes
 * beyond the fields this library knows must be zero (else -E2BIG: an option
 * it cannot honour is refused, not ignored).
 *
 * Threads. The library starts no threads and has no global mutable state, so
 * separate contexts may be used from separate threads freely. One context and
 * everything made from it (PMUs, event lists, sessions, outputs, the reports
 * a session returns) is used by one thread at a time: the caller serialises
 * (e.g. a sampler thread owns them). What crosses threads is a snapshot
 * (pm_session__snapshot): an immutable copy of a report, with its own
 * strings, reference counted with atomics. Any thread may take a reference,
 * read it and drop it, concurrently and after the session, event list and
 * context are gone. A pm_out writes to one FILE from one thread at a time;
 * each reader thread renders with its own pm_out. docs/library.md has more.
 *
 * Linking: pkg-config --cflags --libs pmumon. Only the functions marked
 * PM_API are exported (lib/libpmumon.map, version PMUMON_0).
 */
#ifndef PMUMON_PMUMON_H
#define PMUMON_PMUMON_H

#include "pmumon/os.h"
#include "pmumon/context.h"
#include "pmumon/pmu.h"
#include "pmumon/metric.h"
#include "pmumon/doctor.h"
#include "pmumon/evlist.h"
#include "pmumon/session.h"
#include "pmumon/replay.h"
#include "pmumon/report.h"
#include "pmumon/out.h"

#endif
