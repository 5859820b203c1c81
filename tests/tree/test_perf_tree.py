#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A whole kernel's perf pmu-events tree against the kernel's own jevents.py (issue 14
items 2-4 and 8, on real files rather than tests/data's subsets).

The tree is Debian's linux-source-6.12 (scripts/perf-tree extracts its tools/perf/pmu-events;
skipped, 77, where the package is not installed). For every arch, jevents.py of the same
tree (with its real metric.py) generates perf's tables; tests/data/pmu-events/gen-expected.py
reads the event strings back out of them. tests/helpers/jevents-dump.c gives what pmumon
makes of every entry of the same files. The two must be equal: every event, its PMU (Unit
table) and its string, in every table; every metric perf builds is a metric of pmumon's and
its MetricExpr parses."""
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import unittest

SRC = os.environ['PMUMON_SOURCE_ROOT']
DUMP = os.environ['JEVENTS_DUMP']
CACHE = os.environ.get('PMUMON_PERF_TREE_CACHE', os.path.join(tempfile.gettempdir(),
                                                             'pmumon-perf-tree'))


def gen_expected():
    spec = importlib.util.spec_from_file_location(
        'gen_expected', os.path.join(SRC, 'tests', 'data', 'pmu-events', 'gen-expected.py'))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def tree():
    r = subprocess.run([os.path.join(SRC, 'scripts', 'perf-tree'), CACHE],
                       capture_output=True, text=True)
    if r.returncode == 77:
        print(r.stderr.strip(), file=sys.stderr)
        sys.exit(77)
    if r.returncode != 0:
        raise RuntimeError('scripts/perf-tree: ' + r.stderr)
    return r.stdout.strip()


def metric_names(c):
    """(table, metric name) of every metric jevents.py generated: its pmu_metrics__ tables'
    compact entries, whose comment begins with the metric's name."""
    arrays, rows = {}, set()
    for m in re.finditer(r'static const struct compact_pmu_event (\w+)\[\] = \{\n(.*?)\n\};',
                         c, re.S):
        arrays[m.group(1)] = re.findall(r'^\{ \d+ \}, /\* (.*) \*/$', m.group(2), re.M)
    for m in re.finditer(r'const struct pmu_table_entry (\w+)\[\] = \{\n(.*?)\n\};', c, re.S):
        if not m.group(1).startswith('pmu_metrics_'):
            continue
        table = 'pmu_events_' + m.group(1)[len('pmu_metrics_'):]
        for e in re.finditer(r'\.entries = (\w+),', m.group(2)):
            for s in arrays[e.group(1)]:
                rows.add((table, s.split('\\000')[0].lower()))
    return rows


class WholeTree(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tree = tree()
        cls.arches = sorted(a for a in os.listdir(os.path.join(cls.tree, 'arch'))
                            if a != 'test' and
                            os.path.isdir(os.path.join(cls.tree, 'arch', a)))
        cls.ge = gen_expected()

    def generated(self, arch, tmp):
        out = os.path.join(tmp, 'pmu-events-%s.c' % arch)
        subprocess.run([sys.executable, os.path.join(self.tree, 'jevents.py'), arch, 'all',
                        os.path.join(self.tree, 'arch'), out], check=True, cwd=self.tree)
        with open(out) as f:
            return f.read()

    def ours(self, arch):
        # jevents.py adds the test arch's tables to every arch's output; so does the dump
        r = subprocess.run([DUMP, os.path.join(self.tree, 'arch', arch),
                            os.path.join(self.tree, 'arch', 'test')],
                           capture_output=True, text=True, check=True)
        events, metrics, bad = set(), set(), []
        for line in r.stdout.splitlines():
            f = line.split('\t')
            if f[0] == 'E':
                events.add('\t'.join(f[1:]))
            elif f[0] == 'M':
                metrics.add((f[1], f[2]))
                if f[3] != 'ok':
                    bad.append(line)
        return events, metrics, bad

    def test_every_arch(self):
        total_events = total_metrics = 0
        with tempfile.TemporaryDirectory() as tmp:
            for arch in self.arches:
                with self.subTest(arch=arch):
                    c = self.generated(arch, tmp)
                    want = set(self.ge.parse(c))
                    want_metrics = metric_names(c)
                    got, got_metrics, bad = self.ours(arch)
                    self.assertGreater(len(want), 0, arch)
                    self.assertEqual(sorted(want - got)[:20], [], arch + ': perf has, pmumon not')
                    self.assertEqual(sorted(got - want)[:20], [], arch + ': pmumon has, perf not')
                    self.assertEqual(sorted(want_metrics - got_metrics)[:20], [], arch)
                    self.assertEqual(bad[:20], [], arch + ': MetricExpr pmumon cannot parse')
                    total_events += len(want)
                    total_metrics += len(want_metrics)
        print('%s: %d arches, %d events and %d metrics as jevents.py makes them'
              % (self.tree, len(self.arches), total_events, total_metrics), file=sys.stderr)
        # a whole tree, not a subset: Intel alone has tens of thousands of events
        self.assertGreater(total_events, 40000)


if __name__ == '__main__':
    unittest.main(verbosity=2)
