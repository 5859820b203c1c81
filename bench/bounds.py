#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Benchmark: the error of multiplexed and rotated values, before and after
(docs/bounds.md), and what the intervals cost.

    bench/bounds.py [--build DIR] [--baseline DIR] [--seconds N] [--seed N]
    bench/bounds.py --cost [--build DIR]
    bench/bounds.py --table [--build DIR]

The first form counts the 8 DRAM channels of a simulated EPYC on 4 DF
counters, through perf (the kernel multiplexes every 4 ms) and through
--source msr (pmumon rotates), on the calibration's rapidly changing
traffic (new levels of 0.15 to 3 times 4 GB/s per channel every 50 to
400 ms, the traffic issue 31 measured), against the same scenario counted
4 channels at a time (exact): the mean and max error per 1 s interval, the
share of intervals more than 10 % off, and, where the build has them, the
intervals' coverage of the truth and median half-width. With --baseline,
another build's pmumon (HEAD 2a2826b's: 100 ms phases, scaling, no
intervals) counts the same in the same run.

--table runs the calibration test (tests/sim/test-bounds.c) and prints its
table of every case, as docs/bounds.md has it.

--cost measures, on this machine, what the intervals add per interval: a
perf read(2) of a counter (the extra reads of a multiplexed one), and an
MSR access through /dev/cpu/0/msr where there is one (the msr source's
rotation), each the median of 5 rounds of 20000.
"""
import argparse
import csv
import ctypes
import io
import os
import random
import statistics
import struct
import subprocess
import sys
import tempfile
import time

DF8 = ['amd_df/event=0x%x,umask=0x38/' % (0x7 + 0x40 * i) for i in range(8)]


def scenario(path, seconds, seed):
    rnd = random.Random(seed)
    with open(path, 'w') as f:
        f.write('dram.write 5e8\n')
        t = 0
        while t < (seconds + 2) * 1000:
            ms = int(rnd.uniform(50, 400))
            t += ms
            f.write('phase p %dms\n' % ms)
            for ch in range(8):
                f.write('  dram.read[%d] %.6g\n' % (ch, 4e9 * rnd.uniform(0.15, 3)))


def count(pmumon, scn, source, events, seconds):
    r = subprocess.run([pmumon, '--sim', 'amdzen2:scenario=' + scn, 'stat', '-a', '-x,',
                        '-I', '1000', '--source', source, '-e', ','.join(events), '--',
                        'sleep', str(seconds)], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit('%s failed: %s' % (pmumon, r.stderr))
    return {(w['time_s'], w['event']): w for w in csv.DictReader(io.StringIO(r.stdout))
            if w['type'] == 'interval'}


def figures(pmumon, scn, source, seconds):
    mux = count(pmumon, scn, source, DF8, seconds)
    truth = count(pmumon, scn, source, DF8[:4], seconds)
    truth.update(count(pmumon, scn, source, DF8[4:], seconds))
    err, covered, half = [], 0, []
    for k, w in mux.items():
        t, v = float(truth[k]['value']), float(w['value'])
        err.append(abs(v - t) / t)
        if w.get('lo') and w.get('hi'):
            lo, hi = float(w['lo']), float(w['hi'])
            covered += lo <= t <= hi
            half.append((hi - lo) / 2 / v)
    out = 'mean %.2f %%, max %.1f %%, %.1f %% of intervals > 10 %% off' % (
        100 * statistics.mean(err), 100 * max(err), 100 * sum(e > 0.1 for e in err) / len(err))
    if half:
        out += '; coverage %.1f %%, median half-width %.2f %%' % (
            100 * covered / len(half), 100 * statistics.median(half))
    return '%d intervals x 8 channels: %s' % (len(err) // 8, out)


# ---- --cost --------------------------------------------------------------------------

PERF_EVENT_OPEN = {'x86_64': 298, 'aarch64': 241}.get(os.uname().machine)


def perf_read_ns(rounds=5, n=20000):
    """A read(2) of a software counter on CPU 0 (perf_event_open as perf stat -a opens it)."""
    libc = ctypes.CDLL(None, use_errno=True)
    # struct perf_event_attr: type, size, config, ..., read_format at offset 32
    attr = bytearray(128)
    struct.pack_into('IIQ', attr, 0, 1, 128, 0)  # PERF_TYPE_SOFTWARE, cpu-clock
    struct.pack_into('Q', attr, 32, 3)  # TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING
    buf = (ctypes.c_char * 128).from_buffer(attr)
    fd = libc.syscall(PERF_EVENT_OPEN, buf, -1, 0, -1, 0)
    if fd < 0:
        return None
    best = []
    for _ in range(rounds):
        t = time.perf_counter_ns()
        for _ in range(n):
            os.read(fd, 24)
        best.append((time.perf_counter_ns() - t) / n)
    os.close(fd)
    return statistics.median(best)


def msr_access_ns(rounds=5, n=20000):
    try:
        fd = os.open('/dev/cpu/0/msr', os.O_RDONLY)
    except OSError:
        return None
    best = []
    for _ in range(rounds):
        t = time.perf_counter_ns()
        for _ in range(n):
            os.pread(fd, 8, 0xe7)  # MPERF
        best.append((time.perf_counter_ns() - t) / n)
    os.close(fd)
    return statistics.median(best)


def cost():
    r = perf_read_ns()
    print('perf read(2) of a software counter, CPU 0: %s' %
          ('%.2f us' % (r / 1000) if r else 'perf_event_open refused here'))
    if r:
        print('  a multiplexed read unit read 10 more times a second: %.1f us of CPU a second'
              % (10 * r / 1000))
    m = msr_access_ns()
    print('an MSR read through /dev/cpu/0/msr: %s' %
          ('%.2f us' % (m / 1000) if m else 'no /dev/cpu/0/msr here (modprobe msr, as root)'))
    if m:
        print('  the msr source rotating one Data Fabric in 25 ms phases (960 accesses a second):'
              ' %.2f ms of CPU a second; in 100 ms phases (240): %.2f ms' %
              (960 * m / 1e6, 240 * m / 1e6))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--build', default='build')
    ap.add_argument('--baseline', help="another build directory whose pmumon counts the same")
    ap.add_argument('--seconds', type=int, default=200)
    ap.add_argument('--seed', type=int, default=31)
    ap.add_argument('--cost', action='store_true')
    ap.add_argument('--table', action='store_true')
    a = ap.parse_args()
    if a.cost:
        cost()
        return
    if a.table:
        env = dict(os.environ, PMUMON_TEST_SYSFS=os.path.join(a.build, 'tests', 'sysfs'))
        r = subprocess.run([os.path.join(a.build, 'tests', 'test-bounds')], env=env,
                           capture_output=True, text=True)
        print(''.join(l + '\n' for l in (r.stdout + r.stderr).splitlines()
                      if l.startswith('|')), end='')
        sys.exit(r.returncode)
    builds = [('this build', os.path.join(a.build, 'cli', 'pmumon'))]
    if a.baseline:
        builds.insert(0, ('baseline', os.path.join(a.baseline, 'cli', 'pmumon')))
    with tempfile.TemporaryDirectory() as d:
        scn = os.path.join(d, 'rapid.scn')
        scenario(scn, a.seconds, a.seed)
        for source in ('perf', 'msr'):
            for name, pmumon in builds:
                print('%-10s --source %-4s %s' % (name, source,
                                                  figures(pmumon, scn, source, a.seconds)))


if __name__ == '__main__':
    main()
