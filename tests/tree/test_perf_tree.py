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
its MetricExpr parses.

PerfList: where linux-perf 6.1 is installed, its compiled tables against linux-source-6.1's
tree read by pmumon: for one CPU id per x86 mapfile row, `PERF_CPUID=ID perf list --details
metric` (the metrics perf 6.1 has for that CPU, with their expressions) and `pmumon --root R
--events-dir TREE list metrics` on a fixture tree whose cpuinfo says that CPU: the same
metrics, the same expressions, the same count. (Events cannot be compared so: perf lists a
table's events only on a machine with its core PMU, which this VM lacks.)"""
import collections
import importlib.util
import json
import os
import re
import shutil
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


def ids_per_row(mapfile):
    """One x86 CPU id for each mapfile row: the first id of a sweep whose first matching row
    is that row, matched as perf's arch/x86/util/header.c strcmp_cpuid_str() matches (a
    row with three '-' against the whole id, else against it without its stepping)."""
    rows = []
    with open(mapfile) as f:
        for i, line in enumerate(f):
            if i and line.strip() and not line.startswith('#'):
                fields = line.strip().split(',')
                rows.append((re.compile(fields[0].replace('[[:xdigit:]]', '[0-9A-Fa-f]')),
                             fields[0].count('-') == 3, fields[2]))
    ids = [('GenuineIntel', 6, m, s) for m in range(256) for s in range(16)] + \
        [('AuthenticAMD', f, m, 0) for f in (23, 25, 26) for m in range(256)]
    picked = {}
    for v, fam, model, step in ids:
        cpuid = '%s-%d-%X-%X' % (v, fam, model, step)
        for rx, full, d in rows:
            if rx.fullmatch(cpuid if full else cpuid.rsplit('-', 1)[0]):
                picked.setdefault(d, (v, fam, model, step))
                break
    return picked


def perf_list_metrics(cpuid):
    """(name, expression) of each metric `perf list --details metric` prints for cpuid."""
    r = subprocess.run(['perf', 'list', '--details', 'metric'], capture_output=True,
                       text=True, env=dict(os.environ, PERF_CPUID=cpuid))
    out, name, brackets = [], None, []
    for line in r.stdout.splitlines() + ['  END']:
        if re.match(r'^  \S', line):
            if name:
                out.append((name, brackets[-1] if brackets else None))
            name, brackets = line.strip(), []
        elif re.match(r'^ {7}\[', line):
            brackets.append(line.strip()[1:-1])
    return collections.Counter(out)


def our_list_metrics(pmumon, args):
    """(name, expression) of each perf-tree metric `pmumon list metrics` prints, and the
    directory the mapfile picked."""
    r = subprocess.run([pmumon, '-v'] + args + ['list', 'metrics'], capture_output=True,
                       text=True)
    out, name = [], None
    for line in r.stdout.splitlines():
        h = re.match(r'^  (\S+)\s.*\((perf:[^)]*)\)$', line)
        if h:
            name = h.group(1)
        elif name and line.startswith('      = '):
            out.append((name, line[len('      = '):]))
            name = None
        elif name and line.startswith('      unavailable'):
            out.append((name, line.strip()))
            name = None
    d = re.search(r'perf events for \S+: (\S+)', r.stderr)
    return collections.Counter(out), d.group(1) if d else None


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

    def test_loaded_per_cpu(self):
        """pmumon's own loader, end to end: on a fixture machine of each x86 mapfile row's
        CPU, `pmumon --events-dir TREE list events cpu` has every core event of that
        row's table with jevents.py's string (less period=, which a count does not use),
        and nothing else from the tree; the names the machine's sysfs has stay sysfs's."""
        pmumon = os.environ['PMUMON']

        def fixture(vendor):
            """An Intel or an AMD core PMU (AMD's event field is config:0-7,32-35), and
            the event names its sysfs has."""
            base = os.path.join(os.environ['PMUMON_TEST_SYSFS'],
                                'zen4-1s' if vendor == 'AuthenticAMD' else 'spr-1s')
            events = os.path.join(base, 'sys', 'bus', 'event_source', 'devices', 'cpu',
                                  'events')
            names = os.listdir(events) if os.path.isdir(events) else []
            return base, {n.lower() for n in names}
        with tempfile.TemporaryDirectory() as tmp:
            c = self.generated('x86', tmp)
            rows = [r.split('\t') for r in self.ge.parse(c)]
            picked = ids_per_row(os.path.join(self.tree, 'arch', 'x86', 'mapfile.csv'))
            total = 0
            for d, (vendor, fam, model, step) in sorted(picked.items()):
                base, sysfs_names = fixture(vendor)
                root = os.path.join(tmp, d.replace('/', '_'))
                shutil.copytree(base, root, symlinks=True)
                if vendor == 'GenuineIntel':
                    # the format fields the kernel gives Intel cores before Sapphire
                    # Rapids too (arch/x86/events/intel/core.c: intel_arch3_formats_attr
                    # "any" config:21; the TSX ones in_tx config:32, in_tx_cp config:33)
                    fmt = os.path.join(root, 'sys', 'bus', 'event_source', 'devices', 'cpu',
                                       'format')
                    for field, bits in (('any', 'config:21'), ('in_tx', 'config:32'),
                                        ('in_tx_cp', 'config:33')):
                        with open(os.path.join(fmt, field), 'w') as f:
                            f.write(bits + '\n')
                with open(os.path.join(root, 'proc', 'cpuinfo'), 'w') as f:
                    f.write('processor\t: 0\nvendor_id\t: %s\ncpu family\t: %d\n'
                            'model\t\t: %d\nstepping\t: %d\n' % (vendor, fam, model, step))
                table = 'pmu_events__' + d.replace('/', '_').replace('-', '_')
                # (jevents.py writes "ldlat=None" for a few Intel entries with no
                # MSRValue: no tool can encode that; pmumon's list says "cannot encode
                # on this PMU" for them)
                want = {(name, ','.join(t for t in ev.split(',')
                                        if not t.startswith('period=')))
                        for tb, pmu, name, ev in rows
                        if tb == table and pmu == 'default_core' and
                        name not in sysfs_names and '=None' not in ev}
                r = subprocess.run([pmumon, '--root', root, '--events-dir', self.tree,
                                    'list', 'events', 'cpu'], capture_output=True, text=True)
                self.assertEqual(r.returncode, 0, r.stderr)
                got = set()
                for line in r.stdout.splitlines():
                    m = re.match(r'^  (\S+)\s+(\S+)\s+config=\S+\s+\((perf:[^)]*)\)$', line)
                    if m:
                        self.assertEqual(m.group(3), 'perf:x86/' + d, line)
                        got.add((m.group(1).lower(), m.group(2)))
                with self.subTest(dir=d):
                    self.assertEqual(sorted(want - got)[:10], [], 'jevents.py has, pmumon not')
                    self.assertEqual(sorted(got - want)[:10], [], 'pmumon has, jevents.py not')
                total += len(want)
        print('pmumon loaded %d core events of %d x86 CPUs as jevents.py encodes them'
              % (total, len(picked)), file=sys.stderr)
        self.assertGreater(total, 10000)


def perf_61():
    try:
        r = subprocess.run(['perf', '--version'], capture_output=True, text=True)
    except OSError:
        return False
    return r.returncode == 0 and r.stdout.startswith('perf version 6.1.')


@unittest.skipUnless(perf_61(), 'needs linux-perf 6.1 (its tables come from linux-source-6.1)')
class PerfList(unittest.TestCase):
    def test_metrics_per_cpu(self):
        r = subprocess.run([os.path.join(SRC, 'scripts', 'perf-tree'), CACHE, '6.1'],
                           capture_output=True, text=True)
        if r.returncode == 77:
            self.skipTest(r.stderr.strip())
        self.assertEqual(r.returncode, 0, r.stderr)
        tree = r.stdout.strip()
        pmumon = os.environ['PMUMON']
        base = os.path.join(os.environ['PMUMON_TEST_SYSFS'], 'spr-1s')
        picked = ids_per_row(os.path.join(tree, 'arch', 'x86', 'mapfile.csv'))
        self.assertGreater(len(picked), 30)
        total = 0
        with tempfile.TemporaryDirectory() as tmp:
            for d, (vendor, fam, model, step) in sorted(picked.items()):
                cpuid = '%s-%d-%X-%X' % (vendor, fam, model, step)
                root = os.path.join(tmp, d)
                shutil.copytree(base, root, symlinks=True)
                with open(os.path.join(root, 'proc', 'cpuinfo'), 'w') as f:
                    f.write('processor\t: 0\nvendor_id\t: %s\ncpu family\t: %d\n'
                            'model\t\t: %d\nstepping\t: %d\n' % (vendor, fam, model, step))
                want = perf_list_metrics(cpuid)
                got, picked_dir = our_list_metrics(pmumon, ['--root', root,
                                                            '--events-dir', tree])
                with self.subTest(cpu=cpuid, dir=d):
                    self.assertEqual(os.path.basename(picked_dir or ''), d)
                    # perf 6.1 lists no metric of an entry that is also an event and has no
                    # MetricGroup (util/metricgroup.c metricgroup__print_pmu_event: "if
                    # (pe->name) return 0"); pmumon, as newer perf, has it
                    for name in os.listdir(picked_dir):
                        with open(os.path.join(picked_dir, name)) as f:
                            for e in json.load(f):
                                if e.get('EventName') and e.get('MetricName') and \
                                        not e.get('MetricGroup'):
                                    # (the listing's first word: "power_channel_ppd %")
                                    first = e['MetricName'].split()[0]
                                    for k in [k for k in got if k[0] == first]:
                                        del got[k]
                    self.assertEqual(sorted((want - got).elements())[:10], [], 'perf only')
                    self.assertEqual(sorted((got - want).elements())[:10], [], 'pmumon only')
                total += sum(want.values())
        print('perf 6.1 and pmumon on linux-source-6.1: %d CPUs, %d metrics alike'
              % (len(picked), total), file=sys.stderr)


if __name__ == '__main__':
    unittest.main(verbosity=2)
