#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""perf stat's options that pmumon takes in its shared option parser (issue 14
item 12): each run through pmumon on the simulator, and, where this machine
lets perf count (software events), side by side with perf stat, comparing
acceptance and rows. Side-by-side tests skip where perf cannot run."""
import csv
import glob
import io
import os
import pty
import select
import shutil
import subprocess
import sys
import unittest

from sidebyside import until_alike

PMUMON = os.environ['PMUMON']
FIXTURES = os.environ['PMUMON_TEST_SYSFS']


def run(*args, timeout=60, **kw):
    return subprocess.run([PMUMON] + list(args), capture_output=True, text=True,
                          timeout=timeout, **kw)


def perf(*args, timeout=60):
    return subprocess.run(['perf'] + list(args), capture_output=True, text=True,
                          timeout=timeout)


def rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def perf_works():
    if not shutil.which('perf'):
        return False
    r = perf('stat', '-a', '-x,', '-e', 'cpu-clock', 'true')
    return r.returncode == 0 and 'cpu-clock' in r.stderr


def pmumon_works():
    r = run('stat', '-a', '-e', 'cpu-clock', '--timeout', '10', '-x,')
    return r.returncode == 0


PERF = perf_works()
PMUMON_LIVE = pmumon_works()
need_both = unittest.skipUnless(PERF and PMUMON_LIVE,
                                'perf stat and pmumon stat cannot both count here')
need_live = unittest.skipUnless(PMUMON_LIVE, 'perf events are not permitted here')


def perf_labels(stderr):
    """The aggregation labels of perf stat -x, output (its first field)."""
    return [l.split(',')[0] for l in stderr.splitlines()
            if l.count(',') > 3 and not l.startswith('#')]


def read(path):
    with open(path) as f:
        return f.read().strip()


def sysfs_caches(level=None):
    """perf's cache labels from this machine's sysfs: S-D-L-ID, ID the lowest sharing CPU."""
    labels = set()
    for cpu_dir in glob.glob('/sys/devices/system/cpu/cpu[0-9]*'):
        cpu = int(cpu_dir.rsplit('cpu', 1)[1])
        if not os.path.isdir(cpu_dir + '/topology'):
            continue
        best = None
        for idx in glob.glob(cpu_dir + '/cache/index*'):
            lvl = int(read(idx + '/level'))
            shared = read(idx + '/shared_cpu_list')
            first = int(shared.split(',')[0].split('-')[0]) if shared else cpu
            if (level and lvl == level) or (not level and (not best or lvl > best[0])):
                best = (lvl, first)
        pkg = int(read(cpu_dir + '/topology/physical_package_id'))
        die_file = cpu_dir + '/topology/die_id'
        die = int(read(die_file)) if os.path.exists(die_file) else 0
        if best:
            labels.add('S%d-D%d-L%d-ID%d' % (pkg, die, best[0], best[1]))
    return labels


class PerCoreNodeCache(unittest.TestCase):
    """--per-core, --per-node, --per-cache[=LEVEL] on the simulated EPYC (2 sockets)."""

    def stat(self, *opts, sim='amdzen2:sockets=2'):
        r = run('--sim', sim, 'stat', '-a', '-x,', '-e', 'cpu-clock', *opts, '--', 'sleep', '1')
        self.assertEqual(r.returncode, 0, r.stderr)
        return [w for w in rows(r.stdout) if w['type'] == 'total']

    def test_per_core(self):
        got = self.stat('--per-core')
        self.assertEqual(len(got), 128)  # 2 sockets x 64 cores, 2 threads each
        self.assertEqual(got[0]['device'], 'S0-D0-C0')
        self.assertEqual(got[-1]['device'], 'S1-D0-C63')
        self.assertEqual(float(got[0]['value']), 2000.0)  # two threads' msec

    def test_per_node(self):
        got = self.stat('--per-node')
        self.assertEqual([w['device'] for w in got], ['N0', 'N1'])
        self.assertEqual(float(got[1]['value']), 128000.0)

    def test_per_cache(self):
        got = self.stat('--per-cache')  # the last level: L3 per CCX of 4 cores
        self.assertEqual(len(got), 32)
        self.assertEqual(got[1]['device'], 'S0-D0-L3-ID4')
        self.assertEqual(float(got[1]['value']), 8000.0)
        for level, n in (('L1', 128), ('l2', 128), ('L3', 32)):
            self.assertEqual(len(self.stat('--per-cache=' + level)), n, level)

    def test_table_and_json(self):
        r = run('--sim', 'amdzen2', 'stat', '-a', '--per-node', '-e', 'cpu-clock', '--',
                'sleep', '1')
        self.assertRegex(r.stdout, r'(?m)^N0 +128,000\.00 msec +cpu-clock')
        r = run('--sim', 'amdzen2', 'stat', '-a', '--per-cache=L3', '-j', '-e', 'cpu-clock',
                '--', 'sleep', '1')
        self.assertIn('"domain":"S0-D0-L3-ID60"', r.stdout.replace(' ', ''))

    def test_missing_level_and_bad_values(self):
        # the Yitian 710 model lists L1 and L2 only
        r = run('--sim', 'yitian710', 'stat', '-a', '--per-cache=L3', '-e', 'cpu-clock', '--',
                'sleep', '1')
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn('no CPU lists an L3 cache', r.stderr)
        # the library's reason, in pmumon's flags (cli/hints.c)
        self.assertIn("hint: --per-cache=L3: name a level the CPUs list (their "
                      "cache/index*/level), or give --per-cache alone for each CPU's last "
                      "level", r.stderr)
        self.assertNotIn('pm_session_opts', r.stderr)
        # a machine that lists no cache (the EPYC fixture has no cache/ directories)
        r = run('--root', os.path.join(FIXTURES, 'epyc7742-1s'), 'stat', '-a', '--per-cache',
                '-e', 'cpu-clock', '--', 'true')
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn('no CPU lists a cache', r.stderr)
        self.assertIn('hint: --per-cache has nothing to go by here: use --per-core or '
                      '--per-die', r.stderr)
        self.assertNotIn('PM_AGGR', r.stderr)
        for bad in ('L5', 'L0', '3', 'LLC', 'L'):
            r = run('stat', '--per-cache=' + bad, '-e', 'cpu-clock', '--', 'true')
            self.assertEqual(r.returncode, 2, bad)
            self.assertIn('--per-cache takes a cache level as perf writes it', r.stderr)
        r = run('stat', '--per-core', '--per-node', '-e', 'cpu-clock', '--', 'true')
        self.assertEqual(r.returncode, 2)
        self.assertIn('--merge, --per-core, --per-node, --per-cache', r.stderr)

    def test_uncore_rows(self):
        # the DF counts per socket: per node (NPS1) its rows are the sockets'; the
        # L3s add up within a node's row
        r = run('--sim', 'amdzen2:sockets=2', 'stat', '-a', '-x,', '--per-node', '-e',
                'amd_df/event=0x7,umask=0x38/', '-e', 'amd_l3/event=0x4,umask=0xff/', '--',
                'sleep', '1')
        self.assertEqual(r.returncode, 0, r.stderr)
        got = {(w['event'].split('/')[0], w['device']) for w in rows(r.stdout)}
        self.assertEqual(got, {('amd_df', 'S0'), ('amd_df', 'S1'), ('amd_l3', 'N0'),
                               ('amd_l3', 'N1')})

    def test_import_says_what_is_missing(self):
        rec = run('--sim', 'amdzen2', 'stat', '-a', '-x,', '-A', '-e', 'cpu-clock', '--',
                  'sleep', '1').stdout
        r = run('import', '--per-node', '-', input=rec)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn('lists no node', r.stderr)
        self.assertIn('hint: --per-node has nothing to go by here: use --per-socket or '
                      '--per-die', r.stderr)
        self.assertNotIn('PM_AGGR', r.stderr)

    def test_help(self):
        r = run('stat', '--help')
        for t in ('--per-core', 'S0-D0-C3', '--per-cache[=L2]', 'S0-D0-L3-ID8', '--per-node',
                  '--no-merge'):
            self.assertIn(t, r.stdout)

    def test_no_merge_is_per_device(self):
        a = run('--sim', 'yitian710', 'stat', '-a', '-x,', '--no-merge', '-e',
                'ali_drw/hif_rd/', '--', 'sleep', '1')
        b = run('--sim', 'yitian710', 'stat', '-a', '-x,', '--per-device', '-e',
                'ali_drw/hif_rd/', '--', 'sleep', '1')
        self.assertEqual(a.returncode, 0, a.stderr)
        self.assertEqual(a.stdout.replace(a.stdout.split('\n')[1].split(',')[2], ''),
                         b.stdout.replace(b.stdout.split('\n')[1].split(',')[2], ''))
        self.assertEqual(len(rows(a.stdout)), 16)


class OutputAndWhen(unittest.TestCase):
    """-B/--no-big-num, --summary, --interval-clear, --all-user/--all-kernel, -D."""

    def sim(self, *args):
        return run('--sim', 'amdzen2', 'stat', '-a', '-e', 'cpu-clock', *args, '--', 'sleep', '1')

    def test_big_num(self):
        self.assertIn('128,000.00 msec', self.sim().stdout)
        self.assertIn('128,000.00 msec', self.sim('-B').stdout)
        self.assertIn(' 128000.00 msec', self.sim('--no-big-num').stdout)
        self.assertIn('128,000.00 msec', self.sim('--no-big-num', '--big-num').stdout)
        r = run('top', '--batch', '--no-big-num')
        self.assertEqual(r.returncode, 2)
        self.assertIn('pmumon top prints none', r.stderr)

    def test_summary(self):
        r = self.sim('-x,', '-I', '400', '--summary')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual([w['type'] for w in rows(r.stdout)],
                         ['interval', 'interval', 'interval', 'total'])

    def test_interval_clear_only_on_a_terminal(self):
        # into a pipe: no escapes (newer perf's rule); the option is taken
        r = self.sim('-I', '400', '--interval-clear')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn('\033[2J', r.stdout)
        try:
            import pty
        except ImportError:
            self.skipTest('no pty module')
        pid, fd = pty.fork()
        if pid == 0:
            os.execv(PMUMON, [PMUMON, '--sim', 'amdzen2', 'stat', '-a', '-e', 'cpu-clock',
                              '-I', '400', '--interval-clear', '--', 'sleep', '1'])
        out = b''
        while True:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        os.waitpid(pid, 0)
        self.assertEqual(out.count(b'\033[H\033[2J'), 3)  # before each of 3 intervals
        self.assertEqual(out.count(b'# ') >= 3, True)  # the header after each clear

    def test_delay(self):
        r = self.sim('-D', '250', '-x,')
        self.assertEqual(r.returncode, 0, r.stderr)
        got = rows(r.stdout)[0]
        self.assertEqual(float(got['value']), 128 * 750.0)  # 128 CPUs x 0.75 s
        r = run('--sim', 'amdzen2', 'stat', '-D', '250', '-x,', '-e', 'task-clock', '--',
                'sleep', '1')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(float(rows(r.stdout)[0]['enabled_ns']), 750e6)
        r = run('stat', '-D', '-1', '-e', 'cpu-clock', '--', 'true')
        self.assertEqual(r.returncode, 2)
        self.assertIn('--control', r.stderr)
        r = run('import', '-D', '5', '-')
        self.assertEqual(r.returncode, 2)
        self.assertIn("perf stat's -D/--delay: pmumon stat has it", r.stderr)

    def test_all_user_kernel_refusals(self):
        r = run('stat', '--all-user', '--all-kernel', '-e', 'cpu-clock', '--', 'true')
        self.assertEqual(r.returncode, 2)
        self.assertIn('not both', r.stderr)
        r = run('import', '--all-user', '-')
        self.assertEqual(r.returncode, 2)
        self.assertIn('not to counts already recorded', r.stderr)
        # an uncore PMU cannot exclude: it counts both, and -v says so
        r = run('--sim', 'amdzen2', 'stat', '-v', '-a', '--all-user', '-x,', '-e',
                'amd_df/event=0x7,umask=0x38/', '--', 'sleep', '1')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('counts user space and the kernel alike', r.stderr)

    def test_help(self):
        r = run('stat', '--help')
        for t in ('-B, --big-num', '--no-big-num', '--interval-clear', '--summary',
                  '--all-user', '--all-kernel', '-D, --delay MS'):
            self.assertIn(t, r.stdout)


class Repeat(unittest.TestCase):
    """-r N: the command N times, the means with perf's spread (rel_stddev_stats)."""

    def test_cpu_times_are_each_runs_own(self):
        # the command's user_time is its own run's: getrusage(RUSAGE_CHILDREN) adds
        # up every child waited for, so three runs each taken whole would average
        # twice one run's time
        burn = [sys.executable, '-c', 'sum(range(3 * 10**6))']
        one = run('stat', '-x,', '-e', 'user_time,system_time', '--', *burn)
        three = run('stat', '-r', '3', '-x,', '-e', 'user_time,system_time', '--', *burn)
        self.assertEqual((one.returncode, three.returncode), (0, 0), (one.stderr, three.stderr))

        def cpu(r):
            return sum(float(w['value']) for w in rows(r.stdout))
        self.assertGreater(cpu(one), 0)
        self.assertLess(cpu(three), 1.5 * cpu(one), (cpu(three), cpu(one)))

    def test_table_on_the_simulator(self):
        one = run('--sim', 'amdzen2', 'stat', '-x,', '-e', 'task-clock,page-faults', '--',
                  'sleep', '1')
        r = run('--sim', 'amdzen2', 'stat', '-r', '3', '-e', 'task-clock,page-faults', '--',
                'sleep', '1')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("Performance counter stats for 'sleep 1' (3 runs)", r.stdout)
        # the virtual clock makes the runs alike: the mean is one run's, no spread shown
        # perf's comment divides by the runs' mean elapsed time (1 ms of 1 s)
        self.assertRegex(r.stdout, r'(?m)^ +1\.00 msec +task-clock +#    0\.001 CPUs utilized$')
        self.assertRegex(r.stdout, r'1\.000000000 \+- 0\.000000000 seconds time elapsed')
        self.assertNotIn('( +-', r.stdout)
        r = run('--sim', 'amdzen2', 'stat', '-r', '3', '-x,', '-e', 'task-clock,page-faults',
                '--', 'sleep', '1')
        self.assertEqual([(w['value'], w['spread_pct']) for w in rows(r.stdout)],
                         [(w['value'], '0.00') for w in rows(one.stdout)])
        self.assertEqual([w['spread_pct'] for w in rows(one.stdout)], ['', ''])
        r = run('--sim', 'amdzen2', 'stat', '-r', '2', '-j', '-e', 'task-clock', '--', 'sleep',
                '1')
        self.assertIn('"spread_pct":0,"runs":2', r.stdout)
        self.assertNotIn('spread_pct', run('--sim', 'amdzen2', 'stat', '-j', '-e',
                                           'task-clock', '--', 'sleep', '1').stdout)

    def test_refusals(self):
        for args, msg in ((['-r', '3', '-a', '-e', 'cpu-clock'], 'repeats a command'),
                          (['-r', '3', '-I', '100', '-e', 'cpu-clock', '--', 'true'],
                           'give one of them'),
                          (['-r', 'x', '--', 'true'], 'option -r wants a whole number'),
                          (['-r', '-1', '--', 'true'], 'option -r wants a whole number')):
            r = run('stat', *args)
            self.assertEqual(r.returncode, 2, args)
            self.assertIn(msg, r.stderr)
        r = run('--sim', 'amdzen2', 'stat', '-r', '0', '-e', 'cpu-clock', '--', 'sleep', '1')
        self.assertEqual(r.returncode, 2)
        self.assertIn('never reaches', r.stderr)
        for cmd in ('import', 'top', 'serve', 'record'):
            r = run(cmd, '-r', '3')
            self.assertEqual(r.returncode, 2, cmd)
            self.assertIn("perf stat's -r/--repeat: pmumon stat has it", r.stderr)

    def test_help(self):
        self.assertIn('-r, --repeat N', run('stat', '--help').stdout)

    @need_live
    def test_live_spread(self):
        r = run('stat', '-r', '4', '-x,', '-e', 'task-clock,page-faults', '--', 'true')
        self.assertEqual(r.returncode, 0, r.stderr)
        got = rows(r.stdout)
        self.assertEqual(len(got), 2)
        for w in got:
            self.assertGreaterEqual(float(w['spread_pct']), 0.0)
            self.assertLess(float(w['spread_pct']), 100.0)
        r = run('stat', '-r', '3', '-e', 'task-clock', '--', 'true')
        self.assertRegex(r.stdout, r"stats for 'true' \(3 runs\)")
        self.assertRegex(r.stdout, r'[0-9.]+ \+- [0-9.]+ seconds time elapsed')
        # the command's exit status is the last run's, as perf's
        self.assertEqual(run('stat', '-r', '2', '-e', 'task-clock', '--', 'false').returncode, 1)


class PidTid(unittest.TestCase):
    """-p/-t: running tasks; the simulator has init (1) and a daemon of threads 1000-1002."""

    def stat(self, *args):
        r = run('--sim', 'amdzen2', 'stat', '-x,', '-e', 'task-clock', *args)
        self.assertEqual(r.returncode, 0, r.stderr)
        return rows(r.stdout)

    def test_process_means_all_its_threads(self):
        # a sleeping task runs 0.1% of the time in the model: 1 ms per second per thread
        self.assertEqual(float(self.stat('-p', '1000', '--', 'sleep', '1')[0]['value']), 3.0)
        self.assertEqual(float(self.stat('-t', '1001', '--', 'sleep', '1')[0]['value']), 1.0)
        self.assertEqual(float(self.stat('-t', '1001', '-p', '1,1', '--', 'sleep', '2')[0]
                               ['value']), 4.0)
        self.assertEqual(float(self.stat('-p', '1000', '--timeout', '500')[0]['value']), 1.5)
        r = run('--sim', 'amdzen2', 'stat', '-p', '1000', '-e', 'task-clock', '--', 'sleep',
                '1')
        self.assertIn("Performance counter stats for process id '1000'", r.stdout)
        r = run('--sim', 'amdzen2', 'stat', '-t', '1000,1002', '-e', 'task-clock', '--',
                'sleep', '1')
        self.assertIn("thread id '1000,1002'", r.stdout)

    def test_refusals(self):
        for args, code, msg in (
                (['-p', '4242', '--', 'sleep', '1'], 1, 'no process 4242'),
                # an uncore event counts its whole PMU while the tasks are counted, as perf
                (['-p', '1000', '-e', 'amd_df/event=0x7,umask=0x38/', '--', 'sleep', '1'], 0,
                 'counting it system-wide while the tasks are counted'),
                (['-p', '1000', '-a', '--', 'sleep', '1'], 2, 'not both'),
                (['-p', '1000', '-r', '2', '--', 'sleep', '1'], 2, 'how long'),
                (['-p', '1000'], 2, 'needs an end'),
                (['-p', '1,,2', '--', 'sleep', '1'], 2, '-p wants process IDs'),
                (['-t', '0', '--', 'sleep', '1'], 2, '-t wants thread IDs')):
            r = run('--sim', 'amdzen2', 'stat', *args)
            self.assertEqual(r.returncode, code, (args, r.stderr))
            self.assertIn(msg, r.stderr, args)
        for cmd in ('import', 'top', 'serve', 'record'):
            r = run(cmd, '-p', '1')
            self.assertEqual(r.returncode, 2, cmd)
            self.assertIn("perf stat's -p/--pid: pmumon stat has it", r.stderr)

    def test_help(self):
        out = run('stat', '--help').stdout
        self.assertIn('-p, --pid PID[,PID]', out)
        self.assertIn('-t, --tid TID[,TID]', out)

    @need_live
    def test_ends_when_the_tasks_exit(self):
        child = subprocess.Popen(['sleep', '0.3'])
        r = run('stat', '-p', str(child.pid), '-x,', '-e', 'task-clock', '--timeout', '20000',
                timeout=10)
        child.wait()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('have exited', r.stderr)
        self.assertLess(float(rows(r.stdout)[0]['time_s']), 5.0)


DETAILED = [
    ['L1-dcache-loads', 'L1-dcache-load-misses', 'LLC-loads', 'LLC-load-misses'],
    ['L1-icache-loads', 'L1-icache-load-misses', 'dTLB-loads', 'dTLB-load-misses',
     'iTLB-loads', 'iTLB-load-misses'],
    ['L1-dcache-prefetches', 'L1-dcache-prefetch-misses'],
]


class Detailed(unittest.TestCase):
    """-d, -dd, -ddd: perf 6.1's detailed sets, appended to the events given or the defaults."""

    def sim(self, *opts):
        r = run('--sim', 'amdzen2', 'stat', '-a', '-x,', *opts, '--', 'sleep', '1')
        self.assertEqual(r.returncode, 0, r.stderr)
        return r, rows(r.stdout)

    def test_levels_after_the_events_given(self):
        for opts, level in ((['-d'], 1), (['-dd'], 2), (['-ddd'], 3), (['-d', '-d'], 2),
                            (['--detailed'] * 3, 3), (['-dddd'], 3)):
            r, got = self.sim('-e', 'cpu-clock', *opts)
            want = ['cpu-clock'] + sum(DETAILED[:level], [])
            self.assertEqual([w['event'] for w in got], want, opts)
            self.assertEqual(float(got[0]['value']), 128000.0)
            # the simulated CPU has no cache events: <not supported> rows, quietly as perf
            for w in got[1:]:
                self.assertIn('unsupported', w['flags'])
                self.assertEqual(w['value'], '')
            self.assertNotIn('warning', r.stderr)

    def test_after_the_defaults(self):
        r, got = self.sim('-d')
        names = [w['event'] for w in got]
        self.assertEqual(names[-4:], DETAILED[0])
        self.assertGreater(len(names), 4)  # the defaults come first
        r = run('--sim', 'amdzen2', 'stat', '-d', '-e', 'cpu-clock', '--', 'sleep', '1')
        self.assertRegex(r.stdout, r'(?m)^ +<not supported> +LLC-load-misses$')
        r = run('--sim', 'amdzen2', 'stat', '-v', '-d', '-a', '-e', 'cpu-clock', '--', 'sleep',
                '1')
        self.assertIn("'LLC-loads' is not supported", r.stderr)  # -v says why

    def test_import_and_help(self):
        r = run('import', '-d', '-')
        self.assertEqual(r.returncode, 2)
        self.assertIn("perf stat's -d/--detailed: applies where pmumon counts live", r.stderr)
        r = run('stat', '--help')
        self.assertIn('-d, --detailed', r.stdout)
        self.assertIn('-ddd', r.stdout)

    @need_both
    def test_side_by_side(self):
        # the same rows in the same order, <not supported> where perf says so
        for opt in ('-d', '-dd', '-ddd'):
            p = perf('stat', '-x,', opt, '-e', 'cpu-clock', 'true')
            m = run('stat', '-x,', opt, '-e', 'cpu-clock', '--', 'true')
            self.assertEqual((p.returncode, m.returncode), (0, 0), (p.stderr, m.stderr))
            want = [l.split(',') for l in p.stderr.strip().splitlines()]
            got = rows(m.stdout)
            self.assertEqual([w[2] for w in want], [w['event'] for w in got], opt)
            self.assertEqual([w[0] == '<not supported>' for w in want],
                             ['unsupported' in w['flags'] for w in got], opt)
        # without -e: perf's sets after each tool's defaults (docs/output.md on those)
        p = perf('stat', '-x,', '-d', 'true')
        m = run('stat', '-x,', '-d', '--', 'true')
        self.assertEqual([l.split(',')[2] for l in p.stderr.strip().splitlines()][-4:],
                         [w['event'] for w in rows(m.stdout)][-4:])


STARTED = r'# started on \w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}'


class Append(unittest.TestCase):
    """--append: -o FILE added to, each run after perf's '# started on DATE' line."""

    def setUp(self):
        import tempfile
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def twice(self, *opts):
        path = os.path.join(self.dir, 'out' + ''.join(opts))
        for _ in range(2):
            r = run('--sim', 'amdzen2', 'stat', '-a', '-e', 'cpu-clock', *opts, '--append',
                    '-o', path, '--', 'sleep', '1')
            self.assertEqual(r.returncode, 0, r.stderr)
        return path, read(path) + '\n'

    def test_csv_runs_import_one_at_a_time(self):
        path, text = self.twice('-x,')
        lines = text.splitlines()
        self.assertEqual(len(lines), 6)
        for first in (0, 3):  # each run: perf's line, its own header, its rows
            self.assertRegex(lines[first], '^' + STARTED + '$')
            self.assertTrue(lines[first + 1].startswith('type,time_s,'))
            self.assertTrue(lines[first + 2].startswith('total,'))
        r = run('import', path)
        self.assertEqual(r.returncode, 2)
        self.assertIn(':4: a second run starts here', r.stderr)
        self.assertIn('cut the file at this line', r.stderr)
        first = os.path.join(self.dir, 'first')
        with open(first, 'w') as f:
            f.write(''.join(l + '\n' for l in lines[:3]))
        r = run('import', '-x,', first)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(float(rows(r.stdout)[0]['value']), 128000.0)

    def test_table_and_json(self):
        _, text = self.twice()
        self.assertEqual(len(__import__('re').findall('(?m)^' + STARTED + '\n\n\n '
                                                      'Performance counter stats', text)), 2)
        _, text = self.twice('-j')
        lines = text.splitlines()
        self.assertEqual(len(lines), 4)
        self.assertRegex(lines[2], STARTED)
        import json
        self.assertEqual(json.loads(lines[3])['value'], 128000)

    def test_without_append_replaces(self):
        path = os.path.join(self.dir, 'out')
        for _ in range(2):
            run('--sim', 'amdzen2', 'stat', '-a', '-x,', '-e', 'cpu-clock', '-o', path, '--',
                'sleep', '1')
        self.assertEqual(len(read(path).splitlines()), 2)  # header and row, no date line

    def test_refusals_and_help(self):
        r = run('stat', '--append', '-e', 'cpu-clock', '--', 'true')
        self.assertEqual(r.returncode, 2)
        self.assertIn('--append adds to the file -o names', r.stderr)
        r = run('record', '--append', '-o', os.path.join(self.dir, 'r'), '--timeout', '10')
        self.assertEqual(r.returncode, 2)
        self.assertIn('pmumon record writes its own', r.stderr)
        self.assertIn('--append  ', run('stat', '--help').stdout)
        self.assertIn('--append  ', run('import', '--help').stdout)

    @need_both
    def test_side_by_side(self):
        # the same shape: each run after its '# started on' line; import refuses the second
        for fmt in (['-x,'], []):
            pf, mf = os.path.join(self.dir, 'p'), os.path.join(self.dir, 'm')
            for _ in range(2):
                p = perf('stat', *fmt, '--append', '-o', pf, '-e', 'cpu-clock', 'true')
                m = run('stat', *fmt, '--append', '-o', mf, '-e', 'cpu-clock', '--', 'true')
                self.assertEqual((p.returncode, m.returncode), (0, 0), (p.stderr, m.stderr))
            pt, mt = read(pf), read(mf)
            self.assertEqual(len(__import__('re').findall('(?m)^' + STARTED + '$', pt)), 2)
            self.assertEqual(len(__import__('re').findall('(?m)^' + STARTED + '$', mt)), 2)
            self.assertTrue(pt.startswith('# started on') and mt.startswith('# started on'))
            if fmt:
                for f in (pf, mf):
                    r = run('import', f)
                    self.assertEqual(r.returncode, 2, r.stderr)
                    self.assertIn('a second run', r.stderr)
                    self.assertIn('cut the file at this line', r.stderr)
            os.unlink(pf)
            os.unlink(mf)


def cgroup2_mount():
    """Where this machine mounts cgroup2 (perf's choice without a v1 perf_event one)."""
    try:
        with open('/proc/self/mountinfo') as f:
            for line in f:
                left, _, right = line.partition(' - ')
                if right.startswith('cgroup2 '):
                    return left.split()[4]
    except OSError:
        pass
    return None


class Cgroups(unittest.TestCase):
    """-G/--cgroup and --for-each-cgroup: counted on CPUs, only while a cgroup's tasks run."""

    def sim(self, *opts, fmt=('-x,',)):
        r = run('--sim', 'amdzen2', 'stat', '-a', *fmt, *opts, '--', 'sleep', '1')
        self.assertEqual(r.returncode, 0, r.stderr)
        return r

    def test_uncore_not_in_a_cgroup(self):
        # a pack's defaults are uncore (the EPYC's DF and L3): in cgroups the defaults are
        # perf stat's, as perf counts them; an uncore event named in a cgroup is refused,
        # its count being the whole die's, whoever causes it
        for opt in ('-G', '--for-each-cgroup'):
            r = self.sim(opt, 'user.slice')
            events = [w['event'] for w in rows(r.stdout)]
            self.assertEqual(events[:4], ['cpu-clock', 'context-switches', 'cpu-migrations',
                                          'page-faults'], opt)
            self.assertFalse([e for e in events if 'amd_' in e or 'dram' in e], events)
            self.assertIn("generic events (perf stat's)", r.stderr)
        for spec in ('amd_df/event=0x7,umask=0x38/', 'amd_l3/event=0x4,umask=0xff/'):
            r = run('--sim', 'amdzen2', 'stat', '-a', '-e', spec, '-G', 'user.slice', '--',
                    'sleep', '1')
            self.assertEqual(r.returncode, 1, spec + r.stderr)
            self.assertIn("a PMU shared by several CPUs (its cpumask): in cgroup 'user.slice'", r.stderr)
        self.assertIn('amd_df', [w['event'][:6] for w in rows(self.sim().stdout)][0])

    def test_for_each_cgroup(self):
        r = self.sim('-e', 'cpu-clock,page-faults', '--for-each-cgroup',
                     'system.slice,user.slice')
        got = [(w['event'], w['cgroup']) for w in rows(r.stdout)]
        # perf's order: the events for the first cgroup, then for the next
        self.assertEqual(got, [('cpu-clock', 'system.slice'), ('page-faults', 'system.slice'),
                               ('cpu-clock', 'user.slice'), ('page-faults', 'user.slice')])
        # the simulated cgroups' tasks run half and a quarter of the time
        self.assertEqual(float(rows(r.stdout)[0]['value']), 64000.0)
        self.assertEqual(float(rows(r.stdout)[2]['value']), 32000.0)
        r = self.sim('-e', 'cpu-clock', '-d', '--for-each-cgroup', '/,user.slice')
        self.assertEqual(len(rows(r.stdout)), 2 * 5)  # -d's sets repeated too
        r = self.sim('-e', 'cpu-clock', '--for-each-cgroup', 'user.slice', fmt=())
        self.assertRegex(r.stdout, r'(?m)^ +32,000\.00 msec +cpu-clock user\.slice +'
                                   r'#   32\.000 CPUs utilized$')
        r = self.sim('-e', 'cpu-clock', '--for-each-cgroup', 'user.slice', fmt=('-j',))
        self.assertEqual(__import__('json').loads(r.stdout)['cgroup'], 'user.slice')
        # import takes rows per cgroup back, row for row (tests/cli/test_import.py has
        # perf's)
        for fmt in ('-x,', '-j'):
            r = self.sim('-e', 'cpu-clock,page-faults', '--for-each-cgroup',
                         'user.slice,system.slice', fmt=(fmt,))
            i = run('import', '-x,', '-', input=r.stdout)
            self.assertEqual(i.returncode, 0, i.stderr)
            self.assertEqual([(w['event'], w['cgroup'], float(w['value']))
                              for w in rows(i.stdout)],
                             [('cpu-clock', 'user.slice', 32000.0),
                              ('page-faults', 'user.slice', 6400.0),
                              ('cpu-clock', 'system.slice', 64000.0),
                              ('page-faults', 'system.slice', 12800.0)], fmt)

    def test_for_each_cgroup_repeats_everything(self):
        # perf repeats the whole list per cgroup: the defaults when no -e is given, and
        # -M's events, the metric then computed per cgroup (tools/perf/util/cgroup.c)
        r = self.sim('--for-each-cgroup', 'system.slice,user.slice')
        got = [(w['event'], w['cgroup']) for w in rows(r.stdout)]
        # (perf stat's defaults in cgroups, not the pack's uncore ones: test_uncore_not_in_a_cgroup)
        defaults = [w['event'] for w in rows(self.sim('-G', '/').stdout)]
        self.assertEqual(defaults[0], 'cpu-clock')
        self.assertEqual(got, [(e, 'system.slice') for e in defaults] +
                         [(e, 'user.slice') for e in defaults])
        r = self.sim('-M', 'CPI', '-e', 'cpu-clock', '--for-each-cgroup',
                     'system.slice,user.slice,/')
        got = rows(r.stdout)
        metrics = [(w['event'], w['cgroup']) for w in got if 'metric' in w['flags']]
        self.assertEqual(metrics, [(m, c) for c in ('system.slice', 'user.slice', '/')
                                   for m in ('CpuClockUnhalted', 'InstructionRetired', 'CPI')])
        value = {(w['event'], w['cgroup']): float(w['value']) for w in got}
        for c, share in (('system.slice', 0.5), ('user.slice', 0.25)):
            self.assertAlmostEqual(value[('InstructionRetired', c)],
                                   value[('InstructionRetired', '/')] * share,
                                   delta=value[('InstructionRetired', '/')] * 1e-9)
            self.assertAlmostEqual(value[('CPI', c)], value[('CPI', '/')], places=6)
        # every output names the cgroup of a metric's row too
        r = self.sim('-M', 'CPI', '--for-each-cgroup', 'user.slice', fmt=())
        self.assertRegex(r.stdout, r'(?m)^ +0\.664 +CPI user\.slice$')
        r = self.sim('-M', 'CPI', '--for-each-cgroup', 'user.slice', fmt=('-j',))
        recs = [__import__('json').loads(x) for x in r.stdout.splitlines()]
        self.assertEqual({(x['event'], x['cgroup']) for x in recs if x['metric']},
                         {('CpuClockUnhalted', 'user.slice'),
                          ('InstructionRetired', 'user.slice'), ('CPI', 'user.slice')})
        # an empty name is the root cgroup, as perf opens it (and prints "/"); a name
        # given again is counted once, as perf's list_cgroups keeps it once
        r = self.sim('-e', 'cpu-clock', '--for-each-cgroup', 'user.slice,,/,user.slice')
        self.assertEqual([w['cgroup'] for w in rows(r.stdout)], ['user.slice', '/'])
        self.assertEqual(float(rows(r.stdout)[1]['value']), 128000.0)
        # a source reading registers counts whatever runs: refused in a cgroup
        r = run('--sim', 'amdzen2', 'stat', '-a', '--source', 'msr', '--for-each-cgroup',
                'user.slice', '--', 'sleep', '1')
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn('read through the msr source, which counts whatever runs', r.stderr)

    def test_cgroup_per_event(self):
        # one name: every event; several: one per event in order, an empty one for none
        r = self.sim('-e', 'cpu-clock,page-faults', '-G', 'user.slice')
        self.assertEqual([w['cgroup'] for w in rows(r.stdout)], ['user.slice'] * 2)
        r = self.sim('-e', 'cpu-clock,page-faults', '-G', ',system.slice')
        self.assertEqual([w['cgroup'] for w in rows(r.stdout)], ['', 'system.slice'])
        r = self.sim('-e', 'cpu-clock', '--cgroup=/')
        self.assertEqual(rows(r.stdout)[0]['cgroup'], '/')
        r = self.sim('-e', 'cpu-clock')
        self.assertEqual(rows(r.stdout)[0]['cgroup'], '')  # the column is always there

    def test_refusals(self):
        cases = (
            (['-a', '-G', 'nope'], "no cgroup 'nope' to count 'cpu-clock' in"),
            (['-G', 'user.slice'], 'add -a (or -C)'),
            (['-a', '-G', 'a,b'], '-G names 2 cgroups for 1 events'),
            (['-a', '-G', 'a', '--for-each-cgroup', 'b'], 'not both'),
            (['-a', '-G', '../x'], "without '..'"),
        )
        for opts, said in cases:
            r = run('--sim', 'amdzen2', 'stat', '-e', 'cpu-clock', *opts, '--', 'sleep', '1')
            self.assertNotEqual(r.returncode, 0, opts)
            self.assertIn(said, r.stderr, opts)
        # without -a, refused before any event is looked at, as perf 6.1's cmd_stat does:
        # not an unknown event, not the default events listed first
        for opts, said in ((['-e', 'no-such-event', '-G', 'x'], 'not one command'),
                           (['--for-each-cgroup', 'x,y'], 'not one command'),
                           (['-p', '1', '-G', 'x'], 'drop -p/-t and add -a')):
            r = run('--sim', 'amdzen2', 'stat', *opts, '--', 'sleep', '1')
            self.assertEqual(r.returncode, 2, opts)
            self.assertEqual(r.stderr.count('\n'), 1, r.stderr)
            self.assertIn(said, r.stderr)
            self.assertIn('add -a (or -C)', r.stderr)
        # without a command, stat counts system-wide anyway (perf's default too)
        r = run('--sim', 'amdzen2', 'stat', '-x,', '-e', 'cpu-clock', '-G', 'user.slice',
                '--timeout', '100')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(rows(r.stdout)[0]['cgroup'], 'user.slice')
        r = run('import', '-G', 'x', '-')
        self.assertEqual(r.returncode, 2)
        self.assertIn("perf stat's -G/--cgroup: applies where pmumon counts live", r.stderr)
        h = run('stat', '--help').stdout
        self.assertIn('-G, --cgroup NAME', h)
        self.assertIn('--for-each-cgroup NAME', h)

    @need_both
    def test_side_by_side(self):
        # cgroups of our own, one with a busy task in it, one idle: both count its CPU time
        mnt = cgroup2_mount()
        name = 'pmumon-test-%d' % os.getpid()
        idle = name + '-idle'
        try:
            os.mkdir(os.path.join(mnt, name))
            os.mkdir(os.path.join(mnt, idle))
        except (OSError, TypeError):
            if mnt and os.path.isdir(os.path.join(mnt, name)):
                os.rmdir(os.path.join(mnt, name))
            self.skipTest('no cgroup2 mount here that lets us make a cgroup')
        busy = subprocess.Popen(['sh', '-c', 'echo $$ > "$1/cgroup.procs" && exec sh -c '
                                 '"while :; do :; done"', 'sh', os.path.join(mnt, name)])
        try:
            import time
            # counting starts once the task is in the cgroup (a loaded machine may
            # take longer than a fixed sleep to get it there)
            procs = os.path.join(mnt, name, 'cgroup.procs')
            for _ in range(100):
                with open(procs) as f:
                    if f.read().strip():
                        break
                time.sleep(0.05)
            time.sleep(0.1)
            def busy_time(tool, *opts):
                """A run of either tool, and the CPU time the busy task had meanwhile (its
                /proc utime+stime before and after: the machine's load does not decide
                the outcome)."""
                before = cpu_ms(busy.pid)
                if tool == 'perf':
                    r = perf('stat', '-a', '-x,', *opts, 'sleep', '0.5')
                else:
                    r = run('stat', '-a', '-x,', *opts, '--', 'sleep', '0.5')
                self.assertEqual(r.returncode, 0, r.stderr)
                return r, cpu_ms(busy.pid) - before

            def near(got, want):
                # /proc counts in ticks, and the window opens a little before the counter:
                # never more than the window's, whatever the load; as much but for the
                # ticks when the load let the counter open on time (until_alike's tries)
                self.assertGreater(got, 0, (got, want))
                self.assertLess(got - want, 30 + 0.1 * want, (got, want))

            # this VM's kernel (6.18) sometimes reports the first count in a new cgroup as
            # never enabled (0/0 ns: pmumon says <not counted>) or enabled for hours: one
            # count first, as a user's second run
            run('stat', '-a', '-x,', '-e', 'task-clock', '-G', name, '--', 'sleep', '0.1')
            def close(r, busy, tool):
                text = r.stderr if tool == 'perf' else r.stdout
                v = (text.strip().splitlines()[-1].split(',')[0] if tool == 'perf' else
                     (rows(text) or [{'value': ''}])[0]['value'])
                try:
                    return abs(float(v) - busy) < 30 + 0.1 * busy
                except ValueError:
                    # not counted (this VM's kernel, above, seen again in CI's ASan run):
                    # tried again; the asserts below say what it is if it stays so
                    return False

            for opt in ('-G', '--for-each-cgroup'):
                # each tool's window against /proc's ticks: a run the load stalled between
                # the two is tried again (sidebyside.until_alike)
                p, p_busy = until_alike(lambda: (lambda r: (close(*r, 'perf'), r))(
                    busy_time('perf', '-e', 'task-clock', opt, name)))
                m, m_busy = until_alike(lambda: (lambda r: (close(*r, 'pmumon'), r))(
                    busy_time('pmumon', '-e', 'task-clock', opt, name)))
                want = p.stderr.strip().splitlines()[-1].split(',')
                self.assertEqual(want[3], name)  # perf's cgroup field
                got = rows(m.stdout)[0]
                self.assertEqual(got['cgroup'], name)
                self.assertTrue(got['value'], (opt, m.stdout, m.stderr, m_busy))
                # one busy task: its CPU time in both
                near(float(want[0]), p_busy)
                near(float(got['value']), m_busy)
            # no -e: both repeat their default events for each cgroup, in the same order
            # (perf's <not supported> rows are events pmumon leaves out, said on stderr;
            # pmumon's msr/tsc/ is a default of its own); an idle cgroup's rows are not
            # counted in both; an empty name is the root, "/" in both
            cgs = name + ',' + idle + ','

            p, p_busy = busy_time('perf', '--for-each-cgroup', cgs)
            m, m_busy = busy_time('pmumon', '--for-each-cgroup', cgs)
            want = [l.split(',') for l in p.stderr.splitlines() if l.count(',') > 5]
            want = [f for f in want if f[0] != '<not supported>']
            names = {f[2] for f in want}
            got = [w for w in rows(m.stdout) if w['event'] in names]
            self.assertEqual([(w['event'], w['cgroup']) for w in got],
                             [(f[2], f[3]) for f in want])
            self.assertEqual(len(want), 3 * len(names))
            self.assertEqual([f[3] for f in want[-len(names):]], ['/'] * len(names))
            for f, w in zip(want, got):
                if f[3] == idle:
                    self.assertEqual(f[0], '<not counted>')
                    self.assertIn('not_counted', w['flags'], w)
                    self.assertEqual(w['value'], '')
            # the busy cgroup's cpu-clock is counted in both; not compared with /proc as
            # task-clock is above: this VM's kernel (6.18) gave a cgroup's cpu-clock twice
            # its one task's CPU time, in perf as in pmumon (967 ms against /proc's 460 in
            # perf, 815 against 170), on runs that -e task-clock's comparison passed
            for v in (next(f[0] for f in want if f[2] == 'cpu-clock' and f[3] == name),
                      next(w['value'] for w in got if w['event'] == 'cpu-clock' and
                           w['cgroup'] == name)):
                self.assertGreater(float(v), 0, (p.stderr, m.stdout))
        finally:
            busy.kill()
            busy.wait()
            for d in (name, idle):
                for _ in range(50):
                    try:
                        os.rmdir(os.path.join(mnt, d))
                        break
                    except (OSError, TypeError):
                        __import__('time').sleep(0.05)


class SideBySide(unittest.TestCase):
    """perf stat and pmumon stat on this machine, the same option, the same rows."""

    def both(self, *opts, event='cpu-clock'):
        p = perf('stat', '-a', '-x,', '-e', event, *opts, 'sleep', '0.1')
        m = run('stat', '-a', '-x,', '-e', event, *opts, '--', 'sleep', '0.1')
        return p, m

    @need_both
    def test_per_core_and_node(self):
        for opt in ('--per-core', '--per-node', '--per-socket', '--per-die'):
            p, m = self.both(opt)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(m.returncode, 0, m.stderr)
            want = perf_labels(p.stderr)
            got = [w['device'] if w['device'] else
                   ('S%s-D%s' % (w['socket'], w['die']) if opt == '--per-die' else
                    'S' + w['socket']) for w in rows(m.stdout)]
            self.assertEqual(got, want, opt)

    @need_live
    def test_per_cache_against_sysfs(self):
        # newer than perf 6.1: checked against sysfs, as perf's current source reads it
        for level in (None, 1, 2, 3):
            want = sysfs_caches(level)
            if not want:
                continue
            opt = '--per-cache' + ('=L%d' % level if level else '')
            m = run('stat', '-a', '-x,', '-e', 'cpu-clock', opt, '--', 'sleep', '0.1')
            self.assertEqual(m.returncode, 0, m.stderr)
            self.assertEqual({w['device'] for w in rows(m.stdout)}, want, opt)

    @need_both
    def test_no_merge(self):
        p, m = self.both('--no-merge')
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(m.returncode, 0, m.stderr)
        self.assertEqual(len(perf_labels(p.stderr)), len(rows(m.stdout)))


def cpu_ms(pid):
    """The CPU time (user + system) a process has had, in ms, from /proc/PID/stat."""
    with open('/proc/%d/stat' % pid) as f:
        fields = f.read().rsplit(')', 1)[1].split()
    # after the comm: state is field 3, utime 14 and stime 15 (proc(5))
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf('SC_CLK_TCK')


class SideBySideOptions(unittest.TestCase):
    @need_both
    def test_pid(self):
        # a sleeping child never runs in the window: both say <not counted>
        child = subprocess.Popen(['sleep', '5'])
        busy = subprocess.Popen(['sh', '-c', 'while :; do :; done'])
        try:
            ev = 'task-clock,context-switches'
            p = perf('stat', '-x,', '-p', str(child.pid), '-e', ev, '--', 'sleep', '0.3')
            m = run('stat', '-x,', '-p', str(child.pid), '-e', ev, '--', 'sleep', '0.3')
            self.assertEqual((p.returncode, m.returncode), (0, 0), (p.stderr, m.stderr))
            self.assertEqual([l.split(',')[0] for l in p.stderr.strip().splitlines()],
                             ['<not counted>'] * 2)
            self.assertEqual([w['value'] for w in rows(m.stdout)], ['', ''])
            # a busy one: each tool's task-clock is the CPU time the process had in
            # that tool's own window (its /proc utime+stime before and after, in
            # clock ticks), so the machine's load does not decide the outcome
            for tool in ('perf', 'pmumon'):
                def attempt():
                    before = cpu_ms(busy.pid)
                    if tool == 'perf':
                        r = perf('stat', '-x,', '-p', str(busy.pid), '-e', 'task-clock',
                                 '--', 'sleep', '0.3')
                        got = float(r.stderr.strip().splitlines()[-1].split(',')[0])
                    else:
                        r = run('stat', '-x,', '-p', str(busy.pid), '-e', 'task-clock',
                                '--', 'sleep', '0.3')
                        got = float(rows(r.stdout)[0]['value'])
                    want = cpu_ms(busy.pid) - before
                    return abs(got - want) < 30 + 0.1 * want, (got, want)

                # /proc counts in ticks, and the window opens a little before the
                # counter: a load that stalls the tool between them is tried again; the
                # count is never more than the window's, whatever the load
                got, want = until_alike(attempt)
                self.assertGreater(got, 0, (tool, got, want))
                self.assertLess(got - want, 30 + 0.1 * want, (tool, got, want))
            p = perf('stat', '-x,', '-t', str(busy.pid), '-e', 'task-clock', '--', 'sleep',
                     '0.2')
            m = run('stat', '-x,', '-t', str(busy.pid), '-e', 'task-clock', '--', 'sleep',
                    '0.2')
            self.assertEqual((p.returncode, m.returncode), (0, 0), (p.stderr, m.stderr))
        finally:
            child.kill()
            busy.kill()
            child.wait()
            busy.wait()

    @need_both
    def test_repeat(self):
        # the same rows, the same shape: a mean and its spread in %, perf's -x column
        p = perf('stat', '-r', '5', '-x,', '-e', 'page-faults,task-clock', 'true')
        m = run('stat', '-r', '5', '-x,', '-e', 'page-faults,task-clock', '--', 'true')
        self.assertEqual((p.returncode, m.returncode), (0, 0), (p.stderr, m.stderr))
        want = [l.split(',') for l in p.stderr.strip().splitlines()]
        got = rows(m.stdout)
        self.assertEqual([w[2] for w in want], [w['event'] for w in got])
        for pw, mw in zip(want, got):
            self.assertTrue(pw[3].endswith('%'), pw)  # perf's variance column
            self.assertGreaterEqual(float(mw['spread_pct']), 0.0)
        # page faults of 'true': the same few dozen in both, averaged
        self.assertLess(abs(float(got[0]['value']) - float(want[0][0])),
                        0.25 * float(want[0][0]) + 5)
        p = perf('stat', '-r', '3', '-e', 'task-clock', 'true')
        m = run('stat', '-r', '3', '-e', 'task-clock', '--', 'true')
        for text in (p.stderr, m.stdout):
            self.assertIn("'true' (3 runs):", text)
            self.assertRegex(text, r'\+- [0-9.]+ seconds time elapsed')

    @need_both
    def test_delay(self):
        def attempt():
            p = perf('stat', '-a', '-x,', '-D', '200', '-e', 'cpu-clock', 'sleep', '0.5')
            m = run('stat', '-a', '-x,', '-D', '200', '-e', 'cpu-clock', '--', 'sleep', '0.5')
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(m.returncode, 0, m.stderr)
            want = float(p.stderr.strip().splitlines()[-1].split(',')[0])  # msec
            got = float(rows(m.stdout)[0]['value'])
            return abs(got - want) / want < 0.2, (got, want)

        # the delay's end against the command's: where the load moved one tool's, again
        got, want = until_alike(attempt)
        self.assertLess(abs(got - want) / want, 0.2, (got, want))

    @need_both
    def test_all_user_kernel_accepted(self):
        for opt in ('--all-user', '--all-kernel'):
            p = perf('stat', '-x,', opt, '-e', 'page-faults', 'true')
            m = run('stat', '-x,', opt, '-e', 'page-faults', '--', 'true')
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(m.returncode, 0, m.stderr)
            self.assertEqual(len(rows(m.stdout)), 1)

    @need_both
    def test_interval_clear(self):
        # on a terminal both clear the screen before each interval (ESC[H ESC[2J); into a
        # pipe perf 6.1.192 refuses the option (builtin-stat.c: isatty of its output) and
        # pmumon counts on without escapes (docs/output.md)
        def on_tty(cmd):
            master, slave = pty.openpty()
            p = subprocess.Popen(cmd, stdout=slave, stderr=slave, close_fds=True)
            os.close(slave)
            out = b''
            while True:
                if not select.select([master], [], [], 10)[0]:
                    break
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                out += chunk
            os.close(master)
            return p.wait(timeout=30), out
        args = ['-a', '-e', 'cpu-clock', '-I', '100', '--interval-clear']
        p = on_tty(['perf', 'stat'] + args + ['sleep', '0.35'])
        m = on_tty([PMUMON, 'stat'] + args + ['--', 'sleep', '0.35'])
        self.assertEqual((p[0], m[0]), (0, 0), (p[1][-300:], m[1][-300:]))
        for out in (p[1], m[1]):
            self.assertGreaterEqual(out.count(b'\x1b[H\x1b[2J'), 3, out[:300])
        p = perf('stat', *args, 'sleep', '0.25')
        m = run('stat', *args, '--', 'sleep', '0.25')
        if p.returncode != 0:  # Debian's 6.1.192 checks isatty; 6.1.187 did not
            self.assertIn('--interval-clear does not work with output', p.stderr)
        self.assertEqual(m.returncode, 0, m.stderr)
        self.assertNotIn('\x1b[2J', m.stdout)

    @need_both
    def test_big_num_and_summary_accepted(self):
        for opts in (['-B'], ['--no-big-num'], ['-I', '100', '--summary']):
            p = perf('stat', '-a', '-e', 'cpu-clock', *opts, 'sleep', '0.25')
            m = run('stat', '-a', '-e', 'cpu-clock', *opts, '--', 'sleep', '0.25')
            self.assertEqual((p.returncode, m.returncode), (0, 0), (opts, p.stderr, m.stderr))
        p = perf('stat', '-a', '-e', 'cpu-clock', '--no-big-num', 'sleep', '1.1')
        m = run('stat', '-a', '-e', 'cpu-clock', '--no-big-num', '--', 'sleep', '1.1')
        self.assertNotRegex(p.stderr, r'\d,\d{3}\.\d')
        self.assertNotRegex(m.stdout, r'\d,\d{3}\.\d')


if __name__ == '__main__':
    unittest.main(verbosity=2)
