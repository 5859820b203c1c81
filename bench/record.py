#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Benchmark pmumon record and report (issue 16), in one run, as figures and ratios:

  overhead  CPU time of pmumon record into SQLite against pmumon stat -x, and perf
            stat -x, writing a file, the same events (software events on every CPU)
            at the same interval for SECONDS each: CPU ms per interval, and the
            ratios record/stat and record/perf
  bytes     the recording's bytes (database and WAL) per interval and per value
  report    pmumon report over a day of 1 s intervals of a
            simulated Yitian 710 per channel (the DDR bandwidth metrics and their
            events: 40 series, 86,400 intervals), RUNS runs each: median seconds

usage: bench/record.py [--build DIR] [--seconds S] [--interval MS] [--runs N]
"""
import argparse
import os
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


def overhead(build, seconds, interval_ms, tmp):
    pmumon = os.path.join(build, 'cli/pmumon')
    n = int(seconds * 1000 / interval_ms)
    ev = []
    for e in EVENTS:
        ev += ['-e', e]
    db = os.path.join(tmp, 'run.db')
    cmds = {
        'pmumon record': [pmumon, 'record', '-a', '-I', str(interval_ms), '--interval-count',
                          str(n), '-o', db, '--overwrite'] + ev,
        'pmumon stat -x,': [pmumon, 'stat', '-a', '-x,', '-I', str(interval_ms),
                            '--interval-count', str(n), '-o', os.path.join(tmp, 'stat.csv')] +
        ev,
    }
    if shutil.which('perf'):
        cmds['perf stat -x,'] = ['perf', 'stat', '-a', '-x,', '-I', str(interval_ms),
                                 '--interval-count', str(n), '-o',
                                 os.path.join(tmp, 'perf.csv')] + ev
    used = {}
    for name, cmd in cmds.items():
        cpu, wall = cpu_of(cmd)
        used[name] = cpu
        print('overhead: %-16s %d intervals of %d ms: %.3f s CPU (%.3f ms per interval), '
              '%.1f s wall' % (name, n, interval_ms, cpu, cpu * 1e3 / n, wall))
    for peer in ('pmumon stat -x,', 'perf stat -x,'):
        if peer in used and used[peer] > 0:
            print('overhead: pmumon record / %s = %.2f' % (peer, used['pmumon record'] /
                                                           used[peer]))
    size = sum(os.path.getsize(p) for p in (db, db + '-wal') if os.path.exists(p))
    with sqlite3.connect(db) as c:
        values = c.execute('SELECT count(*) FROM value').fetchone()[0]
        series = c.execute('SELECT count(*) FROM series').fetchone()[0]
    print('bytes: %d bytes for %d intervals of %d series: %.0f bytes per interval, %.1f per '
          'value' % (size, n, series, size / n, size / values))


def day(build, runs, tmp):
    pmumon = os.path.join(build, 'cli/pmumon')
    db = os.path.join(tmp, 'day.db')
    t0 = time.monotonic()
    r = subprocess.run([pmumon, '--sim', 'yitian710', 'record', '-o', db, '-I', '1000',
                        '--per-channel', '-M', 'ddr_read_bandwidth.all,ddr_write_bandwidth.all',
                        '--interval-count', '86400'], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit('recording a day failed: ' + r.stderr)
    print('report: a day of 1 s intervals recorded (simulated clock) in %.1f s: %.1f MB'
          % (time.monotonic() - t0, os.path.getsize(db) / 1e6))
    for name, cmd in (('report', [pmumon, 'report', db]),
                      ('report -M ddr_read_bandwidth.all --above 80%',
                       [pmumon, 'report', db, '-M', 'ddr_read_bandwidth.all', '--define',
                        'channel_peak=25.6e9', '--above', '80%'])):
        walls = []
        for _ in range(runs):
            t = time.monotonic()
            r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            walls.append(time.monotonic() - t)
            if r.returncode != 0:
                sys.exit('%s failed: %s' % (name, r.stderr.decode()))
        print('report: %-46s median %.3f s (min %.3f, max %.3f) over %d runs'
              % (name, statistics.median(walls), min(walls), max(walls), runs))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', default='build')
    ap.add_argument('--seconds', type=float, default=30)
    ap.add_argument('--interval', type=int, default=100)
    ap.add_argument('--runs', type=int, default=5)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp()
    try:
        overhead(a.build, a.seconds, a.interval, tmp)
        day(a.build, a.runs, tmp)
    finally:
        shutil.rmtree(tmp)


if __name__ == '__main__':
    main()
