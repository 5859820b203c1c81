#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""pmumon record and report (issue 16): a recording's values against the
scenario's truth, report's statistics against hand-computed ones on a
phased scenario, SIGKILL mid-recording, a full disk, versions and runs,
retention, and plots (PNG header, one SVG series per place, the line that
stops where a device vanished)."""
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
    return subprocess.run([PMUMON] + list(args), capture_output=True, text=True, timeout=120,
                          **kw)


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
        self.assertEqual(c.execute('PRAGMA user_version').fetchone()[0], 4)
        self.assertEqual(c.execute('PRAGMA journal_mode').fetchone()[0], 'wal')
        # nothing multiplexed: every value's interval is itself (docs/bounds.md)
        self.assertEqual(c.execute('SELECT count(*) FROM value WHERE lo IS NOT value'
                                   ' OR hi IS NOT value OR bound != 0').fetchone()[0], 0)
        self.assertEqual(c.execute('PRAGMA integrity_check').fetchone()[0], 'ok')
        run_row = c.execute('SELECT simulated, sim_platform, interval_ms, aggr, command'
                            ' FROM run').fetchone()
        self.assertEqual(run_row[:4], (1, 'yitian710', 1000, 'channel'))
        self.assertIn('record -o', run_row[4])
        self.assertEqual(c.execute('SELECT count(*) FROM sample').fetchone()[0], 4)
        rows = c.execute('SELECT s.name, s.place, s.channel, v.raw, v.value, v.enabled_ns,'
                         ' v.running_ns, v.flags FROM value v JOIN series s'
                         ' ON s.id = v.series').fetchall()
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
        for line in r.stdout.splitlines()[1:]:
            f = line.split(',')
            self.assertEqual(f[-1], 'measured')
            self.assertTrue(float(f[-4]) <= float(f[6]) <= float(f[-3]), f)
        r = run('report', db)
        self.assertRegex(r.stdout, r'multiplexed, mean \u00b1 [0-9.e-]+ %, widest \u00b1')

    def test_report_statistics_of_phases(self):
        r, db = self.record('yitian710:scenario=' + self.scn(PHASES), '--per-channel',
                            '-M', 'ddr_read_bandwidth.all', '--interval-count', '10')
        self.assertEqual(r.returncode, 0, r.stderr)
        r = run('report', db, '-M', 'ddr_read_bandwidth.all', '--above', '6400', '-x,')
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(lines[0], 'name,place,unit,intervals,counted,min,mean,p50,p95,max,'
                                   'above_s,quality,mean_lo,mean_hi,widest_pct,bound')
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
            self.assertEqual(f[12:], [f[6], f[6], '0', 'exact'])
        # a window: the burst alone
        r = run('report', db, '-M', 'ddr_read_bandwidth.all', '--from', '3', '--to', '5',
                '-x,')
        f = r.stdout.splitlines()[1].split(',')
        self.assertEqual(f[3], '3')
        self.assertTrue(abs(float(f[6]) - 12800) <= 1e-6, f)

    def test_above_a_share_of_the_channel_peak(self):
        r, db = self.record('yitian710:scenario=' + self.scn(PHASES), '--per-channel',
                            '-M', 'ddr_read_bandwidth.all', '--interval-count', '10')
        self.assertEqual(r.returncode, 0, r.stderr)
        # 80% of a 16 GB/s peak is 12.8 GB/s: the burst is not above it; 50% is 8 GB/s
        for pct, want in (('50%', 3), ('80%', 0)):
            r = run('report', db, '-M', 'ddr_read_bandwidth.all', '--define',
                    'channel_peak=16e9', '--above', pct, '-j')
            self.assertEqual(r.returncode, 0, r.stderr)
            rows = [__import__('json').loads(l) for l in r.stdout.splitlines()]
            self.assertEqual(len(rows), 8)
            self.assertTrue(all(abs(o['above_s'] - want) <= 1e-9 for o in rows), (pct, rows))
        r = run('report', db, '--above', '80%')
        self.assertEqual(r.returncode, 2)
        self.assertIn('--define channel_peak=', r.stderr)
        # a share of a peak means nothing for a count: no time, not a 0
        r = run('report', db, '-e', 'ali_drw/hif_rd/', '--define', 'channel_peak=16e9',
                '--above', '50%', '-j')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(all(__import__('json').loads(l)['above_s'] is None
                            for l in r.stdout.splitlines()))

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
        # and report's statistics of the recording are the live intervals'
        per = {}
        for row in __import__('csv').DictReader(live.stdout.splitlines()):
            if row['type'] == 'interval':
                per.setdefault((row['event'], row['device']), []).append(float(row['value']))
        rep = run('report', db, '-j')
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
        # a file import reads is reported as its recording would be
        with open(os.path.join(self.tmp, 'live.csv'), 'w') as f:
            f.write(live.stdout)
        again = run('report', os.path.join(self.tmp, 'live.csv'), '-M',
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

    def test_import_of_a_per_channel_recording_says_why_not(self):
        r, db = self.record('yitian710', '--per-channel', '-e', 'ali_drw/hif_rd/',
                            '--interval-count', '2')
        self.assertEqual(r.returncode, 0, r.stderr)
        r = run('import', db)
        self.assertEqual(r.returncode, 2)
        self.assertIn('recorded per channel (--per-channel)', r.stderr)
        self.assertIn('record with --per-device', r.stderr)
        self.assertEqual(run('report', db).returncode, 0)  # report reads it as it is

    def test_report_of_perf_output(self):
        # perf stat -x, -I of Yitian's 16 DDR PMUs (tests/data/import), per PMU: what
        # import computes, interval by interval, is what report sums up
        fixture = os.path.join(os.environ['PMUMON_SOURCE_ROOT'], 'tests', 'data', 'import',
                               'constructed-yitian710-perf61-x.csv')
        imp = run('import', '-x,', '--per-device', '-M', 'ddr_read_bandwidth.all', fixture)
        self.assertEqual(imp.returncode, 0, imp.stderr)
        rep = run('report', fixture, '-M', 'ddr_read_bandwidth.all', '-j')
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
        n = c.execute('SELECT count(*) FROM sample').fetchone()[0]
        self.assertGreaterEqual(n, 8)
        series = c.execute('SELECT count(*) FROM series').fetchone()[0]
        # every interval that is there is whole: all its series' values
        self.assertEqual(c.execute('SELECT count(*) FROM value').fetchone()[0], n * series)
        r = run('report', db)
        self.assertEqual(r.returncode, 0, r.stderr)

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
        durs = [d for (d,) in c.execute('SELECT duration_ns FROM sample ORDER BY t_ns')]
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
        self.assertIn('schema version 7, newer than this pmumon\'s (4)', r.stderr)
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
        r = run('report', db, '-x,')
        self.assertEqual(r.returncode, 0, r.stderr)
        rep = {(l.split(',')[0], l.split(',')[1]): l.split(',')[6]
               for l in r.stdout.splitlines()[1:]}
        self.assertEqual(float(rep[('cpu-clock', 'software in user.slice')]), 16000)
        self.assertEqual(float(rep[('cpu-clock', 'software in system.slice')]), 32000)
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
        r = run('report', old, '-x,')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines()[1].split(',')[:2], ['cpu-clock', 'software'])
        self.assertEqual(run('import', old).returncode, 0)
        r, _ = self.record('amdzen2', '-e', 'cpu-clock', '-G', 'user.slice',
                           '--interval-count', '1', db='old.db')
        self.assertEqual(r.returncode, 0, r.stderr)
        c = sqlite3.connect(old)
        self.assertEqual(c.execute('PRAGMA user_version').fetchone()[0], 4)
        self.assertEqual(c.execute('SELECT cgroup FROM series ORDER BY id').fetchall(),
                         [(None,), ('user.slice',)])
        c.close()
        r = run('report', old, '-x,')
        self.assertEqual(r.stdout.splitlines()[1].split(',')[:2],
                         ['cpu-clock', 'software in user.slice'])

    def test_max_age_with_a_reader_attached(self):
        r, db = self.record('yitian710', '--interval-count', '2')
        reader = sqlite3.connect(db)
        reader.execute('SELECT count(*) FROM sample').fetchone()
        r, _ = self.record('yitian710', '--interval-count', '10', '--max-age', '3')
        self.assertEqual(r.returncode, 0, r.stderr)
        # the wall clocks of a simulated machine restart with each run: the first run's
        # intervals are as old as the second's first ones, and the newest 3 s stay
        walls = [w for (w,) in reader.execute('SELECT wall_ns FROM sample ORDER BY wall_ns')]
        self.assertTrue(walls)
        self.assertLessEqual(walls[-1] - walls[0], 3 * 10**9)
        self.assertEqual(reader.execute('PRAGMA integrity_check').fetchone()[0], 'ok')

    def test_max_size(self):
        r, db = self.record('yitian710', '--interval-count', '300', '--max-size', '256k')
        self.assertEqual(r.returncode, 0, r.stderr)
        size = os.path.getsize(db) + (os.path.getsize(db + '-wal')
                                      if os.path.exists(db + '-wal') else 0)
        self.assertLessEqual(size, 256 * 1024 + 64 * 1024)  # one interval may pass it
        c = sqlite3.connect(db)
        n = c.execute('SELECT count(*) FROM sample').fetchone()[0]
        self.assertTrue(0 < n < 300, n)

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
        assert r.returncode == 1 and 'ali_drw_21000 went away' in r.stderr, r.stderr

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_png(self):
        out = os.path.join(self.tmp, 'p.png')
        r = run('report', self.db, '--plot', out)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out, 'rb') as f:
            head = f.read(24)
        self.assertEqual(head[:8], b'\x89PNG\r\n\x1a\n')
        self.assertEqual(struct.unpack('>II', head[16:24]), (1000, 560))

    def test_svg_one_series_per_place_and_the_gap(self):
        out = os.path.join(self.tmp, 'p.svg')
        r = run('report', self.db, '--plot', out)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out) as f:
            svg = f.read()
        plots = svg.split('<g id="gnuplot_plot_')[1:]
        plots[-1] = plots[-1].split('<g id="gnuplot_plot_')[0]
        self.assertEqual(len(plots), 16)  # one per sub-channel
        points = {}
        for body in plots:
            title = re.search(r'<text>(.*?)</text>', body).group(1)
            path = re.findall(r"d='([^']*)'", body)[0]
            # the legend's sample line first, then the data: points = its L's + 1
            data = path.split('M')[2]
            points[title] = data.count('L') + 1
        self.assertEqual(points.pop('ali_drw/hif_rd/ die0/ch0/sub0'), 3)  # gone at 3.5 s
        self.assertEqual(set(points.values()), {8})

    def test_doubtful_values_are_marked(self):
        # per channel, a channel with a sub-channel gone goes on at half: partial and
        # lost, each such point marked, under one legend entry; the rest unmarked
        scn = os.path.join(self.tmp, 'p.scn')
        with open(scn, 'w') as f:
            f.write('jitter 0\nat 3500ms vanish ali_drw_21000\n')
        db, out = os.path.join(self.tmp, 'p.db'), os.path.join(self.tmp, 'm.svg')
        run('--sim', 'yitian710:scenario=' + scn, 'record', '-o', db, '--per-channel', '-e',
            'ali_drw/hif_rd/', '--interval-count', '8')
        r = run('report', db, '--plot', out)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out) as f:
            svg = f.read()
        plots = svg.split('<g id="gnuplot_plot_')[1:]
        titles = [re.search(r'<text>(.*?)</text>', b) for b in plots]
        self.assertEqual(len(plots), 9)  # 8 channels, and the marks of one
        marks = [i for i, t in enumerate(titles)
                 if t and t.group(1).startswith('value in doubt')]
        self.assertEqual(len(marks), 1)
        # they follow the line of die0/ch0, the channel that lost a sub-channel
        self.assertEqual(titles[marks[0] - 1].group(1), 'ali_drw/hif_rd/ die0/ch0')


if __name__ == '__main__':
    unittest.main(verbosity=2)
