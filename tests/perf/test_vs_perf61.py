#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Side by side with the real perf 6.1 on this machine (issue 30): perf stat's table,
-x and -j, and pmumon's perf mode (the build tree's link perf -> pmumon), for the
events this machine counts, over -a, -A, --per-core, --per-socket, --per-node,
--per-die, -I and --summary, equal byte for byte once the numbers are masked: each
number (and the K/M/G of a rate, which follows the number) becomes N, keeping the
width of a table's right-aligned field (the precision of -r's "+- spread" follows the
spread, so there only the text is compared). Skips (77) without perf 6.1 or where perf
may not count system-wide."""
import os
import re
import subprocess
import sys
import unittest

PMUMON_PERF = os.path.abspath(os.environ['PMUMON_PERF_LINK'])
REAL_PERF = '/usr/bin/perf'


def real_perf_61():
    try:
        r = subprocess.run([REAL_PERF, '--version'], capture_output=True, text=True)
    except OSError:
        return False
    return r.returncode == 0 and r.stdout.startswith('perf version 6.1.')


if not real_perf_61():
    print('skipped: no perf 6.1 at %s to compare with (linux-perf)' % REAL_PERF)
    sys.exit(77)
if subprocess.run([REAL_PERF, 'stat', '-a', '-x,', '-e', 'cpu-clock', 'true'],
                  capture_output=True).returncode != 0:
    print('skipped: perf may not count system-wide here')
    sys.exit(77)

ENV = {k: v for k, v in os.environ.items() if k not in ('PMUMON_SIM', 'PMUMON_ROOT')}


def mask(text, table):
    out = []
    for line in text.splitlines():
        # a rate's K/M/G belongs to its number: "1.746 K/sec" is "1.746 /sec " wide
        line = re.sub(r'([KMG])/sec', r'/sec ', line)
        if table:
            # a number with the blanks before it (a right-aligned field) keeps its width
            line = re.sub(r'( *)([0-9][0-9.,]*)', lambda m: ' ' * (len(m.group(0)) - 1) + 'N',
                          line)
            # -r's "+- %.*f" is left-aligned, its precision the spread's (get_precision)
            line = re.sub(r'\+- +N', '+- N', line)
        else:
            line = re.sub(r'[0-9][0-9.]*', 'N', line).replace('/sec ', '/sec')
        out.append(line)
    return out


def both(args):
    """(perf's, pmumon's) standard error for `perf stat ARGS`, and whether a table."""
    table = not any(a.startswith('-x') or a == '-j' for a in args)
    got = []
    for exe in (REAL_PERF, PMUMON_PERF):
        r = subprocess.run([exe, 'stat'] + args, capture_output=True, text=True, env=ENV,
                           timeout=120)
        got.append((r.returncode, r.stdout, r.stderr))
    return got, table


class SideBySide(unittest.TestCase):
    def same(self, args):
        (real, mine), table = both(args)
        self.assertEqual(real[0], mine[0], (args, real[2], mine[2]))
        self.assertEqual((real[1], mine[1]), ('', ''))  # everything on standard error
        want, got = mask(real[2], table), mask(mine[2], table)
        self.assertEqual(got, want, '\nperf %s\n--- perf 6.1:\n%s\n--- pmumon:\n%s' %
                         (' '.join(args), real[2], mine[2]))

    def test_aggregations(self):
        for agg in ([], ['-a'], ['-a', '-A'], ['-a', '--per-core'], ['-a', '--per-socket'],
                    ['-a', '--per-node'], ['-a', '--per-die'], ['-a', '-A', '--no-merge']):
            for fmt in ([], ['-x,'], ['-x;'], ['-j']):
                with self.subTest(agg=agg, fmt=fmt):
                    self.same(agg + fmt + ['--', 'sleep', '0.1'])

    def test_events(self):
        # events this machine counts, with and without a clock to take a rate from
        for ev in ('msr/tsc/,duration_time', 'cpu-clock,msr/tsc/,page-faults:u',
                   'task-clock,context-switches,cs,faults', '1:1,1:2',
                   '{cpu-clock,page-faults},msr/tsc/'):
            # per core: duration_time (on CPU 0) is <not counted> in the other cores'
            for agg in ([], ['-a'], ['-a', '-A'], ['-a', '--per-core'], ['-a', '--per-socket']):
                for fmt in ([], ['-x,'], ['-j']):
                    with self.subTest(ev=ev, agg=agg, fmt=fmt):
                        self.same(agg + fmt + ['-e', ev, '--', 'sleep', '0.1'])

    def test_intervals(self):
        # a fixed count: both stop after it, with no shorter last interval
        for agg in (['-a'], ['-a', '-A'], ['-a', '--per-socket'], ['-a', '--per-core']):
            for fmt in ([], ['-x,'], ['-j']):
                for extra in ([], ['--summary']):
                    with self.subTest(agg=agg, fmt=fmt, extra=extra):
                        self.same(agg + fmt + extra + ['-I', '100', '--interval-count', '2'])

    def test_repeat_and_output(self):
        self.same(['-r', '2', '-e', 'task-clock,duration_time', 'true'])  # counts that differ per run: both print a spread
        self.same(['-r', '2', '-x,', '-e', 'task-clock,page-faults', 'true'])
        self.same(['--no-big-num', '-e', 'task-clock', 'true'])

    def test_locales(self):
        # perf's setlocale(LC_ALL, ""): its table groups digits as the locale does, and
        # its decimal point is the locale's everywhere (de_DE: "100,00" in -x too)
        import shutil
        import tempfile
        if not shutil.which('localedef') or not os.path.exists('/usr/share/i18n/locales/de_DE'):
            self.skipTest('no localedef and locale sources (Debian: locales) to make one')
        with tempfile.TemporaryDirectory() as d:
            for loc in ('en_US', 'de_DE'):
                subprocess.run(['localedef', '-i', loc, '-f', 'UTF-8',
                                os.path.join(d, loc + '.UTF-8')], check=True,
                               capture_output=True)
            global ENV
            saved = ENV
            try:
                for loc in ('en_US.UTF-8', 'de_DE.UTF-8'):
                    ENV = dict(saved, LOCPATH=d, LC_ALL=loc)
                    for fmt in ([], ['-x,'], ['-j']):
                        with self.subTest(loc=loc, fmt=fmt):
                            self.same(['-a'] + fmt + ['-e', 'msr/tsc/,cpu-clock', 'sleep',
                                                      '0.1'])
                            self.same(fmt + ['-r', '2', '-e', 'task-clock', 'true'])
            finally:
                ENV = saved

    def test_not_supported_exit(self):
        # nothing this machine counts: perf prints the rows and exits 0; so does perf mode
        self.same(['-x,', '-e', 'L1-icache-load-misses', 'true'])


def perf_tree():
    """perf 6.1's own pmu-events tree (scripts/perf-tree), or None without the tarball."""
    r = subprocess.run([os.path.join(os.environ['PMUMON_SOURCE_ROOT'], 'scripts/perf-tree'),
                        os.environ['PMUMON_PERF_TESTS_CACHE'], '6.1'],
                       capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else None


class List(unittest.TestCase):
    """perf list, byte for byte: with perf 6.1's own pmu-events tree given to pmumon
    (--events-dir), its metrics are the ones perf 6.1 has built in, so the whole list
    compares; without it, the classes that come from the machine alone."""

    def compare(self, args, events_dir=None):
        real = subprocess.run([REAL_PERF, 'list'] + args, capture_output=True, text=True,
                              env=ENV)
        pre = ['--events-dir', events_dir] if events_dir else []
        mine = subprocess.run([PMUMON_PERF] + pre + ['list'] + args, capture_output=True,
                              text=True, env=ENV)
        self.assertEqual((mine.returncode, mine.stdout), (real.returncode, real.stdout),
                         (args, mine.stderr))

    def test_machine_classes(self):
        for raw in ([], ['--raw-dump']):
            for what in (['hw'], ['sw'], ['cache'], ['tracepoint'], ['pmu'], ['hw', 'sw'],
                         ['sched:*'], ['page']):
                with self.subTest(raw=raw, what=what):
                    self.compare(raw + what)

    def test_whole_list_with_perfs_tree(self):
        tree = perf_tree()
        if not tree:
            self.skipTest('no linux-source-6.1 tarball for perf 6.1\'s pmu-events tree')
        for raw in ([], ['--raw-dump']):
            for what in ([], ['metric'], ['metricgroup'], ['metrics', 'metricgroups']):
                with self.subTest(raw=raw, what=what):
                    self.compare(raw + what, tree)


if __name__ == '__main__':
    unittest.main(verbosity=2)
