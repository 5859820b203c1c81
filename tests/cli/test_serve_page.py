#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""serve's live page on every simulated platform in headless Chromium (issue 27): the
screen top shows (cli/screen.c), checked sample for sample against /api/v1/range and
/api/v1/snapshot, with a screenshot of each. Its own test (meson: serve-page), apart from
test_serve.py's, whose real Prometheus takes minutes of its own."""
import html
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import unittest

from test_serve import CHROMIUM, FLAT, PMUMON, PageSamples, Server, get, samples

# Scenarios with every instance at one rate: each place's and total's truth is known
PAGE_SCENARIOS = {
    'yitian710': FLAT,
    'amdzen2': 'jitter 0\ndram.read 6G\ndram.write 3G\nl3.access[0-15] 100M\n'
               'l3.access[16-31] 300M\nl3.hit_ratio[0-15] 80%\nl3.hit_ratio[16-31] 40%\n',
    'bluefield2': 'jitter 0\ntile.mem_reads 20M\ntile.mem_writes 10M\n',
    'bluefield3': 'jitter 0\nllt.mem_reads 15M\nllt.mem_writes 8M\n',
    'merrifield': 'jitter 0\nddr.read 600M\nddr.write 300M\n',
}


@unittest.skipUnless(CHROMIUM, 'chromium (Debian package) not installed')
class LivePageScreens(PageSamples, unittest.TestCase):
    """The page on every simulated platform, in headless Chromium (issue 27): one chart per
    kind with every place on it, labels that tell sockets apart, each place's current
    value on the page (not only on hover), totals per die, socket and machine that are the
    sums of their places (a ratio has none, and says why), axes from 0, and samples dated
    by the wall clock (a clock=real machine's). Values are compared sample for sample with
    /api/v1/range and /api/v1/snapshot, exactly (the truth of a flat scenario, exactly,
    is test_top's, on the virtual clock). PMUMON_SCREENSHOTS=DIR keeps the PNGs."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.shots = os.environ.get('PMUMON_SCREENSHOTS') or cls.tmp
        cls.prog = os.path.join(cls.tmp, 'mf.prog')
        with open(cls.prog, 'w') as f:
            subprocess.run([PMUMON, '--sim', 'merrifield', 'list', 'program'], stdout=f,
                           check=True, timeout=30)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def page(self, platform, *args):
        """(charts, range, status data-t, test start, test end, screenshot path) of the page
        of a simulated platform with a flat scenario."""
        name = platform.split(':')[0]
        scn = os.path.join(self.tmp, name + '.scn')
        with open(scn, 'w') as f:
            f.write(PAGE_SCENARIOS[name])
        sim = '%s%sclock=real,scenario=%s' % (platform, ',' if ':' in platform else ':', scn)
        start = time.time()
        srv = Server(sim, '-I', '200', *args)
        try:
            time.sleep(0.6)
            shot = os.path.join(self.shots, 'page-%s.png' % platform.replace(':', '-'))
            r = subprocess.run([CHROMIUM, '--headless', '--no-sandbox', '--disable-gpu',
                                '--hide-scrollbars', '--window-size=1280,2400',
                                '--virtual-time-budget=10000', '--screenshot=' + shot,
                                srv.url + '/'], capture_output=True, text=True, timeout=120)
            self.assertEqual(r.returncode, 0, r.stderr[-2000:])
            r = subprocess.run([CHROMIUM, '--headless', '--no-sandbox', '--disable-gpu',
                                '--window-size=1280,2400', '--virtual-time-budget=10000',
                                '--dump-dom', srv.url + '/'],
                               capture_output=True, text=True, timeout=120)
            self.assertEqual(r.returncode, 0, r.stderr[-2000:])
            _, _, body = get(srv.url + '/api/v1/snapshot')
            status, _, rng = get(srv.url + '/api/v1/range?seconds=600')
            self.assertEqual(status, 200)
            _, expo = srv.metrics()
        finally:
            srv.stop()
        end = time.time()
        with open(shot, 'rb') as f:  # a PNG of the window's size
            head = f.read(24)
        self.assertEqual(head[:8], b'\x89PNG\r\n\x1a\n')
        self.assertEqual((int.from_bytes(head[16:20], 'big'), int.from_bytes(head[20:24], 'big')),
                         (1280, 2400))
        charts = {}
        for el in re.findall(r'<div class="chart"([^>]*)>(.*?)</table>', r.stdout, re.S):
            attrs = dict((k, html.unescape(v)) for k, v in re.findall(r'(data-[a-z-]+)="([^"]*)"',
                                                                      el[0]))
            found = re.findall(r'<td class="place">([^<]*)</td><td class="value">([^<]*)</td>'
                               r'<td class="marks">([^<]*)</td>', el[1])
            rows = {html.unescape(p): html.unescape(v) for p, v, _ in found}
            marks = {html.unescape(p): html.unescape(m) for p, _, m in found}
            why = re.findall(r'<td class="why"[^>]*>([^<]*)</td>', el[1])
            charts[attrs['data-name']] = {
                'series': json.loads(attrs['data-series']),
                'totals': json.loads(attrs['data-totals']), 'unit': attrs['data-unit'],
                'what': attrs['data-what'], 'y_min': float(attrs['data-y-min']),
                't': float(attrs['data-t']), 'shown': rows, 'marks': marks, 'why': why}
        self.assertTrue(charts, r.stdout[-3000:])
        t = float(re.search(r'id="status" data-t="([^"]+)"', r.stdout).group(1))
        last_ts = samples(expo)[('pmumon_last_sample_timestamp_seconds', frozenset())]
        rng = json.loads(rng)
        self.check_against_snapshot(rng, *self.snapshot_index(body, rng))
        return charts, rng, t, last_ts, start, end

    def check(self, charts, rng, t, last_ts, start, end):
        """What every platform's page must be."""
        # dated by this machine's wall clock, not the simulator's 2026-01-01
        self.assertTrue(start <= t <= end, (start, t, end))
        self.assertTrue(start <= last_ts <= end, (start, last_ts, end))
        self.assertTrue(all(start <= x <= end for x in rng['t']), rng['t'])
        kinds = {k['name']: k for k in rng['kinds']}
        self.assertEqual(set(charts), set(kinds))
        labels = {}  # every series, shown or not, told apart from the others of its name
        for x in rng['series']:
            labels.setdefault((x['name'], x['unit']), []).append(x['label'])
        for name, ls in labels.items():
            self.assertEqual(len(ls), len(set(ls)), (name, ls))
        for name, c in charts.items():
            k = kinds[name]
            # the chart's latest sample is one the range has: its values are that sample's
            i = rng['t'].index(c['t'])
            self.assertEqual(c['series'], {it['label']: it['values'][i] for it in k['items']})
            self.assertEqual(c['totals'], {x['label']: x['values'][i] for x in k['totals']})
            self.assertEqual(len(c['series']), len(k['items']), 'two places, one label')
            self.assertEqual(c['y_min'], 0, name)  # the axis starts at 0
            # each place's value and each total written on the page, with its unit
            self.assertEqual(set(c['shown']), set(c['series']) | set(c['totals']), name)
            for label, text in c['shown'].items():
                v = c['series'].get(label, c['totals'].get(label))
                self.assertRegex(text, r'^[0-9.]+ [GM]?%s$' % re.escape(c['unit']), label)
                scale = {'G': 1e9, 'M': 1e6}.get(text.split()[1][0], 1) \
                    if text.split()[1] != c['unit'] else 1
                self.assertAlmostEqual(float(text.split()[0]) * scale, v, delta=0.0005 * scale)
            # a total is the sum of its places (a ratio's: their summed numerators over their
            # summed denominators, never an average): per die, per socket, for the machine
            for x in k['totals']:
                items = [it for it in k['items'] if x['level'] == 'machine' or
                         (x['level'] == 'socket' and it['socket'] == x['socket']) or
                         (x['level'] == 'die' and it['label'].startswith(
                             x['label'][:-len(' total')] + '/'))]
                self.assertGreaterEqual(len(items), 2, x['label'])
                if k['measure'] == 'ratio':
                    want = (sum(it['num'][i] for it in items) /
                            sum(it['den'][i] for it in items))
                else:
                    want = sum(it['values'][i] for it in items)
                self.assertAlmostEqual(c['totals'][x['label']], want, delta=1e-9 * want)
            if k['measure'] in ('rate', 'amount', 'ratio') and len(k['items']) > 1:
                self.assertIn('machine total', c['totals'], name)
            elif len(k['items']) > 1:  # a frequency: none, and why
                self.assertEqual(c['totals'], {}, name)
                self.assertEqual(c['why'], ['no total: ' + k['no_total']], name)
                self.assertTrue(k['no_total'])

    def test_yitian(self):
        charts, *rest = self.page('yitian710')
        self.check(charts, *rest)
        self.assertEqual(set(charts), {'memory read', 'memory write', 'memory'})
        c = charts['memory read']
        self.assertEqual(c['what'], 'ddr_read_bandwidth.all')
        # per device (serve's default): every sub-channel, its die and channel in its label
        self.assertEqual(sorted(c['series']), sorted('die%d/ch%d/sub%d' % (d, ch, s)
                                                     for d in (0, 1) for ch in range(4)
                                                     for s in (0, 1)))
        self.assertEqual(sorted(c['totals']), ['die0 total', 'die1 total', 'machine total'])

    def test_epyc_two_sockets(self):
        charts, *rest = self.page('amdzen2:sockets=2')
        self.check(charts, *rest)
        c = charts['memory']  # DF_CH0..7_GBps of both sockets: one chart, every channel
        self.assertEqual(c['what'], 'DF_CH0_GBps ... DF_CH7_GBps')
        self.assertEqual(sorted(c['series']), sorted('S%d/ch%d' % (so, ch) for so in (0, 1)
                                                     for ch in range(8)))
        self.assertEqual(sorted(c['totals']), ['S0 total', 'S1 total', 'machine total'])
        # counted in rotation: each place's share and its estimate's interval (docs/bounds.md),
        # as the range says it; a total's interval is its places' ends added
        kinds = {k['name']: k for k in rest[0]['kinds']}
        for it in kinds['memory']['items'] + kinds['memory']['totals']:
            self.assertEqual(it['bound'], 'measured', it['label'])
            self.assertIsNotNone(it['bound_pct'], it['label'])
            self.assertRegex(c['marks'][it['label']], r'^\(\d+%\) \u00b1(<0\.01|\d+\.\d|\d+)% ~$')
        # the remote links and the L3 per socket: told apart, never "amd_df" twice
        self.assertEqual(sorted(charts['all_remote_links_outbound']['series']),
                         ['S0/amd_df', 'S1/amd_df'])
        self.assertEqual(charts['all_remote_links_outbound']['unit'], 'MiB/s')
        self.assertEqual(sorted(charts['l3 miss']['series']), ['S0/amd_l3', 'S1/amd_l3'])
        self.assertEqual(list(charts['l3 miss']['totals']), ['machine total'])
        self.assertIn('frequencies', charts['EffectiveFrequency']['why'][0])

    def test_bluefield(self):
        for plat, n in (('bluefield2', 4), ('bluefield3', 8)):
            charts, *rest = self.page(plat)
            self.check(charts, *rest)
            c = charts['memory read requests']
            self.assertEqual(c['unit'], '/s')
            self.assertEqual(len(c['series']), n)
            for label in c['series']:
                self.assertRegex(label, r'^bfperf/(tile|llt)\d$')
            self.assertEqual(list(c['totals']), ['machine total'])
            if plat == 'bluefield2':  # the L3 banks of both halves: a ratio of their parts
                self.assertEqual(len(charts['l3 hit']['series']), 4)
                self.assertEqual(list(charts['l3 hit']['totals']), ['machine total'])

    def test_merrifield(self):
        charts, *rest = self.page('merrifield', '--program', self.prog)
        self.check(charts, *rest)
        self.assertEqual(set(charts), {'memory read', 'memory write', 'memory'})
        for name, metric in (('memory read', 'Read_MBps'), ('memory write', 'Write_MBps'),
                             ('memory', 'MBps')):
            c = charts[name]
            self.assertEqual(c['what'], 'DDR_Chan0_%s, DDR_Chan1_%s' % (metric, metric))
            self.assertEqual(sorted(c['series']), ['ch0', 'ch1'])
            self.assertEqual(list(c['totals']), ['machine total'])


if __name__ == '__main__':
    unittest.main(verbosity=2)
