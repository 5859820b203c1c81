#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""pmumon record and report (issue 16): a recording's values against the
scenario's truth, report's statistics against hand-computed ones on a
phased scenario, SIGKILL mid-recording, a full disk, versions and runs,
retention, and plots (PNG header, one SVG series per place, the line that
stops where a device vanished)."""
import html
import json
import os
import re
import shutil
import signal
import sqlite3
import struct
import subprocess
import tempfile
import time
import unittest

PMUMON = os.environ['PMUMON']
FLAT = 'jitter 0\nddr.read 6.4G\nddr.write 3.2G\nddr.rmw 0\n'
# idle 2 s, a 3 s burst of 12.8 GB/s per channel, idle 5 s
PHASES = ('jitter 0\nddr.read 0\nddr.write 0\nphase idle 2s\nphase burst 3s\n'
          '  ddr.read 12.8G\nphase rest 5s\n  ddr.read 0\n')


def run(*args, **kw):
    return subprocess.run([PMUMON] + list(args), capture_output=True, text=True, timeout=300,
                          **kw)


def intervals(c):
    """The recording's intervals, each (run, t_ns, wall_ns, duration_ns, block, k), from its
    sample rows: a row is a block of n intervals (docs/record.md): its t_ns the first's
    end, its wall_ns the last's wall clock, its lengths each one's (n > 1)."""
    out = []
    for run_, t, wall, dur, n, lengths in c.execute(
            'SELECT run, t_ns, wall_ns, duration_ns, n, lengths FROM sample ORDER BY run, t_ns'):
        lens = struct.unpack('<%dq' % n, lengths) if n > 1 else (dur,)
        ends = [t]
        for length in lens[1:]:
            ends.append(ends[-1] + length)
        for k, (end, length) in enumerate(zip(ends, lens)):
            out.append((run_, end, wall - (ends[-1] - end), length, t, k))
    return out


def values(c):
    """Every value of the recording, each (series, t_ns, raw, enabled_ns, running_ns, value,
    flags, covered, instances): a value row (run, t_ns, series: its block's key) holds the
    block's n values, numbers when n is 1, else little-endian BLOBs of n values or of one
    for all n (value a double, NaN not counted: None here)."""
    ends = {}
    for run_, t, _, _, block, k in intervals(c):
        ends.setdefault((run_, block), []).append(t)
    out = []
    for row in c.execute('SELECT v.series, v.t_ns, v.raw, v.enabled_ns, v.running_ns, v.value,'
                         ' v.flags, v.covered, v.instances, s.run FROM value v JOIN series s'
                         ' ON s.id = v.series ORDER BY v.series, v.t_ns'):
        series, block, cols, run_ = row[0], row[1], row[2:9], row[9]
        ts = ends[(run_, block)]
        if not isinstance(cols[0], bytes):
            out.append((series, ts[0]) + tuple(cols))
            continue
        n = len(ts)
        # a BLOB of n values, or of one value for all n
        cols = [struct.unpack('<%d%s' % (len(b) // struct.calcsize(f), f), b) * (
            n if len(b) == struct.calcsize(f) else 1) for f, b in zip('qqqdIII', cols)]
        for k in range(n):
            v = [c_[k] for c_ in cols]
            v[3] = None if v[3] != v[3] else v[3]
            out.append((series, ts[k]) + tuple(v))
    return out


def place_of(device):
    """die, channel, sub-channel of a Yitian 710 DDR PMU's name (docs/facts-metrics.md)."""
    addr = int(device.rsplit('_', 1)[1], 16)
    return (addr >> 30) & 1, (addr >> 13) & 3, (addr >> 7) & 1


DF8 = ['amd_df/event=0x%x,umask=0x38/' % (0x7 + 0x40 * i) for i in range(8)]


class Record(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def scn(self, text, name='s.scn'):
        path = os.path.join(self.tmp, name)
        with open(path, 'w') as f:
            f.write(text)
        return path

    def record(self, sim, *args, db='r.db'):
        path = os.path.join(self.tmp, db)
        r = run('--sim', sim, 'record', '-o', path, *args)
        return r, path

    @unittest.skipUnless(shutil.which('valgrind'), 'valgrind not installed')
    def test_an_interval_costs_what_stat_costs(self):
        # instructions per interval at -I 10 (callgrind: the program's own, whatever else
        # runs), the difference of a 20- and a 60-interval run: record's, SQLite's work
        # included, within 1.25 times stat -x,'s; with one transaction per interval it was
        # 2.3 times (bench/record.py measures the CPU time against stat and perf)
        if 'libasan' in subprocess.run(['ldd', PMUMON], capture_output=True, text=True).stdout:
            self.skipTest('an ASan build: its instructions are the sanitizer\'s')
        args = ['-I', '10', '-e', 'ali_drw/hif_rd/', '-M', 'ddr_read_bandwidth.all']
        db = os.path.join(self.tmp, 'cost.db')

        def instructions(cmd, n):
            if os.path.exists(db):
                os.unlink(db)
            r = subprocess.run(['valgrind', '--tool=callgrind', '--callgrind-out-file=/dev/null',
                                PMUMON, '--sim', 'yitian710'] + cmd + args +
                               ['--interval-count', str(n)], capture_output=True, text=True,
                               timeout=600)
            self.assertEqual(r.returncode, 0, r.stderr[-2000:])
            return int(re.search(r'Collected : (\d+)', r.stderr).group(1))

        def per_interval(cmd):
            return (instructions(cmd, 60) - instructions(cmd, 20)) / 40
        record = per_interval(['record', '-o', db])
        stat = per_interval(['stat', '-a', '-x,', '-o', '/dev/null', '--per-device'])
        self.assertLessEqual(record, 1.25 * stat, (record, stat))

    def test_unwritable_path_says_why(self):
        # the file system's reason and the fix, where SQLite says "unable to open"
        for path, want in ((os.path.join(self.tmp, 'no', 'such', 'r.db'),
                            'No such file or directory (create it first)'),
                           (self.tmp, 'it is a directory: name a file in it')):
            r = run('--sim', 'amdzen2', 'record', '-o', path, '--timeout', '200')
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn(want, r.stderr)
            self.assertNotIn('unable to open database file', r.stderr)

    def test_values_equal_the_truth(self):
        r, db = self.record('yitian710:scenario=' + self.scn(FLAT), '--per-channel',
                            '-e', 'ali_drw/hif_rd/', '-M', 'ddr_read_bandwidth.all',
                            '--interval-count', '4')
        self.assertEqual(r.returncode, 0, r.stderr)
        c = sqlite3.connect(db)
        self.assertEqual(c.execute('PRAGMA user_version').fetchone()[0], 5)
        self.assertEqual(c.execute('PRAGMA journal_mode').fetchone()[0], 'wal')
        # set before the first page was written: retention can give space back
        self.assertEqual(c.execute('PRAGMA auto_vacuum').fetchone()[0], 2)
        # nothing multiplexed: every value's interval is itself (docs/bounds.md)
        self.assertEqual(c.execute('SELECT count(*) FROM value WHERE lo IS NOT value'
                                   ' OR hi IS NOT value OR bound != 0').fetchone()[0], 0)
        self.assertEqual(c.execute('PRAGMA integrity_check').fetchone()[0], 'ok')
        run_row = c.execute('SELECT simulated, sim_platform, interval_ms, aggr, command'
                            ' FROM run').fetchone()
        self.assertEqual(run_row[:4], (1, 'yitian710', 1000, 'channel'))
        self.assertIn('record -o', run_row[4])
        self.assertEqual(len(intervals(c)), 4)
        # 4 intervals of 1 s: rows of their own (16 would be one block)
        self.assertEqual(c.execute('SELECT count(*), sum(n) FROM sample').fetchone(), (4, 4))
        names = {i: (n, p, ch) for i, n, p, ch in
                 c.execute('SELECT id, name, place, channel FROM series')}
        rows = [names[v[0]] + (v[2], v[5], v[3], v[4], v[6]) for v in values(c)]
        reads = [r for r in rows if r[0] == 'ali_drw/hif_rd/']
        bw = [r for r in rows if r[0] == 'ddr_read_bandwidth.all']
        self.assertEqual(len(reads), 32)  # 8 channels x 4 intervals
        for name, place, ch, raw, value, ena, run_ns, flags in reads:
            self.assertRegex(place, r'^die[01]/ch%d$' % ch)
            self.assertEqual(raw, 100000000)  # 6.4 GB/s in 64-byte reads, per second
            self.assertEqual(value, 1e8)
            self.assertEqual((ena, run_ns, flags), (10**9, 10**9, 0))
        for row in bw:
            self.assertTrue(abs(row[4] - 6400) <= 1e-6, row)

    def test_intervals_are_kept(self):
        # the msr source rotates 8 DF channels over 4 counters: every value estimated,
        # kept with its 95 % interval, and the report's mean has the mean of the ends
        r, db = self.record('amdzen2', '--source', 'msr', '-e', ','.join(DF8),
                            '--interval-count', '3')
        self.assertEqual(r.returncode, 0, r.stderr)
        c = sqlite3.connect(db)
        vals = c.execute('SELECT value, lo, hi, bound FROM value').fetchall()
        c.close()
        self.assertEqual(len(vals), 24)
        for value, lo, hi, bound in vals:
            self.assertEqual(bound, 1)  # PM_BOUND_MEASURED
            self.assertTrue(lo <= value <= hi and lo < hi, (value, lo, hi))
        r = run('report', db, '-x,')
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = list(__import__('csv').DictReader(r.stdout.splitlines()))
        # the names hold commas: one row each, quoted
        self.assertEqual(sorted(row['name'] for row in rows), sorted(DF8))
        for row in rows:
            self.assertEqual(row['bound'], 'measured')
            lo, mean, hi = (float(row[k]) for k in ('mean_lo', 'mean', 'mean_hi'))
            self.assertTrue(lo <= mean <= hi and lo < hi, row)
        r = run('report', db)
        self.assertRegex(r.stdout, r'multiplexed, mean \u00b1 [0-9.e-]+ %, widest \u00b1')

    def test_report_statistics_of_phases(self):
        r, db = self.record('yitian710:scenario=' + self.scn(PHASES), '--per-channel',
                            '-M', 'ddr_read_bandwidth.all', '--interval-count', '10')
        self.assertEqual(r.returncode, 0, r.stderr)
        r = run('report', db, '-M', 'ddr_read_bandwidth.all', '--per-channel', '--above',
                '6400', '-x,')
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(lines[0], 'name,place,unit,intervals,counted,min,mean,p50,p95,max,'
                                   'above_s,quality,mean_lo,mean_hi,widest_pct,bound,'
                                   'from,to')
        self.assertEqual(len(lines), 9)
        for line in lines[1:]:
            f = line.split(',')
            # 2 idle, 3 at 12800 MB/s, 5 idle: mean 3 x 12800 / 10; p50 the 5th of 10
            # sorted (0); p95 the 10th (12800); 3 s above 6400
            self.assertEqual(f[2:5], ['MB/s', '10', '10'])
            got = [float(x) for x in f[5:11]]
            for g, want in zip(got, [0, 3840, 0, 12800, 12800, 3]):
                self.assertTrue(abs(g - want) <= 1e-6, (f, want))
            self.assertEqual(f[11], '')
            # exact: the mean's interval is the mean, no interval is wider than 0
            self.assertEqual(f[12:16], [f[6], f[6], '0', 'exact'])
        # a window, the intervals that overlap it: the burst alone, 2 s to 5 s into the run
        r = run('report', db, '-M', 'ddr_read_bandwidth.all', '--per-channel', '--from', '2',
                '--to', '5', '-x,')
        f = r.stdout.splitlines()[1].split(',')
        self.assertEqual(f[3], '3')
        self.assertTrue(abs(float(f[6]) - 12800) <= 1e-6, f)
        # without --per-*: the machine's total, computed again from the channels' deltas
        r = run('report', db, '-M', 'ddr_read_bandwidth.all', '-x,')
        self.assertEqual(r.returncode, 0, r.stderr)
        (line,) = r.stdout.splitlines()[1:]
        f = line.split(',')
        self.assertEqual(f[1], 'all')
        self.assertTrue(abs(float(f[6]) - 8 * 3840) <= 1e-6, f)

    def test_above_a_share_of_the_channel_peak(self):
        r, db = self.record('yitian710:scenario=' + self.scn(PHASES), '--per-channel',
                            '-M', 'ddr_read_bandwidth.all', '--interval-count', '10')
        self.assertEqual(r.returncode, 0, r.stderr)
        # 80% of a 16 GB/s peak is 12.8 GB/s: the burst is not above it; 50% is 8 GB/s
        for pct, want in (('50%', 3), ('80%', 0)):
            r = run('report', db, '-M', 'ddr_read_bandwidth.all', '--per-channel', '--define',
                    'channel_peak=16e9', '--above', pct, '-j')
            self.assertEqual(r.returncode, 0, r.stderr)
            rows = [__import__('json').loads(l) for l in r.stdout.splitlines()]
            self.assertEqual(len(rows), 8)
            self.assertTrue(all(abs(o['above_s'] - want) <= 1e-9 for o in rows), (pct, rows))
        r = run('report', db, '--above', '80%')
        self.assertEqual(r.returncode, 2)
        self.assertIn('--define channel_peak=', r.stderr)
        # a share of a peak means nothing for a count: no time, not a 0
        r = run('report', db, '-e', 'ali_drw/hif_rd/', '--per-channel', '--define',
                'channel_peak=16e9', '--above', '50%', '-j')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(all(__import__('json').loads(l)['above_s'] is None
                            for l in r.stdout.splitlines()))

    def test_a_default_recording_gives_the_machines_total(self):
        # record keeps by default the screen's metrics and their events per device;
        # report -M computes the machine's total from them exactly as stat does, interval
        # by interval, and per socket, die and channel as stat gives them
        r, db = self.record('yitian710', '--interval-count', '5')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("recording the yitian710 pack's screen", r.stderr)
        c = sqlite3.connect(db)
        kept = set(c.execute('SELECT DISTINCT name FROM series'))
        self.assertEqual(c.execute('SELECT DISTINCT aggr FROM run').fetchall(), [('device',)])
        c.close()
        self.assertTrue({('ddr_read_bandwidth.all',), ('ali_drw/hif_rd/',)} <= kept, kept)
        for rows in ([], ['--per-socket'], ['--per-die'], ['--per-channel']):
            live = run('--sim', 'yitian710', 'stat', '-a', '-x,', '-I', '1000',
                       '--interval-count', '5', '-M', 'ddr_read_bandwidth.all', *rows)
            self.assertEqual(live.returncode, 0, live.stderr)
            want = {}
            for row in __import__('csv').DictReader(live.stdout.splitlines()):
                if row['type'] == 'interval' and 'metric' in row['flags']:
                    want.setdefault((row['socket'], row['die'], row['device']), []).append(
                        float(row['value']))
            rep = run('report', db, '-M', 'ddr_read_bandwidth.all', *rows, '-j')
            self.assertEqual(rep.returncode, 0, rep.stderr)
            got = [json.loads(l) for l in rep.stdout.splitlines()]
            self.assertEqual(len(got), len(want), (rows, got))
            for o, vals in zip(got, want.values()):
                self.assertEqual((o['min'], o['max'], o['counted']),
                                 (min(vals), max(vals), 5), (rows, o))
                self.assertTrue(abs(o['mean'] - sum(vals) / 5) <= 1e-12 * o['mean'], o)
        # the same total from a recording per channel (its channels' deltas added up)
        r, ch = self.record('yitian710', '--per-channel', '--interval-count', '5',
                            db='ch.db')
        a = json.loads(run('report', ch, '-M', 'ddr_read_bandwidth.all', '-j').stdout)
        b = json.loads(run('report', db, '-M', 'ddr_read_bandwidth.all', '-j').stdout)
        self.assertEqual((a['min'], a['max']), (b['min'], b['max']))
        # events are rates: hif_rd per second, the total of 16 sub-channels
        o = json.loads(run('report', db, '-e', 'ali_drw/hif_rd/', '-j').stdout)
        self.assertEqual(o['unit'], 'count/s')
        self.assertTrue(abs(o['mean'] * 64 / 1e6 - b['mean']) <= 1e-9 * b['mean'])

    def test_a_metric_it_cannot_compute_says_why(self):
        r, db = self.record('yitian710', '-e', 'ali_drw/hif_wr/', '--interval-count', '2')
        self.assertEqual(r.returncode, 0, r.stderr)
        r = run('report', db, '-M', 'ddr_read_bandwidth.all')
        self.assertEqual(r.returncode, 1)
        self.assertIn('has no counts of ali_drw/hif_rd/, which a metric needs', r.stderr)
        self.assertIn('has no counts of the events asked for, or of those the metrics read',
                      r.stderr)
        self.assertNotIn('pmumon list', r.stderr)
        # with events it has: they are counted, the metric is not, and says so
        r = run('report', db, '-M', 'ddr_read_bandwidth.all', '-e', 'ali_drw/hif_wr/')
        self.assertEqual(r.returncode, 1)
        self.assertIn('ddr_read_bandwidth.all could not be computed', r.stderr)
        self.assertIn('ali_drw/hif_wr/', r.stdout)
        r = run('report', db, '-M', 'no_such_metric')
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("no metric or metric group 'no_such_metric'", r.stderr)
        r = run('report', db, '-e', 'nothing*')
        self.assertEqual(r.returncode, 1)
        self.assertIn('no series', r.stderr)

    def test_the_constants_a_run_was_given_are_kept(self):
        # ddr_read_bandwidth.ddrc needs the DDRC clock: record's --define is the run's,
        # and report computes the metric again with it (here the total, where record kept
        # devices)
        args = ['--define', 'ddrc_freq=1.6e9', '-M', 'ddr_read_bandwidth.ddrc']
        r, db = self.record('yitian710', *args, '--interval-count', '3')
        self.assertEqual(r.returncode, 0, r.stderr)
        c = sqlite3.connect(db)
        self.assertEqual(c.execute('SELECT defines FROM run').fetchone()[0],
                         'ddrc_freq=1600000000')
        c.close()
        live = run('--sim', 'yitian710', 'stat', '-a', '-x,', '-I', '1000', '--interval-count',
                   '3', *args)
        vals = [float(l.split(',')[8]) for l in live.stdout.splitlines()[1:]
                if 'metric' in l and l.startswith('interval')]
        o = json.loads(run('report', db, '-M', 'ddr_read_bandwidth.ddrc', '-j').stdout)
        self.assertEqual((o['min'], o['max']), (min(vals), max(vals)))
        # it is computed on each sub-channel against its own clock and added up: rows of a
        # channel cannot give it (their counts are added up already), and say so
        r, ch = self.record('yitian710', '--per-channel', *args, '--interval-count', '3',
                            db='ch.db')
        r = run('report', ch, '-M', 'ddr_read_bandwidth.ddrc')
        self.assertEqual(r.returncode, 1)
        self.assertIn('this recording added their counts up already', r.stderr)
        # as kept, per channel, it is what stat computed
        r = run('report', ch, '--per-channel', '-M', 'ddr_read_bandwidth.ddrc', '-j')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len(r.stdout.splitlines()), 8)

    def test_from_and_to_a_time_of_day(self):
        # the simulated machine's wall clock starts at 2026-01-01 00:00:01 UTC, counting
        # then: the burst (2 s to 5 s into the run) is 00:00:03 to 00:00:06
        r, db = self.record('yitian710:scenario=' + self.scn(PHASES), '-M',
                            'ddr_read_bandwidth.all', '--interval-count', '10')
        self.assertEqual(r.returncode, 0, r.stderr)
        c = sqlite3.connect(db)
        start = c.execute('SELECT started_wall_ns FROM run').fetchone()[0]
        first = intervals(c)[0]
        c.close()
        # the run's start is the machine's clock when counting began, as its intervals'
        self.assertEqual(start, 1767225601 * 10**9)
        self.assertEqual(first[2] - first[1], start)

        def burst(*window, tz='UTC'):
            r = run('report', db, '-M', 'ddr_read_bandwidth.all', '-j', *window,
                    env=dict(os.environ, TZ=tz))
            self.assertEqual(r.returncode, 0, (window, r.stderr))
            return json.loads(r.stdout)
        for window, tz in ((('--from', '00:00:03', '--to', '00:00:06'), 'UTC'),
                           (('--from', '00:00:03', '--to', '0:00:06'), 'UTC'),
                           (('--from', '2026-01-01T00:00:03Z', '--to', '2026-01-01 00:00:06Z'),
                            'UTC'),
                           (('--from', '2026-01-01T09:00:03+09:00', '--to', '00:00:06'), 'UTC'),
                           (('--from', '09:00:03', '--to', '09:00:06'), 'JST-9'),
                           (('--from', '00:00:03', '--to', '00:00:06', '--utc'), 'JST-9'),
                           (('--from', '2', '--to', '5'), 'UTC')):
            o = burst(*window, tz=tz)
            self.assertEqual((o['intervals'], o['from'], o['to']),
                             (3, '2026-01-01T00:00:03.000Z', '2026-01-01T00:00:06.000Z'), window)
            self.assertTrue(abs(o['mean'] - 8 * 12800) <= 1e-6, o)
        # a point in time: the interval that holds it
        o = burst('--from', '00:00:04.5', '--to', '00:00:04.5')
        self.assertEqual((o['intervals'], o['from']), (1, '2026-01-01T00:00:04.000Z'))
        # the table says when, in local time
        r = run('report', db, env=dict(os.environ, TZ='JST-9'))
        self.assertIn('2026-01-01 09:00:01.000 to 2026-01-01 09:00:11.000 UTC+09:00: '
                      '10.000 s, 10 intervals', r.stdout)
        for bad in ('25:00', '2026-13-01T00:00', 'yesterday', '1:2', '-5'):
            r = run('report', db, '--from', bad)
            self.assertEqual(r.returncode, 2, bad)
            self.assertIn('expected seconds into the run', r.stderr)
        r = run('report', db, '--from', '00:00:30', env=dict(os.environ, TZ='UTC'))
        self.assertEqual(r.returncode, 1)
        self.assertIn('no intervals from 2026-01-01 00:00:30.000', r.stderr)

    def test_above_in_the_unit_of_the_series(self):
        r, db = self.record('yitian710:scenario=' + self.scn(PHASES), '--per-channel',
                            '--interval-count', '10')
        self.assertEqual(r.returncode, 0, r.stderr)

        def above(*args):
            r = run('report', db, '--per-channel', '-j', *args)
            self.assertEqual(r.returncode, 0, (args, r.stderr))
            return {(o['name'], o['place']): o['above_s'] for o in
                    map(json.loads, r.stdout.splitlines())}, r.stderr
        # a bare value: the -M series' unit (MB/s): 3 s of burst above 6400
        got, _ = above('-M', 'ddr_read_bandwidth.all', '--above', '6400')
        self.assertEqual(set(got.values()), {3})
        # the same with its unit, in another bandwidth unit
        got, _ = above('-M', 'ddr_read_bandwidth.all', '--above', '6.4GB/s')
        self.assertEqual(set(got.values()), {3})
        # a value with a unit applies to that unit only, and says what it skipped
        got, err = above('--above', '6400 MB/s')
        self.assertEqual({v for (n, _), v in got.items() if n == 'ddr_read_bandwidth.all'},
                         {3})
        self.assertEqual({v for (n, _), v in got.items() if n.startswith('ali_drw')}, {None})
        self.assertIn('not to ali_drw/hif_rd/ (count/s)', err)
        # counts per second: 12.8 GB/s is 2e8 reads a second
        got, _ = above('-e', 'ali_drw/hif_rd/', '--above', '1e8count/s')
        self.assertEqual(set(got.values()), {3})
        # a bare value over series of several units is refused
        r = run('report', db, '--per-channel', '--above', '6400')
        self.assertEqual(r.returncode, 2)
        self.assertIn('has no unit, and the series shown have several', r.stderr)
        r = run('report', db, '--per-channel', '--above', '5 W')
        self.assertEqual(r.returncode, 2)
        self.assertIn('no series shown is in W', r.stderr)
        r = run('report', db, '--above', 'lots')
        self.assertEqual(r.returncode, 2)

    def test_import_and_report_of_a_recording_equal_the_live_run(self):
        args = ['-I', '500', '-e', 'ali_drw/hif_rd/', '-e', 'ali_drw/hif_wr/', '-M',
                'ddr_read_bandwidth.all']
        r, db = self.record('yitian710', *args, '--interval-count', '4')
        self.assertEqual(r.returncode, 0, r.stderr)
        live = run('--sim', 'yitian710', 'stat', '-x,', '-a', '--per-device', *args, '--',
                   'sleep', '2')
        self.assertEqual(live.returncode, 0, live.stderr)
        # the recording played back is the live run, byte for byte
        imp = run('import', '-x,', '--per-device', '-M', 'ddr_read_bandwidth.all', db)
        self.assertEqual(imp.returncode, 0, imp.stderr)
        self.assertEqual(imp.stdout, live.stdout)
        # and report's statistics of the recording are the live intervals', events as
        # their counts per second of the 0.5 s intervals
        per = {}
        for row in __import__('csv').DictReader(live.stdout.splitlines()):
            if row['type'] == 'interval':
                v = float(row['value']) / (1 if 'metric' in row['flags'] else 0.5)
                per.setdefault((row['event'], row['device']), []).append(v)
        rep = run('report', db, '--per-device', '-j')
        self.assertEqual(rep.returncode, 0, rep.stderr)
        got = [__import__('json').loads(l) for l in rep.stdout.splitlines()]
        self.assertEqual(len(got), 3 * 16)
        for o in got:
            # report names a device's place; the live CSV its PMU
            vals = [v for (e, d), v in per.items() if e == o['name'] and
                    ('die%d/ch%d/sub%d' % place_of(d)) == o['place']]
            self.assertEqual(len(vals), 1, o)
            mean = sum(vals[0]) / len(vals[0])
            self.assertTrue(abs(o['mean'] - mean) <= 1e-9 * mean, (o, mean))
            self.assertEqual((o['min'], o['max']), (min(vals[0]), max(vals[0])))
            self.assertEqual(o['unit'], 'MB/s' if o['name'].startswith('ddr') else 'count/s')
        # a file import reads is reported as its recording would be
        with open(os.path.join(self.tmp, 'live.csv'), 'w') as f:
            f.write(live.stdout)
        again = run('report', os.path.join(self.tmp, 'live.csv'), '--per-device', '-M',
                    'ddr_read_bandwidth.all', '-j')
        self.assertEqual(again.returncode, 0, again.stderr)
        ours = {(o['name'], o['place']): o for o in got}
        for o in map(__import__('json').loads, again.stdout.splitlines()):
            self.assertEqual(o, ours[(o['name'], o['place'])])

    def test_every_platform_records_what_stat_counts(self):
        # each seed platform's screen metrics and their events, recorded and played back,
        # are what stat -x, printed of the same run (stat's own tests hold it to the truth)
        prog = os.path.join(self.tmp, 'mf.prog')
        with open(prog, 'w') as f:
            subprocess.run([PMUMON, '--sim', 'merrifield', 'list', 'program'], stdout=f,
                           check=True, timeout=60)
        # (BlueField's metrics name their events bare, which an import cannot resolve
        # yet: its events are played back, not its metrics)
        for platform, what, more in (
                ('amdzen2', ['-M', 'DF_CH0_GBps,DF_CH1_GBps,L3_Cache_Miss_Ratio'], []),
                ('bluefield2', ['-e', 'bfperf/tile*/MEMORY_READS/', '-e',
                                'bfperf/pcie*/IN_P_BYTE_CNT/'], []),
                ('bluefield3', ['-e', 'bfperf/llt*/HNF0_MEM_READS/'], []),
                ('merrifield', ['-M', 'DDR_Chan0_MBps,DDR_Chan1_MBps'], ['--program', prog])):
            args = ['-I', '500'] + what + more
            r, db = self.record(platform, *args, '--interval-count', '4',
                                db=platform + '.db')
            self.assertEqual(r.returncode, 0, (platform, r.stderr))
            live = run('--sim', platform, 'stat', '-x,', '-a', '--per-device', *args, '--',
                       'sleep', '2')
            self.assertEqual(live.returncode, 0, (platform, live.stderr))
            imp = run('import', '-x,', '--per-device', *(what if what[0] == '-M' else []), db)
            self.assertEqual(imp.returncode, 0, (platform, imp.stderr))
            self.assertEqual(imp.stdout, live.stdout, platform)

    def test_a_per_channel_recording_gives_channels_and_coarser(self):
        # a recording per channel plays back per channel as stat printed it live, byte for
        # byte; per die, socket and in total from its channel deltas; and says it has no
        # rows per device
        args = ['-I', '500', '-e', 'ali_drw/hif_rd/', '-M', 'ddr_read_bandwidth.all',
                '--per-channel']
        r, db = self.record('yitian710', *args, '--interval-count', '4')
        self.assertEqual(r.returncode, 0, r.stderr)
        live = run('--sim', 'yitian710', 'stat', '-x,', '-a', *args, '--', 'sleep', '2')
        imp = run('import', '-x,', '--per-channel', '-M', 'ddr_read_bandwidth.all', db)
        self.assertEqual(imp.returncode, 0, imp.stderr)
        self.assertEqual(imp.stdout, live.stdout)
        for rows in ('--per-die', '--per-socket', '--merge'):
            live = run('--sim', 'yitian710', 'stat', '-x,', '-a', *args[:-1], rows, '--',
                       'sleep', '2')
            imp = run('import', '-x,', rows, '-M', 'ddr_read_bandwidth.all', db)
            self.assertEqual(imp.returncode, 0, imp.stderr)

            def values(text):
                return [(l.split(',')[3], l.split(',')[8]) for l in text.splitlines()[1:]]
            self.assertEqual(values(imp.stdout), values(live.stdout), rows)
        r = run('import', '--per-device', db)
        self.assertEqual(r.returncode, 2)
        self.assertIn('recorded per channel, so it has no rows per device', r.stderr)
        r = run('report', db, '--per-device', '-M', 'ddr_read_bandwidth.all')
        self.assertEqual(r.returncode, 2)
        self.assertIn('it gives rows per channel, die, socket or in total', r.stderr)

    def test_report_of_perf_output(self):
        # perf stat -x, -I of Yitian's 16 DDR PMUs (tests/data/import), per PMU: what
        # import computes, interval by interval, is what report sums up
        fixture = os.path.join(os.environ['PMUMON_SOURCE_ROOT'], 'tests', 'data', 'import',
                               'constructed-yitian710-perf61-x.csv')
        imp = run('import', '-x,', '--per-device', '-M', 'ddr_read_bandwidth.all', fixture)
        self.assertEqual(imp.returncode, 0, imp.stderr)
        rep = run('report', fixture, '-M', 'ddr_read_bandwidth.all', '--per-device', '-j')
        self.assertEqual(rep.returncode, 0, rep.stderr)
        want = {}
        for row in __import__('csv').DictReader(imp.stdout.splitlines()):
            if row['type'] == 'interval' and row['event'] == 'ddr_read_bandwidth.all':
                want.setdefault(row['device'], []).append(float(row['value']))
        got = [__import__('json').loads(l) for l in rep.stdout.splitlines()]
        self.assertEqual(len(got), len(want))
        for o in got:
            (vals,) = [v for d, v in want.items()
                       if 'die%d/ch%d/sub%d' % place_of(d) == o['place']]
            self.assertTrue(abs(o['mean'] - sum(vals) / len(vals)) <= 1e-6 * o['mean'], o)

    def test_sigkill_keeps_every_whole_interval(self):
        db = os.path.join(self.tmp, 'k.db')
        p = subprocess.Popen([PMUMON, '--sim', 'yitian710:clock=real', 'record', '-o', db,
                              '-I', '100'], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        time.sleep(1.5)
        p.send_signal(signal.SIGKILL)
        p.wait()
        c = sqlite3.connect(db)
        self.assertEqual(c.execute('PRAGMA integrity_check').fetchone()[0], 'ok')
        n = len(intervals(c))
        self.assertGreaterEqual(n, 8)
        series = c.execute('SELECT count(*) FROM series').fetchone()[0]
        # every interval that is there is whole: all its series' values
        self.assertEqual(len(values(c)), n * series)
        r = run('report', db)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_sigkill_loses_at_most_100ms(self):
        # intervals shorter than 100 ms are kept in blocks of 100 ms, a transaction each
        # (the first interval also alone, so that the file exists): killed anywhere, the
        # file holds whole blocks of 10 intervals of 10 ms, or 2 of 50 ms, and the first
        # (then 1 or the same)
        for interval, block in (('10', 10), ('50', 2)):
            db = os.path.join(self.tmp, 'k%s.db' % interval)
            p = subprocess.Popen([PMUMON, '--sim', 'yitian710:clock=real', 'record', '-o', db,
                                  '-e', 'ali_drw/hif_rd/', '-I', interval],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(1.5)
            p.send_signal(signal.SIGKILL)
            p.wait()
            c = sqlite3.connect(db)
            self.assertEqual(c.execute('PRAGMA integrity_check').fetchone()[0], 'ok')
            blocks = [n for (n,) in c.execute('SELECT n FROM sample ORDER BY t_ns')]
            n = len(intervals(c))
            self.assertEqual(len(values(c)), 16 * n)
            c.close()
            self.assertIn(blocks[0], (1, block))
            self.assertGreater(len(blocks), 2)
            self.assertEqual(set(blocks[1:]), {block}, interval)
            # and every one of their intervals is read back
            r = run('report', db, '--per-device', '-j')
            self.assertEqual(r.returncode, 0, r.stderr)
            got = json.loads(r.stdout.splitlines()[0])
            self.assertEqual(got['intervals'], n)
            self.assertEqual(got['counted'], n)

    def test_a_failed_start_leaves_nothing(self):
        # killed before its first interval: no file (record creates nothing until then)
        db = os.path.join(self.tmp, 'early.db')
        p = subprocess.Popen([PMUMON, '--sim', 'yitian710:clock=real', 'record', '-o', db,
                              '-I', '1000'], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        time.sleep(0.3)
        p.send_signal(signal.SIGKILL)
        p.wait()
        self.assertEqual([f for f in os.listdir(self.tmp) if f.startswith('early')], [])
        # what an older pmumon left, or any empty file: a recording with no intervals,
        # never read as text; and a SQLite file of no tables the same
        empty = os.path.join(self.tmp, 'empty.db')
        open(empty, 'w').close()
        bare = os.path.join(self.tmp, 'bare.db')
        c = sqlite3.connect(bare)
        c.execute('PRAGMA journal_mode=WAL')
        c.close()
        for path in (empty, bare):
            for cmd in ('report', 'import'):
                r = run(cmd, path)
                self.assertEqual(r.returncode, 1, (cmd, path, r.stderr))
                self.assertIn('a recording with no intervals', r.stderr)
                self.assertNotIn('no counts found', r.stderr)

    def test_sigterm_keeps_the_last_interval_and_restores(self):
        before, after = os.path.join(self.tmp, 'before'), os.path.join(self.tmp, 'after')
        self.assertEqual(run('--sim', 'bluefield2:state=' + before, 'list', 'pmus').returncode,
                         0)
        db = os.path.join(self.tmp, 't.db')
        p = subprocess.Popen([PMUMON, '--sim', 'bluefield2:clock=real,state=' + after,
                              'record', '-o', db, '-I', '1000'], stderr=subprocess.PIPE,
                             text=True)
        time.sleep(1.5)
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=30)
        self.assertEqual(p.returncode, 0, err)
        c = sqlite3.connect(db)
        durs = [i[3] for i in intervals(c)]
        self.assertEqual(len(durs), 2)  # one whole interval and the shorter last one
        self.assertTrue(durs[1] < 10**9)
        with open(before) as f1, open(after) as f2:
            self.assertEqual(f1.read(), f2.read())

    def test_runs_versions_and_overwrite(self):
        r, db = self.record('yitian710', '--interval-count', '2')
        self.assertEqual(r.returncode, 0, r.stderr)
        r, _ = self.record('yitian710', '--interval-count', '3')
        self.assertEqual(r.returncode, 0, r.stderr)
        c = sqlite3.connect(db)
        self.assertEqual(c.execute('SELECT count(*) FROM run').fetchone()[0], 2)
        c.close()
        r = run('report', db, '--run', '1', '-x,')
        self.assertEqual(r.stdout.splitlines()[1].split(',')[3], '2')
        r = run('report', db, '-x,')  # the last run
        self.assertEqual(r.stdout.splitlines()[1].split(',')[3], '3')
        r, _ = self.record('yitian710', '--interval-count', '1', '--overwrite')
        self.assertEqual(r.returncode, 0, r.stderr)
        c = sqlite3.connect(db)
        self.assertEqual(c.execute('SELECT count(*) FROM run').fetchone()[0], 1)
        c.execute('PRAGMA user_version=7')
        c.commit()
        c.close()
        r, _ = self.record('yitian710', '--interval-count', '1')
        self.assertEqual(r.returncode, 1)
        self.assertIn('schema version 7, newer than this pmumon\'s (5)', r.stderr)
        r = run('report', db)
        self.assertEqual(r.returncode, 1)
        self.assertIn('schema version 7', r.stderr)
        other = os.path.join(self.tmp, 'other.db')
        c = sqlite3.connect(other)
        c.execute('CREATE TABLE t (x)')
        c.commit()
        c.close()
        r = run('report', other)
        self.assertEqual(r.returncode, 1)
        self.assertIn('not a pmumon recording', r.stderr)

    def test_cgroups(self):
        # --for-each-cgroup: a series per event, metric and cgroup (series.cgroup), report
        # naming the cgroup with the place, and import of the file giving back rows per
        # cgroup equal to stat's (the simulated cgroups run a quarter and half the time)
        opts = ('-e', 'cpu-clock', '-M', 'CPI', '--for-each-cgroup',
                'user.slice,system.slice', '-I', '500', '--interval-count', '2')
        r, db = self.record('amdzen2', *opts)
        self.assertEqual(r.returncode, 0, r.stderr)
        c = sqlite3.connect(db)
        got = c.execute('SELECT name, cgroup FROM series ORDER BY id').fetchall()
        c.close()
        self.assertEqual([g for g in got if g[0] in ('cpu-clock', 'CPI')],
                         [('cpu-clock', 'user.slice'), ('cpu-clock', 'system.slice'),
                          ('CPI', 'user.slice'), ('CPI', 'system.slice')])
        r = run('report', db, '--per-device', '-x,')
        self.assertEqual(r.returncode, 0, r.stderr)
        rep = {(l.split(',')[0], l.split(',')[1]): l.split(',')[2:7:4]
               for l in r.stdout.splitlines()[1:]}
        # 16000 and 32000 msec in each 0.5 s interval
        self.assertEqual(rep[('cpu-clock', 'software in user.slice')], ['msec/s', '32000'])
        self.assertEqual(rep[('cpu-clock', 'software in system.slice')], ['msec/s', '64000'])
        # in total, per cgroup, computed again: the same
        r = run('report', db, '-x,', '-e', 'cpu-clock')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual([l.split(',')[1:7:5] for l in r.stdout.splitlines()[1:]],
                         [['all in user.slice', '32000'], ['all in system.slice', '64000']])
        live = run('--sim', 'amdzen2', 'stat', '-a', '-x,', *opts[:-2], '--', 'sleep', '1')
        imp = run('import', '-x,', '--pack', 'amdzen2', '-M', 'CPI', db)
        self.assertEqual(imp.returncode, 0, imp.stderr)

        def rows(text):
            return [(l.split(',')[0], l.split(',')[3], l.split(',')[8], l.split(',')[-1])
                    for l in text.splitlines()[1:]]
        self.assertEqual(rows(imp.stdout), rows(live.stdout))
        # a recording of version 2 (before series.cgroup) is read as it is, and takes a
        # run with cgroups after it, migrated
        r, old = self.record('amdzen2', '-e', 'cpu-clock', '--interval-count', '1',
                             db='old.db')
        self.assertEqual(r.returncode, 0, r.stderr)
        c = sqlite3.connect(old)
        c.execute('ALTER TABLE series DROP COLUMN cgroup')
        for col in ('lo', 'hi', 'bound'):  # version 4's
            c.execute('ALTER TABLE value DROP COLUMN ' + col)
        c.execute('PRAGMA user_version=2')
        c.commit()
        c.close()
        r = run('report', old, '-x,', '--per-device')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines()[1].split(',')[:2], ['cpu-clock', 'software'])
        self.assertEqual(run('import', old).returncode, 0)
        r, _ = self.record('amdzen2', '-e', 'cpu-clock', '-G', 'user.slice',
                           '--interval-count', '1', db='old.db')
        self.assertEqual(r.returncode, 0, r.stderr)
        c = sqlite3.connect(old)
        self.assertEqual(c.execute('PRAGMA user_version').fetchone()[0], 5)
        self.assertEqual(c.execute('SELECT cgroup FROM series ORDER BY id').fetchall(),
                         [(None,), ('user.slice',)])
        c.close()
        r = run('report', old, '-x,', '--per-device')
        self.assertEqual(r.stdout.splitlines()[1].split(',')[:2],
                         ['cpu-clock', 'software in user.slice'])

    def test_a_version_3_recording_is_read_and_migrated(self):
        # a recording of version 3 (value keyed by series, an interval a row; no blocks):
        # report and import read it as it is; a run appended migrates it, its rows kept
        r, db = self.record('yitian710', '-e', 'ali_drw/hif_rd/', '--interval-count', '3')
        self.assertEqual(r.returncode, 0, r.stderr)
        want = run('import', '-x,', db).stdout
        c = sqlite3.connect(db)
        c.executescript(
            'CREATE TABLE v3 (series INTEGER NOT NULL, t_ns INTEGER NOT NULL, raw INTEGER,'
            ' enabled_ns INTEGER, running_ns INTEGER, value REAL, flags INTEGER,'
            ' covered INTEGER, instances INTEGER, PRIMARY KEY (series, t_ns)) WITHOUT ROWID;'
            'INSERT INTO v3 SELECT series, t_ns, raw, enabled_ns, running_ns, value, flags,'
            ' covered, instances FROM value;'
            'DROP TABLE value; ALTER TABLE v3 RENAME TO value;'
            'CREATE TABLE s3 (run INTEGER NOT NULL, t_ns INTEGER NOT NULL, wall_ns INTEGER,'
            ' duration_ns INTEGER, PRIMARY KEY (run, t_ns)) WITHOUT ROWID;'
            'INSERT INTO s3 SELECT run, t_ns, wall_ns, duration_ns FROM sample;'
            'DROP TABLE sample; ALTER TABLE s3 RENAME TO sample;'
            'ALTER TABLE run DROP COLUMN defines; ALTER TABLE run DROP COLUMN ended_wall_ns;'
            'ALTER TABLE run DROP COLUMN lost; PRAGMA user_version=3;')
        c.close()
        self.assertEqual(run('import', '-x,', db).stdout, want)
        r = run('report', db, '-M', 'ddr_read_bandwidth.all', '-j')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)['counted'], 3)
        r, _ = self.record('yitian710', '-e', 'ali_drw/hif_rd/', '--interval-count', '2')
        self.assertEqual(r.returncode, 0, r.stderr)
        c = sqlite3.connect(db)
        self.assertEqual(c.execute('PRAGMA user_version').fetchone()[0], 5)
        self.assertEqual(c.execute('PRAGMA integrity_check').fetchone()[0], 'ok')
        self.assertEqual(len(intervals(c)), 5)
        c.close()
        self.assertEqual(run('import', '-x,', '--run', '1', db).stdout, want)

    def test_max_age_with_a_reader_attached(self):
        r, db = self.record('yitian710', '--interval-count', '2')
        reader = sqlite3.connect(db)
        reader.execute('SELECT count(*) FROM sample').fetchone()
        r, _ = self.record('yitian710', '--interval-count', '10', '--max-age', '3')
        self.assertEqual(r.returncode, 0, r.stderr)
        # the wall clocks of a simulated machine restart with each run: the first run's
        # intervals are as old as the second's first ones, and the newest 3 s stay
        # the first run's intervals, and the second's but the newest 3 s, are gone
        kept = intervals(reader)
        self.assertEqual({i[0] for i in kept}, {2})
        self.assertEqual(len(kept), 4)
        self.assertLessEqual(kept[-1][2] - kept[0][2], 3 * 10**9)
        self.assertEqual(reader.execute('PRAGMA integrity_check').fetchone()[0], 'ok')

    def test_max_size_keeps_what_fits(self):
        # a budget that holds 1,450 intervals keeps at least 1,000 of 1,500 (a tenth is
        # dropped at a time); the file never passes it by more than one interval's write
        args = ('-e', 'ali_drw/hif_rd/')
        r, full = self.record('yitian710', *args, '--interval-count', '1450', db='full.db')
        self.assertEqual(r.returncode, 0, r.stderr)
        c = sqlite3.connect(full)
        c.execute('PRAGMA wal_checkpoint(TRUNCATE)')
        series = [i for (i,) in c.execute('SELECT id FROM series')]
        self.assertEqual(c.execute('PRAGMA page_size').fetchone()[0], 4096)
        c.close()
        budget = os.path.getsize(full)
        # one interval's write: a transaction rewrites its block's row of each series (a
        # page each), the sample row, and at most the pages above them
        page = 4096
        write = (len(series) + 4) * page
        db = os.path.join(self.tmp, 'kept.db')
        p = subprocess.Popen([PMUMON, '--sim', 'yitian710', 'record', '-o', db, *args,
                              '--interval-count', '1500', '--max-size', str(budget)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        most = most_both = 0
        while p.poll() is None:
            try:
                main = os.path.getsize(db)
                wal = os.path.getsize(db + '-wal') if os.path.exists(db + '-wal') else 0
            except FileNotFoundError:
                continue
            most, most_both = max(most, main), max(most_both, main + wal)
        err = p.stderr.read()
        p.stderr.close()
        self.assertEqual(p.wait(), 0, err)
        c = sqlite3.connect(db)
        n = len(intervals(c))
        self.assertEqual(c.execute('PRAGMA integrity_check').fetchone()[0], 'ok')
        c.close()
        self.assertGreaterEqual(n, 1000)
        self.assertLess(n, 1500)
        self.assertLessEqual(os.path.getsize(db), budget)
        # the file, and while a checkpoint moves the WAL into it, the file and the WAL
        self.assertLessEqual(most, budget + write, (most, budget, write))
        self.assertLessEqual(most_both, budget + 2 * write, (most_both, budget, write))

    def test_full_disk(self):
        mnt = os.path.join(self.tmp, 'small')
        os.makedirs(mnt)
        if subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=200k', 'tmpfs', mnt],
                          capture_output=True).returncode != 0:
            self.skipTest('cannot mount a small tmpfs here')
        try:
            db = os.path.join(mnt, 'full.db')
            r = run('--sim', 'yitian710', 'record', '-o', db, '--interval-count', '100000')
            self.assertEqual(r.returncode, 1)
            self.assertIn('the disk is full', r.stderr)
            c = sqlite3.connect(db)
            self.assertEqual(c.execute('PRAGMA integrity_check').fetchone()[0], 'ok')
            self.assertGreater(c.execute('SELECT count(*) FROM sample').fetchone()[0], 0)
            c.close()
            # a disk full before the first interval could be written: nothing is left
            subprocess.run(['umount', mnt])
            subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=8k', 'tmpfs', mnt], check=True)
            r = run('--sim', 'yitian710', 'record', '-o', db, '--interval-count', '5')
            self.assertEqual(r.returncode, 1)
            self.assertIn('the disk is full', r.stderr)
            self.assertIn('nothing of this run was recorded', r.stderr)
            self.assertEqual(os.listdir(mnt), [])
        finally:
            subprocess.run(['umount', mnt])

    def test_refusals(self):
        r = run('--sim', 'yitian710', 'record', '--interval-count', '1')
        self.assertEqual(r.returncode, 2)
        self.assertIn('needs -o FILE.db', r.stderr)
        r = run('--sim', 'yitian710', 'record', '-o', os.path.join(self.tmp, 'x.db'))
        self.assertEqual(r.returncode, 2)
        self.assertIn('needs an end', r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, 'x.db')))
        r = run('report', os.path.join(self.tmp, 'none.db'))
        self.assertEqual(r.returncode, 1)
        r = run('report', 'a.db', '--plot', 'x.jpg')
        self.assertEqual(r.returncode, 2)


def synthetic(path, series, interval_ns=10**9, wall0_ns=1767225600 * 10**9):
    """A recording of docs/record.md's schema written here: one run per device, series
    (name, unit, place, values per interval) of metrics, each interval interval_ns long
    and a block of its own (n = 1: plain numbers)."""
    c = sqlite3.connect(path)
    c.executescript(
        'CREATE TABLE run (id INTEGER PRIMARY KEY, started_wall_ns INTEGER, command TEXT,'
        ' version TEXT, platform TEXT, simulated INTEGER, sim_platform TEXT,'
        ' interval_ms INTEGER, aggr TEXT, cpuid TEXT, defines TEXT, ended_wall_ns INTEGER,'
        ' lost TEXT);'
        'CREATE TABLE series (id INTEGER PRIMARY KEY, run INTEGER NOT NULL, name TEXT NOT NULL,'
        ' unit TEXT, metric INTEGER, snapshot INTEGER, device TEXT, place TEXT, socket INTEGER,'
        ' die INTEGER, channel INTEGER, subchannel INTEGER, cpu INTEGER, domain TEXT,'
        ' source TEXT, cgroup TEXT);'
        'CREATE TABLE sample (run INTEGER NOT NULL, t_ns INTEGER NOT NULL, wall_ns INTEGER,'
        ' duration_ns INTEGER, n INTEGER NOT NULL DEFAULT 1, lengths BLOB,'
        ' PRIMARY KEY (run, t_ns)) WITHOUT ROWID;'
        'CREATE TABLE value (series INTEGER NOT NULL, t_ns INTEGER NOT NULL, raw INTEGER,'
        ' enabled_ns INTEGER, running_ns INTEGER, value REAL, flags INTEGER, covered INTEGER,'
        ' instances INTEGER, PRIMARY KEY (series, t_ns)) WITHOUT ROWID;'
        'PRAGMA user_version=4;')
    c.execute("INSERT INTO run VALUES (1, ?, 'written by a test', '0', '', 0, NULL, ?,"
              " 'device', NULL, NULL, NULL, NULL)", (wall0_ns, interval_ns // 10**6))
    n = max(len(v) for _, _, _, v in series)
    for k in range(n):
        t = (k + 1) * interval_ns
        c.execute('INSERT INTO sample VALUES (1, ?, ?, ?, 1, NULL)',
                  (t, wall0_ns + t, interval_ns))
    for i, (name, unit, place, values) in enumerate(series, 1):
        c.execute('INSERT INTO series (id, run, name, unit, metric, snapshot, device, place)'
                  ' VALUES (?, 1, ?, ?, 1, 0, ?, ?)', (i, name, unit, place, place))
        for k, v in enumerate(values):
            c.execute('INSERT INTO value VALUES (?, ?, 0, ?, ?, ?, 8, 1, 1)',
                      (i, (k + 1) * interval_ns, interval_ns, interval_ns, v))
    c.commit()
    c.close()


def svg_plots(svg):
    """The title, points drawn and colour of each plot of an SVG gnuplot made: a line's
    path is its key's sample line, then its data (points = the L's after the second M +
    1); marks are uses of a point shape, in their line's colour."""
    out = []
    for body in svg.split('<g id="gnuplot_plot_')[1:]:
        title = re.search(r'<text>(.*?)</text>', body)
        path = re.findall(r"d='([^']*)'", body)
        data = path[0].split('M')[2] if path and path[0].count('M') >= 2 else ''
        colour = re.search(r"(?:stroke|color)='(rgb\([^)]*\))'", body.split('</text>', 1)[-1])
        out.append((html.unescape(title.group(1)) if title else None,
                    data.count('L') + 1 if data else 0,
                    colour.group(1).replace(' ', '') if colour else None))
    return out


@unittest.skipUnless(shutil.which('gnuplot'), 'gnuplot (gnuplot-nox) not installed')
class Plots(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        scn = os.path.join(cls.tmp, 'v.scn')
        with open(scn, 'w') as f:
            f.write('jitter 0\nat 3500ms vanish ali_drw_21000\n')
        cls.db = os.path.join(cls.tmp, 'v.db')
        r = run('--sim', 'yitian710:scenario=' + scn, 'record', '-o', cls.db, '-e',
                'ali_drw/hif_rd/', '--interval-count', '8')
        # a device that went away is the machine's doing: the recording ran to its end
        assert r.returncode == 0 and 'ali_drw_21000 went away' in r.stderr, r.stderr
        cls.record_err = r.stderr

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_a_device_gone_is_in_the_run_and_not_a_failure(self):
        c = sqlite3.connect(self.db)
        lost, ended = c.execute('SELECT lost, ended_wall_ns FROM run').fetchone()
        last = c.execute('SELECT max(wall_ns) FROM sample').fetchone()[0]
        c.close()
        self.assertEqual(lost, 'ali_drw_21000')
        self.assertEqual(ended, last)
        self.assertIn('1 device went away during the recording', self.record_err)
        r = run('report', self.db)
        self.assertIn('devices that went away during the run: ali_drw_21000', r.stdout)

    def test_png(self):
        out = os.path.join(self.tmp, 'p.png')
        r = run('report', self.db, '--plot', out)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out, 'rb') as f:
            head = f.read(24)
        self.assertEqual(head[:8], b'\x89PNG\r\n\x1a\n')
        self.assertEqual(struct.unpack('>II', head[16:24]), (1000, 40 + 300))  # one panel

    def test_svg_equal_places_once_the_gap_and_the_total_apart(self):
        # 16 sub-channels at the same rate but the one that went away: one line stands for
        # the 15 equal ones, the other stops where its device went; the total, 16 times a
        # place, in a panel of its own above them, marked where it is partial
        out = os.path.join(self.tmp, 'p.svg')
        r = run('report', self.db, '--per-device', '--plot', out)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out) as f:
            svg = f.read()
        self.assertEqual(svg.count("the machine's total"), 1)
        self.assertEqual(svg.count('ali_drw/hif_rd/ in count/s'), 2)
        plots = {t: n for t, n, _ in svg_plots(svg)}
        self.assertEqual(plots['total'], 8)
        self.assertIn('value in doubt', plots)
        self.assertEqual(plots['die0/ch0/sub1 and 14 equal'], 8)
        self.assertEqual(plots['die0/ch0/sub0'], 3)  # gone at 3.5 s
        # wall-clock time on the x axis: the simulated machine's clock starts 2026-01-01
        self.assertIn('from 2026-01-01', svg)
        self.assertIn('00:00:02', svg)

    def test_a_panel_per_unit_and_the_top_places(self):
        # the default recording, per channel: MB/s and count/s in panels of their own; a
        # metric's 8 channels each on its own line, in distinct colours, the key outside
        scn = os.path.join(self.tmp, 'ch.scn')
        with open(scn, 'w') as f:
            f.write(''.join('ddr.read[%d] %dG\n' % (ch, ch + 1) for ch in range(8)))
        db, out = os.path.join(self.tmp, 'ch.db'), os.path.join(self.tmp, 'ch.svg')
        r = run('--sim', 'yitian710:scenario=' + scn, 'record', '-o', db,
                '--interval-count', '5')
        self.assertEqual(r.returncode, 0, r.stderr)
        r = run('report', db, '--per-channel', '-M', 'ddr_read_bandwidth.all', '-e',
                'ali_drw/hif_rd/', '--plot', out)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out) as f:
            svg = f.read()
        titles = [t for t, _, _ in svg_plots(svg)]
        self.assertIn('ddr_read_bandwidth.all in MB/s', svg)
        self.assertIn('ali_drw/hif_rd/ in count/s', svg)
        places = [t for t in titles if t and t.startswith('die')]
        self.assertEqual(len(places), 16)  # 8 channels in each panel
        colours = set(re.findall(r"stroke='(rgb\([^)]*\))'", svg))
        self.assertGreaterEqual(len(colours), 8)
        # 16 places of different means (a recording written here: the simulator's
        # sub-channels of a channel count alike): the 7 highest by mean
        db, out = os.path.join(self.tmp, 'sixteen.db'), os.path.join(self.tmp, 'dev.svg')
        synthetic(db, [('m', 'MB/s', 'p%02d' % i, [100 * i + k for k in range(5)])
                       for i in range(16)])
        r = run('report', db, '--per-device', '--plot', out)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out) as f:
            svg = f.read()
        self.assertIn('the 7 of 16 places highest on average', svg)
        places = [t for t, _, _ in svg_plots(svg) if t and t.startswith('p')]
        self.assertEqual(sorted(places), ['p%02d' % i for i in range(9, 16)])

    def test_doubtful_values_are_marked(self):
        # per channel, a channel with a sub-channel gone goes on at half: partial and
        # lost, each such point marked, under one legend entry; the rest unmarked
        scn = os.path.join(self.tmp, 'p.scn')
        with open(scn, 'w') as f:
            f.write('jitter 0\nat 3500ms vanish ali_drw_21000\n')
        db, out = os.path.join(self.tmp, 'p.db'), os.path.join(self.tmp, 'm.svg')
        run('--sim', 'yitian710:scenario=' + scn, 'record', '-o', db, '--per-channel', '-e',
            'ali_drw/hif_rd/', '--interval-count', '8')
        r = run('report', db, '--per-channel', '--plot', out)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out) as f:
            svg = f.read()
        plots = svg_plots(svg)
        titles = [t for t, _, _ in plots]
        colour = {t: c for t, _, c in plots if t}
        # one key entry for the marks of a panel, after its lines; they are in the colour
        # of the line of die0/ch0, the channel that lost a sub-channel, and of the total in
        # its own panel; the other channels, equal, are one line
        marks = [c for t, _, c in plots if t == 'value in doubt' or t is None]
        self.assertEqual(titles.count('value in doubt'), 2, titles)
        self.assertEqual(sorted(marks), sorted([colour['total'], colour['die0/ch0']]))
        self.assertNotEqual(colour['die0/ch0'], colour['die0/ch1 and 6 equal'])


CHROMIUM = shutil.which('chromium')


@unittest.skipUnless(CHROMIUM, 'chromium (Debian package) not installed')
class Page(unittest.TestCase):
    """report --html in a real browser, offline: its charts hold the series report's
    statistics are of (data-series: place -> values drawn and their mean)."""

    def test_the_page_draws_the_recording(self):
        tmp = tempfile.mkdtemp()
        try:
            db, page = os.path.join(tmp, 'r.db'), os.path.join(tmp, 'r.html')
            r = run('--sim', 'yitian710', 'record', '-o', db, '--interval-count', '6')
            self.assertEqual(r.returncode, 0, r.stderr)
            r = run('report', db, '--per-channel', '-M', 'ddr_*', '--html', page, '-j')
            self.assertEqual(r.returncode, 0, r.stderr)
            stats = [json.loads(l) for l in r.stdout.splitlines()]
            with open(page) as f:
                text = f.read()
            # self-contained: no URL to load anything from
            self.assertNotRegex(text, r'(src|href)=')
            self.assertIn('uPlot', text)
            dom = subprocess.run([CHROMIUM, '--headless', '--no-sandbox', '--disable-gpu',
                                  '--virtual-time-budget=10000', '--dump-dom',
                                  'file://' + page], capture_output=True, text=True,
                                 timeout=120)
            self.assertEqual(dom.returncode, 0, dom.stderr[-2000:])
            charts = {}
            for series, name in re.findall(r'data-series="([^"]*)" data-name="([^"]*)"',
                                           dom.stdout):
                charts[html.unescape(name)] = json.loads(html.unescape(series))
            names = {'ddr_read_bandwidth.all', 'ddr_write_bandwidth.all',
                     'ddr_bandwidth.all'}
            # a chart per metric per place, and the totals (16 times a channel) apart
            self.assertEqual(set(charts), names | {n + ' (total)' for n in names})
            self.assertEqual(dom.stdout.count('class="uplot'), 6)
            for o in stats:
                got = charts[o['name']][o['place']]
                self.assertEqual(got['n'], 6)
                self.assertTrue(abs(got['mean'] - o['mean']) <= 1e-6 * o['mean'], (o, got))
            total = run('report', db, '-M', 'ddr_read_bandwidth.all', '-j')
            total = json.loads(total.stdout)
            got = charts['ddr_read_bandwidth.all (total)']['total']
            self.assertTrue(abs(got['mean'] - total['mean']) <= 1e-6 * total['mean'])
        finally:
            shutil.rmtree(tmp)


if __name__ == '__main__':
    unittest.main(verbosity=2)
