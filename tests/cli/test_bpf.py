#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""--bpf-counters (issue 33, docs/attribution.md): events counted in cgroups once per
CPU, accumulated per cgroup by a BPF program on sched_switch, against the plain
path (one cgroup-mode perf event per cgroup per CPU) on this machine's kernel, in the
same run: pmumon with --bpf-counters runs pmumon without it, which runs the command
that releases two workloads waiting in two cgroups made here (P/a and P/b, P listed
too: its counts are its children's). Software events whose counts are discrete
(context-switches, page-faults) must agree exactly but for what the two reads'
different instants allow (each workload's last switch out: at most one context
switch per cgroup). Root and a kernel that takes the program, else 77 with why; the
refusals (no cgroup, the simulator, built without libbpf) run anywhere, as nobody
with root to switch to it."""
import csv
import io
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

PMUMON = os.environ['PMUMON']
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EVENTS = 'context-switches,page-faults,cpu-clock'


def cgroup2_mount():
    with open('/proc/self/mountinfo') as f:
        for line in f:
            left, _, right = line.partition(' - ')
            if right.startswith('cgroup2 '):
                return left.split()[4]
    return None


def run(*args, sim=None):
    cmd = [PMUMON] + (['--sim', sim] if sim else []) + list(args)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def built():
    """Whether this pmumon has the BPF path (the simulator's refusal says which)."""
    r = run('stat', '-a', '-e', 'cpu-clock', '--for-each-cgroup', 'x', '--bpf-counters',
            '-I', '100', '--interval-count', '1', sim='amdzen2')
    return 'built without the BPF path' not in r.stderr


# A workload: into its cgroup, then (before any counting) waits on its go fifo; released,
# it touches 2 MiB of fresh pages and sleeps 1 ms 50 times (a context switch each), says
# done and waits on its end fifo until the test is over.
WORKLOAD = r'''
import os, sys, time
cg, go, done, end = sys.argv[1:]
with open(os.path.join(cg, 'cgroup.procs'), 'w') as f:
    f.write(str(os.getpid()))
open(go).read()
buf = bytearray(2 << 20)
for i in range(0, len(buf), 4096):
    buf[i] = 1
for _ in range(50):
    time.sleep(0.001)
with open(done, 'w') as f:
    f.write('done')
open(end).read()
'''

# The command both pmumon count: releases the workloads, waits for their done, then
# until each sleeps on its end fifo (its last switch out, at most, after this).
COMMAND = r'''
import sys, time
pids, fifos = sys.argv[1].split(','), sys.argv[2:]
for go in fifos[0::2]:
    with open(go, 'w') as f:
        f.write('go')
for done in fifos[1::2]:
    open(done).read()
for p in pids:
    while open('/proc/%s/stat' % p).read().rsplit(')', 1)[1].split()[0] != 'S':
        time.sleep(0.001)
'''


def rows(path):
    with open(path) as f:
        return {(r['event'], r['cgroup']): r for r in csv.DictReader(f)
                if r['type'] == 'total'}


class Refusals(unittest.TestCase):
    def test_needs_cgroups(self):
        r = run('stat', '-a', '-e', 'cpu-clock', '--bpf-counters', '-I', '100',
                '--interval-count', '1', sim='amdzen2')
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('--bpf-counters counts the events of cgroups through BPF: give it with '
                      '-G, --for-each-cgroup, --attribute-cgroups or --attribute-pods',
                      r.stderr)
        self.assertEqual(r.stderr.count('--bpf-counters'), 1, r.stderr)  # said once

    def test_simulator_refused(self):
        r = run('stat', '-a', '-e', 'cpu-clock', '--for-each-cgroup', 'user.slice',
                '--bpf-counters', '-I', '100', '--interval-count', '1', sim='amdzen2')
        self.assertNotEqual(r.returncode, 0)
        if built():
            self.assertIn("--bpf-counters needs the real kernel's bpf(): the sim os has none",
                          r.stderr)
        else:
            self.assertIn('this pmumon was built without the BPF path', r.stderr)
            self.assertIn('libbpf-dev', r.stderr)


    def test_possible_cpus_with_a_gap_refused(self):
        # the kernel's per-CPU maps pack a value per possible CPU; the sums are kept by
        # CPU number: a machine whose possible CPUs have a gap is refused, not misread
        # (a fixture tree's possible list; the refusal comes before any bpf())
        if not built():
            self.skipTest('built without libbpf (test_simulator_refused checks what it says)')
        with tempfile.TemporaryDirectory() as root:
            shutil.copytree(os.path.join(os.environ['PMUMON_TEST_SYSFS'], 'zen4-1s'), root,
                            dirs_exist_ok=True, symlinks=True)
            with open(os.path.join(root, 'sys/devices/system/cpu/possible'), 'w') as f:
                f.write('0-1,4-5\n')
            r = subprocess.run([PMUMON, '--root', root, 'stat', '-a', '-e', 'cpu-clock',
                                '--for-each-cgroup', '', '--bpf-counters', '--', 'true'],
                               capture_output=True, text=True, timeout=60)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("this machine's possible CPUs are 0-1,4-5, not 0 to", r.stderr)
        self.assertIn('hint: count without --bpf-counters', r.stderr)


class Unprivileged(unittest.TestCase):
    def test_names_the_capabilities(self):
        mnt = cgroup2_mount()
        if os.geteuid() != 0 or not mnt or not built() or not os.path.exists('/sbin/runuser'):
            self.skipTest('needs root (to run as nobody), runuser, cgroup2, the BPF path')
        r = subprocess.run(['runuser', '-u', 'nobody', '--', PMUMON, 'stat', '-a', '-e',
                            'cpu-clock', '--for-each-cgroup', '', '--bpf-counters', '--',
                            'true'], capture_output=True, text=True, timeout=60)
        self.assertNotEqual(r.returncode, 0)
        # the program or the system-wide counters refused, each naming the capability
        self.assertIn('CAP_PERFMON', r.stderr)
        self.assertEqual(r.stderr.count('pmumon: '), 1, r.stderr)


def unit_caps(*files):
    """The capabilities the service gets from the unit and its drop-ins: the last
    AmbientCapabilities= of dist/systemd's FILES, as setpriv names them (cap_bpf: bpf)."""
    caps = None
    for name in files:
        with open(os.path.join(ROOT, 'dist/systemd', name)) as f:
            for line in f:
                if line.startswith('AmbientCapabilities='):
                    caps = line.split('=', 1)[1].split()
    return ','.join('+' + c.lower()[len('cap_'):] for c in caps)


class ServiceCapabilities(unittest.TestCase):
    """pmumon-serve.service's capabilities and those of its bpf drop-in, held by nobody
    (setpriv): the drop-in's count with --bpf-counters, the unit's alone are refused
    naming CAP_BPF (the unit's system call filter is systemd's: systemd-analyze verify
    reads it in test_serve.py's test_units_verify)."""

    def count(self, caps):
        mnt = cgroup2_mount()
        if os.geteuid() != 0 or not mnt or not built() or not shutil.which('setpriv'):
            self.skipTest('needs root (to become nobody), setpriv, cgroup2, the BPF path')
        return subprocess.run(['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups',
                               '--inh-caps=-all,' + caps, '--ambient-caps=-all,' + caps,
                               '--bounding-set=-all,' + caps, '--', PMUMON, 'stat', '-a',
                               '-x,', '-e', 'context-switches', '--for-each-cgroup', '',
                               '--bpf-counters', '--', 'sleep', '0.05'],
                              capture_output=True, text=True, timeout=60)

    def test_the_bpf_drop_in_counts(self):
        caps = unit_caps('pmumon-serve.service', 'pmumon-serve-bpf.conf')
        self.assertEqual(caps, '+bpf,+perfmon')
        r = self.count(caps)
        self.assertEqual(r.returncode, 0, r.stderr)
        got = [(t['event'], t['cgroup'], int(t['value']))
               for t in csv.DictReader(io.StringIO(r.stdout)) if t['type'] == 'total']
        self.assertEqual([g[:2] for g in got], [('context-switches', '/')], r.stdout)
        self.assertGreater(got[0][2], 0, r.stdout)  # sleep switches out at least once

    def test_the_unit_alone_is_refused(self):
        r = self.count(unit_caps('pmumon-serve.service'))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('CAP_BPF', r.stderr)
        self.assertEqual(r.stderr.count('pmumon: '), 1, r.stderr)


CPU1_ONLINE = '/sys/devices/system/cpu/cpu1/online'


class Hotplug(unittest.TestCase):
    """A CPU taken offline while --bpf-counters counts (SMT turned off, a vCPU removed):
    the kernel runs nothing there, so the reads go on with that CPU's sums as its last
    switch left them, as the plain path's counters of it stand; every interval is
    counted, before, during and after. Root and a CPU 1 that can go offline, else
    skipped; run alone (meson: is_parallel false), as it takes a CPU from the machine
    for the few intervals it waits for."""

    def setUp(self):
        if os.geteuid() != 0 or not built() or not cgroup2_mount():
            self.skipTest('needs root, cgroup2, the BPF path')
        try:
            with open(CPU1_ONLINE) as f:
                if f.read().strip() != '1':
                    self.skipTest('CPU 1 is offline already')
            with open(CPU1_ONLINE, 'w') as f:
                f.write('1')
        except OSError as e:
            self.skipTest('CPU 1 cannot go offline here: %s' % e)

    def set_online(self, on):
        with open(CPU1_ONLINE, 'w') as f:
            f.write('1' if on else '0')

    def test_counts_on_while_a_cpu_is_offline(self):
        p = subprocess.Popen([PMUMON, 'stat', '-a', '-x,', '-e', 'context-switches',
                              '--for-each-cgroup', '', '--bpf-counters', '-I', '100',
                              '--interval-count', '12'],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.addCleanup(self.set_online, True)
        lines = []
        try:
            # each step waits for an interval printed, not for time: offline after the
            # 2nd, online again after the 6th
            for line in p.stdout:
                lines.append(line)
                n = sum(1 for x in lines if x.startswith('interval,'))
                if n == 2 and line.startswith('interval,'):
                    self.set_online(False)
                elif n == 6 and line.startswith('interval,'):
                    self.set_online(True)
            err = p.stderr.read()
        finally:
            p.kill()
            p.wait()
        self.assertEqual(p.returncode, 0, err)
        rows = [r for r in csv.DictReader(io.StringIO(''.join(lines))) if r['type'] == 'interval']
        self.assertEqual(len(rows), 12, err)
        for r in rows:  # every interval counted: switches on CPU 0 at least
            self.assertNotIn('not_counted', r['flags'], r)
            self.assertGreater(int(r['value']), 0, r)


class AgainstPlain(unittest.TestCase):
    def setUp(self):
        if os.geteuid() != 0:
            self.skipTest('not root: cgroups are made here and BPF needs CAP_BPF')
        if not built():
            self.skipTest('built without libbpf (Refusals checks what it says)')
        self.mnt = cgroup2_mount()
        if not self.mnt:
            self.skipTest('no cgroup2 mount')
        self.tmp = tempfile.mkdtemp(prefix='pmumon-bpf.')
        self.parent = 'pmumon-bpf-test-%d' % os.getpid()
        self.cgs = [self.parent + '/a', self.parent + '/b']
        os.mkdir(os.path.join(self.mnt, self.parent))
        self.procs = []

    def tearDown(self):
        for p in self.procs:
            p.kill()
            p.wait()
        for c in self.cgs + [self.parent]:
            try:
                os.rmdir(os.path.join(self.mnt, c))
            except OSError:
                pass
        subprocess.run(['rm', '-rf', self.tmp])

    def test_agrees_with_plain(self):
        fifos = []
        for c in self.cgs:
            os.mkdir(os.path.join(self.mnt, c))
            names = [os.path.join(self.tmp, c.replace('/', '_') + '.' + x)
                     for x in ('go', 'done', 'end')]
            for n in names:
                os.mkfifo(n)
            self.procs.append(subprocess.Popen(
                [sys.executable, '-c', WORKLOAD, os.path.join(self.mnt, c)] + names))
            fifos += names[:2]
        # each workload in its cgroup and waiting before anything counts
        for p, c in zip(self.procs, self.cgs):
            with open(os.path.join(self.mnt, c, 'cgroup.procs')) as f:
                while str(p.pid) not in f.read().split():
                    f.seek(0)
        # the parent twice, the second time spelled another way (one directory, one cgroup
        # id): each spelling its rows, the same counts
        alias = self.parent + '/.'
        listed = ','.join(self.cgs + [self.parent, alias])
        bpf, plain = os.path.join(self.tmp, 'bpf.csv'), os.path.join(self.tmp, 'plain.csv')
        r = run('stat', '-a', '-x,', '-e', EVENTS, '--for-each-cgroup', listed,
                '--bpf-counters', '-o', bpf, '--',
                PMUMON, 'stat', '-a', '-x,', '-e', EVENTS, '--for-each-cgroup', listed,
                '-o', plain, '--',
                sys.executable, '-c', COMMAND, ','.join(str(p.pid) for p in self.procs),
                *fifos)
        if r.returncode != 0 and ('the BPF program of --bpf-counters' in r.stderr or
                                  'cgroup-switches' in r.stderr):
            print('skipped: the kernel refuses the BPF path:', r.stderr.strip())
            sys.exit(77)
        self.assertEqual(r.returncode, 0, r.stderr)
        b, p = rows(bpf), rows(plain)
        # the rows are the same in shape: every (event, cgroup), in the same columns
        self.assertEqual(sorted(b), sorted(p))
        with open(bpf) as f1, open(plain) as f2:
            self.assertEqual(f1.readline(), f2.readline())
        for cg in self.cgs + [self.parent]:
            cs_b = int(b[('context-switches', cg)]['value'])
            cs_p = int(p[('context-switches', cg)]['value'])
            pf_b = int(b[('page-faults', cg)]['value'])
            pf_p = int(p[('page-faults', cg)]['value'])
            print('%-40s context-switches bpf %d plain %d; page-faults bpf %d plain %d; '
                  'cpu-clock bpf %s plain %s ms' %
                  (cg, cs_b, cs_p, pf_b, pf_p, b[('cpu-clock', cg)]['value'],
                   p[('cpu-clock', cg)]['value']))
            # the workloads did what they say: 50 sleeps, 512 fresh pages
            self.assertGreaterEqual(cs_p, 50 * (2 if cg == self.parent else 1))
            self.assertGreaterEqual(pf_p, 512 * (2 if cg == self.parent else 1))
            # the plain path reads first; each workload's last switch out may come after
            slack = 2 if cg == self.parent else 1
            self.assertLessEqual(abs(cs_b - cs_p), slack, cg)
            self.assertEqual(pf_b, pf_p, cg)
        for rs in (b, p):
            for ev in ('context-switches', 'page-faults'):
                self.assertEqual(rs[(ev, alias)]['value'], rs[(ev, self.parent)]['value'], ev)
        # the parent's counts are its children's, in each path (an ancestor's sums)
        for rs in (b, p):
            for ev in ('context-switches', 'page-faults'):
                self.assertEqual(int(rs[(ev, self.parent)]['value']),
                                 sum(int(rs[(ev, c)]['value']) for c in self.cgs), ev)


if __name__ == '__main__':
    unittest.main()
