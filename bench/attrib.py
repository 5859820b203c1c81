#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Benchmark: the cost per cgroup of counting in cgroup mode, the plain path of
--attribute-cgroups and --attribute-pods (docs/attribution.md), and of the BPF path
(--bpf-counters: each event once per CPU, summed per cgroup by a program on
cgroup-switches), against perf stat's --for-each-cgroup in the same run (Debian 12's
perf 6.1 is built without its --bpf-counters). Needs root and a cgroup2 mount.

The proxies attribution counts are core hardware events (EPYC's 0x43 and 0x72,
Yitian's LL_CACHE_MISS_RD), which a machine without the platform (this project's VM)
cannot count; what costs per cgroup is the same for any event counted in a cgroup:
one perf event per cgroup per CPU per event, each opened, read every interval and
closed. So this counts EVENTS (software events, two, as EPYC's demand-fill proxies
are two) in N empty cgroups made for the run, for each N:

  fds       the descriptors each tool holds while counting (from /proc/PID/fd), and
            per cgroup (the slope) per CPU per event: the plain path's scale
  cpu       each tool's CPU time (user + sys, from wait4; the median of --repeat runs,
            the tools alternately), counted over K1 and over K2
            intervals of MS ms for the fewest and the most cgroups: its cost per
            interval (the difference over K2 - K1 intervals) and its cost to open and
            close (the rest), each per cgroup (the slope between the fewest and most
            cgroups); pmumon/perf as ratios of the slopes

Empty cgroups: no task switches in or out of them, so the kernel's cost at each
context switch into a counted cgroup (perf_cgroup_switch; the BPF path's program on
every cgroup switch) is not here: that falls on the workload, not on the tool.
pmumon-bpf is left out when this pmumon has no BPF path (said).

  switch    what the workload pays at each cgroup switch (--switches N, R runs): two
            processes pinned to CPU 0, each in a cgroup of its own, pass a byte back
            and forth N times (2N cgroup switches), their CPU time (user + sys, from
            getrusage) uncounted, counted by the plain path and by the BPF path (the
            same two cgroups and EVENTS), the three alternately; the medians' excess
            over the uncounted run per switch

usage: bench/attrib.py [--build DIR] [--cgroups 1,200] [--intervals K1,K2] [--interval MS]
                       [--repeat R] [--switches N] [--runs R]
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


# two processes on CPU 0 in cgroups A and B pass a byte N times: their CPU seconds
PINGPONG = r'''
import os, sys, resource
mnt, a, b, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
r1, w1 = os.pipe()
r2, w2 = os.pipe()
os.sched_setaffinity(0, {0})
pid = os.fork()
if pid == 0:
    open(os.path.join(mnt, b, 'cgroup.procs'), 'w').write(str(os.getpid()))
    os.write(w2, b'r')
    for _ in range(n):
        os.read(r1, 1)
        os.write(w2, b'x')
    os._exit(0)
open(os.path.join(mnt, a, 'cgroup.procs'), 'w').write(str(os.getpid()))
os.read(r2, 1)
ru0 = resource.getrusage(resource.RUSAGE_SELF)
for _ in range(n):
    os.write(w1, b'x')
    os.read(r2, 1)
ru1 = resource.getrusage(resource.RUSAGE_SELF)
os.waitpid(pid, 0)
ruc = resource.getrusage(resource.RUSAGE_CHILDREN)
print(ru1.ru_utime + ru1.ru_stime - ru0.ru_utime - ru0.ru_stime + ruc.ru_utime + ruc.ru_stime)
'''


def switch_cost(pmumon, mount, cgs, n, runs, bpf):
    """The workload's CPU per cgroup switch: uncounted, plain, BPF (medians of runs)."""
    work = [sys.executable, '-c', PINGPONG, mount, cgs[0], cgs[1], str(n)]
    count = [pmumon, 'stat', '-a', '-x,', '-e', ','.join(EVENTS), '--for-each-cgroup',
             ','.join(cgs), '-o', '/dev/null', '--']
    ways = {'uncounted': work, 'plain': count + work}
    if bpf:
        ways['bpf'] = count[:-1] + ['--bpf-counters', '--'] + work
    got = {w: [] for w in ways}
    for _ in range(runs):
        for w, cmd in ways.items():
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit('failed: %s\n%s' % (' '.join(cmd), r.stderr))
            got[w].append(float(r.stdout.split()[-1]))
    med = {w: sorted(v)[len(v) // 2] for w, v in got.items()}
    print('%d cgroup switches on CPU 0, %d runs each, the workload\'s CPU seconds:' %
          (2 * n, runs))
    for w, v in got.items():
        print('  %-9s %s  median %.3f s%s' % (
            w, ' '.join('%.3f' % x for x in v), med[w],
            '' if w == 'uncounted' else ', %+.2f us per switch' %
            ((med[w] - med['uncounted']) / (2 * n) * 1e6)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', default='build')
    ap.add_argument('--cgroups', default='1,200')
    ap.add_argument('--intervals', default='10,60')
    ap.add_argument('--interval', type=int, default=100)
    ap.add_argument('--repeat', type=int, default=3)
    ap.add_argument('--switches', type=int, default=20000)
    ap.add_argument('--runs', type=int, default=7)
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit('needs root (cgroups made, perf events in them)')
    pmumon = os.path.join(a.build, 'cli/pmumon')
    perf = shutil.which('perf')
    mount = cgroup2_mount()
    ncpu = os.cpu_count()
    lo, hi = [int(x) for x in a.cgroups.split(',')]
    k1, k2 = [int(x) for x in a.intervals.split(',')]
    names = ['pmumon-bench/cg%d' % i for i in range(hi)]
    os.makedirs(os.path.join(mount, 'pmumon-bench'), exist_ok=True)
    for n in names:
        os.makedirs(os.path.join(mount, n), exist_ok=True)
    ev = ','.join(EVENTS)
    res = {}
    probe = subprocess.run([pmumon, 'stat', '-a', '-e', EVENTS[0], '--for-each-cgroup',
                            names[0], '--bpf-counters', '-o', '/dev/null', '--', 'true'],
                           capture_output=True, text=True)
    bpf = probe.returncode == 0
    if not bpf:
        print('pmumon-bpf left out: ' + probe.stderr.strip().replace('\n', ' '))
    try:
        print('%d CPUs, %d events, %d and %d intervals of %d ms, %d and %d cgroups under '
              '%s/pmumon-bench' % (ncpu, len(EVENTS), k1, k2, a.interval, lo, hi, mount))
        for k in (k1, k2):
            for n in (lo, hi):
                common = ['-a', '-x,', '-I', str(a.interval), '--interval-count', str(k),
                          '-e', ev, '--for-each-cgroup', ','.join(names[:n]), '-o',
                          '/dev/null']
                tools = {'pmumon': [pmumon, 'stat'] + common}
                if bpf:
                    tools['pmumon-bpf'] = [pmumon, 'stat'] + common + ['--bpf-counters']
                if perf:
                    tools['perf'] = [perf, 'stat'] + common
                got = {tool: [] for tool in tools}
                for _ in range(a.repeat):
                    for tool, cmd in tools.items():  # alternately: the load falls alike
                        got[tool].append(run(cmd, k, a.interval))
                for tool, v in got.items():  # the median CPU of the repeats
                    fds, cpu, wall = sorted(v, key=lambda x: x[1])[len(v) // 2]
                    res[(tool, n, k)] = (max(x[0] for x in v), cpu)
                    print('%-10s %4d cgroups, %3d intervals: %6d fds, %.3f s CPU (median of '
                          '%s), %.1f s wall' % (tool, n, k, res[(tool, n, k)][0], cpu,
                                                 ' '.join('%.3f' % x[1] for x in v), wall))
        per_iv, setup = {}, {}
        for tool in ('pmumon', 'pmumon-bpf', 'perf'):
            if (tool, hi, k2) not in res:
                continue
            iv = {n: (res[(tool, n, k2)][1] - res[(tool, n, k1)][1]) / (k2 - k1)
                  for n in (lo, hi)}
            su = {n: res[(tool, n, k1)][1] - k1 * iv[n] for n in (lo, hi)}
            fds = (res[(tool, hi, k2)][0] - res[(tool, lo, k2)][0]) / (hi - lo)
            per_iv[tool] = (iv[hi] - iv[lo]) / (hi - lo)
            setup[tool] = (su[hi] - su[lo]) / (hi - lo)
            print('%-10s per cgroup: %.2f fds (%.2f per CPU per event); %.2f us CPU per '
                  'interval (%.2f per CPU per event); %.0f us to open and close'
                  % (tool, fds, fds / ncpu / len(EVENTS), per_iv[tool] * 1e6,
                     per_iv[tool] * 1e6 / ncpu / len(EVENTS), setup[tool] * 1e6))
        for tool in ('pmumon', 'pmumon-bpf'):
            if tool in per_iv and 'perf' in per_iv and per_iv['perf'] > 0 and setup['perf'] > 0:
                print('%s / perf per cgroup: %.2f per interval, %.2f to open and close'
                      % (tool, per_iv[tool] / per_iv['perf'], setup[tool] / setup['perf']))
        switch_cost(pmumon, mount, names[:2], a.switches, a.runs, bpf)
    finally:
        for n in reversed(names):
            os.rmdir(os.path.join(mount, n))
        os.rmdir(os.path.join(mount, 'pmumon-bench'))


if __name__ == '__main__':
    main()
