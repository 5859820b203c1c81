#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""stat's default output as perf 6.1 prints it (issue 14): the default events
this machine cannot count as <not supported> rows in perf's order, in the
table, CSV and JSON; perf's "seconds user" / "seconds sys" lines after one
run of a command. Side by side with perf stat where both can count (skipped
otherwise), and on the simulator; serve and record leave those defaults out."""
import csv
import io
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import unittest

import urllib.request

from sidebyside import BUSY, LIVE, PMUMON, need_both, perf, run, until_alike


# perf 6.1 adds these after cycles where the cpu PMU lists them; pmumon does not
# yet (docs/output.md, "Default events")
PERF_ONLY = ('stalled-cycles-frontend', 'stalled-cycles-backend')


def cannot_count_cycles():
    r = run('stat', '-x,', '-e', 'cycles', '-e', 'task-clock', '--', 'true')
    return r.returncode == 0 and 'unsupported' in r.stdout.splitlines()[1]


NO_CYCLES = LIVE and cannot_count_cycles()

need_no_cycles = unittest.skipUnless(NO_CYCLES, 'this machine counts cycles: no default to leave out')


def table(text):
    """{'rows': [(value, event)], 'footer': [lines after the rows]} of a stat table."""
    lines = text.splitlines()
    start = next(i for i, l in enumerate(lines) if 'Performance counter stats for' in l)
    rows, i = [], start + 2
    while lines[i].strip():
        body = lines[i].split('#')[0].split()
        value = '<not supported>' if body[0] == '<not' else body[0].replace(',', '')
        rows.append((value, body[-1]))
        i += 1
    return {'rows': rows, 'footer': lines[i:]}


def shape(footer):
    """The footer's layout, numbers taken out."""
    return [re.sub(r'\d+\.\d+', 'N', l) for l in footer]


def footer_value(footer, what):
    for l in footer:
        m = re.match(r'^ +(\d+\.\d{9}) seconds ' + what + '$', l)
        if m:
            return float(m.group(1))
    return None


def ours(rows):
    """pmumon's rows without its own msr/ defaults (docs/output.md), which come last."""
    names = [e for _, e in rows]
    first = next((i for i, e in enumerate(names) if e.startswith('msr/')), len(names))
    assert all(e.startswith('msr/') for e in names[first:]), names
    return rows[:first]


def theirs(rows):
    return [r for r in rows if r[1] not in PERF_ONLY]


class SideBySide(unittest.TestCase):
    """perf stat and pmumon stat, the same commands, on this machine."""

    @need_both
    def test_table_after_a_command(self):
        def attempt():
            p = perf('stat', *BUSY)
            m = run('stat', '--', *BUSY)
            self.assertEqual((p.returncode, m.returncode), (0, 0), (p.stderr, m.stderr))
            want, got = table(p.stderr), table(m.stdout)
            w, g = theirs(want['rows']), ours(got['rows'])
            # switches, migrations and the loop's CPU time differ by the load on each
            # run: compared on a run where it fell alike (by the same bounds as below)
            alike = all(close(ev, float(pv), float(mv))
                        for (pv, ev), (mv, _) in zip(w, g) if '<' not in pv + mv)
            return alike, (want, got, w, g)

        def close(ev, pv, mv):
            if ev in ('task-clock', 'page-faults'):  # msec; the shell's faults
                return abs(mv - pv) < max(0.5 * pv, 5)
            return abs(mv - pv) <= max(30, pv)  # switches and migrations of a 20 ms loop

        want, got, w, g = until_alike(attempt)
        self.assertEqual([e for _, e in w], [e for _, e in g])
        self.assertEqual([v == '<not supported>' for v, _ in w],
                         [v == '<not supported>' for v, _ in g])
        for (pv, ev), (mv, _) in zip(w, g):
            if pv == '<not supported>':
                continue
            pv, mv = float(pv), float(mv)
            if ev in ('task-clock', 'page-faults'):  # msec; the shell's faults
                self.assertLess(abs(mv - pv), max(0.5 * pv, 5), (ev, pv, mv))
            else:  # switches and migrations of a 20 ms loop: a few, more on a busy machine
                self.assertLessEqual(abs(mv - pv), max(30, pv), (ev, pv, mv))
        # perf's footer: elapsed, blank, user, sys, two blank lines
        self.assertEqual(shape(got['footer']), shape(want['footer']))
        self.assertEqual(shape(got['footer'])[:4],
                         ['', '       N seconds time elapsed', '', '       N seconds user'])
        pu, mu = footer_value(want['footer'], 'user'), footer_value(got['footer'], 'user')
        ps, ms = footer_value(want['footer'], 'sys'), footer_value(got['footer'], 'sys')
        self.assertLess(abs((mu + ms) - (pu + ps)), max(0.5 * (pu + ps), 0.01),
                        (pu, ps, mu, ms))
        self.assertGreater(mu + ms, 0.005)  # the loop's CPU time, not nothing

    @need_both
    def test_table_system_wide(self):
        cpus = os.cpu_count()

        def attempt():
            p = perf('stat', '-a', 'sleep', '0.5')
            m = run('stat', '-a', '--', 'sleep', '0.5')
            self.assertEqual((p.returncode, m.returncode), (0, 0), (p.stderr, m.stderr))
            want, got = table(p.stderr), table(m.stdout)
            w, g = theirs(want['rows']), ours(got['rows'])
            # every CPU's clock for the half second: a run the load delayed between the
            # counters' enable and the elapsed clock is tried again
            alike = all(abs(float(r[0][0]) - 500 * cpus) < 50 * cpus for r in (w, g)
                        if r and r[0][0] != '<not supported>')
            return alike, (want, got, w, g)

        want, got, w, g = until_alike(attempt)
        self.assertEqual(w[0][1], 'cpu-clock')
        self.assertEqual([(v == '<not supported>', e) for v, e in w],
                         [(v == '<not supported>', e) for v, e in g])
        for rows in (w, g):  # every CPU for half a second
            self.assertLess(abs(float(rows[0][0]) - 500 * cpus), 50 * cpus, rows[0])
        # -a: no user and sys lines in either
        self.assertEqual(shape(got['footer']), shape(want['footer']))
        self.assertIsNone(footer_value(got['footer'], 'user'))

    @need_both
    def test_csv(self):
        p = perf('stat', '-x,', 'true')
        m = run('stat', '-x,', '--', 'true')
        self.assertEqual((p.returncode, m.returncode), (0, 0), (p.stderr, m.stderr))
        want = [l.split(',') for l in p.stderr.strip().splitlines()]
        want = [w for w in want if w[2] not in PERF_ONLY]
        got = [g for g in csv.DictReader(io.StringIO(m.stdout))
               if not g['event'].startswith('msr/')]
        self.assertEqual([w[2] for w in want], [g['event'] for g in got])
        for w, g in zip(want, got):
            self.assertEqual(w[0] == '<not supported>', 'unsupported' in g['flags'], (w, g))
            if w[0] == '<not supported>':
                self.assertEqual((g['value'], g['flags']), ('', 'not_counted|unsupported'))
        self.assertNotIn('seconds', m.stdout + m.stderr)

    @need_both
    def test_json(self):
        p = perf('stat', '-j', 'true')
        m = run('stat', '-j', '--', 'true')
        self.assertEqual((p.returncode, m.returncode), (0, 0), (p.stderr, m.stderr))
        want = [json.loads(l) for l in p.stderr.strip().splitlines()]
        want = [w for w in want if w['event'] not in PERF_ONLY]
        got = [json.loads(l) for l in m.stdout.splitlines()]
        got = [g for g in got if not g['event'].startswith('msr/')]
        self.assertEqual([w['event'] for w in want], [g['event'] for g in got])
        for w, g in zip(want, got):
            ns = w['counter-value'] == '<not supported>'
            self.assertEqual(ns, g['unsupported'], (w, g))
            if ns:
                self.assertIsNone(g['value'])
                self.assertFalse(g['counted'])
        self.assertNotIn('seconds', m.stdout + m.stderr)

    @need_both
    def test_when_user_and_sys_are_printed(self):
        # perf's ru_display: one run of a command, no -a/-C (builtin-stat.c); the footer
        # only in the table and, with -I, with the totals (perf: --summary)
        cases = ((['-a'], ['-a'], False), (['-C', '0'], ['-C', '0'], False),
                 (['-r', '2'], ['-r', '2'], False), (['-r', '1'], ['-r', '1'], True),
                 (['-I', '200', '--summary'], ['-I', '200'], True), ([], [], True))
        for popts, mopts, shown in cases:
            p = perf('stat', '-e', 'task-clock', *popts, 'sleep', '0.3')
            m = run('stat', '-e', 'task-clock', *mopts, '--', 'sleep', '0.3')
            self.assertEqual((p.returncode, m.returncode), (0, 0), (popts, p.stderr, m.stderr))
            self.assertEqual('seconds user' in p.stderr, shown, (popts, p.stderr))
            self.assertEqual('seconds user' in m.stdout, shown, (mopts, m.stdout))
            self.assertEqual('seconds sys' in m.stdout, shown, (mopts, m.stdout))

    @need_both
    def test_stderr_quiet_as_perf(self):
        m = run('stat', '--', 'true')
        self.assertEqual(m.returncode, 0, m.stderr)
        self.assertNotIn('left out', m.stderr)
        self.assertNotIn('not supported', m.stderr)
        if NO_CYCLES:  # -v says why, as perf -v does
            m = run('-v', 'stat', '--', 'true')
            self.assertIn("'cycles' is not supported", m.stderr)


class Simulated(unittest.TestCase):
    """A guest without a virtual PMU (hypervisor=kvm-nopmu): every count known."""

    SIM = 'amdzen2:hypervisor=kvm-nopmu'
    ORDER = ['task-clock', 'context-switches', 'cpu-migrations', 'page-faults', 'cycles',
             'instructions', 'branches', 'branch-misses', 'msr/tsc/', 'msr/aperf/',
             'msr/mperf/']
    HW = {'cycles', 'instructions', 'branches', 'branch-misses'}

    def stat(self, *opts):
        r = run('--sim', self.SIM, 'stat', *opts, '--', 'sleep', '1')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn('left out', r.stderr)
        return r

    def test_table(self):
        t = table(self.stat().stdout)
        self.assertEqual([e for _, e in t['rows']], self.ORDER)
        for v, e in t['rows']:
            self.assertEqual(v == '<not supported>', e in self.HW, (v, e))
        # a simulated sleep is no process: 0 s of CPU, on perf's two lines
        self.assertEqual(t['footer'], ['', '       1.000000000 seconds time elapsed', '',
                                       '       0.000000000 seconds user',
                                       '       0.000000000 seconds sys', '', ''])

    def test_csv_and_json(self):
        got = list(csv.DictReader(io.StringIO(self.stat('-x,').stdout)))
        self.assertEqual([g['event'] for g in got], self.ORDER)
        for g in got:
            self.assertEqual(g['flags'] == 'not_counted|unsupported', g['event'] in self.HW, g)
        got = [json.loads(l) for l in self.stat('-j').stdout.splitlines()]
        self.assertEqual([g['event'] for g in got], self.ORDER)
        for g in got:
            self.assertEqual(g['unsupported'], g['event'] in self.HW, g)
            self.assertEqual(g['value'] is None, g['event'] in self.HW, g)

    def test_no_user_and_sys_lines(self):
        for opts in (['-a'], ['-C', '0'], ['-r', '2'], ['-x,'], ['-j']):
            r = self.stat('-e', 'cpu-clock', *opts)
            self.assertNotIn('seconds user', r.stdout, opts)
            self.assertNotIn('seconds sys', r.stdout, opts)
        r = self.stat('-e', 'cpu-clock', '-I', '500')
        self.assertEqual(r.stdout.count('seconds user'), 1)  # with the totals only


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


class LeftOut(unittest.TestCase):
    """serve and record: a default this machine cannot count has no series, no rows."""

    DROPPED = 'left out, not supported here: cycles, instructions, branches, branch-misses'

    @need_no_cycles
    def test_record(self):
        tmp = tempfile.mkdtemp()
        try:
            db = os.path.join(tmp, 'r.db')
            r = run('record', '-o', db, '-I', '100', '--timeout', '300')
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn(self.DROPPED, r.stderr)
            rep = run('report', db, '-x,')
            self.assertEqual(rep.returncode, 0, rep.stderr)
            events = [l.split(',')[0] for l in rep.stdout.splitlines()[1:] if l.strip()]
            self.assertIn('page-faults', events)
            self.assertFalse(set(events) & {'cycles', 'instructions', 'branches',
                                            'branch-misses'}, events)
            # asked for with -e, it keeps its row
            r = run('record', '-o', db, '--overwrite', '-e', 'cycles', '-e', 'cpu-clock',
                    '-I', '100', '--timeout', '300')
            self.assertEqual(r.returncode, 0, r.stderr)
            rep = run('report', db, '--per-device')  # its rows as kept
            self.assertIn('cycles', rep.stdout)
        finally:
            shutil.rmtree(tmp)

    @need_no_cycles
    def test_serve(self):
        port = free_port()
        p = subprocess.Popen([PMUMON, 'serve', '--listen', '127.0.0.1:%d' % port, '-I', '100'],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            body, deadline = '', time.time() + 10
            while 'page-faults' not in body and time.time() < deadline:
                if p.poll() is not None:
                    self.fail('serve ended: ' + p.stderr.read())
                try:
                    with urllib.request.urlopen('http://127.0.0.1:%d/metrics' % port,
                                                timeout=5) as resp:
                        body = resp.read().decode()
                except OSError:
                    pass
                time.sleep(0.1)
            self.assertIn('event="page-faults"', body)
            for ev in ('cycles', 'instructions', 'branches', 'branch-misses'):
                self.assertNotIn('event="%s"' % ev, body)
        finally:
            p.send_signal(signal.SIGTERM)
            _, err = p.communicate(timeout=10)
        self.assertIn(self.DROPPED, err)


if __name__ == '__main__':
    unittest.main(verbosity=2)
