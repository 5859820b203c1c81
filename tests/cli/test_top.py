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


# a value's line: its place (or "KIND PLACE" for a kind of one place), the number, the unit
ROW = re.compile(r'^(?P<label>.*?\S)\s+(?P<num>-?[0-9]+\.[0-9]+(?:e[+-][0-9]+)?) (?P<unit>\S+)'
                 r'(?P<rest>.*)$')
NONE = re.compile(r'^(?P<label>.*?\S)\s+(?P<why>not counted|lost|undefined|not supported)'
                  r'(?P<rest>.*)$')
BARS = ' \u2588\u258f\u258e\u258d\u258c\u258b\u258a\u2589#'
UNIT = re.compile(r'^[GM]?(?:[A-Za-z]*/s|%|GHz|MHz|Hz|ratio|msec/s)$')


def kinds(screen):
    """{kind: {'title': line, 'rows': {place: (value, unit, rest)}, 'totals': {...},
    'no_total': why or None}} of one screen's text (one column: --batch at 80)."""
    out, cur = {}, None
    lines = screen.splitlines()
    for i, line in enumerate(lines[2:], 2):
        if not line.startswith(' '):
            m = ROW.match(line)
            nxt = lines[i + 1] if i + 1 < len(lines) else ''
            if m:  # a kind of one place, on one line
                kind, place = m.group('label').split(' ', 1)
                out[kind] = {'title': line, 'rows': {place: (
                    float(m.group('num')), m.group('unit'), m.group('rest').strip(BARS).strip())},
                    'totals': {}, 'no_total': None}
                cur = None
            elif nxt.startswith('  '):
                cur = out.setdefault(re.split(r':|  \(', line)[0], {
                    'title': line, 'rows': {}, 'totals': {}, 'no_total': None})
            continue
        if cur is None:
            continue
        line = line[2:]
        if line.startswith('no total: '):
            cur['no_total'] = line[len('no total: '):]
            continue
        m, n = ROW.match(line), NONE.match(line)
        if m:
            label, v = m.group('label'), (float(m.group('num')), m.group('unit'),
                                          m.group('rest').strip(BARS).strip())
        elif n:
            label, v = n.group('label'), (None, '', n.group('why') + n.group('rest'))
        else:
            continue
        cur['totals' if label.endswith(' total') or ' total in ' in label else 'rows'][label] = v
    return out


def value_lines(screen):
    """The match of every line of a screen that shows a value (one column)."""
    out = []
    for line in screen.splitlines()[2:]:
        m = ROW.match(line)
        if m:
            out.append(m)
    return out


def program(tmp):
    """The simulator's programming list for merrifield (--program)."""
    prog = os.path.join(tmp, 'mf.prog')
    if not os.path.exists(prog):
        with open(prog, 'w') as f:
            subprocess.run([PMUMON, '--sim', 'merrifield', 'list', 'program'], stdout=f,
                           check=True, timeout=30)
    return prog


# Scenarios with every instance at one rate, so that each place and total is known exactly
SCENARIOS = {
    'yitian710': FLAT,
    'amdzen2': 'jitter 0\ndram.read 6G\ndram.write 3G\nremote.out 1G\n',
    'bluefield2': 'jitter 0\ntile.mem_reads 20M\ntile.mem_writes 10M\n',
    'bluefield3': 'jitter 0\nllt.mem_reads 15M\nllt.mem_writes 8M\n',
    'merrifield': 'jitter 0\nddr.read 600M\nddr.write 300M\n',
}



# a screen from the second sample on: one whose values are a difference. Not '#2 ' alone:
# under load a capture can come after the screen moved on (#33 seen at -I 300)
SECOND = r'#([2-9]|[1-9][0-9]+) '

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

    def scenario(self, platform):
        path = os.path.join(self.tmp, platform + '.scn')
        with open(path, 'w') as f:
            f.write(SCENARIOS[platform])
        return path

    def check_screen(self, s):
        """What every screen must be: a unit on every value, its numbers in one column."""
        lines = value_lines(s)
        self.assertTrue(lines, s)
        for m in lines:
            self.assertRegex(m.group('unit'), UNIT, m.group(0))
        ends = {m.end('num') for m in lines}
        self.assertEqual(len(ends), 1, 'the values do not line up:\n' + s)

    def test_cgroups(self):
        # a line per cgroup, naming it with the place (the simulated cgroups' tasks run a
        # quarter and half the time); never a total over cgroups (they may nest)
        for s in self.screens('amdzen2', '-e', 'cpu-clock', '-M', 'CPI',
                              '--for-each-cgroup', 'user.slice,system.slice'):
            self.assertRegex(s, r'(?m)^cpu-clock  \(event: counts shown per second\)\n'
                             r'  software in user\.slice +32000\.000 msec/s.*\n'
                             r'  software in system\.slice +64000\.000 msec/s')
            self.assertRegex(s, r'(?m)^CPI\n  cpu in user\.slice +0\.664 ratio.*\n'
                             r'  cpu in system\.slice +0\.664 ratio')
            self.assertNotIn('total', s.split('\nCPI\n')[0])
            self.check_screen(s)

    def test_yitian_channels_and_totals(self):
        for s in self.screens('yitian710:scenario=' + self.scenario('yitian710')):
            self.assertTrue(s.startswith('pmumon top - Yitian 710 DDR'))
            self.assertIn('by channel; no peak known', s)
            self.check_screen(s)
            k = kinds(s)
            for name, metric, ch in (('memory read', 'ddr_read_bandwidth.all', 6400),
                                     ('memory write', 'ddr_write_bandwidth.all', 3200),
                                     ('memory', 'ddr_bandwidth.all', 9600)):
                self.assertEqual(k[name]['title'], '%s: %s' % (name, metric))
                rows = k[name]['rows']
                # every channel of both dies, its die in its name
                self.assertEqual(sorted(rows), ['die%d/ch%d' % (d, c) for d in (0, 1)
                                                for c in range(4)])
                for place, (v, unit, _) in rows.items():
                    self.assertEqual('%.3f' % v, '%.3f' % ch, place)
                    self.assertEqual(unit, 'MB/s')
                # pcm-memory's NODE and System lines: per die, for the machine
                self.assertEqual({p: '%.3f' % v for p, (v, u, _) in k[name]['totals'].items()},
                                 {'die0 total': '%.3f' % (4 * ch),
                                  'die1 total': '%.3f' % (4 * ch),
                                  'machine total': '%.3f' % (8 * ch)})
        # the screen's samples follow one another
        nums = [re.search(r'#(\d+)', s).group(1) for s in self.screens('yitian710')]
        self.assertEqual(nums, ['1', '2', '3'])

    def test_a_partial_total_says_so(self):
        # one sub-channel gone: its channel and every total over it are marked, never a
        # silent smaller number
        scn = os.path.join(self.tmp, 'vanish.scn')
        with open(scn, 'w') as f:
            f.write(FLAT + 'at 1500ms vanish ali_drw_21000\n')
        def third(*args):  # a device lost ends top with 1, after its screens
            r = run('--sim', 'yitian710:scenario=' + scn, 'top', '--batch', '-n', '3', *args)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn('ali_drw_21000 went away', r.stderr)
            return [x for x in r.stdout.split('\n\n') if x.strip()][2]

        s = third()
        k = kinds(s)['memory read']
        self.assertEqual(k['rows']['die0/ch0'][:2], (3200.0, 'MB/s'))
        self.assertEqual(k['rows']['die0/ch0'][2], 'partial 1/2')
        self.assertEqual(k['totals'], {'die0 total': (22400.0, 'MB/s', 'partial 7/8'),
                                       'die1 total': (25600.0, 'MB/s', ''),
                                       'machine total': (48000.0, 'MB/s', 'partial 15/16')})
        s = third('--per-device')
        k = kinds(s)['memory read']
        self.assertEqual(k['rows']['die0/ch0/sub0'][0], None)
        self.assertIn('lost', k['rows']['die0/ch0/sub0'][2])
        self.assertEqual(k['totals']['die0 total'], (22400.0, 'MB/s', 'partial 7/8'))
        self.assertEqual(k['totals']['machine total'], (48000.0, 'MB/s', 'partial 15/16'))

    def test_bars_against_a_given_peak(self):
        s = self.screens('yitian710:scenario=' + self.flat,
                         '--define', 'channel_peak=25.6e9')[0]
        self.assertIn("bars vs a channel's peak, 25.6 GB/s", s)
        for line in s.split('\nmemory read: ddr_read_bandwidth.all\n')[1].splitlines()[:8]:
            # 6.4 of 25.6 GB/s: a quarter of the 20-cell bar
            self.assertTrue(line.endswith('MB/s  ' + '\u2588' * 5), line)
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
        k = kinds(s)['memory read']
        self.assertEqual({p: '%.3f' % v for p, (v, _, _) in k['rows'].items()},
                         {'die0': '25600.000', 'die1': '25600.000'})
        self.assertEqual(k['totals'], {'machine total': (51200.0, 'MB/s', '')})
        s = self.screens('yitian710:scenario=' + self.flat, '-e', 'ali_drw/hif_rd/')[0]
        self.assertTrue(s.startswith('pmumon top - the events given'))
        self.check_screen(s)
        k = kinds(s)['ali_drw/hif_rd/']
        self.assertIn('(event: counts shown per second)', k['title'])
        # an event shows as a rate: 6.4 GB/s in 64-byte reads per sub-channel pair
        self.assertEqual(len(k['rows']), 16)
        for v, unit, _ in k['rows'].values():
            self.assertEqual(unit, 'M/s')
            self.assertEqual(v, 50.0)
        self.assertEqual(k['totals']['machine total'], (800.0, 'M/s', ''))

    def test_epyc_sockets_totals_and_units(self):
        s = self.screens('amdzen2:sockets=2,scenario=' + self.scenario('amdzen2'))[0]
        self.check_screen(s)
        k = kinds(s)
        mem = k['memory']
        # one chart of every channel of both sockets, each labelled with its socket
        self.assertEqual(mem['title'], 'memory: DF_CH0_GBps ... DF_CH7_GBps')
        self.assertEqual(sorted(mem['rows']), ['S%d/ch%d' % (so, c) for so in (0, 1)
                                               for c in range(8)])
        for place, (v, unit, rest) in mem['rows'].items():
            self.assertEqual((v, unit), (9.0, 'GB/s'), place)
            # the DF events (8 channels and the remote links) rotate over 4 counters
            share = re.search(r'\((\d+)%\) (±\S+) ~', rest)
            self.assertTrue(share and 20 <= int(share.group(1)) <= 50, rest)
            # and its estimate's interval: flat traffic, so a narrow one (docs/bounds.md)
            self.assertEqual(share.group(2), '±<0.01%', rest)
        self.assertEqual(sorted(mem['totals']), ['S0 total', 'S1 total', 'machine total'])
        self.assertEqual(mem['totals']['S0 total'][:2], (72.0, 'GB/s'))
        self.assertEqual(mem['totals']['machine total'][:2], (144.0, 'GB/s'))
        self.assertRegex(mem['totals']['machine total'][2], r'^\(\d+%\) ±\S+ ~$')  # its doubts
        # an amount in each interval is shown per second and says so
        links = k['all_remote_links_outbound']
        self.assertIn('(MiB in each interval, shown per second)', links['title'])
        self.assertEqual({u for _, u, _ in links['rows'].values()}, {'MiB/s'})
        self.assertEqual(links['totals']['machine total'][0],
                         round(sum(v for v, _, _ in links['rows'].values()), 3))
        # a ratio's total is its summed parts (CPI: the cycles over the instructions, to the
        # printed precision); a frequency has none, and says why
        self.assertIsNone(k['l3 miss']['no_total'])
        self.assertEqual(k['l3 miss']['totals'], {'machine total': (20.0, '%', '')})
        self.assertIn('frequencies', k['EffectiveFrequency']['no_total'])
        self.assertEqual(k['EffectiveFrequency']['totals'], {})
        self.assertEqual(k['CPI']['rows']['S0'][1], 'ratio')
        cpi = k['CPI']['totals']['machine total'][0]
        want = (k['CpuClockUnhalted']['totals']['machine total'][0] /
                k['InstructionRetired']['totals']['machine total'][0])
        self.assertAlmostEqual(cpi, want, delta=0.0006)
        self.assertIn('(a count in each interval, shown per second)',
                      k['CpuClockUnhalted']['title'])
        cyc = k['CpuClockUnhalted']
        self.assertEqual(cyc['totals']['machine total'][0],
                         round(cyc['rows']['S0'][0] + cyc['rows']['S1'][0], 3))

    def test_a_ratio_total_is_its_summed_parts(self):
        # socket 0's L3 misses 20 % of 1.6 G accesses/s, socket 1's 60 % of 4.8 G: the
        # machine misses 50 % of its accesses, not the 40 % an average of ratios says
        scn = os.path.join(self.tmp, 'l3.scn')
        with open(scn, 'w') as f:
            f.write('jitter 0\nl3.access[0-15] 100M\nl3.access[16-31] 300M\n'
                    'l3.hit_ratio[0-15] 80%\nl3.hit_ratio[16-31] 40%\n')
        for s in self.screens('amdzen2:sockets=2,scenario=' + scn):
            k = kinds(s)['l3 miss']
            self.assertEqual(k['rows'], {'S0': (20.0, '%', ''), 'S1': (60.0, '%', '')})
            self.assertEqual(k['totals'], {'machine total': (50.0, '%', '')})
        # per CCX (-A), the sockets' totals too
        k = kinds(self.screens('amdzen2:sockets=2,scenario=' + scn, '-A')[0])['l3 miss']
        self.assertEqual(len(k['rows']), 32)
        self.assertEqual({p: v for p, (v, _, _) in k['totals'].items()},
                         {'S0 total': 20.0, 'S1 total': 60.0, 'machine total': 50.0})

    def test_epyc_sockets_side_by_side(self):
        r = run('--sim', 'amdzen2:sockets=2,scenario=' + self.scenario('amdzen2'), 'top',
                '--batch', '-n', '1', env=dict(os.environ, COLUMNS='200'))
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertTrue(all(len(line) <= 200 for line in lines))
        for c in range(8):  # socket 1's channel beside socket 0's, in one column each
            (line,) = [x for x in lines if 'S0/ch%d ' % c in x]
            self.assertRegex(line, r'^  S0/ch%d +9\.000 GB/s .* S1/ch%d +9\.000 GB/s ' % (c, c))
        (line,) = [x for x in lines if 'S0 total' in x and '72.000' in x]
        self.assertIn('S1 total', line)
        starts = {x.index('S1/ch%d' % c) for c in range(8) for x in lines if 'S1/ch%d ' % c in x}
        starts |= {x.index('S1 total') for x in lines if 'S1 total' in x}
        self.assertEqual(len(starts), 1, 'socket 1 does not start in one column')
        (line,) = [x for x in lines if 'machine total' in x and '144.000' in x]
        self.assertNotIn('S1', line)
        # 80 columns: one above the other
        s = self.screens('amdzen2:sockets=2,scenario=' + self.scenario('amdzen2'))[0]
        self.assertFalse([x for x in s.splitlines() if 'S0/' in x and 'S1/' in x])

    def test_epyc_l3_per_ccx(self):
        # per CPU, an uncore event shows per domain: EPYC's L3 per CCX (issue 17)
        scn = os.path.join(self.tmp, 'ccx.scn')
        with open(scn, 'w') as f:
            f.write('jitter 0\nl3.hit_ratio 80%\nl3.hit_ratio[3] 50%\n')
        s = self.screens('amdzen2:scenario=' + scn, '-A')[0]
        self.assertIn('by cpu', s)
        rows = {}
        for place, (v, unit, _) in kinds(s)['l3 miss']['rows'].items():
            self.assertEqual(unit, '%')
            rows[place.split('/')[-1]] = v
        self.assertEqual(len(rows), 16)  # one per CCX of the socket
        self.assertEqual(rows.pop('L3 CPUs 12-15,76-79'), 50.0)  # CCX 3
        self.assertEqual(set(rows.values()), {20.0})

    def test_bluefield(self):
        for plat, kind, n, rate in (('bluefield2', 'memory read requests', 4, 20.0),
                                    ('bluefield3', 'memory read requests', 8, 15.0)):
            s = self.screens(plat + ':scenario=' + self.scenario(plat))[0]
            self.check_screen(s)
            k = kinds(s)[kind]
            self.assertEqual(len(k['rows']), n)
            for place, (v, unit, _) in k['rows'].items():
                self.assertRegex(place, r'^bfperf/(tile|llt)\d$')
                self.assertEqual((v, unit), (rate, 'M/s'))
            self.assertEqual(k['totals'], {'machine total': (n * rate, 'M/s', '')})
        k = kinds(self.screens('bluefield2')[0])
        self.assertEqual(sorted(k['l3 hit']['rows']), sorted([
            'bfperf/l3cachehalf%d/bank%d' % (h, b) for b in (0, 1) for h in (0, 1)]))
        self.assertEqual(k['l3 hit']['totals'], {'machine total': (60.0, '%', '')})
        self.assertEqual(set(k['pcie in']['rows']), {'bfperf/pcie0', 'bfperf/pcie1'})

    def test_merrifield_channels_and_totals(self):
        # the pack's screen is per channel; the machine's totals are the screen's sums
        for s in self.screens('merrifield:scenario=' + self.scenario('merrifield'),
                              '--program', program(self.tmp)):
            self.check_screen(s)  # the labels of every length line up (they drifted)
            k = kinds(s)
            self.assertEqual(sorted(k), ['memory', 'memory read', 'memory write'])
            for name, ch in (('memory read', 600.0), ('memory write', 300.0), ('memory', 900.0)):
                self.assertEqual(k[name]['rows'], {'ch0': (ch, 'MB/s', ''),
                                                   'ch1': (ch, 'MB/s', '')})
                self.assertEqual(k[name]['totals'], {'machine total': (2 * ch, 'MB/s', '')})
            self.assertIn('memory read: DDR_Chan0_Read_MBps, DDR_Chan1_Read_MBps', s)

    def test_not_counted_is_never_zero(self):
        scn = os.path.join(self.tmp, 'steal.scn')
        with open(scn, 'w') as f:
            f.write('at 0s steal amd_df 0 4\n')
        s = self.screens('amdzen2:scenario=' + scn)[0]
        k = kinds(s)['memory']
        self.assertEqual(len(k['rows']), 8)
        for place, (v, _, rest) in k['rows'].items():
            self.assertIsNone(v, place)
            self.assertIn('not counted', rest)
        (v, _, rest), = k['totals'].values()  # a total of nothing counted is not 0
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
        self.wait_for(SECOND)
        self.tmux('resize-window', '-x', '80', '-y', '24')
        s = self.wait_for(r'#4 ')
        self.assertTrue(s.startswith('pmumon top - Yitian 710 DDR'))
        k = kinds(s)
        # 80x24: every channel of both dies on the screen with their totals, each the sum
        # of its channels (to the printed precision; the truth of a flat scenario, exactly,
        # is Batch's: a real clock on a loaded machine misses it); the rest said on the last
        # row
        rows, totals = k['memory read']['rows'], k['memory read']['totals']
        self.assertEqual(len(rows), 8)
        for v, unit, _ in rows.values():
            self.assertEqual(unit, 'MB/s')
        for label, (v, unit, _) in totals.items():
            want = sum(x for p, (x, _, _) in rows.items()
                       if label == 'machine total' or p.startswith(label.split()[0] + '/'))
            self.assertAlmostEqual(v, want, delta=0.0045, msg=label)
        self.assertTrue(all(len(line) <= 80 for line in s.splitlines()))
        self.assertRegex(s.splitlines()[23], r'^\.\.\. \d+ more lines: a larger terminal$')
        self.tmux('send-keys', 'g')  # channel -> die
        s = self.wait_for(r'by die')
        self.wait_for(r'(?m)^  die1 ')
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
        s = self.wait_for(SECOND)
        self.assertIn('EPYC Zen 2', s)
        k = kinds(s)
        for ch in range(8):
            v, unit, rest = k['memory']['rows']['ch%d' % ch]
            self.assertEqual(unit, 'GB/s')
            self.assertRegex(rest, r'\(\d+%\)')  # rotated over 4 counters: marked
        self.assertEqual(k['L3_Cache_Miss_Ratio']['rows']['S0'][1], '%')
        self.tmux('send-keys', 'q')
        self.wait_for(r'EXIT=0')
        self.stop_server()
        self.start('merrifield:clock=real', '-I', '300', '--program', program(self.tmp))
        s = self.wait_for(SECOND)
        self.assertIn('Merrifield SoC', s)
        (total,) = kinds(s)['memory']['totals'].values()
        self.assertGreater(total[0], 0)
        self.tmux('send-keys', 'q')
        self.wait_for(r'EXIT=0')

    def batch(self, sim, *args):
        """The screen --batch prints for sim at 80 columns (a virtual clock), as lines."""
        r = run('--sim', sim, 'top', '--batch', '-n', '1', *args,
                env=dict(os.environ, COLUMNS='80'))
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout.rstrip('\n').splitlines()

    def test_every_platform_at_80x24_and_wide(self):
        # each platform's screen in a real terminal: labels that tell sockets apart, the
        # current values with their units, totals; at 80x24 what does not fit said on the
        # last row (not written over a line of the screen), on a wide terminal all of it
        # and EPYC's sockets side by side
        for plat, args in (('yitian710', ()), ('amdzen2:sockets=2', ()),
                           ('bluefield2', ()), ('bluefield3', ()),
                           ('merrifield', ('--program', program(self.tmp)))):
            name = plat.split(':')[0]
            scn = os.path.join(self.tmp, name + '.scn')
            with open(scn, 'w') as f:
                f.write(SCENARIOS[name])
            sim = '%s%sscenario=%s' % (plat, ',' if ':' in plat else ':', scn)
            want = self.batch(sim, *args)
            for size in ((80, 24), (200, 60)):
                self.start(sim.replace('scenario', 'clock=real,scenario'), '-I', '300', *args,
                           size=size)
                s = self.wait_for(SECOND)
                self.tmux('send-keys', 'q')
                self.wait_for(r'EXIT=0')
                self.stop_server()
                lines = s.split('\n')[:size[1]]
                self.assertTrue(all(len(x) <= size[0] for x in lines), (plat, size))
                # every line's place as the batch screen's (the values are a real clock's)
                for got, line in zip(lines[2:], want[2:size[1] - 1] if size[0] == 80 or
                                     name != 'amdzen2' else []):
                    m = ROW.match(line)
                    if m:
                        self.assertTrue(got.startswith(m.group('label')), (plat, got, line))
                        g = ROW.match(got)
                        self.assertTrue(g, (plat, got))
                        self.assertEqual(g.group('unit'), m.group('unit'), (plat, got))
                if size == (80, 24) and len(want) > 24:
                    self.assertEqual(lines[23], '... %d more lines: a larger terminal'
                                     % (len(want) - 23), plat)
                    self.assertTrue(ROW.match(lines[22]) or lines[22] == want[22],
                                    (plat, lines[22]))
                    self.assertIn('total', s, plat)
                    continue
                if name != 'amdzen2':
                    self.assertEqual([x.split()[0] for x in lines[:len(want)] if x],
                                     [x.split()[0] for x in want if x], plat)
                    self.assertIn('machine total', s)
                    continue
                # side by side: socket 1's places start in one column, each socket's total
                # under its channels, the machine's under both
                both = [x for x in lines if re.search(r'^  S0/ch\d .* S1/ch\d ', x)]
                self.assertEqual(len(both), 8, s)
                self.assertEqual(len({x.index(' S1/') for x in both}), 1, s)
                mem = s[s.index('memory: DF_CH0_GBps'):s.index('all_remote_links')]
                cells = {p: float(v) for p, v in re.findall(
                    r'(S\d/ch\d|S\d total|machine total) +([0-9.]+) GB/s', mem)}
                self.assertEqual(len(cells), 19, mem)
                for so in (0, 1):
                    self.assertAlmostEqual(cells['S%d total' % so], sum(
                        cells['S%d/ch%d' % (so, c)] for c in range(8)), delta=0.0045)
                self.assertAlmostEqual(cells['machine total'],
                                       cells['S0 total'] + cells['S1 total'], delta=0.0015)
                self.assertRegex(mem, r'(?m)^  S0 total .* S1 total ')

    def test_bluefield_restores_its_slots(self):
        before, after = os.path.join(self.tmp, 'before'), os.path.join(self.tmp, 'after')
        r = run('--sim', 'bluefield2:state=' + before, 'list', 'pmus')
        self.assertEqual(r.returncode, 0)
        for key in ('q', 'C-c'):  # q, and Ctrl-C: the same way out
            self.start('bluefield2:clock=real,state=' + after, '-I', '200')
            self.wait_for(r'pcie in: pcie_in_bandwidth')
            self.tmux('send-keys', key)
            s = self.wait_for(r'EXIT=\d+')
            self.assertIn('EXIT=0', s, key)
            self.assertNotIn('pmumon top -', s)  # the terminal's own screen is back
            with open(before) as f1, open(after) as f2:
                self.assertEqual(f1.read(), f2.read(), key)
            self.stop_server()


if __name__ == '__main__':
    unittest.main(verbosity=2)
