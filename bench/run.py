#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Benchmark: CPU time per interval and peak RSS of

    pmumon stat -a -I 10 --interval-count N -e E...
    perf stat   -a -I 10 --interval-count N -e E...
    bench/floor (opens the same counters and only reads them, same loop)
    bench/floor -g (the same, each CPU's events read as one group)

on the same events (msr/tsc/ and software events, every CPU), output to
/dev/null, the median of RUNS runs of each, measured in this one run.

usage: bench/run.py [--build DIR] [--seconds S] [--runs N] [--interval MS]
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys

EVENTS = ['msr/tsc/', 'cpu-clock', 'page-faults', 'context-switches', 'cpu-migrations']
# perf's generic software configs (include/uapi/linux/perf_event.h), for the floor
FLOOR_EVENTS = ['1:0', '1:2', '1:3', '1:4']


def sysfs_type(pmu):
    with open('/sys/bus/event_source/devices/%s/type' % pmu) as f:
        return int(f.read())


def measure(launcher, cmd):
    """CPU seconds (user+sys) and peak RSS (KiB) of one run of cmd, via bench/measure."""
    r = subprocess.run([launcher] + cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit('failed (%d): %s' % (r.returncode, ' '.join(cmd)))
    user, system, rss = r.stdout.split()
    return float(user) + float(system), int(rss)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--build', default='build')
    ap.add_argument('--seconds', type=float, default=5.0)
    ap.add_argument('--runs', type=int, default=5)
    ap.add_argument('--interval', type=int, default=10)
    a = ap.parse_args()
    pmumon = os.path.join(a.build, 'cli', 'pmumon')
    floor = os.path.join(a.build, 'bench', 'floor')
    launcher = os.path.join(a.build, 'bench', 'measure')
    perf = shutil.which('perf')
    if not perf:
        sys.exit('perf is not installed (apt-get install linux-perf)')
    ms = int(a.seconds * 1000)
    intervals = ms // a.interval
    evargs = sum((['-e', e] for e in EVENTS), [])
    # perf 6.1 refuses --timeout with -I; both stop after the same count of intervals
    iv = ['-a', '-I', str(a.interval), '--interval-count', str(intervals)]
    cmds = {
        'pmumon': [pmumon, 'stat'] + iv + evargs,
        'perf': [perf, 'stat'] + iv + evargs,
        'floor': [floor, str(a.interval), str(ms), '%d:0' % sysfs_type('msr')] + FLOOR_EVENTS,
        'floor-g': [floor, '-g', str(a.interval), str(ms), '%d:0' % sysfs_type('msr')] +
        FLOOR_EVENTS,
    }
    results = {k: [] for k in cmds}
    for _ in range(a.runs):
        for name, cmd in cmds.items():     # interleaved, so drift hits all alike
            results[name].append(measure(launcher, cmd))
    med = {k: (statistics.median(c for c, _ in v), statistics.median(r for _, r in v))
           for k, v in results.items()}
    per = {k: 1e6 * v[0] / intervals for k, v in med.items()}
    print('%d CPUs, events %s, -I %d ms for %.1f s (%d intervals), median of %d runs\n' %
          (os.cpu_count(), ' '.join(EVENTS), a.interval, a.seconds, intervals, a.runs))
    print('%-8s %14s %14s' % ('tool', 'CPU us/interval', 'peak RSS KiB'))
    for k in ('pmumon', 'perf', 'floor', 'floor-g'):
        print('%-8s %14.1f %14d' % (k, per[k], med[k][1]))
    print('(floor-g: the floor with each CPU\'s events read as one group, as pmumon does)')
    print('\npmumon / perf CPU per interval: %.2fx (target <= 0.5x)' % (per['pmumon'] / per['perf']))
    print('pmumon / floor CPU per interval: %.2fx (target <= 3x)' % (per['pmumon'] / per['floor']))
    print('pmumon / perf peak RSS:          %.2fx (target <= 0.33x)' % (med['pmumon'][1] / med['perf'][1]))

    formats(a, pmumon, launcher)


# simulated machines with many rows, on their virtual clock (each run is pure CPU): the
# output formats' cost per row against the table's (issue 19: -x, and -j within 1.5x)
FORMAT_CASES = [
    ('yitian710 per device + DDR metrics (80 rows)',
     ['--sim', 'yitian710', 'stat', '-a', '--per-device', '-M',
      'ddr_read_bandwidth.all,ddr_write_bandwidth.all']),
    ('amdzen2 2 sockets -A, DF and L3 (many rows)',
     ['--sim', 'amdzen2:sockets=2', 'stat', '-a', '-A', '-e', 'amd_l3/l3_accesses/',
      '-e', 'amd_l3/l3_misses/']),
]


def formats(a, pmumon, launcher):
    n = 2000
    print('\noutput formats on simulated machines (virtual clock), %d intervals at -I 10, '
          'median of %d runs: CPU us per interval, and against the table' % (n, a.runs))
    for name, args in FORMAT_CASES:
        base = [pmumon] + args + ['-I', '10', '--interval-count', str(n), '-o', '/dev/null']
        runs = {'table': [], '-x,': [], '-j': []}
        for _ in range(a.runs):
            for fmt in runs:
                runs[fmt].append(measure(launcher, base + ([] if fmt == 'table' else [fmt]))[0])
        per = {f: 1e6 * statistics.median(v) / n for f, v in runs.items()}
        print('  %s: table %.1f, -x, %.1f (%.2fx), -j %.1f (%.2fx)'
              % (name, per['table'], per['-x,'], per['-x,'] / per['table'], per['-j'],
                 per['-j'] / per['table']))


if __name__ == '__main__':
    main()
