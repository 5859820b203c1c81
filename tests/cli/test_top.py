#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""pmumon top (issue 17): --batch screens on every simulated platform checked
against the scenario's truth to the printed precision, and the live screen
in a real terminal (tmux): the numbers, the grouping key, 80x24, the help
overlay, and q leaving the terminal and every control register as they
were."""
import os
import re
import shutil
import subprocess
import tempfile
import time
import unittest

PMUMON = os.environ['PMUMON']
FLAT = 'jitter 0\nddr.read 6.4G\nddr.write 3.2G\nddr.rmw 0\n'


def run(*args, **kw):
    return subprocess.run([PMUMON] + list(args), capture_output=True, text=True, timeout=60,
                          **kw)


def blocks(screen):
    """{block name: {place: (value, unit, rest)}} of one screen's text."""
    out, cur = {}, None
    for line in screen.splitlines()[2:]:
        m = re.match(r'^  (\S+)\s+([0-9.]+)([GM]?) (\S*)\s*(.*)$', line)
        one = re.match(r'^(\S+) (\S+)\s+(?:([0-9.]+)([GM]?) (\S*)|(not counted|lost|undefined))'
                       r'\s*(.*)$', line)
        if one and not line.startswith(' '):  # a block of one place, on one line
            v = one.group(3) and float(one.group(3)) * {'': 1, 'M': 1e6, 'G': 1e9}[one.group(4)]
            out.setdefault(one.group(1), {})[one.group(2)] = (
                v, one.group(5) or '', (one.group(6) or '') + ' ' + one.group(7))
            cur = None
        elif line and not line.startswith(' '):
            cur = out.setdefault(line.split()[0], {})
        elif m and cur is not None:
            v = float(m.group(2)) * {'': 1, 'M': 1e6, 'G': 1e9}[m.group(3)]
            cur[m.group(1)] = (v, m.group(4), m.group(5))
        elif line.strip() and cur is not None:
            place, rest = line.split(None, 1)
            cur[place] = (None, '', rest)
    return out


class Batch(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.flat = os.path.join(cls.tmp, 'flat.scn')
        with open(cls.flat, 'w') as f:
            f.write(FLAT)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def screens(self, sim, *args):
        r = run('--sim', sim, 'top', '--batch', '-n', '3', *args)
        self.assertEqual(r.returncode, 0, r.stderr)
        screens = [s for s in r.stdout.split('\n\n') if s.strip()]
        self.assertEqual(len(screens), 3)
        for s in screens:
            self.assertIn('[SIMULATED: %s]' % sim.split(':')[0], s.splitlines()[1])
        return screens

    def test_cgroups(self):
        # a line per cgroup, naming it with the place (the simulated cgroups' tasks run a
        # quarter and half the time)
        for s in self.screens('amdzen2', '-e', 'cpu-clock', '-M', 'CPI',
                              '--for-each-cgroup', 'user.slice,system.slice'):
            self.assertRegex(s, r'(?m)^cpu-clock  \(event\)\n'
                             r'  software in user\.slice +32000\.000 msec.*\n'
                             r'  software in system\.slice +64000\.000 msec')
            self.assertRegex(s, r'(?m)^CPI\n  cpu in user\.slice +0\.664 .*\n'
                             r'  cpu in system\.slice +0\.664 ')

    def test_yitian_channels_equal_the_truth(self):
        for s in self.screens('yitian710:scenario=' + self.flat):
            self.assertTrue(s.startswith('pmumon top - Yitian 710 DDR'))
            self.assertIn('by channel; no peak known', s)
            b = blocks(s)
            for name, truth in (('ddr_read_bandwidth.all', '6400.000'),
                                ('ddr_write_bandwidth.all', '3200.000')):
                self.assertEqual(len(b[name]), 8, b[name])  # every channel, both dies
                for place, (v, unit, _) in b[name].items():
                    self.assertRegex(place, r'^die[01]/ch[0-3]$')
                    self.assertEqual('%.3f' % v, truth, place)
                    self.assertEqual(unit, 'MB/s')
        # the screen's samples follow one another
        nums = [re.search(r'#(\d+)', s).group(1) for s in self.screens('yitian710')]
        self.assertEqual(nums, ['1', '2', '3'])

    def test_bars_against_a_given_peak(self):
        s = self.screens('yitian710:scenario=' + self.flat,
                         '--define', 'channel_peak=25.6e9')[0]
        self.assertIn("bars vs a channel's peak, 25.6 GB/s", s)
        for line in s.split('\nddr_read_bandwidth.all\n')[1].splitlines()[:8]:
            # 6.4 of 25.6 GB/s: a quarter of the 20-cell bar
            self.assertTrue(line.endswith('MB/s   ' + '\u2588' * 5), line)
        s = self.screens('yitian710:scenario=' + self.flat)[0]
        self.assertIn('no peak known', s)

    def test_grouping_and_events_given(self):
        s = self.screens('yitian710:scenario=' + self.flat, '--per-die')[0]
        self.assertIn('by die', s)
        # every row mode names itself (--per-core was shown as "by device")
        for opt, word in (('--per-core', 'by core'), ('--per-node', 'by node')):
            r = run('--sim', 'amdzen2', 'top', '--batch', '-n', '1', opt)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn(word, r.stdout.splitlines()[1])
        b = blocks(s)
        self.assertEqual({p: '%.3f' % v for p, (v, _, _) in b['ddr_read_bandwidth.all'].items()},
                         {'S0-D0': '25600.000', 'S0-D1': '25600.000'})
        s = self.screens('yitian710:scenario=' + self.flat, '-e', 'ali_drw/hif_rd/')[0]
        self.assertTrue(s.startswith('pmumon top - the events given'))
        b = blocks(s)
        # an event shows as a rate: 6.4 GB/s in 64-byte reads per sub-channel pair
        self.assertEqual(len(b['ali_drw/hif_rd/']), 16)
        for v, unit, _ in b['ali_drw/hif_rd/'].values():
            self.assertEqual(unit, '/s')
            self.assertTrue(abs(v - 50e6) <= 1e3, v)

    def test_amdzen2_multiplexed_marks(self):
        s = self.screens('amdzen2')[0]
        b = blocks(s)
        for ch in range(8):
            v, unit, rest = b['DF_CH%d_GBps' % ch]['S0']
            self.assertEqual(unit, 'GB/s')
            # the DF events (8 channels and the remote links) rotate over 4 counters
            share = re.search(r'\((\d+)%\)', rest)
            self.assertTrue(share and 20 <= int(share.group(1)) <= 50, rest)
        self.assertEqual(b['L3_Cache_Miss_Ratio']['S0'][1], '%')

    def test_epyc_l3_per_ccx(self):
        # per CPU, an uncore event shows per domain: EPYC's L3 per CCX (issue 17)
        scn = os.path.join(self.tmp, 'ccx.scn')
        with open(scn, 'w') as f:
            f.write('jitter 0\nl3.hit_ratio 80%\nl3.hit_ratio[3] 50%\n')
        s = self.screens('amdzen2:scenario=' + scn, '-A')[0]
        self.assertIn('by cpu', s)
        block = s.split('\nL3_Cache_Miss_Ratio\n')[1].split('\n')
        rows = {}
        for line in block:
            m = re.match(r'^  (L3 CPUs \S+)\s+([0-9.]+) %', line)
            if not m:
                break
            rows[m.group(1)] = float(m.group(2))
        self.assertEqual(len(rows), 16)  # one per CCX of the socket
        self.assertEqual(rows.pop('L3 CPUs 12-15,76-79'), 50.0)  # CCX 3
        self.assertEqual(set(rows.values()), {20.0})

    def test_bluefield_and_merrifield(self):
        b = blocks(self.screens('bluefield2')[0])
        self.assertEqual(set(b['pcie_in_bandwidth']), {'bfperf/pcie0', 'bfperf/pcie1'})
        self.assertEqual(set(b['l3_hit_ratio_bank0']), {'bfperf/l3cachehalf0',
                                                        'bfperf/l3cachehalf1'})
        prog = os.path.join(self.tmp, 'mf.prog')
        with open(prog, 'w') as f:
            subprocess.run([PMUMON, '--sim', 'merrifield', 'list', 'program'], stdout=f,
                           check=True, timeout=30)
        b = blocks(self.screens('merrifield', '--program', prog)[0])
        # the screen is per channel: reads, writes and both, channel 0's
        for name in ('DDR_Chan0_Read_MBps', 'DDR_Chan0_Write_MBps', 'DDR_Chan0_MBps'):
            self.assertIn(name, b)
        (total,) = b['DDR_Chan0_MBps'].values()
        (rd,) = b['DDR_Chan0_Read_MBps'].values()
        (wr,) = b['DDR_Chan0_Write_MBps'].values()
        self.assertTrue(abs(total[0] - rd[0] - wr[0]) <= 0.002, (total, rd, wr))

    def test_not_counted_is_never_zero(self):
        scn = os.path.join(self.tmp, 'steal.scn')
        with open(scn, 'w') as f:
            f.write('at 0s steal amd_df 0 4\n')
        s = self.screens('amdzen2:scenario=' + scn)[0]
        b = blocks(s)
        for ch in range(8):
            v, _, rest = b['DF_CH%d_GBps' % ch]['S0']
            self.assertIsNone(v)
            self.assertIn('not counted', rest)

    def test_refusals(self):
        r = run('--sim', 'yitian710', 'top', '--batch')
        self.assertEqual(r.returncode, 2)
        self.assertIn('--batch -n N', r.stderr)
        r = run('--sim', 'yitian710', 'top', '-n', '1')  # not a terminal
        self.assertEqual(r.returncode, 2)
        self.assertIn('add --batch', r.stderr)
        r = run('--sim', 'yitian710', 'top', '--batch', '-n', '1', '-I', '50')
        self.assertEqual(r.returncode, 2)
        self.assertIn('100 to 60000 ms', r.stderr)


@unittest.skipUnless(shutil.which('tmux'), 'tmux not installed')
class Terminal(unittest.TestCase):
    """top in an 80x24 tmux pane on a real-clock simulated machine."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.sock = os.path.join(self.tmp, 'tmux.sock')

    def tearDown(self):
        subprocess.run(['tmux', '-S', self.sock, 'kill-server'], capture_output=True)
        shutil.rmtree(self.tmp)

    def tmux(self, *args):
        return subprocess.run(['tmux', '-S', self.sock] + list(args), capture_output=True,
                              text=True, timeout=30).stdout

    def start(self, sim, *args, size=(80, 24)):
        cmd = ' '.join([PMUMON, '--sim', sim, 'top'] + list(args))
        self.tmux('new-session', '-d', '-x', str(size[0]), '-y', str(size[1]),
                  'env LANG=C.UTF-8 %s; echo EXIT=$?; sleep 60' % cmd)

    def screen(self):
        return self.tmux('capture-pane', '-p')

    def wait_for(self, pattern, timeout=10):
        deadline = time.time() + timeout
        while time.time() < deadline:
            s = self.screen()
            if re.search(pattern, s):
                return s
            time.sleep(0.2)
        self.fail('no %r on the screen:\n%s' % (pattern, self.screen()))

    def stop_server(self):
        """End this test's tmux server and wait until its socket is gone."""
        self.tmux('kill-server')
        deadline = time.time() + 5
        while time.time() < deadline and subprocess.run(
                ['tmux', '-S', self.sock, 'has-session'], capture_output=True).returncode == 0:
            time.sleep(0.05)
        time.sleep(0.1)

    def wait_gone(self, text, timeout=5):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if text not in self.screen():
                return
            time.sleep(0.2)
        self.fail('%r stays on the screen' % text)

    def test_live_screen_keys_and_restore(self):
        flat = os.path.join(self.tmp, 'flat.scn')
        with open(flat, 'w') as f:
            f.write(FLAT)
        before, after = os.path.join(self.tmp, 'before'), os.path.join(self.tmp, 'after')
        r = run('--sim', 'yitian710:state=' + before, 'list', 'pmus')
        self.assertEqual(r.returncode, 0)
        self.start('yitian710:clock=real,scenario=%s,state=%s' % (flat, after), '-I', '500',
                   size=(120, 40))
        self.wait_for(r'#2 ')
        self.tmux('resize-window', '-x', '80', '-y', '24')
        s = self.wait_for(r'#4 ')
        self.assertTrue(s.startswith('pmumon top - Yitian 710 DDR'))
        b = blocks(s)
        # 80x24: every channel of both dies on the screen, at the truth (a real clock:
        # within 0.1 % of 6400 MB/s)
        self.assertEqual(len(b['ddr_read_bandwidth.all']), 8)
        self.assertEqual(len(b['ddr_write_bandwidth.all']), 8)
        for v, unit, _ in b['ddr_read_bandwidth.all'].values():
            self.assertTrue(abs(v - 6400) <= 6.4, v)
            self.assertEqual(unit, 'MB/s')
        self.assertTrue(all(len(line) <= 80 for line in s.splitlines()))
        self.tmux('send-keys', 'g')  # channel -> die
        s = self.wait_for(r'by die')
        self.wait_for(r'S0-D1')
        self.tmux('send-keys', 'h')
        self.wait_for(r'pmumon top keys')
        self.tmux('send-keys', 'x')
        self.wait_gone('pmumon top keys')
        self.tmux('send-keys', 'q')
        s = self.wait_for(r'EXIT=0')
        self.assertNotIn('pmumon top -', s)  # the terminal's own screen is back
        with open(before) as f1, open(after) as f2:
            self.assertEqual(f1.read(), f2.read())

    def test_epyc_and_merrifield_screens(self):
        # the other two seed platforms in a real terminal: their screens, at the truth
        # where the scenario fixes it, and q leaving cleanly
        self.start('amdzen2:clock=real', '-I', '300', size=(100, 40))
        s = self.wait_for(r'#2 ')
        self.assertIn('EPYC Zen 2', s)
        b = blocks(s)
        for ch in range(4):
            v, unit, rest = b['DF_CH%d_GBps' % ch]['S0']
            self.assertEqual(unit, 'GB/s')
            self.assertRegex(rest, r'\(\d+%\)')  # rotated over 4 counters: marked
        self.assertTrue(abs(b['L3_Cache_Miss_Ratio']['S0'][0] - 20) <= 0.05)  # 0.8 hits
        self.tmux('send-keys', 'q')
        self.wait_for(r'EXIT=0')
        self.stop_server()
        prog = os.path.join(self.tmp, 'mf.prog')
        with open(prog, 'w') as f:
            subprocess.run([PMUMON, '--sim', 'merrifield', 'list', 'program'], stdout=f,
                           check=True, timeout=30)
        self.start('merrifield:clock=real', '-I', '300', '--program', prog)
        s = self.wait_for(r'#2 ')
        self.assertIn('Merrifield SoC', s)
        b = blocks(s)
        (total,) = b['DDR_Chan0_MBps'].values()
        self.assertGreater(total[0], 0)
        self.tmux('send-keys', 'q')
        self.wait_for(r'EXIT=0')

    def test_bluefield_restores_its_slots(self):
        before, after = os.path.join(self.tmp, 'before'), os.path.join(self.tmp, 'after')
        r = run('--sim', 'bluefield2:state=' + before, 'list', 'pmus')
        self.assertEqual(r.returncode, 0)
        for key in ('q', 'C-c'):  # q, and Ctrl-C: the same way out
            self.start('bluefield2:clock=real,state=' + after, '-I', '200')
            self.wait_for(r'pcie_in_bandwidth')
            self.tmux('send-keys', key)
            s = self.wait_for(r'EXIT=\d+')
            self.assertIn('EXIT=0', s, key)
            self.assertNotIn('pmumon top -', s)  # the terminal's own screen is back
            with open(before) as f1, open(after) as f2:
                self.assertEqual(f1.read(), f2.read(), key)
            self.stop_server()


if __name__ == '__main__':
    unittest.main(verbosity=2)
