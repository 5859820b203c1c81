#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Benchmark: the cost per cgroup of counting in cgroup mode, the plain path of
--attribute-cgroups and --attribute-pods (docs/attribution.md), against perf stat's
--for-each-cgroup in the same run. Needs root and a cgroup2 mount.

The proxies attribution counts are core hardware events (EPYC's 0x43 and 0x72,
Yitian's LL_CACHE_MISS_RD), which a machine without the platform (this project's VM)
cannot count; what costs per cgroup is the same for any event counted in a cgroup:
one perf event per cgroup per CPU per event, each opened, read every interval and
closed. So this counts EVENTS (software events, two, as EPYC's demand-fill proxies
are two) in N empty cgroups made for the run, for each N:

  fds       the descriptors each tool holds while counting (from /proc/PID/fd), and
            per cgroup (the slope) per CPU per event: the plain path's scale
  cpu       each tool's CPU time (user + sys, from wait4) over INTERVALS intervals of
            MS ms: per interval, and the slope per cgroup per interval between the
            fewest and most cgroups; pmumon/perf as a ratio of the slopes

Empty cgroups: no task switches in or out of them, so the kernel's cost at each
context switch into a counted cgroup (perf_cgroup_switch) is not here: that falls on
the workload, not on the tool.

usage: bench/attrib.py [--build DIR] [--cgroups 1,10,50,100] [--intervals N] [--interval MS]
"""
import argparse
import os
import shutil
import subprocess
import sys
import time

EVENTS = ['cpu-clock', 'page-faults']


def cgroup2_mount():
    with open('/proc/self/mountinfo') as f:
        for line in f:
            pre, _, post = line.partition(' - ')
            if post.startswith('cgroup2 '):
                return pre.split()[4]
    sys.exit('no cgroup2 mount')


def run(cmd, intervals, interval_ms):
    """The tool's descriptors halfway through, its CPU seconds and wall seconds."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(intervals * interval_ms / 2000)
    try:
        fds = len(os.listdir('/proc/%d/fd' % p.pid))
    except FileNotFoundError:
        fds = -1
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    err = p.stderr.read().decode()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit('failed: %s\n%s' % (' '.join(cmd), err))
    return fds, ru.ru_utime + ru.ru_stime, wall


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', default='build')
    ap.add_argument('--cgroups', default='1,10,50,100')
    ap.add_argument('--intervals', type=int, default=50)
    ap.add_argument('--interval', type=int, default=100)
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit('needs root (cgroups made, perf events in them)')
    pmumon = os.path.join(a.build, 'cli/pmumon')
    perf = shutil.which('perf')
    mount = cgroup2_mount()
    ncpu = os.cpu_count()
    counts = [int(x) for x in a.cgroups.split(',')]
    names = ['pmumon-bench/cg%d' % i for i in range(max(counts))]
    os.makedirs(os.path.join(mount, 'pmumon-bench'), exist_ok=True)
    for n in names:
        os.makedirs(os.path.join(mount, n), exist_ok=True)
    ev = ','.join(EVENTS)
    common = ['-a', '-x,', '-I', str(a.interval), '--interval-count', str(a.intervals), '-e', ev]
    results = {}
    try:
        print('%d CPUs, %d events, %d intervals of %d ms; cgroups under %s/pmumon-bench'
              % (ncpu, len(EVENTS), a.intervals, a.interval, mount))
        for n in counts:
            cg = ','.join(names[:n])
            tools = {'pmumon': [pmumon, 'stat'] + common + ['--for-each-cgroup', cg,
                                                             '-o', '/dev/null']}
            if perf:
                tools['perf'] = [perf, 'stat'] + common + ['--for-each-cgroup', cg,
                                                           '-o', '/dev/null']
            for tool, cmd in tools.items():  # alternately, so that the load falls alike
                fds, cpu, wall = run(cmd, a.intervals, a.interval)
                results[(tool, n)] = (fds, cpu)
                print('%-6s %4d cgroups: %6d fds, %.3f s CPU, %.3f ms per interval, %.1f s wall'
                      % (tool, n, fds, cpu, cpu * 1e3 / a.intervals, wall))
        lo, hi = min(counts), max(counts)
        slopes = {}
        for tool in ('pmumon', 'perf'):
            if (tool, lo) in results and (tool, hi) in results and hi > lo:
                d = results[(tool, hi)][1] - results[(tool, lo)][1]
                fds = (results[(tool, hi)][0] - results[(tool, lo)][0]) / (hi - lo)
                slopes[tool] = d / (hi - lo) / a.intervals
                print('%-6s per cgroup: %.2f fds (%.2f per CPU per event); per interval '
                      '%.1f us CPU (%d to %d cgroups), %.2f us per CPU per event'
                      % (tool, fds, fds / ncpu / len(EVENTS), slopes[tool] * 1e6, lo, hi,
                         slopes[tool] * 1e6 / ncpu / len(EVENTS)))
        if slopes.get('perf', 0) > 0 and 'pmumon' in slopes:
            print('pmumon / perf per cgroup: %.2f' % (slopes['pmumon'] / slopes['perf']))
    finally:
        for n in reversed(names):
            os.rmdir(os.path.join(mount, n))
        os.rmdir(os.path.join(mount, 'pmumon-bench'))


if __name__ == '__main__':
    main()
