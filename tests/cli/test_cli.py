#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The pmumon binary end to end: list on fixture trees, the error messages a
user meets (with their exit codes), and stat on this machine's software and
msr PMUs in every output format. Tests that need perf events permitted on
this machine are skipped (and say so) where they are not."""
import csv
import io
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import unittest

PMUMON = os.environ['PMUMON']
FIXTURES = os.environ['PMUMON_TEST_SYSFS']

CSV_HEADER = ('type,time_s,timestamp,event,device,socket,die,cpu,value,unit,raw,'
              'enabled_ns,running_ns,running_pct,flags,simulated')


def run(*args, root=None, timeout=60, **kw):
    cmd = [PMUMON]
    if root:
        cmd += ['--root', os.path.join(FIXTURES, root)]
    return subprocess.run(cmd + list(args), capture_output=True, text=True, timeout=timeout, **kw)


def sim_csv(text):
    """Rows of a simulated run's CSV (after its '# SIMULATED' comment line)."""
    return list(csv.DictReader(l for l in io.StringIO(text) if not l.startswith('#')))


def perf_permitted():
    r = run('stat', '-a', '-e', 'cpu-clock', '--timeout', '10', '-x,')
    return r.returncode == 0


PERF_OK = perf_permitted()
HAS_MSR = os.path.isdir('/sys/bus/event_source/devices/msr')
need_perf = unittest.skipUnless(PERF_OK, 'perf events are not permitted on this machine')
need_msr = unittest.skipUnless(PERF_OK and HAS_MSR,
                               'needs perf events permitted and the x86 msr PMU')


class ListOnFixtures(unittest.TestCase):
    def test_list_pmus_yitian(self):
        r = run('list', 'pmus', root='yitian710-2die')
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = [l for l in r.stdout.splitlines() if l.startswith('ali_drw_')]
        self.assertEqual(len(rows), 16)
        self.assertIn('16+1 fixed', rows[0])
        self.assertIn('ali_drw_pmu', rows[0])
        self.assertTrue(rows[8].startswith('ali_drw_40021000'))
        self.assertIn('platform packs: yitian710', r.stdout)
        self.assertIn('128 CPUs, 1 package, 2 dies', r.stdout)

    def test_list_events_family(self):
        r = run('list', 'events', 'ali_drw', root='yitian710-2die')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('ali_drw (16 PMUs: ali_drw_21000 .. ali_drw_40027080)', r.stdout)
        self.assertRegex(r.stdout, r'hif_rd +config=0x2 +config=0x2\n +A Read Op at HIF')
        self.assertIn('ddr_cycles', r.stdout)
        self.assertIn('(yitian710)', r.stdout)

    def test_list_events_encoding(self):
        r = run('list', 'events', 'dram_channel_*', root='epyc7742-1s')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r'dram_channel_data_controller_4 +event=0x107,umask=0x38 +'
                                   r'config=0x100003807')
        self.assertNotIn('l3_accesses', r.stdout)
        self.assertIn('[per package]', r.stdout)

    def test_command_on_a_pack_machine(self):
        # the Yitian pack's defaults count the uncore: for one command, generic events
        if not PERF_OK:
            self.skipTest('perf events are not permitted on this machine')
        r = run('stat', '-x,', '--', 'true', root='yitian710-2die')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("the platform pack's defaults count the whole machine: add -a", r.stderr)
        self.assertIn('task-clock', r.stdout)

    def test_list_glob_nothing(self):
        r = run('list', 'pmus', 'nope*', root='epyc7742-1s')
        self.assertEqual(r.returncode, 0)
        self.assertIn('0 PMUs', r.stdout)

    def test_malformed_warns_once(self):
        r = run('list', 'pmus', root='malformed')
        self.assertEqual(r.returncode, 0)
        self.assertEqual(r.stderr.count("badformat/format/event"), 1)
        self.assertIn("pmumon: warning: malformed sysfs file", r.stderr)


class UserErrors(unittest.TestCase):
    def check(self, args, code, *texts, root='epyc7742-1s'):
        r = run(*args, root=root)
        self.assertEqual(r.returncode, code, r.stderr)
        for t in texts:
            self.assertIn(t, r.stderr)
        return r

    def test_unknown_pmu_caret(self):
        r = self.check(['stat', '-a', '-e', 'amd_dx/event=0x7/'], 2, "pmumon: unknown PMU 'amd_dx'",
                       "hint: run 'pmumon list pmus'")
        self.assertIn('    amd_dx/event=0x7/\n    ^~~~~~\n', r.stderr)

    def test_unknown_term_caret(self):
        r = self.check(['stat', '-a', '-e', 'amd_df/event=0x7,umsk=1/'], 2,
                       "unknown term 'umsk' for PMU 'amd_df'")
        self.assertIn('    amd_df/event=0x7,umsk=1/\n                     ^~~~~~\n', r.stderr)

    def test_value_too_big(self):
        self.check(['stat', '-a', '-e', 'amd_df/umask=0x100/'], 2,
                   "value 0x100 is too big for term 'umask' of PMU 'amd_df' (config:8-15: 8 bits, "
                   "at most 0xff)")

    def test_modifier_on_uncore(self):
        self.check(['stat', '-a', '-e', 'amd_l3/l3_accesses/k'], 2,
                   "PMU 'amd_l3' rejects the :u/:k/:h modifiers", 'drop the modifier')

    def test_group_limit(self):
        self.check(['stat', '-a', '-e', '{ali_drw_21000/hif_rd/,ali_drw_21000/hif_wr/}'], 2,
                   "allows 1 event per group", root='yitian710-2die')

    def test_syntax(self):
        self.check(['stat', '-a', '-e', 'msr/tsc'], 2, "missing closing '/'", 'event syntax')

    def test_uncore_needs_a(self):
        self.check(['stat', '-e', 'amd_df/event=0x7/', '--', 'true'], 2,
                   "counts the whole uncore PMU, not one task", '-a')

    def test_bad_options(self):
        self.check(['stat', '-x', 'ab'], 2, 'option -x wants one separator character')
        self.check(['stat', '--interval-count', '3'], 2, '--interval-count needs -I')
        self.check(['stat', '-I', 'fast'], 2, "option -I wants a whole number")
        self.check(['stat', '-a', '-C', '0'], 2, 'either -a or -C')
        self.check(['stat', '--per-cpu', '--per-die'], 2, 'give one of --per-device')
        self.check(['frobnicate'], 2, "unknown command 'frobnicate'")
        self.check(['list', 'pmus', 'a', 'b'], 2, "unexpected argument 'b'")

    def test_bad_cpu_list(self):
        self.check(['stat', '-C', '0-', '-e', 'msr/tsc/'], 1, "bad CPU list '0-'")
        self.check(['stat', '-C', '999', '-e', 'msr/tsc/'], 1, 'CPU 999 is not online')

    def test_bad_root(self):
        r = run('--root', '/nonexistent/dir', 'list')
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot use '/nonexistent/dir' as the root", r.stderr)

    def test_help_teaches(self):
        r = run('stat', '--help')
        self.assertEqual(r.returncode, 0)
        for t in ('-e, --event SPEC', 'ali_drw/hif_rd/', '<not counted>', 'Examples:',
                  '--per-device'):
            self.assertIn(t, r.stdout)
        r = run('--help')
        self.assertEqual(r.returncode, 0)
        self.assertIn('list', r.stdout)


class StatOnThisMachine(unittest.TestCase):
    @need_msr
    def test_csv(self):
        r = run('stat', '-a', '-e', 'msr/tsc/', '-e', 'page-faults', '-x,', '--', 'sleep', '0.2')
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(lines[0], CSV_HEADER)
        rows = list(csv.DictReader(io.StringIO(r.stdout)))
        self.assertEqual([row['event'] for row in rows], ['msr/tsc/', 'page-faults'])
        for row in rows:
            self.assertEqual(row['type'], 'total')
            self.assertEqual(row['simulated'], '0')
            self.assertGreater(float(row['value']), 0)
            self.assertEqual(row['running_pct'], '100.00')
        tsc = rows[0]
        rate = float(tsc['value']) / float(tsc['enabled_ns'])
        self.assertGreater(rate, 0.1)   # GHz: a TSC ticks at least 100 MHz

    @need_msr
    def test_json_lines(self):
        r = run('stat', '-a', '-e', 'msr/tsc/', '-j', '-I', '100', '--interval-count', '3')
        self.assertEqual(r.returncode, 0, r.stderr)
        objs = [json.loads(l) for l in r.stdout.splitlines()]
        self.assertEqual([o['type'] for o in objs], ['interval'] * 3 + ['total'])
        for o in objs:
            self.assertEqual(o['schema'], 1)
            self.assertEqual(o['event'], 'msr/tsc/')
            self.assertTrue(o['counted'])
            self.assertRegex(o['timestamp'], r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')
        self.assertAlmostEqual(objs[1]['time_s'] - objs[0]['time_s'], 0.1, delta=0.05)
        # stopped by --interval-count: the intervals add up to the totals exactly
        self.assertEqual(sum(o['value'] for o in objs[:3]), objs[3]['value'])
        self.assertAlmostEqual(objs[3]['time_s'], objs[2]['time_s'], delta=1e-9)

    @need_msr
    def test_interval_table_and_last_partial_interval(self):
        r = run('stat', '-a', '-e', 'msr/tsc/', '-I', '200', '--', 'sleep', '0.5')
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = [l for l in r.stdout.splitlines() if re.match(r' +\d+\.\d{9} \d\d:', l)]
        # 0.2, 0.4 and the last 0.1 s: no counts are lost when the command ends
        self.assertEqual(len(rows), 3, r.stdout)
        self.assertIn('Performance counter stats for', r.stdout)
        self.assertRegex(rows[0], r'^ +0\.2\d+ \d\d:\d\d:\d\d\.\d{3} +[\d,]+ +msr/tsc/$')

    @need_msr
    def test_per_cpu(self):
        r = run('stat', '-a', '-A', '-e', 'msr/tsc/', '-x,', '--timeout', '100')
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = list(csv.DictReader(io.StringIO(r.stdout)))
        self.assertEqual(len(rows), os.cpu_count())
        self.assertEqual(sorted(int(x['cpu']) for x in rows), list(range(os.cpu_count())))
        self.assertTrue(all(x['socket'] == '0' for x in rows))

    @need_perf
    def test_exit_status_passes_through(self):
        r = run('stat', '-e', 'page-faults', '-x,', '--', 'sh', '-c', 'exit 3')
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn('page-faults', r.stdout)
        r = run('stat', '-e', 'page-faults', '--', 'sh', '-c', 'kill -TERM $$')
        self.assertEqual(r.returncode, 128 + signal.SIGTERM)

    @need_perf
    def test_command_not_found(self):
        r = run('stat', '-e', 'page-faults', '--', '/nonexistent/cmd')
        self.assertEqual(r.returncode, 127)
        self.assertIn("cannot run '/nonexistent/cmd': No such file or directory", r.stderr)

    @need_msr
    def test_output_file(self):
        path = os.path.join(os.environ.get('TMPDIR', '/tmp'), 'pmumon-test-%d.csv' % os.getpid())
        try:
            r = run('stat', '-a', '-e', 'msr/tsc/', '-x;', '-o', path, '--timeout', '50')
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout, '')
            with open(path) as f:
                self.assertEqual(f.readline().strip(), CSV_HEADER.replace(',', ';'))
        finally:
            if os.path.exists(path):
                os.remove(path)
        r = run('stat', '-a', '-e', 'msr/tsc/', '-o', '/nonexistent/dir/x.csv', '--timeout', '10')
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot write '/nonexistent/dir/x.csv'", r.stderr)

    @need_msr
    def test_ctrl_c_prints_totals(self):
        p = subprocess.Popen([PMUMON, 'stat', '-a', '-e', 'msr/tsc/', '-x,'],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(0.5)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=10)
        self.assertEqual(p.returncode, 0, err)
        self.assertIn('counting system-wide until Ctrl-C', err)
        rows = list(csv.DictReader(io.StringIO(out)))
        self.assertEqual(len(rows), 1)
        self.assertGreater(float(rows[0]['time_s']), 0.3)
        self.assertGreater(float(rows[0]['value']), 0)

    @need_perf
    def test_ctrl_c_from_terminal_lets_the_command_finish(self):
        # the terminal sends SIGINT to the whole process group: the command traps
        # it and exits 5 on its own; pmumon waits for that, then prints the totals
        p = subprocess.Popen([PMUMON, 'stat', '-e', 'task-clock', '-x,', '--', 'sh', '-c',
                              'trap "exit 5" INT; sleep 5 & wait'],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)
        time.sleep(0.5)
        os.killpg(p.pid, signal.SIGINT)
        out, err = p.communicate(timeout=10)
        self.assertEqual(p.returncode, 5, err)
        self.assertIn('task-clock', out)

    @need_perf
    def test_sigterm_is_passed_on(self):
        p = subprocess.Popen([PMUMON, 'stat', '-e', 'task-clock', '-x,', '--', 'sleep', '5'],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(0.5)
        t0 = time.monotonic()
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=10)
        self.assertEqual(p.returncode, 128 + signal.SIGTERM, err)
        self.assertLess(time.monotonic() - t0, 1.5)
        self.assertIn('task-clock', out)

    @need_perf
    def test_inherited_sigchld_ignore(self):
        # a parent that ignores SIGCHLD must not cost the command's exit status
        r = subprocess.run([PMUMON, 'stat', '-e', 'page-faults', '--', 'sh', '-c', 'exit 4'],
                           capture_output=True, text=True, timeout=30,
                           preexec_fn=lambda: signal.signal(signal.SIGCHLD, signal.SIG_IGN))
        self.assertEqual(r.returncode, 4, r.stderr)

    @need_perf
    def test_without_pidfd_open(self):
        # Linux < 5.3 or a seccomp profile: the exit is still seen, promptly
        t0 = time.monotonic()
        r = subprocess.run([os.environ['NO_PIDFD'], PMUMON, 'stat', '-e', 'page-faults', '-x,',
                            '--', 'sh', '-c', 'sleep 0.3; exit 6'],
                           capture_output=True, text=True, timeout=30)
        if r.returncode == 77:
            self.skipTest('seccomp is not available: ' + r.stderr.strip())
        self.assertEqual(r.returncode, 6, r.stderr)
        self.assertLess(time.monotonic() - t0, 2)
        self.assertIn('page-faults', r.stdout)

    @need_msr
    def test_timeout_on_a_tick_adds_no_sliver(self):
        r = run('stat', '-a', '-e', 'msr/tsc/', '-I', '100', '--timeout', '300', '-j')
        self.assertEqual(r.returncode, 0, r.stderr)
        kinds = [json.loads(l)['type'] for l in r.stdout.splitlines()]
        self.assertEqual(kinds, ['interval'] * 3 + ['total'])

    @need_msr
    def test_reader_goes_away(self):
        # pmumon | head -1: pmumon must stop, not loop writing into a closed pipe
        p = subprocess.Popen([PMUMON, 'stat', '-a', '-e', 'msr/tsc/', '-I', '10'],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        p.stdout.readline()
        p.stdout.close()
        self.assertEqual(p.wait(timeout=10), 0)
        self.assertNotIn(b'cannot write', p.stderr.read())

    @need_perf
    def test_defaults_say_what_they_count(self):
        r = run('stat', '-a', '--', 'sleep', '0.1')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('pmumon: counting ', r.stderr)
        self.assertIn('context-switches', r.stdout)
        # what this machine cannot count is named once, not silently missing
        for line in r.stderr.splitlines():
            if line.startswith('pmumon: left out, not supported here: '):
                for name in line.split(': ', 2)[2].split(', '):
                    self.assertNotIn(' ' + name + '\n', r.stdout)


class Simulated(unittest.TestCase):
    """--sim: whole machines whose counts are known; every output says SIMULATED."""

    def test_done_when_yitian(self):
        # 16 sub-channel rows per interval, 5 intervals, at once and the same every run
        args = ['--sim', 'yitian710', 'stat', '-a', '--per-device', '-e', 'ali_drw_*/hif_rd/',
                '-I', '1000', '--', 'sleep', '5']
        t0 = time.monotonic()
        r = run(*args)
        self.assertLess(time.monotonic() - t0, 1.0)
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = [l for l in r.stdout.splitlines()
                if re.match(r' +\d+\.\d+ ', l) and 'elapsed' not in l]
        self.assertEqual(len(rows), 16 * 5)
        self.assertIn('[SIMULATED: yitian710]', r.stdout)
        self.assertEqual(run(*args).stdout, r.stdout)

    def test_per_channel(self):
        # die 1's second channel at 12.8 GB/s read, every other idle: one row per channel
        # in the table, the channel in CSV's device column, the place in JSON
        fd, scn = tempfile.mkstemp(suffix='.scn')
        with os.fdopen(fd, 'w') as f:
            f.write('jitter 0\nddr.read 0\nddr.read[5] 12.8G\n')
        try:
            base = ['--sim', 'yitian710:scenario=' + scn, 'stat', '-a',
                    '-M', 'ddr_read_bandwidth.all']
            r = run(*base, '--per-channel', '--', 'sleep', '2')
            self.assertEqual(r.returncode, 0, r.stderr)
            rows = re.findall(r'^(die\d/ch\d) +([\d,.]+) MB/s +ddr_read_bandwidth.all$',
                              r.stdout, re.M)
            self.assertEqual([w for w, _ in rows],
                             ['die%d/ch%d' % (d, c) for d in range(2) for c in range(4)])
            self.assertEqual(dict(rows)['die1/ch1'], '12,800.00')
            self.assertEqual(sum(float(v.replace(',', '')) for _, v in rows), 12800)

            r = run(*base, '--per-channel', '-x,', '--', 'sleep', '2')
            self.assertEqual(r.returncode, 0, r.stderr)
            lines = [l for l in r.stdout.splitlines() if not l.startswith('#')]
            cols = lines[0].split(',')
            got = {l.split(',')[cols.index('device')]: l.split(',') for l in lines[1:]
                   if 'ddr_read_bandwidth' in l}
            self.assertEqual(len(got), 8)
            self.assertAlmostEqual(float(got['die1/ch1'][cols.index('value')]), 12800,
                                   delta=12.8)
            self.assertEqual(got['die1/ch1'][cols.index('die')], '1')

            r = run(*base, '--per-device', '-j', '--', 'sleep', '2')
            self.assertEqual(r.returncode, 0, r.stderr)
            objs = [json.loads(l) for l in r.stdout.splitlines()]
            sub = {o['place']: o for o in objs if o['event'] == 'ddr_read_bandwidth.all'}
            self.assertEqual(sub['die1/ch1/sub1']['device'], 'ali_drw_40023080')
            self.assertEqual((sub['die1/ch1/sub1']['channel'],
                              sub['die1/ch1/sub1']['subchannel']), (1, 1))
            self.assertAlmostEqual(sub['die1/ch1/sub0']['value'], 6400, delta=6.4)
            r = run(*base, '--per-channel', '--per-die', '--', 'sleep', '1')
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn('give one of --per-device, --per-channel', r.stderr)
        finally:
            os.unlink(scn)

    def test_csv_and_json_say_simulated(self):
        r = run('--sim', 'amdzen2', 'stat', '-a', '-e', 'amd_df/event=0x7,umask=0x38/', '-x,',
                '--', 'sleep', '1')
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertTrue(lines[0].startswith('# SIMULATED'), lines[0])
        rec = next(csv.DictReader(io.StringIO('\n'.join(lines[1:]))))
        self.assertEqual(rec['simulated'], '1')
        r = run('--sim', 'amdzen2', 'stat', '-a', '-e', 'msr/tsc/', '-j', '--', 'sleep', '1')
        self.assertEqual(r.returncode, 0, r.stderr)
        obj = json.loads(r.stdout.splitlines()[0])
        self.assertIs(obj['simulated'], True)
        self.assertEqual(obj['sim_platform'], 'amdzen2')

    def test_env_and_list(self):
        env = dict(os.environ, PMUMON_SIM='amdzen2:sockets=2')
        r = run('list', 'pmus', env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('[SIMULATED: amdzen2]', r.stdout)
        self.assertIn('256 CPUs, 2 packages', r.stdout)
        self.assertRegex(r.stdout, r'amd_df +\d+ 0,64 +4 +48')

    def test_virtual_clock_runs_only_sleep(self):
        r = run('--sim', 'yitian710', 'stat', '-a', '--', 'true')
        self.assertEqual(r.returncode, 2)
        self.assertIn("only 'sleep N' runs", r.stderr)
        self.assertIn('clock=real', r.stderr)

    def test_virtual_clock_needs_an_end(self):
        # without one, virtual time would run away printing intervals
        r = run('--sim', 'yitian710', 'stat', '-a', '-e', 'ali_drw/hif_rd/', '-I', '1000',
                timeout=10)
        self.assertEqual(r.returncode, 2)
        self.assertIn('counting needs an end: add -- sleep N, --timeout MS or --interval-count',
                      r.stderr)
        self.assertEqual(r.stdout, '')
        r = run('--sim', 'yitian710', 'stat', '-a', '-e', 'ali_drw/hif_rd/', '-I', '1000',
                '--interval-count', '3', '-x,')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len([l for l in r.stdout.splitlines() if l.startswith('interval,')]), 3)

    def test_real_clock_runs_a_command(self):
        r = run('--sim', 'amdzen2:clock=real', 'stat', '-e', 'msr/tsc/', '-x,', '--', 'sh', '-c',
                'exit 3')
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn('msr/tsc/', r.stdout)

    def test_bad_specs(self):
        r = run('--sim', 'pentium', 'list')
        self.assertEqual(r.returncode, 1)
        self.assertIn("no simulated platform 'pentium'; there are: yitian710", r.stderr)
        r = run('--sim', 'yitian710', '--root', '/', 'list')
        self.assertIn('--sim and --root both name the machine', r.stderr)

    def test_open_errors_are_explained(self):
        # the driver errors a user meets when opening, injected by the scenario
        want = {
            'EBUSY': "the counters of PMU 'amd_df' are in use by someone else",
            'EACCES': "no permission to count 'amd_df/event=0x7,umask=0x38/' on CPU 0",
            'EOPNOTSUPP': "PMU 'amd_df' does not support 'amd_df/event=0x7,umask=0x38/' this way",
            'EINVAL': "PMU 'amd_df' rejected 'amd_df/event=0x7,umask=0x38/' on CPU 0 "
                      "(config 0x3807",
            'EIO': "cannot open 'amd_df/event=0x7,umask=0x38/' on CPU 0 on PMU 'amd_df'",
        }
        fd, path = tempfile.mkstemp(suffix='.scn')
        os.close(fd)
        try:
            for err, text in want.items():
                with open(path, 'w') as f:
                    f.write('at 0s open-error amd_df %s\n' % err)
                r = run('--sim', 'amdzen2:scenario=' + path, 'stat', '-a', '-e',
                        'amd_df/event=0x7,umask=0x38/', '--', 'sleep', '1')
                # a config the PMU rejects is the user's to fix: exit 2, as for a bad spec
                self.assertEqual(r.returncode, 2 if err == 'EINVAL' else 1, err)
                self.assertIn(text, r.stderr, err)
        finally:
            os.unlink(path)

    def test_metrics_and_events_dir(self):
        # a lab's own pack and a perf pmu-events tree, given at run time
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, 'lab'))
            tree = os.path.join(d, 'pmu-events', 'arch', 'x86')
            os.makedirs(os.path.join(tree, 'amdzen2'))
            with open(os.path.join(d, 'lab', 'pack.json'), 'w') as f:
                f.write('{"Pack": "lab", "Match": {"Pmu": "amd_df"}, "Metrics": ["m.json"]}')
            with open(os.path.join(d, 'lab', 'm.json'), 'w') as f:
                f.write('[{"MetricName": "lab_ch0_gbps", "Unit": "DFPMC", "ScaleUnit": "1GB/s",'
                        ' "MetricExpr": "dram_channel_data_controller_0 * 64 / 1e9 / duration_time"}]')
            with open(os.path.join(tree, 'mapfile.csv'), 'w') as f:
                f.write('Family-model,Version,Filename,EventType\n'
                        'AuthenticAMD-23-[[:xdigit:]]+,v1,amdzen2,core\n'
                        'GenuineIntel-6-55,v1,skylakex,core\n')
            with open(os.path.join(tree, 'amdzen2', 'broken.json'), 'w') as f:
                f.write('[{"MetricName": "x",\n  "MetricExpr": }]')
            path = os.path.join(d, 'scn')
            with open(path, 'w') as f:
                f.write('dram.read 3.2G\ndram.write 0\n')
            r = run('--sim', 'amdzen2:scenario=' + path, '--events-dir', d, 'stat', '-a',
                    '-M', 'lab_ch0_gbps', '-x,', '--', 'sleep', '2')
            self.assertEqual(r.returncode, 0, r.stderr)
            row = [l for l in r.stdout.splitlines() if ',lab_ch0_gbps,' in l][0].split(',')
            self.assertEqual(row[9], 'GB/s')
            self.assertAlmostEqual(float(row[8]), 3.2, places=9)
            self.assertIn('metric', row[14])
            # a malformed file is named with its line and column, and skipped
            self.assertRegex(r.stderr, r"malformed pack file 'e0/pmu-events/arch/x86/amdzen2/"
                                       r"broken.json': line 2, column \d+")

    def test_events_dir_symlinks(self):
        # issue 12: links back up the tree (ln -s . dN) are walked once, not
        # 6^8 times; a pack linked in from elsewhere still loads, once
        with tempfile.TemporaryDirectory() as d:
            ed, ext = os.path.join(d, 'events'), os.path.join(d, 'elsewhere', 'lab2')
            os.makedirs(os.path.join(ed, 'lab'))
            os.makedirs(ext)
            for name, where in (('lab', os.path.join(ed, 'lab')), ('lab2', ext)):
                with open(os.path.join(where, 'pack.json'), 'w') as f:
                    f.write('{"Pack": "%s", "Match": {"Pmu": "amd_df"}, "Metrics": ["m.json"]}'
                            % name)
                with open(os.path.join(where, 'm.json'), 'w') as f:
                    f.write('[{"MetricName": "%s_ch0_gbps", "Unit": "DFPMC", "MetricExpr": '
                            '"dram_channel_data_controller_0 * 64 / duration_time"}]' % name)
            for i in range(6):
                os.symlink('.', os.path.join(ed, 'd%d' % i))
            os.symlink(os.path.dirname(ext), os.path.join(ed, 'linked'))
            r = run('--sim', 'amdzen2', '--events-dir', ed, 'list', 'metrics', 'lab*',
                    timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(len(re.findall(r'^  lab_ch0_gbps ', r.stdout, re.M)), 1, r.stdout)
            self.assertEqual(len(re.findall(r'^  lab2_ch0_gbps ', r.stdout, re.M)), 1, r.stdout)

    def test_list_metrics_by_group(self):
        r = run('--sim', 'amdzen2', 'list', 'metrics', 'amd_df_channels')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len(re.findall(r'^  DF_CH\d_BW_GB ', r.stdout, re.M)), 8)
        r = run('--sim', 'amdzen2', 'list', 'metrics', 'no_such_*')
        self.assertIn("no metric or metric group matches 'no_such_*'", r.stdout)

    def test_list_groups(self):
        # every platform's groups, each once, with its pack and metrics
        for plat, group, metric in (('yitian710', 'ali_drw', 'ddr_read_bandwidth.all'),
                                    ('amdzen2', 'amd_df_channels', 'DF_CH7_BW_GB'),
                                    ('bluefield2', 'bf_pcie', 'pcie_out_packets'),
                                    ('merrifield', 'UNC_SOC_DDR_Self_Refresh', None)):
            r = run('--sim', plat, 'list', 'groups')
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(len(re.findall(r'^  %s +\(' % re.escape(group), r.stdout, re.M)), 1,
                             r.stdout)
            if metric:
                self.assertIn(metric, r.stdout)
        r = run('--sim', 'bluefield2', 'list', 'groups', 'nope*')
        self.assertIn("no metric group matches 'nope*'", r.stdout)

    def test_command_line_overrides_environment(self):
        env = dict(os.environ, PMUMON_ROOT=os.path.join(FIXTURES, 'epyc7742-1s'))
        r = run('--sim', 'yitian710', 'list', 'pmus', env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('[SIMULATED: yitian710]', r.stdout)
        env = dict(os.environ, PMUMON_SIM='yitian710')
        r = run('list', 'pmus', root='epyc7742-1s', env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn('SIMULATED', r.stdout)
        self.assertIn('amd_df', r.stdout)

    def test_metric_errors(self):
        r = run('--sim', 'yitian710', 'stat', '-a', '-M', 'ddr_read_bandwidth.ddrc', '--',
                'sleep', '1')
        self.assertEqual(r.returncode, 2)
        self.assertIn("add --define ddrc_freq=VALUE", r.stderr)
        r = run('--sim', 'yitian710', 'stat', '-a', '--define', 'ddrc_freq', '--', 'sleep', '1')
        self.assertEqual(r.returncode, 2)
        self.assertIn("--define wants NAME=NUMBER", r.stderr)
        r = run('--sim', 'amdzen2', 'stat', '-a', '-M', 'DF_CH3_WR_BW_GB', '--', 'sleep', '1')
        self.assertIn("is not available: neither seed 004", r.stderr)
        r = run('--sim', 'amdzen2', 'list', 'metrics', 'DF_CH3_*')
        self.assertIn('unavailable: neither seed 004', r.stdout)

    def test_msr_source_done_when(self):
        # issue 6: eight channels through MSRs, with their duty cycle, agreeing with perf
        out = {}
        for src in ('msr', 'perf'):
            r = run('--sim', 'amdzen2', 'stat', '--source', src, '-a', '-M', 'amd_df_channels',
                    '-I', '1000', '-j', '--', 'sleep', '5')
            self.assertEqual(r.returncode, 0, r.stderr)
            rows = [json.loads(l) for l in r.stdout.splitlines()]
            out[src] = {o['event']: o for o in rows
                        if o['type'] == 'total' and o['event'].startswith('DF_CH')}
            if src == 'msr':
                self.assertIn('read through /dev/cpu/N/msr: amd_df/', r.stderr)
                for o in rows:
                    if o['event'].startswith('amd_df/'):
                        self.assertEqual(o['source'], 'msr')
                ivs = [o for o in rows if o['type'] == 'interval' and o['event'] == 'DF_CH0_BW_GB']
                self.assertEqual(len(ivs), 5)
                for o in ivs:
                    self.assertAlmostEqual(o['running_pct'], 50.0, places=6)
        self.assertEqual(len(out['msr']), 8)
        for name, o in out['msr'].items():
            self.assertLess(abs(o['value'] - out['perf'][name]['value']) / o['value'], 0.01)

    def test_msr_source_on_the_real_clock(self):
        # time moves between the calls: running never exceeds enabled
        specs = sum((['-e', 'amd_df/event=0x%x,umask=0x38/' % e]
                     for e in (0x7, 0x47, 0x87, 0xc7, 0x107)), [])
        r = run('--sim', 'amdzen2:clock=real', 'stat', '--source', 'msr', '-a', *specs, '-I',
                '100', '--interval-count', '5', '-j')
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = [json.loads(l) for l in r.stdout.splitlines()]
        self.assertEqual(len(rows), 5 * 5 + 5)
        for o in rows:
            self.assertLessEqual(o['running_ns'], o['enabled_ns'], o)
        r = run('--sim', 'amdzen2', 'stat', '--source', 'msr', '-e', 'msr/aperf/', '--',
                'sleep', '1')
        self.assertEqual(r.returncode, 2)
        self.assertIn('--source msr counts whole dies', r.stderr)
        r = run('--sim', 'amdzen2:uncore=none,msr=none', 'stat', '-a', '-M', 'amd_df_channels',
                '--', 'sleep', '1')
        self.assertEqual(r.returncode, 1)
        self.assertIn('no /dev/cpu/0/msr: the msr driver is not loaded', r.stderr)

    def test_msr_source_stops_on_sigint(self):
        p = subprocess.Popen([PMUMON, '--sim', 'amdzen2:clock=real', 'stat', '--source', 'msr',
                              '-a', '-M', 'amd_df_channels', '-x,'],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(0.5)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=10)
        self.assertEqual(p.returncode, 0, err)
        self.assertIn('DF_CH7_BW_GB', out)
        r = run('--sim', 'amdzen2', 'stat', '--source', 'pcie', '-a', '--', 'sleep', '1')
        self.assertEqual(r.returncode, 2)
        self.assertIn('--source is perf, msr or auto', r.stderr)

    def test_hwmon_done_when(self):
        # BlueField's tile and L3 blocks per block and interval; more events
        # than a tile's 4 counters still give scaled counts with their running %
        r = run('--sim', 'bluefield2', 'stat', '-a', '--per-device', '-x,', '-e',
                'bfperf/tile*/MEMORY_READS/', '-e', 'bfperf/l3cachehalf*/HITS_BANK0/',
                '-I', '1000', '--', 'sleep', '5')
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = [row for row in sim_csv(r.stdout) if row['type'] == 'interval']
        self.assertEqual(len(rows), 6 * 5)
        self.assertEqual(sorted({row['device'] for row in rows}),
                         ['bfperf/l3cachehalf0', 'bfperf/l3cachehalf1', 'bfperf/tile0',
                          'bfperf/tile1', 'bfperf/tile2', 'bfperf/tile3'])
        self.assertTrue(all(row['running_pct'] == '100.00' for row in rows))
        events = ','.join('bfperf/tile0/%s/' % e for e in (
            'MEMORY_READS', 'MEMORY_WRITES', 'HNF_REQUESTS', 'A72_READ', 'A72_WRITE', 'IO_READ'))
        r = run('--sim', 'bluefield2', 'stat', '-a', '-x,', '-e', events, '--', 'sleep', '3')
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = sim_csv(r.stdout)
        self.assertEqual(len(rows), 6)
        for row in rows:
            self.assertAlmostEqual(float(row['running_pct']), 100 * 4 / 6, delta=2)
            self.assertIn('multiplexed', row['flags'])

    def test_hwmon_puts_everything_back(self):
        # the control files after pmumon equal those of a machine it never touched,
        # after a normal exit and after Ctrl-C
        with tempfile.TemporaryDirectory() as d:
            base, done, intr = (os.path.join(d, n) for n in ('base', 'done', 'intr'))
            r = run('--sim', 'bluefield2:state=' + base, 'list', 'pmus')
            self.assertEqual(r.returncode, 0, r.stderr)
            spec = 'bfperf/tile1/MEMORY_READS/,bfperf/triogen0/AR_BEATS/,' \
                   'bfperf/l3cachehalf0/CYCLES/'
            r = run('--sim', 'bluefield2:state=' + done, 'stat', '-a', '-e', spec, '--',
                    'sleep', '2')
            self.assertEqual(r.returncode, 0, r.stderr)
            p = subprocess.Popen([PMUMON, '--sim', 'bluefield2:clock=real,state=' + intr,
                                  'stat', '-a', '-e', spec, '-I', '100'],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            time.sleep(0.5)
            p.send_signal(signal.SIGINT)
            out, err = p.communicate(timeout=10)
            self.assertEqual(p.returncode, 0, err)
            self.assertIn('bfperf/l3cachehalf0/CYCLES/', out)
            with open(base) as f:
                want = f.read()
            self.assertIn('tile1/event0: 0x0: DISABLE', want)
            self.assertIn('triogen0/event0: 0x0: AW_REQ', want)
            for path in (done, intr):
                with open(path) as f:
                    self.assertEqual(f.read(), want, path)

    def test_hwmon_errors(self):
        r = run('--sim', 'bluefield2:user=nobody', 'stat', '-a', '-e',
                'bfperf/tile0/MEMORY_READS/', '--', 'sleep', '1')
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('no permission to open /sys/class/hwmon/hwmon1/tile0/event0 for writing',
                      r.stderr)
        self.assertIn('run pmumon as root', r.stderr)
        r = run('--sim', 'bluefield2', 'stat', '-a', '-e', 'bfperf/tile0/event=0xff/', '--',
                'sleep', '1')
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('bfperf/tile0 has no event code 0xff', r.stderr)
        r = run('--sim', 'bluefield2', 'stat', '-a', '-e', 'bfperf/tile0/MEMORY_READ/', '--',
                'sleep', '1')
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("unknown term or event 'MEMORY_READ' for PMU 'bfperf/tile0'", r.stderr)
        r = run('--sim', 'bluefield2', 'list', 'pmus')
        self.assertRegex(r.stdout, r'bfperf/l3cachehalf0 +hwmon +0 +5 +57 ')
    def merrifield_list(self):
        # the SIMULATION-ONLY list, as a user would capture theirs from Intel's tools
        r = run('--sim', 'merrifield', 'list', 'program')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('SIMULATION-ONLY', r.stdout)
        fd, path = tempfile.mkstemp(suffix='.list')
        with os.fdopen(fd, 'w') as f:
            f.write(r.stdout)
        self.addCleanup(os.unlink, path)
        return path

    def test_merrifield_done_when(self):
        # issue 7: channel read/write MB/s every interval equal the scenario's
        program = self.merrifield_list()
        fd, scn = tempfile.mkstemp(suffix='.scn')
        with os.fdopen(fd, 'w') as f:
            f.write('ddr.read[0] 640M\nddr.write[0] 256M\nddr.read[1] 320M\n'
                    'ddr.write[1] 128M\n')
        self.addCleanup(os.unlink, scn)
        args = ['--sim', 'merrifield:scenario=' + scn, 'stat', '-g', 'UNC_SOC_Memory_DDR_BW',
                '--program', program, '-I', '1000']
        r = run(*args, '--', 'sleep', '5')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('counting system-wide while', r.stderr)
        self.assertRegex(r.stdout, r'640\.00 MB/s +DDR_Chan0_Read_MBps')
        r = run(*args, '-j', '--', 'sleep', '5')
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = [json.loads(l) for l in r.stdout.splitlines()]
        want = {'DDR_Chan0_Read_MBps': 640, 'DDR_Chan0_Write_MBps': 256,
                'DDR_Chan1_Read_MBps': 320, 'DDR_Chan1_Write_MBps': 128,
                'DDR_Total_MBps': 1344}
        seen = 0
        for o in rows:
            if o['event'] in want:
                self.assertAlmostEqual(o['value'], want[o['event']], places=6, msg=o)
                seen += 1
            elif '/' in o['event']:
                self.assertEqual(o['source'], 'sideband', o)
        self.assertEqual(seen, len(want) * 6)  # 5 intervals and the totals

    def test_merrifield_errors(self):
        r = run('--sim', 'merrifield', 'stat', '-a', '-g', 'UNC_SOC_Memory_DDR_BW',
                '--timeout', '1000')
        self.assertEqual(r.returncode, 1)
        self.assertIn('group needs a programming list', r.stderr)
        self.assertIn('--program FILE', r.stderr)
        self.assertIn("'pmumon import'", r.stderr)
        fd, bad = tempfile.mkstemp(suffix='.list')
        with os.fdopen(fd, 'w') as f:
            f.write('group UNC_SOC_Memory_DDR_BW\ncounter 0 0x17 0x10\n')
        self.addCleanup(os.unlink, bad)
        r = run('--sim', 'merrifield', 'stat', '-a', '-g', 'UNC_SOC_Memory_DDR_BW',
                '--program', bad, '--timeout', '1000')
        self.assertEqual(r.returncode, 2)
        self.assertIn(bad + ":2: 'counter' takes 4 numbers", r.stderr)
        r = run('--sim', 'merrifield', 'stat', '-a', '-g', 'UNC_SOC_Memory_DDR_BW',
                '--program', bad + '.missing', '--timeout', '1000')
        self.assertEqual(r.returncode, 1)
        self.assertIn('cannot read the programming list', r.stderr)
        r = run('--sim', 'merrifield:user=nobody', 'stat', '-a', '-g', 'UNC_SOC_Memory_DDR_BW',
                '--program', self.merrifield_list(), '--timeout', '1000')
        self.assertEqual(r.returncode, 1)
        self.assertIn('run pmumon as root', r.stderr)
        r = run('--sim', 'amdzen2', 'list', 'program')
        self.assertEqual(r.returncode, 2)
        self.assertIn('capture it from Intel', r.stderr)

    def test_merrifield_notes_and_constant(self):
        program = self.merrifield_list()
        args = ['--sim', 'merrifield', 'stat', '-a', '-g', 'UNC_SOC_DDR_Self_Refresh',
                '--program', program, '-j', '--timeout', '2000']
        r = run(*args)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('may be running at a different source clock frequency', r.stderr)
        self.assertIn('add --define base_DRAM_frequency=VALUE', r.stderr)
        vals = {json.loads(l)['event']: json.loads(l)['value'] for l in r.stdout.splitlines()}
        self.assertIsNone(vals['DDR_Chan0_Deep_Self_Refresh_Residency'])
        r = run(*args, '--define', 'base_DRAM_frequency=400e6')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn('base_DRAM_frequency is not known', r.stderr)
        vals = {json.loads(l)['event']: json.loads(l)['value'] for l in r.stdout.splitlines()}
        # the built-in scenario's defaults: 20% deep, 10% shallow
        self.assertAlmostEqual(vals['DDR_Chan0_Deep_Self_Refresh_Residency'], 20, places=6)
        self.assertAlmostEqual(vals['DDR_Chan1_Shallow_Self_Refresh_Residency'], 10, places=6)
        r = run('--sim', 'merrifield', 'list', 'metrics', 'UNC_SOC_Module0_BW')
        self.assertIn('Mod0_ReadPartial - Mod0_Read32B - Mod0_Read64B', r.stdout)
        self.assertIn('note: UNC_SOC_Module0_BW: the module 0 partial event', r.stdout)

    def test_merrifield_stops_on_signals(self):
        program = self.merrifield_list()
        for sig in (signal.SIGINT, signal.SIGTERM):
            p = subprocess.Popen([PMUMON, '-v', '--sim', 'merrifield:clock=real', 'stat', '-a',
                                  '-g', 'UNC_SOC_Memory_DDR_BW', '--program', program, '-x,'],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            time.sleep(0.5)
            p.send_signal(sig)
            out, err = p.communicate(timeout=10)
            self.assertEqual(p.returncode, 0, err)
            self.assertIn('DDR_Total_MBps', out)
            self.assertIn('stopped 4 SoC counters (STOP to iosf_sb)', err)

    def test_scheduled_vanish(self):
        # a PMU goes away mid-run: the totals up to the last good read survive
        fd, path = tempfile.mkstemp(suffix='.scn')
        with os.fdopen(fd, 'w') as f:
            f.write('at 2500ms vanish ali_drw_21000\n')
        try:
            r = run('--sim', 'yitian710:scenario=' + path, 'stat', '-a', '-e',
                    'ali_drw_21000/hif_rd/', '-I', '1000', '--', 'sleep', '5')
        finally:
            os.unlink(path)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('PMU ali_drw_21000 went away while counting', r.stderr)
        self.assertEqual(len([l for l in r.stdout.splitlines() if 'hif_rd' in l]), 3)


if __name__ == '__main__':
    if not PERF_OK:
        print('note: perf events are not permitted here; the stat tests are skipped',
              file=sys.stderr)
    unittest.main(verbosity=2)
