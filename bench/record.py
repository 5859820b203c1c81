#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Benchmark pmumon record and report (issues 16 and 29), in one run, as figures and ratios:

  overhead  CPU per interval of pmumon record into SQLite against pmumon stat -x, and perf
            stat -x, writing a file, the same events (software events on every CPU) at
            the same interval (-I 10 by default): each command run for SHORT and LONG
            intervals, the difference of their CPU time (user + sys, getrusage) over the
            difference of intervals, so start-up is left out; RUNS times, the median; and
            the ratios record/stat and record/perf (target: record <= 1.25 x stat)
  instr     instructions per interval of record and stat -x, on a simulated Yitian 710 at
            the same interval (callgrind, a 20- and a 60-interval run: the program's own,
            whatever else runs on the machine)
  bytes     the recording's bytes per interval and per value
  day       a day of 1 s intervals of a simulated Yitian 710 recorded as record does by
            default (the screen's 3 DDR metrics and their events per device: 96 series),
            then report over it, RUNS times each, median CPU and wall seconds (target:
            < 0.5 s for 16 series): the machine's total of ddr_read_bandwidth.all (16
            series of hif_rd read, the metric computed again), the 16 hif_rd series as
            kept, per channel with a threshold; and sqlite3 reading every value of the run
            once, the floor

usage: bench/record.py [--build DIR] [--seconds S] [--interval MS] [--runs N] [--skip-day]
"""
import argparse
import os
import re
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

EVENTS = ['cpu-clock', 'page-faults', 'context-switches', 'cpu-migrations']


def cpu_of(cmd):
    """CPU seconds (user + sys) of cmd, and its wall time: from getrusage, whose sum is
    the scheduler's run time to the microsecond (times() counts 10 ms ticks)."""
    t0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    w0 = time.monotonic()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    w1 = time.monotonic()
    t1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.exit('failed (%d): %s\n%s' % (r.returncode, ' '.join(cmd), r.stderr))
    return (t1.ru_utime - t0.ru_utime) + (t1.ru_stime - t0.ru_stime), w1 - w0


def overhead(build, seconds, interval_ms, runs, tmp):
    pmumon = os.path.join(build, 'cli/pmumon')
    long_n = int(seconds * 1000 / interval_ms)
    short_n = max(1, long_n // 6)
    ev = []
    for e in EVENTS:
        ev += ['-e', e]
    db = os.path.join(tmp, 'run.db')

    def cmds(n):
        c = {
            'pmumon record': [pmumon, 'record', '-a', '-I', str(interval_ms),
                              '--interval-count', str(n), '-o', db, '--overwrite'] + ev,
            'pmumon stat -x,': [pmumon, 'stat', '-a', '-x,', '-I', str(interval_ms),
                                '--interval-count', str(n), '-o',
                                os.path.join(tmp, 'stat.csv')] + ev,
        }
        if shutil.which('perf'):
            c['perf stat -x,'] = ['perf', 'stat', '-a', '-x,', '-I', str(interval_ms),
                                  '--interval-count', str(n), '-o',
                                  os.path.join(tmp, 'perf.csv')] + ev
        return c
    per = {}
    for _ in range(runs):
        # the commands in turn, so what else runs on the machine weighs on each alike
        for name in cmds(1):
            a, _ = cpu_of(cmds(short_n)[name])
            b, _ = cpu_of(cmds(long_n)[name])
            per.setdefault(name, []).append((b - a) / (long_n - short_n))
    used = {}
    for name, v in per.items():
        used[name] = statistics.median(v)
        print('overhead: %-16s %.3f ms CPU per interval of %d ms (median of %d; %s)'
              % (name, used[name] * 1e3, interval_ms, runs,
                 ', '.join('%.3f' % (x * 1e3) for x in v)))
    for peer in ('pmumon stat -x,', 'perf stat -x,'):
        if peer in used and used[peer] > 0:
            print('overhead: pmumon record / %s = %.2f' % (peer, used['pmumon record'] /
                                                           used[peer]))
    size = sum(os.path.getsize(p) for p in (db, db + '-wal') if os.path.exists(p))
    with sqlite3.connect(db) as c:
        n = c.execute('SELECT sum(n) FROM sample').fetchone()[0]
        series = c.execute('SELECT count(*) FROM series').fetchone()[0]
    print('bytes: %d bytes for %d intervals of %d series: %.0f bytes per interval, %.1f per '
          'value' % (size, n, series, size / n, size / (n * series)))


def instructions(build, interval_ms, tmp):
    if not shutil.which('valgrind'):
        print('instr: valgrind not installed: left out')
        return
    pmumon = os.path.join(build, 'cli/pmumon')
    args = ['-I', str(interval_ms), '-e', 'ali_drw/hif_rd/', '-M', 'ddr_read_bandwidth.all']
    db = os.path.join(tmp, 'instr.db')

    def count(cmd, n):
        if os.path.exists(db):
            os.unlink(db)
        r = subprocess.run(['valgrind', '--tool=callgrind', '--callgrind-out-file=/dev/null',
                            pmumon, '--sim', 'yitian710'] + cmd + args +
                           ['--interval-count', str(n)], capture_output=True, text=True)
        return int(re.search(r'Collected : (\d+)', r.stderr).group(1))
    got = {}
    for name, cmd in (('record', ['record', '-o', db]),
                      ('stat -x,', ['stat', '-a', '-x,', '-o', '/dev/null', '--per-device'])):
        got[name] = (count(cmd, 60) - count(cmd, 20)) / 40
        print('instr: %-9s %9.0f instructions per interval of %d ms (simulated Yitian 710, '
              '16 PMUs, hif_rd and ddr_read_bandwidth.all)' % (name, got[name], interval_ms))
    print('instr: record / stat -x, = %.2f' % (got['record'] / got['stat -x,']))


def day(build, runs, tmp):
    pmumon = os.path.join(build, 'cli/pmumon')
    db = os.path.join(tmp, 'day.db')
    cpu, wall = cpu_of([pmumon, '--sim', 'yitian710', 'record', '-o', db, '-I', '1000',
                        '--interval-count', '86400'])
    with sqlite3.connect(db) as c:
        series = c.execute('SELECT count(*) FROM series').fetchone()[0]
        rows = c.execute('SELECT count(*) FROM value').fetchone()[0]
    print('day: 86,400 intervals of 1 s of %d series recorded (simulated clock) in %.1f s '
          'CPU, %.1f s wall: %.1f MB, %d value rows' % (series, cpu, wall,
                                                        os.path.getsize(db) / 1e6, rows))
    cases = (
        ('report -M ddr_read_bandwidth.all (16 series, the total computed)',
         [pmumon, 'report', db, '-M', 'ddr_read_bandwidth.all']),
        ('report --per-device -e ali_drw/hif_rd/ (16 series as kept)',
         [pmumon, 'report', db, '--per-device', '-e', 'ali_drw/hif_rd/']),
        ('report --per-channel -M ddr_read_bandwidth.all --above 3GB/s',
         [pmumon, 'report', db, '--per-channel', '-M', 'ddr_read_bandwidth.all',
          '--above', '3GB/s']),
    )
    if shutil.which('sqlite3'):
        cases += (('sqlite3: every value row of the run, read once',
                   ['sqlite3', db, 'SELECT count(*), sum(length(raw)) FROM value']),)
    for name, cmd in cases:
        cpus, walls = [], []
        for _ in range(runs):
            c, w = cpu_of(cmd)
            cpus.append(c)
            walls.append(w)
        print('day: %-66s median %.3f s CPU, %.3f s wall (CPU min %.3f, max %.3f; %d runs)'
              % (name, statistics.median(cpus), statistics.median(walls), min(cpus),
                 max(cpus), runs))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', default='build')
    ap.add_argument('--seconds', type=float, default=30)
    ap.add_argument('--interval', type=int, default=10)
    ap.add_argument('--runs', type=int, default=5)
    ap.add_argument('--skip-day', action='store_true')
    a = ap.parse_args()
    tmp = tempfile.mkdtemp()
    try:
        overhead(a.build, a.seconds, a.interval, a.runs, tmp)
        instructions(a.build, a.interval, tmp)
        if not a.skip_day:
            day(a.build, a.runs, tmp)
    finally:
        shutil.rmtree(tmp)


if __name__ == '__main__':
    main()
