#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""pmumon's perf mode (issue 30) on the simulator, whose every count is known: run as
perf (the build tree's link) or with --perf, stat prints perf 6.1's exact lines, on
standard error, with perf's exit statuses and no notice of pmumon's; list prints
perf's. The side by side with the real perf is tests/perf; here the values too."""
import os
import subprocess
import tempfile
import unittest

PMUMON = os.environ['PMUMON']
PERF = os.path.join(os.path.dirname(PMUMON), 'perf')
SIM_LINE = "# SIMULATED: %s: numbers come from pmumon's simulator, not hardware"


def perf(*args, sim='amdzen2', exe=PERF, **kw):
    env = {k: v for k, v in os.environ.items() if k not in ('PMUMON_SIM', 'PMUMON_ROOT')}
    if sim:
        env['PMUMON_SIM'] = sim
    return subprocess.run([exe] + list(args), capture_output=True, text=True, env=env,
                          timeout=120, **kw)


class Stat(unittest.TestCase):
    def rows(self, r, sim='amdzen2'):
        """perf's lines on standard error, after the simulator's mark; stdout empty."""
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, '')
        lines = r.stderr.splitlines()
        self.assertEqual(lines[0], SIM_LINE % sim)
        return lines[1:]

    def test_csv_per_socket(self):
        r = perf('stat', '-a', '--per-socket', '-x,', '-e', 'cpu-clock,msr/tsc/', '--',
                 'sleep', '1')
        # perf's field order: socket, its CPUs (aggregate-number), value, unit, event,
        # running time (the CPUs' sum), its share, the comment's value and unit
        self.assertEqual(self.rows(r), [
            'S0,128,128000.00,msec,cpu-clock,128000000000,100.00,128.000,CPUs utilized',
            'S0,128,288000000000,,msr/tsc/,128000000000,100.00,2.250,G/sec'])

    def test_json(self):
        r = perf('stat', '-a', '-j', '-e', 'msr/tsc/', '--', 'sleep', '1')
        self.assertEqual(self.rows(r), [
            '{"counter-value" : "288000000000.000000", "unit" : "", "event" : "msr/tsc/", '
            '"event-runtime" : 128000000000, "pcnt-running" : 100.00, "metric-value" : '
            '0.000000, "metric-unit" : "(null)"}'])

    def test_table(self):
        r = perf('stat', '-a', '-e', 'cpu-clock,msr/tsc/', '--', 'sleep', '1')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, (
            "\n Performance counter stats for 'system wide' [SIMULATED: amdzen2]:\n\n"
            "         128000.00 msec cpu-clock                        #  128.000 CPUs "
            "utilized          \n"
            "      288000000000      msr/tsc/                         #    2.250 G/sec     "
            "             \n"
            "\n       1.000000000 seconds time elapsed\n\n"))

    def test_intervals(self):
        # -I's time prefix; the totals only with --summary, the CSV's marked "summary"
        r = perf('stat', '-a', '-I', '1000', '--interval-count', '2', '-x,', '-e', 'msr/tsc/')
        self.assertEqual(self.rows(r), [
            '     1.000000000,288000000000,,msr/tsc/,128000000000,100.00,,',
            '     2.000000000,288000000000,,msr/tsc/,128000000000,100.00,,'])
        r = perf('stat', '-a', '-I', '1000', '--interval-count', '1', '--summary', '-x,', '-e',
                 'msr/tsc/')
        self.assertEqual(self.rows(r)[1:], [
            '         summary,288000000000,,msr/tsc/,128000000000,100.00,,'])
        r = perf('stat', '-a', '-I', '1000', '--interval-count', '1', '--summary',
                 '--no-csv-summary', '-x', ' ', '-e', 'msr/tsc/')
        self.assertEqual(self.rows(r)[1:], ['288000000000  msr/tsc/ 128000000000 100.00  '])
        r = perf('stat', '-a', '-I', '1000', '--interval-count', '2', '-e', 'msr/tsc/')
        self.assertEqual(self.rows(r), [
            '#           time             counts unit events',
            '     1.000000000       288000000000      msr/tsc/' + ' ' * 59,
            '     2.000000000       288000000000      msr/tsc/' + ' ' * 59])

    def test_per_thread(self):
        # the simulator's daemon (process 1000) has 3 threads; perf's comm-pid labels
        r = perf('stat', '-p', '1000', '--per-thread', '-x,', '-e', 'task-clock,page-faults',
                 '--', 'sleep', '1')
        self.assertEqual(self.rows(r), [
            'simd-%d,1.00,msec,task-clock,1000000000,100.00,0.001,CPUs utilized' % t
            for t in (1000, 1001, 1002)] + [
            'simd-%d,20,,page-faults,1000000000,100.00,20.000,K/sec' % t
            for t in (1000, 1001, 1002)])
        # -a: every thread of the machine, cpu-clock as perf's default clock there
        r = perf('stat', '-a', '--per-thread', '-x,', '--', 'sleep', '1')
        lines = self.rows(r)
        self.assertIn('simd-1001,1.00,msec,cpu-clock,1000000000,100.00,0.001,CPUs utilized',
                      lines)
        # perf's refusal: --per-thread needs tasks or -a
        r = perf('stat', '--per-thread', '-e', 'task-clock', '--', 'sleep', '1')
        self.assertEqual(r.returncode, 129, r.stderr)
        self.assertIn('only available when monitoring via -p -t -a', r.stderr)

    def test_no_merge_per_cpu(self):
        # -A --no-merge: a row per CPU and PMU instance, named as perf's uniquify_event_name
        r = perf('stat', '-a', '-A', '--no-merge', '-x,', '-e', 'ali_drw/hif_rd/', '--',
                 'sleep', '1', sim='yitian710')
        lines = self.rows(r, 'yitian710')
        self.assertEqual(len(lines), 16)
        self.assertTrue(lines[0].startswith('CPU0,'))
        self.assertIn(',ali_drw_21000/hif_rd/,', lines[0])
        self.assertTrue(lines[15].startswith('CPU64,'))
        self.assertIn(',ali_drw_40027080/hif_rd/,', lines[15])

    def test_doubt_after_perfs_fields(self):
        # -C 0 leaves die 1's 8 PMUs out: perf's fields, then what perf cannot say
        r = perf('stat', '-C', '0', '-x,', '-e', 'ali_drw/hif_rd/', '--', 'sleep', '1',
                 sim='yitian710')
        self.assertEqual(self.rows(r, 'yitian710'),
                         ['245016996,,ali_drw/hif_rd/,8000000000,100.00,,,partial'])
        r = perf('stat', '-C', '0', '-e', 'ali_drw/hif_rd/', '--', 'sleep', '1',
                 sim='yitian710')
        self.assertIn('ali_drw/hif_rd/' + ' ' * 54 + '[partial 8/16]\n', r.stderr)
        r = perf('stat', '-C', '0', '-j', '-e', 'ali_drw/hif_rd/', '--', 'sleep', '1',
                 sim='yitian710')
        self.assertIn('"pcnt-running" : 100.00, "pmumon-flags" : "partial", "metric-value"',
                      r.stderr)

    def test_metrics_as_perfs_lines(self):
        r = perf('stat', '-a', '-x,', '-M', 'amd_df_bw', '--', 'sleep', '1')
        lines = self.rows(r)
        metric = [line for line in lines if line.startswith(',,,,')]
        self.assertTrue(metric, lines)
        for line in metric:  # new_line_csv's 3 separators, then value and "UNIT  NAME"
            self.assertRegex(line, r'^,,,,[0-9.]+,\S+  \S+$')

    def test_streams_and_output_file(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, 'o.csv')
            r = perf('stat', '-a', '-x,', '-o', out, '-e', 'msr/tsc/', '--', 'sleep', '1')
            self.assertEqual((r.returncode, r.stdout, r.stderr), (0, '', ''))
            text = open(out).read().splitlines()
            # perf's "# started on DATE" and an empty line, always with -o
            self.assertTrue(text[0].startswith('# started on '))
            self.assertEqual(text[1], '')
            self.assertEqual(text[2], SIM_LINE % 'amdzen2')
            self.assertEqual(text[3], '288000000000,,msr/tsc/,128000000000,100.00,,')

    def test_no_notices(self):
        # pmumon's own mode says the uncore event counts system-wide for the command;
        # perf says nothing: neither does perf mode
        r = perf('stat', '-x,', '-e', 'amd_df/event=0x7,umask=0x38/', '--', 'sleep', '1')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn('pmumon:', r.stderr)
        r = perf('stat', '-x,', '-e', 'amd_df/event=0x7,umask=0x38/', '--', 'sleep', '1',
                 exe=PMUMON)
        self.assertIn('counting it system-wide while the command runs', r.stderr)

    def test_exit_statuses(self):
        r = perf('stat', '--frobnicate')
        self.assertEqual(r.returncode, 129)
        r = perf('stat', '-e', 'nosuch_event', '--', 'sleep', '1')
        self.assertEqual(r.returncode, 129, r.stderr)
        # nothing this machine counts: the rows say <not supported>, and 0 as perf
        r = perf('stat', '-x,', '-e', 'cycles', '--', 'sleep', '1',
                 sim='amdzen2:hypervisor=kvm-nopmu')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('<not supported>,,cycles,0,100.00,,', r.stderr)
        # the command's exit status, as perf returns it
        r = perf('stat', '-x,', '-e', 'task-clock', '--', 'sh', '-c', 'exit 3',
                 sim='amdzen2:clock=real')
        self.assertEqual(r.returncode, 3, r.stderr)
        r = perf('bench', 'internals')
        self.assertEqual(r.returncode, 1)
        self.assertIn("'bench' is not a perf-command", r.stderr)

    def test_perf_flag_is_the_name(self):
        # pmumon stat --perf is perf stat, pmumon list --perf perf list
        for args in (['stat', '-a', '-x,', '-e', 'msr/tsc/', '--', 'sleep', '1'],
                     ['list', '--raw-dump', 'pmu']):
            a = perf(*args)
            b = perf(args[0], '--perf', *args[1:], exe=PMUMON)
            self.assertEqual((a.returncode, a.stdout, a.stderr),
                             (b.returncode, b.stdout, b.stderr))

    def test_stat_record_report(self):
        for exe in (PERF, PMUMON):
            for sub in ('record', 'rep', 'report'):
                r = perf('stat', sub, sim=None, exe=exe)
                self.assertEqual(r.returncode, 129 if exe == PERF else 2, r.stderr)
                self.assertIn('is not supported', r.stderr)
                self.assertIn('pmumon record', r.stderr)

    def test_group(self):
        # perf's -g is --group: one group, whose members share its leader's time
        r = perf('stat', '-a', '-g', '-x,', '-e', 'msr/tsc/', '-e', 'msr/aperf/', '--',
                 'sleep', '1')
        self.assertEqual(len(self.rows(r)), 2)
        r = perf('stat', '-a', '-g', '-e', '{msr/tsc/}', '--', 'sleep', '1')
        self.assertEqual(r.returncode, 129)


class List(unittest.TestCase):
    def test_raw_dump(self):
        r = perf('list', '--raw-dump', 'pmu')
        self.assertEqual(r.returncode, 0, r.stderr)
        names = r.stdout.split()
        # perf's order: the kernel's (no description) first, then the packs', by name
        self.assertEqual(names[:3], ['msr/aperf/', 'msr/mperf/', 'msr/tsc/'])
        self.assertIn('l3_accesses', names)
        self.assertEqual(names[3:], sorted(names[3:]))
        self.assertTrue(r.stdout.endswith(' '))  # "NAME " each, no newline: perf's
        r = perf('list', '--raw-dump', 'metricgroups')
        self.assertIn('amd_df ', r.stdout)
        r = perf('list', '--raw-dump', 'metrics')
        self.assertTrue(r.stdout.endswith('\n'))
        self.assertEqual(r.stdout.split(), sorted(set(r.stdout.split())))


if __name__ == '__main__':
    unittest.main(verbosity=2)
