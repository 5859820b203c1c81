#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""perf stat's options that pmumon takes in its shared option parser (issue 14
item 12): each run through pmumon on the simulator, and, where this machine
lets perf count (software events), side by side with perf stat, comparing
acceptance and rows. Side-by-side tests skip where perf cannot run."""
import csv
import glob
import io
import os
import shutil
import subprocess
import sys
import unittest

PMUMON = os.environ['PMUMON']
FIXTURES = os.environ['PMUMON_TEST_SYSFS']


def run(*args, timeout=60, **kw):
    return subprocess.run([PMUMON] + list(args), capture_output=True, text=True,
                          timeout=timeout, **kw)


def perf(*args, timeout=60):
    return subprocess.run(['perf'] + list(args), capture_output=True, text=True,
                          timeout=timeout)


def rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def perf_works():
    if not shutil.which('perf'):
        return False
    r = perf('stat', '-a', '-x,', '-e', 'cpu-clock', 'true')
    return r.returncode == 0 and 'cpu-clock' in r.stderr


def pmumon_works():
    r = run('stat', '-a', '-e', 'cpu-clock', '--timeout', '10', '-x,')
    return r.returncode == 0


PERF = perf_works()
PMUMON_LIVE = pmumon_works()
need_both = unittest.skipUnless(PERF and PMUMON_LIVE,
                                'perf stat and pmumon stat cannot both count here')
need_live = unittest.skipUnless(PMUMON_LIVE, 'perf events are not permitted here')


def perf_labels(stderr):
    """The aggregation labels of perf stat -x, output (its first field)."""
    return [l.split(',')[0] for l in stderr.splitlines()
            if l.count(',') > 3 and not l.startswith('#')]


def read(path):
    with open(path) as f:
        return f.read().strip()


def sysfs_caches(level=None):
    """perf's cache labels from this machine's sysfs: S-D-L-ID, ID the lowest sharing CPU."""
    labels = set()
    for cpu_dir in glob.glob('/sys/devices/system/cpu/cpu[0-9]*'):
        cpu = int(cpu_dir.rsplit('cpu', 1)[1])
        if not os.path.isdir(cpu_dir + '/topology'):
            continue
        best = None
        for idx in glob.glob(cpu_dir + '/cache/index*'):
            lvl = int(read(idx + '/level'))
            shared = read(idx + '/shared_cpu_list')
            first = int(shared.split(',')[0].split('-')[0]) if shared else cpu
            if (level and lvl == level) or (not level and (not best or lvl > best[0])):
                best = (lvl, first)
        pkg = int(read(cpu_dir + '/topology/physical_package_id'))
        die_file = cpu_dir + '/topology/die_id'
        die = int(read(die_file)) if os.path.exists(die_file) else 0
        if best:
            labels.add('S%d-D%d-L%d-ID%d' % (pkg, die, best[0], best[1]))
    return labels


class PerCoreNodeCache(unittest.TestCase):
    """--per-core, --per-node, --per-cache[=LEVEL] on the simulated EPYC (2 sockets)."""

    def stat(self, *opts, sim='amdzen2:sockets=2'):
        r = run('--sim', sim, 'stat', '-a', '-x,', '-e', 'cpu-clock', *opts, '--', 'sleep', '1')
        self.assertEqual(r.returncode, 0, r.stderr)
        return [w for w in rows(r.stdout) if w['type'] == 'total']

    def test_per_core(self):
        got = self.stat('--per-core')
        self.assertEqual(len(got), 128)  # 2 sockets x 64 cores, 2 threads each
        self.assertEqual(got[0]['device'], 'S0-D0-C0')
        self.assertEqual(got[-1]['device'], 'S1-D0-C63')
        self.assertEqual(float(got[0]['value']), 2000.0)  # two threads' msec

    def test_per_node(self):
        got = self.stat('--per-node')
        self.assertEqual([w['device'] for w in got], ['N0', 'N1'])
        self.assertEqual(float(got[1]['value']), 128000.0)

    def test_per_cache(self):
        got = self.stat('--per-cache')  # the last level: L3 per CCX of 4 cores
        self.assertEqual(len(got), 32)
        self.assertEqual(got[1]['device'], 'S0-D0-L3-ID4')
        self.assertEqual(float(got[1]['value']), 8000.0)
        for level, n in (('L1', 128), ('l2', 128), ('L3', 32)):
            self.assertEqual(len(self.stat('--per-cache=' + level)), n, level)

    def test_table_and_json(self):
        r = run('--sim', 'amdzen2', 'stat', '-a', '--per-node', '-e', 'cpu-clock', '--',
                'sleep', '1')
        self.assertRegex(r.stdout, r'(?m)^N0 +128,000\.00 msec +cpu-clock')
        r = run('--sim', 'amdzen2', 'stat', '-a', '--per-cache=L3', '-j', '-e', 'cpu-clock',
                '--', 'sleep', '1')
        self.assertIn('"domain":"S0-D0-L3-ID60"', r.stdout.replace(' ', ''))

    def test_missing_level_and_bad_values(self):
        # the Yitian 710 model lists L1 and L2 only
        r = run('--sim', 'yitian710', 'stat', '-a', '--per-cache=L3', '-e', 'cpu-clock', '--',
                'sleep', '1')
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn('no CPU lists an L3 cache', r.stderr)
        self.assertIn('--per-cache', r.stderr)
        for bad in ('L5', 'L0', '3', 'LLC', 'L'):
            r = run('stat', '--per-cache=' + bad, '-e', 'cpu-clock', '--', 'true')
            self.assertEqual(r.returncode, 2, bad)
            self.assertIn('--per-cache takes a cache level as perf writes it', r.stderr)
        r = run('stat', '--per-core', '--per-node', '-e', 'cpu-clock', '--', 'true')
        self.assertEqual(r.returncode, 2)
        self.assertIn('--merge, --per-core, --per-node, --per-cache', r.stderr)

    def test_uncore_rows(self):
        # the DF counts per socket: per node (NPS1) its rows are the sockets'; the
        # L3s add up within a node's row
        r = run('--sim', 'amdzen2:sockets=2', 'stat', '-a', '-x,', '--per-node', '-e',
                'amd_df/event=0x7,umask=0x38/', '-e', 'amd_l3/event=0x4,umask=0xff/', '--',
                'sleep', '1')
        self.assertEqual(r.returncode, 0, r.stderr)
        got = {(w['event'].split('/')[0], w['device']) for w in rows(r.stdout)}
        self.assertEqual(got, {('amd_df', 'S0'), ('amd_df', 'S1'), ('amd_l3', 'N0'),
                               ('amd_l3', 'N1')})

    def test_import_says_what_is_missing(self):
        rec = run('--sim', 'amdzen2', 'stat', '-a', '-x,', '-A', '-e', 'cpu-clock', '--',
                  'sleep', '1').stdout
        r = run('import', '--per-node', '-', input=rec)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn('lists no node', r.stderr)

    def test_help(self):
        r = run('stat', '--help')
        for t in ('--per-core', 'S0-D0-C3', '--per-cache[=L2]', 'S0-D0-L3-ID8', '--per-node',
                  '--no-merge'):
            self.assertIn(t, r.stdout)

    def test_no_merge_is_per_device(self):
        a = run('--sim', 'yitian710', 'stat', '-a', '-x,', '--no-merge', '-e',
                'ali_drw/hif_rd/', '--', 'sleep', '1')
        b = run('--sim', 'yitian710', 'stat', '-a', '-x,', '--per-device', '-e',
                'ali_drw/hif_rd/', '--', 'sleep', '1')
        self.assertEqual(a.returncode, 0, a.stderr)
        self.assertEqual(a.stdout.replace(a.stdout.split('\n')[1].split(',')[2], ''),
                         b.stdout.replace(b.stdout.split('\n')[1].split(',')[2], ''))
        self.assertEqual(len(rows(a.stdout)), 16)


class SideBySide(unittest.TestCase):
    """perf stat and pmumon stat on this machine, the same option, the same rows."""

    def both(self, *opts, event='cpu-clock'):
        p = perf('stat', '-a', '-x,', '-e', event, *opts, 'sleep', '0.1')
        m = run('stat', '-a', '-x,', '-e', event, *opts, '--', 'sleep', '0.1')
        return p, m

    @need_both
    def test_per_core_and_node(self):
        for opt in ('--per-core', '--per-node', '--per-socket', '--per-die'):
            p, m = self.both(opt)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(m.returncode, 0, m.stderr)
            want = perf_labels(p.stderr)
            got = [w['device'] if w['device'] else
                   ('S%s-D%s' % (w['socket'], w['die']) if opt == '--per-die' else
                    'S' + w['socket']) for w in rows(m.stdout)]
            self.assertEqual(got, want, opt)

    @need_live
    def test_per_cache_against_sysfs(self):
        # newer than perf 6.1: checked against sysfs, as perf's current source reads it
        for level in (None, 1, 2, 3):
            want = sysfs_caches(level)
            if not want:
                continue
            opt = '--per-cache' + ('=L%d' % level if level else '')
            m = run('stat', '-a', '-x,', '-e', 'cpu-clock', opt, '--', 'sleep', '0.1')
            self.assertEqual(m.returncode, 0, m.stderr)
            self.assertEqual({w['device'] for w in rows(m.stdout)}, want, opt)

    @need_both
    def test_no_merge(self):
        p, m = self.both('--no-merge')
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(m.returncode, 0, m.stderr)
        self.assertEqual(len(perf_labels(p.stderr)), len(rows(m.stdout)))


if __name__ == '__main__':
    unittest.main(verbosity=2)
