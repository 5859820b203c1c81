#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""However a run ends, pmumon puts back everything it programmed: the signal
matrix. Every way a run can end (its own end, each terminating signal a user
or a dropped SSH session sends, the output's reader going away) on each
source that programs registers (BlueField hwmon slots on bluefield2 and 3,
the DF/L3 MSRs of amdzen2 with --source msr, Merrifield's SoC counters),
under the real clock, after counting has started: the simulated machine's
control registers at the end (--sim P:state=PATH) must equal those of a
machine nobody programmed. A run killed by a signal it does not catch writes
no state at all. The cases run in parallel: each lasts well under a second."""
import concurrent.futures
import json
import os
import signal
import subprocess
import tempfile
import unittest

PMUMON = os.environ['PMUMON']

# the platforms, and what to count on each: every kind of block or register the source programs
SOURCES = {
    # COUNTER blocks with DISABLE (tile, trio), without (triogen), and l3cache (enable file)
    'bluefield2': ['-e', 'bfperf/tile*/MEMORY_READS/,bfperf/tile0/MEMORY_WRITES/,'
                   'bfperf/trio0/TPIO_DATA_BEAT/,bfperf/triogen0/AR_BEATS/,'
                   'bfperf/l3cachehalf0/CYCLES/,bfperf/l3cachehalf1/HITS_BANK0/'],
    # CRSPACE blocks (enable file, 32-bit counters): the pack's llt defaults, and mss
    'bluefield3': ['-e', 'bfperf/llt/HNF0_MEM_READS/,bfperf/llt/HNF1_MEM_READS/,'
                   'bfperf/llt/HNF0_MEM_WRITES/,bfperf/mss0/SKYLIB_CDN_TX_FLITS/'],
    # 8 DF channel events rotating over 4 counters, and an L3 event
    'amdzen2': ['--source', 'msr', '-M', 'amd_df_channels', '-e', 'amd_l3/event=0x4,umask=0xff/'],
    # the memory bandwidth group's five SoC counters (the programming list is added below)
    'merrifield': ['-g', 'UNC_SOC_Memory_DDR_BW'],
}

ENDINGS = ['end', 'SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2', 'SIGALRM',
           'reader-exits']
# the other terminating signals a process can catch and go on after
MORE = ['SIGVTALRM', 'SIGPROF', 'SIGXCPU', 'SIGXFSZ', 'SIGIO', 'SIGPWR', 'SIGRTMIN', 'SIGRTMAX']


def untouched(platform, d):
    """The control registers of a machine nobody programmed."""
    path = os.path.join(d, platform + '.base')
    r = subprocess.run([PMUMON, '--sim', platform + ':state=' + path, 'list', 'pmus'],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    with open(path) as f:
        return f.read()


def run_case(platform, args, how, d):
    """Count, wait for the first interval (counting has started), end the run `how`."""
    state = os.path.join(d, '%s.%s' % (platform, how))
    cmd = [PMUMON, '--sim', '%s:clock=real,state=%s' % (platform, state), 'stat', '-a'] + args
    cmd += ['-j', '-I', '100']
    if how == 'end':
        cmd += ['--timeout', '350']
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        first = p.stdout.readline()
        if how == 'reader-exits':
            p.stdout.close()
            err = p.stderr.read()
        elif how != 'end':
            p.send_signal(getattr(signal, how))
        if how != 'reader-exits':
            _, err = p.communicate(timeout=20)
        p.wait(timeout=20)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    text = None
    if os.path.exists(state):
        with open(state) as f:
            text = f.read()
    return p.returncode, first, err.decode(errors='replace'), text


class Machines(unittest.TestCase):
    """The programming list, the arguments per platform, and each untouched machine's dump."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        d = cls.tmp.name
        r = subprocess.run([PMUMON, '--sim', 'merrifield', 'list', 'program'],
                           capture_output=True, text=True, timeout=30)
        assert r.returncode == 0, r.stderr
        program = os.path.join(d, 'merrifield.list')
        with open(program, 'w') as f:
            f.write(r.stdout)
        cls.args = dict(SOURCES)
        cls.args['merrifield'] = SOURCES['merrifield'] + ['--program', program]
        cls.base = {p: untouched(p, d) for p in SOURCES}

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()


class SignalMatrix(Machines):
    def matrix(self, cases):
        with concurrent.futures.ThreadPoolExecutor(max_workers=8) as ex:
            futs = {(p, how): ex.submit(run_case, p, self.args[p], how, self.tmp.name)
                    for p, how in cases}
            for (platform, how), fut in sorted(futs.items()):
                rc, first, err, state = fut.result()
                with self.subTest(platform=platform, ending=how):
                    # counting had started: the first interval was out, counted
                    self.assertTrue(first, 'no interval before the end\n' + err)
                    row = json.loads(first)
                    self.assertEqual(row['type'], 'interval', err)
                    self.assertEqual(rc, 0, err)
                    self.assertIsNotNone(state, 'no state dump: pmumon died of %s\n%s'
                                         % (how, err))
                    self.assertEqual(state, self.base[platform], err)
                    self.assertNotIn('could not', err)

    def test_every_ending_restores(self):
        self.matrix([(p, how) for p in SOURCES for how in ENDINGS])

    def test_other_terminating_signals(self):
        more = [s for s in MORE if hasattr(signal, s)]
        self.matrix([(p, how) for p in ('bluefield2', 'amdzen2') for how in more])

    def test_untouched_dumps(self):
        # what the comparison rests on: every register is in the dump, at power-up
        base = self.base
        self.assertIn('sys/class/hwmon/hwmon1/tile0/event0: 0x0: DISABLE\n', base['bluefield2'])
        self.assertIn('sys/class/hwmon/hwmon1/l3cachehalf0/enable: 0\n', base['bluefield2'])
        self.assertIn('sys/class/hwmon/hwmon1/llt0/enable: 0\n', base['bluefield3'])
        lines = base['amdzen2'].splitlines()
        self.assertEqual(len([l for l in lines if l.startswith('msr/df/socket0/')]), 4)
        self.assertEqual(len([l for l in lines if l.startswith('msr/l3/ccx')]), 16 * 6)
        self.assertIn('msr/df/socket0/0xc0010246: 0x0000000000000000 stopped', lines)
        self.assertEqual(base['merrifield'].splitlines(),
                         ['sideband/0x17/counter%d: stopped' % i for i in range(8)])


H = 'sys/class/hwmon/hwmon1/'
# What a pmumon counting SOURCES[p] leaves behind when SIGKILL ends it (the
# first phase of its programming), written at 0 s by the scenario, with one
# register of another program's that must stay left alone.
LEFTOVERS = {
    'bluefield2': ('at 0s write %stile1/event0 0x4c\n'        # MEMORY_READS
                   'at 0s write %stile0/event1 0x4d\n'        # MEMORY_WRITES
                   'at 0s write %stile2/event3 0x74\n'        # IO_READ: not asked
                   'at 0s write %sl3cachehalf0/event0 0x1\n'  # CYCLES, and started
                   'at 0s write %sl3cachehalf0/enable 1\n') % ((H,) * 5),
    'bluefield3': ('at 0s write %sllt2/event0 0xb\n'          # HNF0_MEM_READS
                   'at 0s write %sllt2/event1 0x35\n'         # HNF1_MEM_READS
                   'at 0s write %sllt2/enable 1\n') % ((H,) * 3),
    'amdzen2': ('at 0s poke dev/cpu/0/msr 0xc0010240 0x403807\n'  # DF channel 0
                'at 0s poke dev/cpu/0/msr 0xc0010242 0x403847\n'  # DF channel 1
                'at 0s poke dev/cpu/0/msr 0xc0010246 0x400003\n'  # not one of ours
                'at 0s poke dev/cpu/4/msr 0xc0010230 0xff0f00000040ff04\n'),  # L3, CCX 1
    # START on the 4 counters the group's metrics count
    'merrifield': ''.join('at 0s sideband 0x17 1 0x%x 0x00110000\n' % (0x10 + 8 * i)
                          for i in range(4)),
}
# registers of another program's, which no run may touch
THEIRS = {
    'bluefield2': H + 'tile2/event3: 0x74: IO_READ',
    'amdzen2': 'msr/df/socket0/0xc0010246: 0x0000000000400003 counting',
}


class Reclaim(Machines):
    """SIGKILL cannot be caught: the next run names what it left, --reclaim resets it."""

    def leftover_run(self, platform, reclaim):
        d = self.tmp.name
        tag = '%s.%s' % (platform, 'reclaim' if reclaim else 'named')
        scn, state = os.path.join(d, tag + '.scn'), os.path.join(d, tag + '.state')
        with open(scn, 'w') as f:
            f.write(LEFTOVERS[platform])
        cmd = [PMUMON, '--sim', '%s:scenario=%s,state=%s' % (platform, scn, state), 'stat',
               '-a'] + self.args[platform] + ['-x,'] + (['--reclaim'] if reclaim else [])
        r = subprocess.run(cmd + ['--', 'sleep', '1'], capture_output=True, text=True,
                           timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(state) as f:
            return r.stderr, f.read()

    def test_sigkill_leaves_its_programming(self):
        # the one ending nothing can catch: no way out, no state written
        _, _, err, state = run_case('bluefield2', self.args['bluefield2'], 'SIGKILL',
                                    self.tmp.name)
        self.assertIsNone(state, err)

    def test_named_then_reclaimed(self):
        for platform in ('bluefield2', 'bluefield3', 'amdzen2'):
            with self.subTest(platform=platform):
                err, state = self.leftover_run(platform, False)
                self.assertIn('a pmumon that was killed (SIGKILL) left it', err)
                self.assertIn('run again with --reclaim to reset it', err)
                self.assertNotEqual(state, self.base[platform])
                err, state = self.leftover_run(platform, True)
                self.assertIn('as a pmumon that was killed leaves it: reclaimed (--reclaim)',
                              err)
                if platform in THEIRS:
                    # someone else's stays theirs, named as such
                    self.assertIn(THEIRS[platform], state.splitlines())
                    self.assertIn('another program', err)
                    want = [l for l in self.base[platform].splitlines()
                            if l.split(':')[0] != THEIRS[platform].split(':')[0]]
                    self.assertEqual([l for l in state.splitlines()
                                      if l.split(':')[0] != THEIRS[platform].split(':')[0]],
                                     want)
                else:
                    self.assertEqual(state, self.base[platform], err)

    def test_soc_counters_are_taken_over(self):
        # the SoC counters cannot be told apart from another tool's: pmumon has
        # always taken them over and stopped them at the end, --reclaim or not
        err, state = self.leftover_run('merrifield', False)
        self.assertIn("SoC counter 0's control register reads the START command: a pmumon "
                      "that was killed (SIGKILL) left it running", err)
        self.assertEqual(state, self.base['merrifield'], err)


if __name__ == '__main__':
    unittest.main(verbosity=2)
