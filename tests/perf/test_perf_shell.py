#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""perf 6.1's own stat tests (tools/perf/tests/shell from Debian's linux-source-6.1,
scripts/perf-shell-tests), run through the build tree's link perf -> pmumon: pmumon
under the name perf passes the tests perf 6.1 passes (issue 30). Each test also
checks that the script had something to check (a test of nothing passes too).
Skips (77) without the tarball, and each test skips where this machine does not let
perf count system-wide."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

PERF = os.environ['PMUMON_PERF_LINK']
SRC = os.environ['PMUMON_SOURCE_ROOT']
CACHE = os.environ['PMUMON_PERF_TESTS_CACHE']

r = subprocess.run([os.path.join(SRC, 'scripts/perf-shell-tests'), CACHE, '6.1'],
                   capture_output=True, text=True)
if r.returncode == 77:
    print('skipped: ' + r.stderr.strip())
    sys.exit(77)
if r.returncode != 0:
    sys.exit('scripts/perf-shell-tests: ' + r.stderr)
SHELL = r.stdout.strip()

# the link first: every `perf` the scripts run is pmumon
ENV = dict(os.environ, PATH=os.path.dirname(os.path.abspath(PERF)) + ':' + os.environ['PATH'])
for k in ('PMUMON_SIM', 'PMUMON_ROOT'):
    ENV.pop(k, None)


def perf(*args, env=ENV, timeout=120):
    return subprocess.run(['perf'] + list(args), capture_output=True, text=True, env=env,
                          timeout=timeout)


def script(name, env=ENV, text=None):
    """Run one of perf's test scripts (or text, a changed copy of it) from its directory."""
    path = os.path.join(SHELL, name)
    if text is not None:
        fd, path = tempfile.mkstemp(suffix='.sh', dir=SHELL)
        with os.fdopen(fd, 'w') as f:
            f.write(text)
    try:
        return subprocess.run(['bash', path], capture_output=True, text=True, env=env,
                              cwd=SHELL, timeout=600)
    finally:
        if text is not None:
            os.unlink(path)


def system_wide_ok():
    return perf('stat', '-a', '-x,', '-e', 'cpu-clock', 'true').returncode == 0


SYSTEM_WIDE = system_wide_ok()


class PerfStatTests(unittest.TestCase):
    def setUp(self):
        if not SYSTEM_WIDE:
            self.skipTest('perf events are not permitted system-wide here')

    def run_checks(self, name, n):
        r = script(name)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        # as root every check runs: none may be skipped, all say [Success]
        self.assertNotIn('[Skip]', r.stdout)
        self.assertEqual(r.stdout.count('[Success]'), n, r.stdout)

    def test_csv_output(self):
        self.run_checks('stat+csv_output.sh', 10)

    def test_json_output(self):
        self.run_checks('stat+json_output.sh', 10)

    def test_csv_summary(self):
        r = script('stat+csv_summary.sh')
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        # its first check reads the 'summary' rows: there are some
        r = perf('stat', '-e', 'cycles', '-x', ' ', '-I1000', '--interval-count', '1',
                 '--summary')
        lines = r.stderr.splitlines()
        self.assertTrue(any(line.split()[0] == 'summary' for line in lines if line.split()),
                        r.stderr)
        r = perf('stat', '-e', 'cycles', '-x', ' ', '-I1000', '--interval-count', '1',
                 '--summary', '--no-csv-summary')
        self.assertNotIn('summary', r.stderr)
        self.assertIn('cycles', r.stderr)

    def test_all_pmu(self):
        events = perf('list', '--raw-dump', 'pmu').stdout.split()
        self.assertTrue(events, 'perf list --raw-dump pmu lists no event: the test would be '
                        'vacuous')
        r = script('stat_all_pmu.sh')
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        tested = re.findall(r'^Testing (\S+)$', r.stdout, re.M)
        want = [e for e in events if '?' not in e]
        self.assertEqual(tested, want)

    def test_stat(self):
        # stat.sh without its record/report test: perf mode has no perf.data
        text = open(os.path.join(SHELL, 'stat.sh')).read()
        self.assertIn('\ntest_stat_record_report\n', text)
        text = text.replace('\ntest_stat_record_report\n', '\n')
        r = script('stat.sh', text=text)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn('Basic stat command test [Success]', r.stdout)
        self.assertIn('stat repeat weak groups test [Success]', r.stdout)
        # what the record/report part meets: said, not run as a command
        r = perf('stat', 'record', '-o', '-', 'true')
        self.assertEqual(r.returncode, 129, r.stderr)
        self.assertIn("'stat record' (perf stat record) is not supported", r.stderr)
        self.assertIn('pmumon record', r.stderr)


class ShadowStat(unittest.TestCase):
    """stat+shadow_stat.sh on the simulator's EPYC, whose cycles and instructions count
    (this machine's may not): the insn per cycle perf prints is instructions / cycles."""

    def test_shadow_stat(self):
        if not shutil.which('bc'):
            self.skipTest('the script needs bc (scripts/install-deps installs it)')
        env = dict(ENV, PMUMON_SIM='amdzen2:clock=real')
        r = script('stat+shadow_stat.sh', env=env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        # not vacuous: both of its commands print insn per cycle to compare
        for extra in ([], ['-A']):
            r = perf('stat', '-a', *extra, '--no-big-num', '-e', 'cycles,instructions',
                     'sleep', '0.2', env=env)
            self.assertEqual(r.returncode, 0, r.stderr)
            ipc = re.findall(r'^\s*(?:CPU\d+\s+)?\d+\s+instructions\s+#\s+([\d.]+)\s+insn per cycle',
                             r.stderr, re.M)
            self.assertTrue(ipc, r.stderr)


if __name__ == '__main__':
    unittest.main(verbosity=2)
