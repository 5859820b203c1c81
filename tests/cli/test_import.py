#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""pmumon import end to end: pmumon's own CSV round-trips exactly; real
perf 6.1 stat -x, and -j output captured on the development VM
(tests/data/import/README.md) gives back perf's values, run times and
intervals; constructed perf files of a Zen 2 and a Yitian 710 give the
packs' metrics with known answers; bad input is named by file and line."""
import csv
import io
import json
import os
import re
import subprocess
import tempfile
import unittest

PMUMON = os.environ['PMUMON']
DATA = os.path.join(os.environ['PMUMON_SOURCE_ROOT'], 'tests', 'data', 'import')


def run(*args, stdin=None):
    return subprocess.run([PMUMON] + list(args), capture_output=True, text=True, timeout=60,
                          input=stdin)


def fixture(name):
    return os.path.join(DATA, name)


def rows(*args):
    """import -j: the JSON lines, keyed for lookups."""
    r = run('import', '-j', *args)
    if r.returncode != 0:
        raise AssertionError(r.stderr)
    return [json.loads(l) for l in r.stdout.splitlines()]


class RoundTrip(unittest.TestCase):
    def same_csv(self, name, *args):
        # the fixtures were written before the covered/instances (...cgroup, lo, hi, bound,
        # proxy_error_pct) columns (and a
        # simulated one with a '# SIMULATED' comment before its header, which the
        # writer no longer writes): what they have comes back unchanged, and the
        # new layout round-trips exactly
        r = run('import', '-x,', *args, fixture(name))
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(fixture(name)) as f:
            old = ''.join(line for line in f if not line.startswith('#'))
        cut = [line.rsplit(',', 10)[0] for line in r.stdout.splitlines()]
        self.assertEqual('\n'.join(cut) + '\n', old)
        with tempfile.NamedTemporaryFile('w', suffix='.csv') as again:
            again.write(r.stdout)
            again.flush()
            r2 = run('import', '-x,', *args, again.name)
            self.assertEqual(r2.returncode, 0, r2.stderr)
            self.assertEqual(r2.stdout, r.stdout)

    def test_quality_survives_the_round_trip(self):
        # -C 0 on a two-die Yitian covers 8 of 16 PMUs: an import says so too
        r = run('--sim', 'yitian710', 'stat', '-C', '0', '-e', 'ali_drw/hif_rd/', '-x,', '-I',
                '1000', '--', 'sleep', '2')
        self.assertEqual(r.returncode, 0, r.stderr)
        with tempfile.NamedTemporaryFile('w', suffix='.csv') as rec:
            rec.write(r.stdout)
            rec.flush()
            again = run('import', '-x,', rec.name)
            self.assertEqual(again.returncode, 0, again.stderr)
            self.assertEqual(again.stdout, r.stdout)
            table = run('import', rec.name)
            self.assertIn('[partial 8/16]', table.stdout)
            self.assertIn('[SIMULATED: yitian710]', table.stdout)  # the sim_platform column
            self.assertIn('covers 8 of the 16 devices', table.stderr)

    def test_times_and_shares_each_from_their_own_column(self):
        # enabled and running differ: a count that ran half its enabled time is
        # scaled by two; reading one column for the other would not scale it
        counts = ('time_s,device,event,count,enabled_ns,running_ns\n'
                  '1,dev0,ev,100,1000000000,500000000\n')
        with tempfile.NamedTemporaryFile('w', suffix='.csv') as f:
            f.write(counts)
            f.flush()
            (j,) = [x for x in rows(f.name) if x['type'] == 'interval']
        self.assertEqual((j['enabled_ns'], j['running_ns']), (1000000000, 500000000))
        self.assertEqual(j['value'], 200)
        self.assertTrue(j['multiplexed'])
        # perf -j prints the running share: 25% of a 250 ms run time is a 1 s enabled time
        perf = ('{"interval" : 1.000000000, "counter-value" : "400.000000", "unit" : "", '
                '"event" : "cycles", "event-runtime" : 250000000, "pcnt-running" : 25.00}\n')
        with tempfile.NamedTemporaryFile('w', suffix='.json') as f:
            f.write(perf)
            f.flush()
            (j,) = [x for x in rows(f.name) if x['type'] == 'interval']
        self.assertEqual((j['enabled_ns'], j['running_ns']), (1000000000, 250000000))
        self.assertAlmostEqual(j['running_pct'], 25.0)
        self.assertEqual(j['value'], 400)
        self.assertEqual(j['raw'], 100)

    def test_pmumon_interval_csv(self):
        # every column, timestamps included: stat's output back unchanged
        self.same_csv('pmumon-interval.csv')

    def test_pmumon_per_cpu_csv(self):
        self.same_csv('pmumon-percpu.csv')

    def test_pmumon_simulated_stays_simulated(self):
        self.same_csv('pmumon-sim-yitian710.csv')
        r = run('import', fixture('pmumon-sim-yitian710.csv'))
        self.assertIn('[SIMULATED: yitian710]', r.stdout)

    def test_pmumon_csv_both_layouts(self):
        # stat -x, wrote '# SIMULATED...' before the header; it may write the header
        # first, the comment anywhere or not at all, and columns after 'simulated'
        with open(fixture('pmumon-sim-yitian710.csv')) as f:
            comment, header, *body = f.read().splitlines(keepends=True)
        self.assertTrue(comment.startswith('# SIMULATED: yitian710:'))
        extra = [header.rstrip('\n') + ',place,note\n'] + \
            [l.rstrip('\n') + ',die0/ch0,"a,b"\n' for l in body]
        layouts = {
            'header first': [header, comment] + body,
            'comment last': [header] + body + [comment],
            'more columns': extra[:5] + [comment] + extra[5:],
            'no comment': extra,
        }

        def imported(lines):
            with tempfile.NamedTemporaryFile('w', suffix='.csv') as f:
                f.writelines(lines)
                f.flush()
                got = rows(f.name)
            for j in got:
                del j['target']  # names the file
            return got

        want = imported([comment, header] + body)
        self.assertTrue(all(j['sim_platform'] == 'yitian710' for j in want))
        for name, lines in layouts.items():
            got = imported(lines)
            if name == 'no comment':  # SIMULATED still, from the column; no platform
                self.assertTrue(all(j['simulated'] and j['sim_platform'] is None for j in got))
                got = [dict(j, sim_platform='yitian710') for j in got]
            self.assertEqual(got, want, name)

    def test_per_channel_adds_sub_channels(self):
        # a per-device recording regrouped: each channel row is its two sub-channels' sum
        dev = [j for j in rows('--per-device', fixture('pmumon-sim-yitian710.csv'))
               if j['type'] == 'total' and j['event'] == 'ali_drw/hif_rd/']
        ch = [j for j in rows('--per-channel', fixture('pmumon-sim-yitian710.csv'))
              if j['type'] == 'total' and j['event'] == 'ali_drw/hif_rd/']
        self.assertEqual(len(dev), 16)
        self.assertEqual([j['place'] for j in ch],
                         ['die%d/ch%d' % (d, c) for d in range(2) for c in range(4)])
        for j in ch:
            want = sum(d['raw'] for d in dev if d['place'].startswith(j['place'] + '/'))
            self.assertEqual(j['raw'], want, j['place'])

    def test_metrics_from_a_recording_equal_the_live_ones(self):
        live = run('--sim', 'yitian710', 'stat', '-a', '-j', '-M', 'ali_drw', '--', 'sleep', '2')
        self.assertEqual(live.returncode, 0, live.stderr)
        want = {j['event']: j['value'] for j in map(json.loads, live.stdout.splitlines())
                if j['type'] == 'total'}
        got = {j['event']: j['value'] for j in rows('--merge', '-M', 'ali_drw',
                                                      fixture('pmumon-sim-yitian710.csv'))
               if j['type'] == 'total'}
        for m in ('ddr_read_bandwidth.all', 'ddr_write_bandwidth.all'):
            self.assertAlmostEqual(got[m], want[m], delta=want[m] * 1e-9)


class PerfCaptured(unittest.TestCase):
    """perf 6.1.192 on this project's VM: the values perf printed come back."""

    def check_interval_file(self, name, parse):
        want = parse()
        got = [j for j in rows(fixture(name)) if j['type'] == 'interval']
        self.assertEqual(len(got), len(want))
        for g, (t, event, value, run_ns) in zip(got, want):
            self.assertEqual(g['event'], event)
            self.assertAlmostEqual(g['time_s'], t, places=9)
            self.assertAlmostEqual(g['value'], value, delta=abs(value) * 1e-9 + 1e-9)
            self.assertEqual(g['running_ns'], run_ns)  # perf's counter run time, kept
            self.assertEqual(g['running_pct'], 100)

    def test_x_interval(self):
        def parse():
            out = []
            with open(fixture('perf61-x-interval.csv')) as f:
                lines = f.readlines()
            for line in lines:
                if line.startswith('#') or not line.strip():
                    continue
                f = line.strip().split(',')
                out.append((float(f[0]), f[3], float(f[1]), int(f[4])))
            return out
        self.check_interval_file('perf61-x-interval.csv', parse)

    def test_j_interval(self):
        def parse():
            out = []
            with open(fixture('perf61-j-interval.json')) as f:
                lines = f.readlines()
            for line in lines:
                if line.startswith('{'):
                    j = json.loads(line)
                    out.append((j['interval'], j['event'], float(j['counter-value']),
                                j['event-runtime']))
            return out
        self.check_interval_file('perf61-j-interval.json', parse)

    def test_intervals_add_up_to_the_totals(self):
        got = rows(fixture('perf61-x-interval.csv'))
        for ev in ('msr/tsc/', 'page-faults'):
            iv = sum(j['value'] for j in got if j['type'] == 'interval' and j['event'] == ev)
            tot = [j['value'] for j in got if j['type'] == 'total' and j['event'] == ev]
            self.assertEqual(tot, [iv])

    def test_x_totals_not_supported_left_out(self):
        r = run('import', '-x,', fixture('perf61-x-totals.csv'))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('left out, not supported where they were counted: cycles', r.stderr)
        self.assertIn('give --duration SECONDS', r.stderr)
        got = list(csv.DictReader(io.StringIO(r.stdout)))
        self.assertEqual([g['event'] for g in got], ['cpu-clock', 'msr/tsc/', 'page-faults'])
        self.assertEqual(got[1]['value'], '1207006128')
        self.assertEqual(got[0]['value'], '603.5')

    def test_per_cpu(self):
        for name in ('perf61-x-percpu.csv', 'perf61-j-percpu.json'):
            got = [j for j in rows(fixture(name)) if j['type'] == 'total']
            self.assertEqual(sorted({j['cpu'] for j in got}), [0, 1], name)
        # and merged on request: the two CPUs add up
        tot = [j for j in rows('--merge', fixture('perf61-j-percpu.json'))
               if j['event'] == 'msr/tsc/']
        self.assertEqual(tot[0]['value'], 603670846 + 603727054)

    def test_per_socket_and_duration_time(self):
        got = rows(fixture('perf61-x-persocket.csv'))
        self.assertEqual({j['socket'] for j in got}, {0})
        self.assertEqual({j['event'] for j in got}, {'cpu-clock', 'msr/tsc/'})
        self.assertAlmostEqual(got[0]['time_s'], 0.301831053, places=9)
        got = rows(fixture('perf61-j-totals.json'))
        self.assertAlmostEqual(got[0]['time_s'], 0.301775577, places=9)


def perf_lines(name):
    """A perf stat -x, or -j file's counter lines: (time or None, cpu or None, value or
    None for <not counted>, event, cgroup or '', run time), as perf printed them."""
    out = []
    with open(fixture(name)) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            if line.startswith('{'):
                j = json.loads(line)
                value = j['counter-value']
                out.append((j.get('interval'), None,
                            None if value.startswith('<') else float(value), j['event'],
                            j['cgroup'], j['event-runtime']))
                continue
            f = line.split(',')
            # -I: the time first ("%6lu.%09lu"), then -A's CPU
            t = float(f.pop(0)) if re.fullmatch(r'\d+\.\d{9}', f[0]) else None
            cpu = int(f.pop(0)[3:]) if f[0].startswith('CPU') else None
            value = None if f[0].startswith('<') else float(f[0])
            run_ns = f[5] if f[4].endswith('%') else f[4]
            out.append((t, cpu, value, f[2], f[3], int(run_ns)))
    return out


class PerfCgroups(unittest.TestCase):
    """Rows per cgroup (perf stat -G, --for-each-cgroup, captured with perf 6.1.192 here):
    a row per event and cgroup, each with the value and run time perf printed."""

    FILES = ('perf61-x-cgroup.csv', 'perf61-j-cgroup.json', 'perf61-x-cgroup-interval.csv',
             'perf61-j-cgroup-interval.json', 'perf61-x-cgroup-numeric.csv',
             'perf61-x-cgroup-repeat.csv')

    def test_rows_per_cgroup(self):
        for name in self.FILES:
            want = perf_lines(name)
            got = [j for j in rows(name and fixture(name))
                   if (j['type'] == 'interval') == (want[0][0] is not None)]
            self.assertEqual(len(got), len(want), name)
            for g, (t, cpu, value, event, cgroup, run_ns) in zip(got, want):
                self.assertEqual((g['event'], g.get('cgroup', '')), (event, cgroup), name)
                self.assertEqual(g['cpu'], cpu, name)
                if t is not None:
                    self.assertAlmostEqual(g['time_s'], t, places=9)
                if value is None:
                    self.assertFalse(g['counted'], (name, g))
                    self.assertIsNone(g['value'])
                else:
                    self.assertTrue(g['counted'], (name, g))
                    self.assertAlmostEqual(g['value'], value, delta=abs(value) * 1e-9)
                    self.assertEqual(g['running_ns'], run_ns)

    def test_totals_per_cgroup(self):
        # the intervals of each cgroup add up to that cgroup's totals
        for name in ('perf61-x-cgroup-interval.csv', 'perf61-j-cgroup-interval.json'):
            got = rows('--merge', fixture(name))
            want = {}
            for t, cpu, value, event, cgroup, _ in perf_lines(name):
                want[(event, cgroup)] = want.get((event, cgroup), 0) + (value or 0)
            tot = {(j['event'], j['cgroup']): j['value'] or 0 for j in got
                   if j['type'] == 'total'}
            self.assertEqual(set(tot), set(want), name)
            for k in want:
                self.assertAlmostEqual(tot[k], want[k], delta=want[k] * 1e-9 + 1e-9, msg=k)

    def test_table_and_csv_name_the_cgroup(self):
        r = run('import', fixture('perf61-x-cgroup.csv'))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r'(?m)^ +303\.95 msec +cpu-clock busy$')
        self.assertRegex(r.stdout, r'(?m)^ +<not counted> +page-faults idle$')
        r = run('import', '-x,', fixture('perf61-x-cgroup.csv'))
        got = list(csv.DictReader(io.StringIO(r.stdout)))
        self.assertEqual([(g['event'], g['cgroup']) for g in got],
                         [('cpu-clock', 'busy'), ('page-faults', 'busy'),
                          ('cpu-clock', 'idle'), ('page-faults', 'idle')])

    def test_pmumon_rows_per_cgroup_and_metrics(self):
        # pmumon's own CSV and JSON Lines with rows per cgroup come back row for row, and
        # a metric computed again is computed per cgroup, from that cgroup's events
        for fmt in ('-x,', '-j'):
            r = run('--sim', 'amdzen2', 'stat', '-a', fmt, '-e', 'cpu-clock', '-M', 'CPI',
                    '--for-each-cgroup', 'user.slice,system.slice', '-I', '500', '--',
                    'sleep', '1')
            self.assertEqual(r.returncode, 0, r.stderr)
            live = r.stdout
            with tempfile.NamedTemporaryFile('w', suffix='.txt') as f:
                f.write(live)
                f.flush()
                r = run('import', fmt, '--pack', 'amdzen2', '-M', 'CPI', f.name)
            self.assertEqual(r.returncode, 0, r.stderr)
            if fmt == '-x,':
                a = list(csv.DictReader(io.StringIO(live)))
                b = list(csv.DictReader(io.StringIO(r.stdout)))
                key = lambda w: (w['type'], w['time_s'], w['event'], w['cgroup'], w['value'],
                                 w['flags'])
            else:
                a = [json.loads(x) for x in live.splitlines()]
                b = [json.loads(x) for x in r.stdout.splitlines()]
                key = lambda w: (w['type'], w['time_s'], w['event'], w['cgroup'],
                                 round(w['value'], 9), w['metric'])
            self.assertEqual([key(w) for w in b], [key(w) for w in a], fmt)


class PerfConstructed(unittest.TestCase):
    """perf 6.1's format for machines this one is not (make-constructed.py)."""

    def test_zen2_df_channels_multiplexed(self):
        got = rows('-M', 'amd_df_bw', fixture('constructed-amdzen2-perf61-x.csv'))
        iv = [j for j in got if j['type'] == 'interval' and j['event'] == 'DF_CH3_GBps']
        self.assertEqual(len(iv), 2)
        for j in iv:
            self.assertAlmostEqual(j['value'], 4 * 6.4, places=6)
            self.assertTrue(j['multiplexed'])  # perf ran it half the time: still says so
            self.assertAlmostEqual(j['running_pct'], 50.0, places=1)
        raw = [j for j in got if j['event'] == 'amd_df/event=0x107,umask=0x38/'
               and j['type'] == 'total']
        self.assertEqual(raw[0]['value'], 2 * 5e8)

    def test_zen2_bare_names_need_the_pack(self):
        r = run('import', '-M', 'nps1_die_to_dram', fixture('constructed-amdzen2-perf61-j.json'))
        self.assertEqual(r.returncode, 2)
        self.assertIn("constructed-amdzen2-perf61-j.json:2: event "
                      "'dram_channel_data_controller_0' names no PMU", r.stderr)
        self.assertRegex(r.stderr, r'--pack NAME \(built in: [a-z0-9, ]*amdzen2[a-z0-9, ]*\)')
        got = rows('--pack', 'amdzen2', '-M', 'nps1_die_to_dram,amd_df_bw',
                   fixture('constructed-amdzen2-perf61-j.json'))
        v = {j['event']: j for j in got}
        self.assertAlmostEqual(v['nps1_die_to_dram']['value'], 2e8 * 36 * 6.1e-5, places=3)
        # duration_time from the file: 2.000123456 s
        self.assertAlmostEqual(v['DF_CH0_GBps']['value'], 2e8 * 64 / 2.000123456 / 1e9,
                               places=9)

    def test_unknown_pack(self):
        r = run('import', '--pack', 'nosuch', fixture('constructed-amdzen2-perf61-x.csv'))
        self.assertEqual(r.returncode, 2)
        self.assertIn("no platform pack 'nosuch'", r.stderr)

    def test_yitian_no_merge_per_device(self):
        for name in ('constructed-yitian710-perf61-x.csv', 'constructed-yitian710-counts.csv'):
            got = [j for j in rows('-M', 'ali_drw', fixture(name)) if j['type'] == 'total']
            rd = [j for j in got if j['event'] == 'ddr_read_bandwidth.all']
            self.assertEqual(len(rd), 16, name)
            self.assertIn('ali_drw_40027080', {j['device'] for j in rd})
            for j in rd:
                self.assertAlmostEqual(j['value'], 6400.0, places=6)
            wr = [j for j in got if j['event'] == 'ddr_write_bandwidth.all']
            for j in wr:
                self.assertAlmostEqual(j['value'], (5e7 + 1e6) * 64 / 1e6, places=6)
            merged = {j['event']: j['value'] for j in rows('--merge', '-M', 'ali_drw',
                                                           fixture(name))
                      if j['type'] == 'total'}
            self.assertAlmostEqual(merged['ddr_read_bandwidth.all'], 16 * 6400.0, places=6)

    def test_yitian_json_bracket_names(self):
        got = [j for j in rows('-M', 'ddr_read_bandwidth.all',
                               fixture('constructed-yitian710-perf61-j.json'))
               if j['type'] == 'interval' and j['event'] == 'ddr_read_bandwidth.all']
        self.assertEqual(len(got), 32)
        self.assertIn('ali_drw_27080', {j['device'] for j in got})
        for j in got:
            self.assertAlmostEqual(j['value'], 6400.0, places=6)


class BadInput(unittest.TestCase):
    def bad(self, text, *want, args=()):
        with tempfile.NamedTemporaryFile('w', suffix='.txt', delete=False) as f:
            f.write(text)
        try:
            r = run('import', *args, f.name)
        finally:
            os.unlink(f.name)
        self.assertEqual(r.returncode, 2, r.stderr)
        for w in want:
            self.assertIn(w.replace('FILE', f.name), r.stderr)
        self.assertEqual(r.stderr.count('pmumon:'), 1, r.stderr)  # said once

    def test_perf_csv(self):
        self.bad('81,,page-faults,204123734,100.00,,\n12x,,cycles,5,100.00,,\n',
                 "FILE:2: expected a count or <not counted>, not '12x'")
        self.bad('81,,page-faults\n', 'FILE:1: expected the counter\'s run time (ns) and '
                 "running percentage after event 'page-faults'")
        self.bad('     1.000000000,5,,msr/tsc/,10,100.00,,\n'
                 '     0.500000000,5,,msr/tsc/,10,100.00,,\n',
                 'FILE:2: time 0.500000000 s comes after 1.000000000 s (line 1)')
        # a second msr/tsc/ line is the event given twice (PerfOptions); a counts CSV
        # refuses it
        self.bad('N0,2,5,,msr/tsc/,10,100.00,,\n', 'FILE:1: per-node counts')

    def test_perf_json(self):
        self.bad('{"counter-value" : "5", "event" : "x"\n', 'FILE:1: column')
        self.bad('{"counter-value" : "5", "unit" : "", "event" : "msr/tsc/"}\n',
                 'FILE:1: expected "event-runtime" (ns) and "pcnt-running"')

    def test_counts_csv(self):
        self.bad('time_s,device,event\n1,ali_drw_21000,hif_rd\n',
                 "FILE:1: the header has no 'count' column")
        self.bad('event,count,enabled_ns,running_ns\nhif_rd,5,10,20\n',
                 'FILE:2: running_ns 20 is more than enabled_ns 10')
        self.bad('event,count\nhif_rd,-5\n', "FILE:2: expected count to be a whole number")

    def test_rows_cut_short(self):
        # a row shorter than its header was a NULL column: a crash (139)
        self.bad('count,event\n5\n',
                 'FILE:2: expected 2 fields, as the header (line 1) has, not 1')
        # or, where the missing columns were optional, a count as if it ran throughout
        self.bad('time_s,device,event,count,enabled_ns,running_ns\n'
                 '1.0,ali_drw_21000,hif_rd,100,1000,500\n1.0,ali_drw_21000,hif_wr,100\n',
                 'FILE:3: expected 6 fields, as the header (line 1) has, not 4')

    def test_one_column_header(self):
        # no separator after the first name: it was NUL, and fields ran off the line
        self.bad('event\n', "FILE:1: the header has no 'count' column")
        self.bad('+ 2\n', "FILE:1: the header has no 'type' column",
                 args=('--input-format', 'pmumon-csv'))

    def test_impossible_numbers(self):
        perf = '5,,msr/tsc/,1000,%s,,\n'
        self.bad(perf % '200.00', 'FILE:1: expected the running percentage, not 200.00%')
        self.bad(perf % '-5.00', 'FILE:1: expected the running percentage, not -5.00%')
        self.bad(perf % '0.00', 'FILE:1: a count that ran 0.00% of the time')
        self.bad('81,,page-faults,1000,100.00,,\n--5,,msr/tsc/,1000,100.00,,\n',
                 "FILE:2: expected a count or <not counted>, not '--5'")
        self.bad('{"counter-value" : "-100", "unit" : "", "event" : "msr/tsc/", '
                 '"event-runtime" : 1000, "pcnt-running" : 100.00}\n',
                 "FILE:1: expected \"counter-value\" to be a count or <not counted>, "
                 "not '-100'")
        self.bad('event,count,enabled_ns,running_ns\nhif_rd,5,10,0\n',
                 'FILE:2: a count that ran 0 ns')

    def test_not_counted_stays_accepted(self):
        # perf's <not counted> at 0.00% (never scheduled in that interval) is no count
        with tempfile.NamedTemporaryFile('w', suffix='.csv') as f:
            f.write('     1.000000000,5,,msr/tsc/,1000,100.00,,\n'
                    '     2.000000000,<not counted>,,msr/tsc/,0,0.00,,\n')
            f.flush()
            got = [j for j in rows(f.name) if j['type'] == 'interval']
        self.assertEqual([j['value'] for j in got], [5, None])
        self.assertEqual([j['counted'] for j in got], [True, False])

    def test_pmumon_json_lines_round_trip(self):
        # stat -j imports as stat -x, does: the same rows, quality, coverage and
        # simulated platform; -j of the import is stat -j's but for the target
        args = ['stat', '-C', '0', '-I', '500', '-e', 'ali_drw/hif_rd/', '-e',
                'ali_drw/hif_wr/', '-M', 'ddr_read_bandwidth.all', '--', 'sleep', '2']
        live_j = run('--sim', 'yitian710', *args[:1], '-j', *args[1:])
        live_x = run('--sim', 'yitian710', *args[:1], '-x,', *args[1:])
        self.assertEqual(live_j.returncode, 0, live_j.stderr)
        with tempfile.TemporaryDirectory() as d:
            jl, csv_ = os.path.join(d, 'r.jsonl'), os.path.join(d, 'r.csv')
            for path, text in ((jl, live_j.stdout), (csv_, live_x.stdout)):
                with open(path, 'w') as f:
                    f.write(text)
            from_j = run('import', '-x,', '-M', 'ddr_read_bandwidth.all', jl)
            from_x = run('import', '-x,', '-M', 'ddr_read_bandwidth.all', csv_)
            self.assertEqual(from_j.returncode, 0, from_j.stderr)
            self.assertEqual(from_j.stdout, from_x.stdout)
            self.assertEqual(from_j.stdout, live_x.stdout)
            again = run('import', '-j', '-M', 'ddr_read_bandwidth.all', jl)
            self.assertEqual(again.returncode, 0, again.stderr)
            # but for the target (the file) and the source (a replay)
            strip = lambda text: [{k: v for k, v in json.loads(l).items()
                                   if k not in ('target', 'source')}
                                  for l in text.splitlines()]
            self.assertEqual(strip(again.stdout), strip(live_j.stdout))
            self.assertIn('covers 8 of the 16 devices', run('import', jl).stderr)

    def test_pmumon_json_lines_refusals(self):
        good = ('{"schema":2,"type":"interval","time_s":1,"timestamp":null,"event":"e",'
                '"device":"d0","value":5,"unit":"","raw":5,"enabled_ns":1000,'
                '"running_ns":1000,"counted":true,"simulated":false}\n')
        for text, want in (
                (good.replace('"schema":2', '"schema":9'),
                 ':1: a record of schema 9: this pmumon reads schema 1 to 4'),
                (good.replace('"schema":2', '"schema":"2"'), ':1: expected "schema"'),
                (good + '{"schema":2,"type":"interval"', ':2: not JSON'),
                (good.replace('"raw":5', '"raw":-5'), ':1: expected raw to be a whole number'),
                (good.replace('"enabled_ns":1000,', ''), ':1: expected enabled_ns'),
                (good.replace('"type":"interval"', '"type":"x"'), ":1: expected type"),
                (good + good.replace('"schema":2,', ''), ':2: expected "schema"')):
            with tempfile.NamedTemporaryFile('w', suffix='.jsonl') as f:
                f.write(text)
                f.flush()
                r = run('import', f.name)
            self.assertEqual(r.returncode, 2, text)
            self.assertIn(want, r.stderr, text)
        with tempfile.NamedTemporaryFile('w', suffix='.jsonl') as f:
            f.write(good)
            f.flush()
            (j,) = [x for x in rows(f.name) if x['type'] == 'interval']
        self.assertEqual((j['event'], j['value'], j['raw']), ('e', 5, 5))

    def test_partial_recording_keeps_channel_numbers(self):
        # a channel is read from the PMU's own name, not from which others are there
        with tempfile.NamedTemporaryFile('w', suffix='.csv') as f:
            f.write('time_s,device,event,count\n1,ali_drw_25000,hif_rd,100\n'
                    '1,ali_drw_27080,hif_rd,200\n')
            f.flush()
            r = run('import', '--per-device', '-j', f.name)
            self.assertEqual(r.returncode, 0, r.stderr)
            places = {o['device']: o['place'] for o in map(json.loads, r.stdout.splitlines())}
            self.assertEqual(places, {'ali_drw_25000': 'die0/ch2/sub0',
                                      'ali_drw_27080': 'die0/ch3/sub1'})

    def test_channel_rows_are_refused(self):
        with tempfile.NamedTemporaryFile('w', suffix='.csv') as f:
            f.write('time_s,device,event,count\n1,ali_drw_25000,hif_rd,100\n')
            f.flush()
            ch = run('import', '--per-channel', '-x,', f.name)
            self.assertEqual(ch.returncode, 0, ch.stderr)
        with tempfile.NamedTemporaryFile('w', suffix='.csv') as f:
            f.write(ch.stdout)
            f.flush()
            r = run('import', '-x,', f.name)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("'die0/ch2' is a channel row (pmumon --per-channel)", r.stderr)
            self.assertIn('record with --per-device', r.stderr)

    def test_a_closed_pipe_is_not_an_error(self):
        # more output than a pipe holds, to a reader that stops after 10 bytes:
        # EPIPE ends the import quietly with 0, as it ends stat (was killed: 141)
        with tempfile.NamedTemporaryFile('w', suffix='.csv') as f:
            f.write('time_s,device,event,count\n')
            f.writelines('%d,ali_drw_21000,hif_rd,%d\n' % (t, t) for t in range(1, 3001))
            f.flush()
            p = subprocess.run('"%s" import -j "%s" | head -c 10 >/dev/null; '
                               'echo ${PIPESTATUS[0]}' % (PMUMON, f.name), shell=True,
                               executable='/bin/bash', capture_output=True, text=True)
        self.assertEqual(p.stdout.strip(), '0', p.stderr)

    def test_a_cpuid_pack_needs_its_name(self):
        # merrifield matches by CPUID, which a recording does not carry: a Yitian
        # file brings in yitian710 only, and a metric of another platform is
        # looked for in the recording's packs
        with tempfile.NamedTemporaryFile('w', suffix='.csv') as f:
            f.write('time_s,device,event,count\n1,ali_drw_21000,hif_rd,100\n')
            f.flush()
            r = run('import', '-M', 'amd_df_bw', f.name)
            self.assertEqual(r.returncode, 2)
            self.assertIn("no metric or metric group 'amd_df_bw' in the packs matched to "
                          "the recording (packs: yitian710)", r.stderr)
            self.assertIn('--pack NAME', r.stderr)

    def test_not_a_recording(self):
        self.bad('\n# nothing\n', 'FILE:2: no counts found')
        r = run('import', '/nonexistent/file.csv')
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot read '/nonexistent/file.csv'", r.stderr)
        r = run('import')
        self.assertEqual(r.returncode, 2)
        self.assertIn('import wants the FILE', r.stderr)

    def test_help_teaches(self):
        r = run('import', '--help')
        self.assertEqual(r.returncode, 0)
        for w in ('perf stat -x,', 'counts CSV', '--pack', '--duration', 'Examples:'):
            self.assertIn(w, r.stdout)

    def test_standard_input(self):
        with open(fixture('perf61-x-interval.csv')) as f:
            r = run('import', '-', stdin=f.read())
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('msr/tsc/', r.stdout)


def perf_tree(root):
    """A perf pmu-events tree of two CPUs whose mapfile rows differ only in the
    stepping: the same metric name, a different formula in each directory."""
    x86 = os.path.join(root, 'arch', 'x86')
    for d, k in (('alpha', ''), ('beta', '2 * ')):
        os.makedirs(os.path.join(x86, d))
        with open(os.path.join(x86, d, 'metrics.json'), 'w') as f:
            json.dump([{'MetricName': 'faults_per_ms', 'BriefDescription': d,
                        'MetricExpr': k + 'page\\-faults / cpu\\-clock * 1e6'}], f)
    with open(os.path.join(x86, 'mapfile.csv'), 'w') as f:
        f.write('Family-model,Version,Filename,EventType\n'
                'GenuineIntel-6-55-[4567],v1,alpha,core\n'
                'GenuineIntel-6-55-[0123],v1,beta,core\n')


class CpuId(unittest.TestCase):
    """import --cpuid names the CPU a perf file does not, so a perf tree's mapfile
    picks its directory; pmumon's recordings carry it (issue 14, item 7)."""
    # perf61-x-totals.csv: 81 page-faults over 603.50 msec of cpu-clock (perf's
    # metrics see the clock in msec, as it prints it): 81 / 603.5 * 1e6
    ALPHA = 81 / 603.5 * 1e6
    BETA = 2 * 81 / 603.5 * 1e6

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        perf_tree(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def metric(self, *args):
        r = run('import', '--events-dir', self.tmp.name, '-M', 'faults_per_ms', '-j', *args)
        self.assertEqual(r.returncode, 0, r.stderr)
        (m,) = [json.loads(l) for l in r.stdout.splitlines()
                if json.loads(l)['event'] == 'faults_per_ms']
        return m, r.stderr

    def test_cpuid_selects_the_mapfile_directory(self):
        m, err = self.metric('--cpuid', 'GenuineIntel-6-55-4', '-v', fixture('perf61-x-totals.csv'))
        self.assertAlmostEqual(m['value'], self.ALPHA, places=6)
        self.assertIn('the CPU id GenuineIntel-6-55-4, as given', err)
        m, _ = self.metric('--cpuid', 'GenuineIntel-6-55-1', fixture('perf61-x-totals.csv'))
        self.assertAlmostEqual(m['value'], self.BETA, places=6)
        self.assertEqual(m['cpuid'], 'GenuineIntel-6-55-1')
        # a perf file names no CPU: no directory, no metric, and -v says why
        r = run('import', '--events-dir', self.tmp.name, '-M', 'faults_per_ms', '-v',
                fixture('perf61-x-totals.csv'))
        self.assertEqual(r.returncode, 2)
        self.assertIn('names no CPU id', r.stderr)
        r = run('import', '--cpuid', 'a b', fixture('perf61-x-totals.csv'))
        self.assertEqual(r.returncode, 2)
        self.assertIn('--cpuid wants the CPU id', r.stderr)

    def round_trip(self, fmt, suffix):
        r = run('import', fmt, '--cpuid', 'GenuineIntel-6-55-1', fixture('perf61-x-totals.csv'))
        self.assertEqual(r.returncode, 0, r.stderr)
        with tempfile.NamedTemporaryFile('w', suffix=suffix) as rec:
            rec.write(r.stdout)
            rec.flush()
            # the recording says which CPU counted: beta's formula
            m, err = self.metric('-v', rec.name)
            self.assertAlmostEqual(m['value'], self.BETA, places=6)
            self.assertIn('the CPU id GenuineIntel-6-55-1, as the recording says', err)
            # a given one wins, and -v says both
            m, err = self.metric('-v', '--cpuid', 'GenuineIntel-6-55-5', rec.name)
            self.assertAlmostEqual(m['value'], self.ALPHA, places=6)
            self.assertIn('the CPU id GenuineIntel-6-55-5, as given (%s says '
                          'GenuineIntel-6-55-1)' % rec.name, err)
            again = run('import', fmt, rec.name)
            strip = (lambda t: [dict(json.loads(l), target='') for l in t.splitlines()]) \
                if fmt == '-j' else (lambda t: t)
            self.assertEqual(strip(again.stdout), strip(r.stdout))
        return r.stdout

    def test_pmumon_csv_carries_the_cpuid(self):
        out = self.round_trip('-x,', '.csv')
        header, first = out.splitlines()[:2]
        self.assertTrue(header.endswith(',sim_platform,cpuid,spread_pct,cgroup,lo,hi,bound,proxy_error_pct'))
        # no spread, no cgroup; an exact count's interval is itself
        self.assertRegex(first, r',GenuineIntel-6-55-1,,,([0-9.]+),\1,exact,$')

    def test_pmumon_json_lines_carry_the_cpuid(self):
        out = self.round_trip('-j', '.json')
        self.assertEqual(json.loads(out.splitlines()[0])['cpuid'], 'GenuineIntel-6-55-1')

    def test_a_comment_names_it_in_any_file(self):
        with open(fixture('perf61-x-totals.csv')) as f:
            text = '# cpuid: GenuineIntel-6-55-6\n' + f.read()
        with tempfile.NamedTemporaryFile('w', suffix='.csv') as rec:
            rec.write(text)
            rec.flush()
            m, _ = self.metric(rec.name)
            self.assertAlmostEqual(m['value'], self.ALPHA, places=6)
            rec.write('# cpuid: GenuineIntel-6-55-1\n')
            rec.flush()
            r = run('import', rec.name)
            self.assertEqual(r.returncode, 2)
            self.assertIn("a recording of one machine: cpuid 'GenuineIntel-6-55-1' after "
                          "'GenuineIntel-6-55-6'", r.stderr)

    def test_instance_qualified_metric_events_bind_to_that_instance(self):
        # a metric's pmu_N@terms@ counts on that PMU alone: its recorded rows there
        # (cha_0 is perf's name for uncore_cha_0); hand-checked: 300 x 64 B, 10 / 40
        yt = os.path.join(self.tmp.name, 'arch', 'arm64', 'yt')
        os.makedirs(yt)
        with open(os.path.join(self.tmp.name, 'arch', 'arm64', 'mapfile.csv'), 'w') as f:
            f.write('MIDR,Version,Filename,EventType\n0x00000000410fd490,v1,yt,core\n')
        with open(os.path.join(yt, 'm.json'), 'w') as f:
            json.dump([{'MetricName': 'one_rd', 'MetricExpr': 'ali_drw_21080@hif_rd@ * 64',
                        'ScaleUnit': '1B'},
                       {'MetricName': 'cha0_share', 'MetricExpr':
                        'cha_0@event\\=0x0@ / (cha_0@event\\=0x0@ + uncore_cha_1@event\\=0x0@)'}],
                      f)
        counts = ('time_s,device,event,count\n'
                  '1,ali_drw_21000,hif_rd,100\n1,ali_drw_21080,hif_rd,300\n'
                  '1,uncore_cha_0,uncore_cha/event=0x0/,10\n1,uncore_cha_1,uncore_cha/event=0x0/,30\n'
                  '2,ali_drw_21000,hif_rd,100\n2,ali_drw_21080,hif_rd,500\n'
                  '2,uncore_cha_0,uncore_cha/event=0x0/,20\n2,uncore_cha_1,uncore_cha/event=0x0/,20\n')
        with tempfile.NamedTemporaryFile('w', suffix='.csv') as f:
            f.write(counts)
            f.flush()
            r = run('import', '--events-dir', self.tmp.name, '--cpuid', '0x00000000410fd490',
                    '-M', 'one_rd,cha0_share', '-j', f.name)
        self.assertEqual(r.returncode, 0, r.stderr)
        got = {(j['type'], j['time_s'], j['event'], j.get('device')): j['value']
               for j in map(json.loads, r.stdout.splitlines())}
        self.assertEqual(got[('interval', 1.0, 'one_rd', 'ali_drw_21080')], 300 * 64)
        self.assertEqual(got[('interval', 2.0, 'one_rd', 'ali_drw_21080')], 500 * 64)
        self.assertEqual(got[('interval', 1.0, 'cha0_share', 'uncore_cha_0')], 0.25)
        self.assertEqual(got[('total', 2.0, 'cha0_share', 'uncore_cha_0')], 30 / 80)
        self.assertNotIn(('interval', 1.0, 'one_rd', 'ali_drw_21000'), got)

    def test_a_db_recording_keeps_the_cpuid(self):
        import sqlite3
        with tempfile.TemporaryDirectory() as d:
            db = os.path.join(d, 'r.db')
            r = run('--sim', 'amdzen2', 'record', '-o', db, '-e', 'msr/tsc/',
                    '--interval-count', '2')
            self.assertEqual(r.returncode, 0, r.stderr)
            c = sqlite3.connect(db)
            self.assertEqual(c.execute('SELECT cpuid FROM run').fetchone()[0],
                             'AuthenticAMD-23-31-0')
            c.close()
            r = run('import', '-v', '-x,', db)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn('the CPU id AuthenticAMD-23-31-0, as the recording says', r.stderr)
            # the cpuid, no spread, no cgroup; then the interval of an exact count
            self.assertRegex(r.stdout.splitlines()[1],
                             r',AuthenticAMD-23-31-0,,,(\d+),\1,exact,$')


class PerfOptions(unittest.TestCase):
    """perf 6.1 files of the options perf users type (issue 14, item 12; made on
    this machine, tests/data/import/README.md): the values are perf's."""

    def values(self, name, kind='total'):
        return {(j['event']): (j['value'], j['raw']) for j in rows(fixture(name))
                if j['type'] == kind}

    def test_j_summary_after_intervals(self):
        # perf stat -j -I 200 --summary: intervals, then the summary, which is
        # their sum: the import's totals equal perf's summary objects
        got = self.values('perf61-j-summary.json')
        self.assertAlmostEqual(got['cpu-clock'][0], 1003.231088, places=6)
        self.assertAlmostEqual(got['task-clock'][0], 1003.231958, places=6)
        self.assertEqual(got['page-faults'][0], 62033)
        iv = [j for j in rows(fixture('perf61-j-summary.json')) if j['type'] == 'interval']
        self.assertEqual(len(iv), 9)

    def test_name_terms(self):
        # cpu-clock/name=myclk/: perf prints the name, with the clock's msec
        for name, clk in (('perf61-x-names.csv', 607.79), ('perf61-j-names.json', 614.411187)):
            got = self.values(name)
            self.assertAlmostEqual(got['myclk'][0], clk, places=6)
            self.assertEqual(got['myclk'][1], round(clk * 1e6))
        self.assertEqual(self.values('perf61-x-names.csv')['page-faults'][0], 30982)

    def test_append_is_refused_where_the_second_run_starts(self):
        r = run('import', fixture('perf61-x-append.csv'))
        self.assertEqual(r.returncode, 2)
        self.assertIn('perf61-x-append.csv:4: a second run of perf stat starts here', r.stderr)
        self.assertIn('cut the file at this line', r.stderr)

    @staticmethod
    def perf_rows(name):
        """perf's own lines of a -x, or -j file, in its order: (time, cpu, event,
        value or None for <not counted>, run ns)."""
        out = []
        with open(fixture(name)) as f:
            for line in f:
                if line.startswith('{'):
                    j = json.loads(line)
                    v = j['counter-value']
                    out.append((j.get('interval', 0), j.get('cpu'), j['event'],
                                None if v == '<not counted>' else float(v),
                                j['event-runtime']))
                elif line.strip() and not line.startswith('#'):
                    f = line.rstrip('\n').split(',')
                    t = float(f.pop(0)) if re.fullmatch(r' *\d+\.\d{9}', f[0]) else 0
                    cpu = int(f.pop(0)[3:]) if f[0].startswith('CPU') else None
                    v = None if f[0] == '<not counted>' else float(f[0])
                    out.append((t, cpu, f[2], v, int(f[3])))
        return out

    def same_as_perf(self, name):
        want = self.perf_rows(name)
        got = rows(fixture(name))
        kind = 'interval' if want[0][0] else 'total'
        got = [(g['time_s'] if kind == 'interval' else 0, g['cpu'], g['event'], g['value'],
                g['running_ns']) for g in got if g['type'] == kind]
        self.assertEqual(len(got), len(want), name)
        for g, w in zip(got, want):
            self.assertEqual(g[1:3], w[1:3], name)
            self.assertAlmostEqual(g[0], w[0], places=9)
            if w[3] is None:
                self.assertIsNone(g[3], name)
            else:
                self.assertAlmostEqual(g[3], w[3], delta=abs(w[3]) * 1e-9 + 1e-9)
            self.assertEqual(g[4], w[4], name)
        return got

    def test_repeated_events_are_rows_of_their_own(self):
        # perf stat -e page-faults -e task-clock -e page-faults prints page-faults
        # twice: two rows, in perf's order, each with its own run time
        for name in ('perf61-x-repeat.csv', 'perf61-j-repeat.json',
                     'perf61-x-repeat-interval.csv', 'perf61-j-repeat-interval.json'):
            got = self.same_as_perf(name)
            self.assertEqual(sum(1 for g in got if g[2] == 'page-faults'),
                             2 * sum(1 for g in got if g[2] != 'page-faults'), name)
        # the intervals of each add up to its own total
        got = rows(fixture('perf61-j-repeat-interval.json'))
        tot = [j['running_ns'] for j in got if j['type'] == 'total']
        iv = [j['running_ns'] for j in got if j['type'] == 'interval']
        self.assertEqual(tot, [sum(iv[k::3]) for k in range(3)])
        self.assertNotEqual(tot[0], tot[2])

    def test_repeated_events_in_a_pmumon_recording(self):
        # pmumon stat prints an event given twice twice too: its file imports
        r = run('stat', '-x,', '-e', 'page-faults', '-e', 'task-clock', '-e', 'page-faults',
                '--', 'true')
        self.assertEqual(r.returncode, 0, r.stderr)
        with tempfile.NamedTemporaryFile('w', suffix='.csv') as f:
            f.write(r.stdout)
            f.flush()
            got = rows(f.name)
        self.assertEqual([g['event'] for g in got], ['page-faults', 'task-clock', 'page-faults'])
        # intervals, and a recording (FILE.db keeps each repeat as a series of its
        # own): the import prints what stat printed, row for row
        with tempfile.TemporaryDirectory() as d:
            db = os.path.join(d, 'r.db')
            r = run('record', '-o', db, '-e', 'page-faults', '-e', 'task-clock', '-e',
                    'page-faults', '-I', '100', '--interval-count', '2')
            self.assertEqual(r.returncode, 0, r.stderr)
            first = run('import', '-x,', db)
            self.assertEqual(first.returncode, 0, first.stderr)
            evs = [l.split(',')[3] for l in first.stdout.splitlines()[1:]]
            self.assertEqual(evs, ['page-faults', 'task-clock', 'page-faults'] * 3)
            csvf = os.path.join(d, 'r.csv')
            with open(csvf, 'w') as f:
                f.write(first.stdout)
            again = run('import', '-x,', csvf)
            self.assertEqual(again.returncode, 0, again.stderr)
            self.assertEqual(again.stdout, first.stdout)

    def test_a_counts_csv_row_given_twice_is_refused(self):
        with tempfile.NamedTemporaryFile('w', suffix='.csv') as f:
            f.write('event,count\nhif_rd,5\nhif_rd,6\n')
            f.flush()
            r = run('import', '--pack', 'yitian710', f.name)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn(":3: a second count of 'hif_rd' for the same totals", r.stderr)

    def test_not_counted_is_a_row(self):
        # perf stat -p PID of a process asleep throughout: every count is
        # <not counted>; each stays a row, counted false, no value (not 0)
        for name in ('perf61-j-notcounted.json', 'perf61-x-notcounted.csv',
                     'perf61-j-notcounted-interval.json'):
            got = self.same_as_perf(name)
            self.assertEqual({g[3] for g in got}, {None}, name)
            every = rows(fixture(name))
            self.assertEqual({j['counted'] for j in every}, {False}, name)
            # perf's run time 0 at 100.00%: never enabled either (a task asleep throughout
            # is never scheduled in), as pmumon stat -p shows it live: 0 of 0 ns, no share
            self.assertEqual({(j['enabled_ns'], j['running_ns'], j['running_pct'])
                              for j in every}, {(0, 0, None)}, name)
        r = run('import', fixture('perf61-x-notcounted.csv'))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('<not counted>', r.stdout)
        self.assertNotIn('not supported', r.stderr)


if __name__ == '__main__':
    unittest.main(verbosity=2)
