#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""What the commands share (issue 13): the count options (cli/options.c) and
the output (cli/output.c) behave the same in stat and import; every check
comes before any side effect (no -o FILE created or truncated, no counter
opened, when the command line or the events are wrong); and list's
subcommand table is what its help, its "did you mean" and its dispatch
read. Everything runs on simulated machines: no perf events needed."""
import csv
import io
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

PMUMON = os.environ['PMUMON']
EVENTS = ['-e', 'ali_drw/hif_rd/', '-e', 'ali_drw/hif_wr/', '-e', 'ali_drw/hif_rmw/',
          '-e', 'ali_drw/cycle/']


def run(*args, **kw):
    return subprocess.run([PMUMON] + list(args), capture_output=True, text=True, timeout=60,
                          **kw)


def stat(*opts):
    """A simulated Yitian 710 counting EVENTS system-wide for 1 s."""
    return run('--sim', 'yitian710', 'stat', '-a', *opts, *EVENTS, '--', 'sleep', '1')


class SharedOptions(unittest.TestCase):
    """Each count option through stat (live, simulated) and through import (of a
    recording of the same simulated run): the same rows, the same refusals."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.rec = {}
        for name, aggr in (('device', '--per-device'), ('cpu', '-A')):
            path = os.path.join(cls.tmp, name + '.csv')
            r = stat(aggr, '-x,', '-o', path)
            assert r.returncode == 0, r.stderr
            cls.rec[name] = path

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def both(self, opts, rec='device'):
        return stat(*opts), run('import', *opts, self.rec[rec])

    # (recording, options): the recording holds the finest rows the options ask for
    ROWS = [
        ('device', ['--per-device']),
        ('device', ['--per-channel']),
        ('device', ['--per-die']),
        ('device', ['--per-socket']),
        ('device', ['--merge']),
        ('cpu', ['-A']),
        ('cpu', ['--per-cpu']),
        ('cpu', ['--no-aggr']),
        ('device', ['--merge', '-M', 'ddr_read_bandwidth.all']),
        ('device', ['--merge', '--metrics', 'ddr_write_bandwidth.all', '--metric-only']),
        ('device', ['--per-die', '-M', 'ddr_read_bandwidth.all', '--metric-only']),
        ('device', ['--per-channel', '-g', 'ali_drw']),
        ('device', ['--per-socket', '--metric-group', 'ali_drw']),
        ('device', ['--merge', '-M', 'ddr_read_bandwidth.all', '--define', 'ddrc_freq=1.6e9']),
    ]

    def test_csv_rows_are_the_same(self):
        for rec, opts in self.ROWS:
            for sep in (',', ';', '\\t'):
                with self.subTest(opts=opts, sep=sep):
                    live, imp = self.both(opts + ['-x', sep], rec)
                    self.assertEqual(live.returncode, 0, live.stderr)
                    self.assertEqual(imp.returncode, 0, imp.stderr)
                    self.assertTrue(live.stdout.startswith('type' + sep.replace('\\t', '\t')))
                    self.assertGreater(len(live.stdout.splitlines()), 1)
                    self.assertEqual(live.stdout, imp.stdout)

    def test_metric_only_shows_only_metrics(self):
        live, imp = self.both(['-x,', '--merge', '-M', 'ali_drw', '--metric-only'])
        for r in (live, imp):
            self.assertEqual(r.returncode, 0, r.stderr)
            rows = list(csv.DictReader(io.StringIO(r.stdout)))
            self.assertEqual(sorted(row['event'] for row in rows),
                             ['ddr_bandwidth.all', 'ddr_read_bandwidth.all',
                              'ddr_write_bandwidth.all'])

    def test_json_and_table_are_the_same(self):
        # but for what names the target (the machine, or the file) and the source
        def objs(text):
            return [{k: v for k, v in json.loads(line).items() if k not in ('target', 'source')}
                    for line in text.splitlines()]

        def table(text):
            return [line for line in text.splitlines() if 'Performance counter stats' not in line]

        for rec, opts in self.ROWS:
            with self.subTest(opts=opts):
                live, imp = self.both(opts + ['-j'], rec)
                self.assertEqual(live.returncode, 0, live.stderr)
                self.assertEqual(objs(live.stdout), objs(imp.stdout))
                live, imp = self.both(opts, rec)
                self.assertEqual(live.returncode, 0, live.stderr)
                self.assertIn('Performance counter stats', live.stdout)
                self.assertEqual(table(live.stdout), table(imp.stdout))

    def test_output_file(self):
        out = {}
        for cmd in ('stat', 'import'):
            path = os.path.join(self.tmp, cmd + '-out.csv')
            r = (stat if cmd == 'stat' else lambda *o: run('import', *o, self.rec['device']))(
                '--per-device', '-x,', '--output', path)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout, '')
            with open(path) as f:
                out[cmd] = f.read()
        self.assertEqual(out['stat'], out['import'])
        with open(self.rec['device']) as f:
            self.assertEqual(out['stat'], f.read())

    def test_refusals_are_the_same(self):
        cases = [
            (['-x', 'ab'], 2, "option -x wants one separator character"),
            (['-x', '5'], 2, "option -x: '5' cannot separate fields"),
            (['--define', 'x'], 2, "--define wants NAME=NUMBER"),
            (['--define', 'a=-1'], 2, "a constant is a clock rate or a size"),
            (['--define', 'a=1e999'], 2, "--define a: the value '1e999' is out of range"),
            (['--define', 'a=0x10'], 2, "--define a: '0x10' is not a number"),
            (['--per-die', '--per-cpu'], 2, 'give one of --per-device, --per-channel, '
             '--per-cpu, --per-die, --per-socket, --merge'),
            (['--merge', '--per-device'], 2, 'give one of --per-device'),
            (['--metric-only'], 2, '--metric-only needs -M'),
            (['-M', 'nosuch'], 2, "no metric or metric group 'nosuch'"),
            (['-g', 'ddr_read_bandwidth.all,nosuch'], 2, "no metric or metric group 'nosuch'"),
            (['-o', self.tmp], 1, "cannot write '%s': Is a directory" % self.tmp),
            (['--bogus'], 2, "unrecognized option '--bogus'"),
        ]
        for opts, code, text in cases:
            with self.subTest(opts=opts):
                live, imp = self.both(opts)
                for r in (live, imp):
                    self.assertEqual(r.returncode, code, r.stderr)
                    self.assertIn(text, r.stderr)
                    self.assertEqual(r.stdout, '')
                if opts[0] not in ('-M', '-g', '--bogus'):
                    # the same words; a metric's message says where it looked
                    self.assertEqual(live.stderr, imp.stderr)

    def test_help_has_the_same_text(self):
        shared = re.compile(r'\n(How to show it.*?)\n(?:  -v|\n)', re.S)
        helps = [run(cmd, '--help').stdout for cmd in ('stat', 'import')]
        blocks = [shared.search(h).group(1).split('\n', 1)[1] for h in helps]
        self.assertEqual(blocks[0], blocks[1])
        for opt in ('--per-device', '--per-channel', '--per-cpu', '--no-aggr', '--per-die',
                    '--per-socket', '--merge', '--metric-only', '--field-separator', '--json',
                    '--output'):
            self.assertIn(opt, blocks[0])
        for h in helps:
            self.assertIn('-M, --metrics NAMES', h)
            self.assertIn('--define NAME=VALUE', h)


class ChecksBeforeSideEffects(unittest.TestCase):
    """A run the command line or the events refuse leaves -o FILE as it was (and
    makes none); a -o FILE that cannot be written refuses the run before any counter
    is opened."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        self.existing = os.path.join(self.tmp, 'existing')
        self.new = os.path.join(self.tmp, 'new')

    def refused(self, code, *args):
        with open(self.existing, 'w') as f:
            f.write('keep me\n')
        if os.path.exists(self.new):
            os.unlink(self.new)
        for path in (self.existing, self.new):
            a = [path if x == 'FILE' else x for x in args]
            r = run(*a)
            self.assertEqual(r.returncode, code, (a, r.stderr))
        with open(self.existing) as f:
            self.assertEqual(f.read(), 'keep me\n', args)
        self.assertFalse(os.path.exists(self.new), args)
        return r

    def test_usage_errors(self):
        rec = os.path.join(os.environ['PMUMON_SOURCE_ROOT'], 'tests', 'data', 'import',
                           'pmumon-sim-yitian710.csv')
        for args in (
                ['stat', '-o', 'FILE', '--bogus-option'],
                ['stat', '-o', 'FILE', '-e', 'bad_event', '-a'],
                ['--sim', 'amdzen2', 'stat', '-o', 'FILE', '-e', 'bad_event', '-a', '--',
                 'sleep', '1'],
                ['--sim', 'amdzen2', 'stat', '-o', 'FILE', '-a', '-M', 'nosuch', '--', 'sleep',
                 '1'],
                ['--sim', 'amdzen2', 'stat', '-o', 'FILE', '-a', '--define', 'x=y', '--',
                 'sleep', '1'],
                # the virtual clock needs an end: said before the output was opened
                ['--sim', 'amdzen2', 'stat', '-a', '-e', 'msr/tsc/', '-o', 'FILE'],
                ['--sim', 'amdzen2', 'stat', '-e', 'msr/tsc/', '-o', 'FILE', '--', 'true'],
                ['--sim', 'amdzen2', 'stat', '--source', 'msr', '-o', 'FILE', '--', 'sleep',
                 '1'],
                ['--sim', 'amdzen2', 'stat', '-a', '--per-die', '--per-cpu', '-o', 'FILE', '--',
                 'sleep', '1'],
                ['import', '-o', 'FILE', '--bogus-option', rec],
                ['import', '-o', 'FILE', '-M', 'nosuch', rec],
                ['import', '-o', 'FILE', '--pack', 'nosuch', rec],
                ['import', '-o', 'FILE', '--metric-only', rec]):
            with self.subTest(args=args):
                self.refused(2, *args)

    def test_unwritable_output_opens_no_counter(self):
        # the first perf_event_open on msr fails: a run that got that far would say so
        scn = os.path.join(self.tmp, 'busy.scn')
        with open(scn, 'w') as f:
            f.write('at 0s open-error msr EBUSY\n')
        base = ['--sim', 'amdzen2:scenario=' + scn, 'stat', '-a', '-e', 'msr/tsc/']
        r = run(*base, '--', 'sleep', '1')
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn('Device or resource busy', r.stderr)
        for out in (self.tmp, os.path.join(self.tmp, 'no', 'such', 'dir', 'x.csv')):
            r = run(*base, '-o', out, '--', 'sleep', '1')
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn("cannot write '%s'" % out, r.stderr)
            self.assertNotIn('busy', r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, 'no')))


class ListTable(unittest.TestCase):
    """list's subcommands come from one table: the usage line, the help entries,
    the "not a subcommand" message and the dispatch name the same ones."""

    def names(self):
        usage = run('list', '--help').stdout
        m = re.match(r'usage: pmumon list \[([a-z|]+)\] \[GLOB\]\n', usage)
        self.assertIsNotNone(m, usage)
        return m.group(1).split('|'), usage

    def test_help_and_messages_name_every_subcommand(self):
        names, usage = self.names()
        self.assertEqual(names, ['pmus', 'events', 'metrics', 'groups', 'scenario', 'program'])
        entries = re.findall(r'^  (\S+) ', usage, re.M)
        self.assertEqual(entries[:len(names)], names)
        r = run('--sim', 'amdzen2', 'list', 'zzz*')
        self.assertEqual(r.returncode, 2)
        self.assertIn("is not a list subcommand (%s)" % ', '.join(names), r.stderr)
        r = run('--sim', 'amdzen2', 'list', 'pmus', 'a', 'b')
        self.assertIn('pmumon list [%s] [GLOB]' % '|'.join(names), r.stderr)

    def test_every_subcommand_dispatches(self):
        names, _ = self.names()
        heads = {'pmus': 'PMU ', 'events': 'amd_df', 'metrics': 'metrics (pmumon stat -M',
                 'groups': 'metric groups', 'scenario': 'scenario quantities',
                 'program': '# '}
        for name in names:
            with self.subTest(name=name):
                plat = 'merrifield' if name == 'program' else 'amdzen2'
                r = run('--sim', plat, 'list', name)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertIn(heads[name], r.stdout)
                # each did-you-mean is the subcommand one typo away
                r = run('--sim', 'amdzen2', 'list', name[1:])
                self.assertIn("did you mean '%s'?" % name, r.stderr)

    def test_bare_list_is_pmus_events_metrics(self):
        banner = '[SIMULATED: amdzen2] a simulated machine (--sim), not this one\n\n'
        parts = {}
        for name in ('pmus', 'events', 'metrics'):
            r = run('--sim', 'amdzen2', 'list', name)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertTrue(r.stdout.startswith(banner))
            parts[name] = r.stdout[len(banner):]
        r = run('--sim', 'amdzen2', 'list')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout,
                         banner + parts['pmus'] + '\n' + parts['events'] + parts['metrics'])


if __name__ == '__main__':
    unittest.main(verbosity=2)
