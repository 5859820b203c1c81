#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Memory traffic per cgroup and per pod through the command (issue 33,
docs/attribution.md), on simulated machines: stat's CSV and JSON rows (their
flags, cgroup, pod keys and interval, <unattributed> last, adding up to the
total), serve --attribute-pods under a kubelet hierarchy of each driver (a
series per pod with its namespace and pod labels, adding up to the machine's),
and the refusals, each once, naming the fix."""
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

PMUMON = os.environ['PMUMON']

# Yitian 710: a.slice reads 2 GB/s on each of 8 channels, b.slice 4 GB/s on channel 3 from
# CPUs 0-15, the background 1 GB/s per channel: 16000, 4000 and 8000 MB/s
SCN = ('seed 3\njitter 0\nddr.read 1G\ncgroup a.slice\n  ddr.read 2G\n'
       'cgroup b.slice\n  ddr.read[3] 4G\n  cpus 0-15\nend\n')


def run(*args, sim=None):
    cmd = [PMUMON] + (['--sim', sim] if sim else []) + list(args)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


class Stat(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        f = tempfile.NamedTemporaryFile('w', suffix='.scn', delete=False)
        f.write(SCN)
        f.close()
        cls.scn = f.name

    @classmethod
    def tearDownClass(cls):
        os.unlink(cls.scn)

    def test_csv_rows(self):
        r = run('stat', '-a', '-x,', '-I', '1000', '--interval-count', '2',
                '--attribute-cgroups', 'a.slice,b.slice', sim='yitian710:scenario=' + self.scn)
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = list(csv.DictReader(io.StringIO(r.stdout)))
        buckets = sorted({(x['type'], x['time_s']) for x in rows})
        self.assertEqual(len(buckets), 3)  # two intervals and the run's total
        for t in buckets:
            at = [x for x in rows if (x['type'], x['time_s']) == t]
            total = sum(float(x['value']) for x in at
                        if x['event'] == 'ddr_read_bandwidth.all' and not x['cgroup'])
            att = [x for x in at if 'attributed' in x['flags'].split('|')]
            self.assertEqual([x['cgroup'] for x in att],
                             ['a.slice', 'b.slice', '<unattributed>'])
            for x in att:
                self.assertEqual(x['event'], 'ddr_read_bandwidth.all')
                self.assertEqual(x['unit'], 'MB/s')
                # no proxy error declared: the rows say their interval excludes the bias
                self.assertEqual(x['flags'].split('|'), ['metric', 'approximate', 'attributed',
                                                         'proxy_bias_excluded'])
                self.assertEqual(x['proxy_error_pct'], '')
                # nothing estimated here: the interval is the value
                self.assertEqual((x['lo'], x['hi'], x['bound']), (x['value'], x['value'],
                                                                  'exact'))
            want = {'a.slice': 16000, 'b.slice': 4000, '<unattributed>': 8000}
            for x in att:
                self.assertLessEqual(abs(float(x['value']) - want[x['cgroup']]),
                                     0.05 * want[x['cgroup']], x)
            self.assertAlmostEqual(sum(float(x['value']) for x in att), total,
                                   delta=1e-9 * total)
            # <unattributed> after the total's rows and every cgroup's
            self.assertEqual(at[-1]['cgroup'], '<unattributed>')

    def test_declared_proxy_error(self):
        """--attribute-proxy-error 10: each cgroup's interval is [v / 1.1, v / 0.9] (nothing
        else estimated on Yitian), the rest's takes both, and every output says it."""
        r = run('stat', '-a', '-x,', '-I', '1000', '--interval-count', '1',
                '--attribute-cgroups', 'a.slice,b.slice', '--attribute-proxy-error', '10%',
                sim='yitian710:scenario=' + self.scn)
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = list(csv.DictReader(io.StringIO(r.stdout)))
        att = {x['cgroup']: x for x in rows
               if 'attributed' in x['flags'].split('|') and x['type'] == 'interval'}
        self.assertEqual(len(att), 3)
        for cg, x in att.items():
            self.assertIn('proxy_bias_included', x['flags'].split('|'))
            self.assertNotIn('proxy_bias_excluded', x['flags'].split('|'))
            self.assertEqual((x['proxy_error_pct'], x['bound']), ('10', 'measured'))
        for cg in ('a.slice', 'b.slice'):
            v, lo, hi = (float(att[cg][k]) for k in ('value', 'lo', 'hi'))
            self.assertAlmostEqual(lo, v / 1.1, delta=1e-9 * v)
            self.assertAlmostEqual(hi, v / 0.9, delta=1e-9 * v)
        rest = att['<unattributed>']
        p = float(att['a.slice']['value']) + float(att['b.slice']['value'])
        self.assertAlmostEqual(float(rest['hi']) - float(rest['value']), p - p / 1.1,
                               delta=1e-6 * p)
        self.assertAlmostEqual(float(rest['value']) - float(rest['lo']), p / 0.9 - p,
                               delta=1e-6 * p)
        r = run('stat', '-a', '-j', '-I', '1000', '--interval-count', '1',
                '--attribute-cgroups', 'a.slice', '--attribute-proxy-error', '2.5',
                sim='yitian710:scenario=' + self.scn)
        self.assertEqual(r.returncode, 0, r.stderr)
        att = [j for j in map(json.loads, r.stdout.splitlines()) if j.get('attributed')]
        self.assertEqual(len(att), 4)  # a.slice and the rest, in the interval and the total
        for j in att:
            self.assertIs(j['proxy_bias_excluded'], False)
            self.assertEqual(j['proxy_error_pct'], 2.5)
        r = run('stat', '-a', '-I', '1000', '--interval-count', '1',
                '--attribute-cgroups', 'a.slice', sim='yitian710:scenario=' + self.scn)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('[proxy bias excluded]', r.stderr + r.stdout)
        r = run('stat', '-a', '-I', '1000', '--interval-count', '1',
                '--attribute-cgroups', 'a.slice', '--attribute-proxy-error', '10',
                sim='yitian710:scenario=' + self.scn)
        self.assertIn('[\u00b110 % proxy error declared]', r.stderr + r.stdout)

    def test_json_pods(self):
        r = run('stat', '-a', '-j', '-I', '1000', '--interval-count', '1', '--attribute-pods',
                sim='yitian710:kubelet=systemd')
        self.assertEqual(r.returncode, 0, r.stderr)
        att = [j for j in map(json.loads, r.stdout.splitlines()) if j.get('attributed')]
        pods = {(j.get('pod_namespace'), j.get('pod')) for j in att}
        self.assertEqual(pods, {('default', 'web-0'), ('batch', 'etl-1'),
                                ('monitoring', 'node-agent'), (None, None)})
        for j in att:
            self.assertIs(j['approximate'], True)
            self.assertIs(j['proxies_exceed_total'], False)
            self.assertIs(j['proxy_bias_excluded'], True)
            self.assertIsNone(j['proxy_error_pct'])
            self.assertIn(j['bound'], ('exact', 'measured'))
            self.assertTrue(j['lo'] <= j['value'] <= j['hi'], j)
            if j.get('pod'):
                self.assertTrue(j['cgroup'].startswith('kubepods.slice/'), j)
            else:
                self.assertEqual(j['cgroup'], '<unattributed>')

    def test_refusals(self):
        for args, want in (
                (['--attribute-cgroups', 'a.slice', '--attribute-pods'],
                 '--attribute-cgroups or --attribute-pods, not both'),
                (['--attribute-cgroups', 'kubepods,kubepods/burstable'], 'holds'),
                (['--attribute-cgroups', 'a.slice', '-G', 'a.slice', '-e', 'cycles'],
                 '--attribute-cgroups'),
                (['--attribute-cgroups', 'a.slice', '--per-channel'], 'per machine, or per socket'),
                (['--attribute-cgroups', 'a.slice', '--attribute-proxy-error', '100'],
                 "percentage, 0 to below 100 (10 or 10%), not '100'"),
                (['--attribute-cgroups', 'a.slice', '--attribute-proxy-error', 'x%'],
                 "not 'x%'"),
                (['--attribute-proxy-error', '10', '-e', 'cycles'],
                 'give it with --attribute-cgroups or --attribute-pods')):
            r = run('stat', '-a', '-I', '1000', '--interval-count', '1', *args,
                    sim='yitian710')
            self.assertNotEqual(r.returncode, 0, args)
            self.assertIn(want, r.stderr, args)
            self.assertEqual(len([l for l in r.stderr.splitlines() if 'pmumon:' in l]), 1,
                             r.stderr)


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def samples(text):
    out = {}
    for line in text.splitlines():
        if not line or line.startswith('#'):
            continue
        m = re.match(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$', line)
        labels = frozenset(re.findall(r'([a-z_]+)="((?:[^"\\]|\\.)*)"', m.group(3) or ''))
        out[(m.group(1), labels)] = float(m.group(4))
    return out


class Serve(unittest.TestCase):
    def serve_pods(self, driver):
        port = free_port()
        p = subprocess.Popen([PMUMON, '--sim', 'yitian710:clock=real,kubelet=' + driver,
                              'serve', '--listen', '127.0.0.1:%d' % port, '-I', '200',
                              '--attribute-pods'],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.time() + 30
            while True:
                self.assertIsNone(p.poll(), 'serve ended')
                try:
                    with urllib.request.urlopen('http://127.0.0.1:%d/metrics' % port,
                                                timeout=10) as r:
                        s = samples(r.read().decode())
                except OSError:
                    s = {}
                att = {k: v for k, v in s.items()
                       if k[0] == 'pmumon_memory_read_bytes_total' and
                       dict(k[1]).get('cgroup')}
                if len(att) == 4 and all(v > 0 for v in att.values()):
                    break
                self.assertLess(time.time(), deadline, 'no pod series in 30 s')
                time.sleep(0.2)
            pods = {(dict(k[1]).get('namespace'), dict(k[1]).get('pod')): dict(k[1])['cgroup']
                    for k in att}
            self.assertEqual(set(pods), {('default', 'web-0'), ('batch', 'etl-1'),
                                         ('monitoring', 'node-agent'), (None, None)})
            self.assertEqual(pods[(None, None)], '<unattributed>')
            for (ns, pod), cg in pods.items():
                if pod:
                    self.assertRegex(cg, r'kubepods.slice/.*pod[0-9a-f_]{36}\.slice$'
                                     if driver == 'systemd' else r'kubepods/.*pod[0-9a-f-]{36}$')
            # the pods and the rest add up to the machine's series (the same scrape)
            machine = sum(v for k, v in s.items()
                          if k[0] == 'pmumon_memory_read_bytes_total' and
                          dict(k[1]).get('metric') == 'ddr_read_bandwidth.all' and
                          'cgroup' not in dict(k[1]))
            self.assertGreater(machine, 0)
            self.assertAlmostEqual(sum(att.values()), machine, delta=1e-6 * machine)
        finally:
            p.send_signal(signal.SIGTERM)
            _, err = p.communicate(timeout=20)
        self.assertEqual(p.returncode, 0, err)

    def test_config_file_and_sighup(self):
        """serve.conf's attribute-pods and attribute-proxy-error: taken at the start, and a
        SIGHUP that adds, changes or drops them applies them to the counting that follows
        (docs/serve.md), as any option of the file."""
        tmp = tempfile.mkdtemp()
        conf = os.path.join(tmp, 'serve.conf')

        def write(text):
            with open(conf, 'w') as f:
                f.write(text)

        def scrape():
            with urllib.request.urlopen('http://127.0.0.1:%d/metrics' % port, timeout=10) as r:
                return samples(r.read().decode())

        def wait(pred, what):
            deadline = time.time() + 30
            while True:
                self.assertIsNone(p.poll(), 'serve ended')
                try:
                    s = scrape()
                except OSError:
                    s = {}
                if pred(s):
                    return s
                self.assertLess(time.time(), deadline, what)
                time.sleep(0.2)

        def pods(s):
            return {k for k in s if k[0] == 'pmumon_memory_read_bytes_total' and
                    dict(k[1]).get('pod')}

        write('metrics = ddr_read_bandwidth.all\n')
        port = free_port()
        p = subprocess.Popen([PMUMON, '--sim', 'yitian710:clock=real,kubelet=cgroupfs',
                              'serve', '--listen', '127.0.0.1:%d' % port, '-I', '200',
                              '--config', conf],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            s = wait(lambda s: any(k[0] == 'pmumon_memory_read_bytes_total' for k in s),
                     'no series in 30 s')
            self.assertFalse(pods(s))
            # attributing from the next counting on, with a declared proxy error
            write('metrics = ddr_read_bandwidth.all\nattribute-pods\n'
                  'attribute-proxy-error = 10%\n')
            p.send_signal(signal.SIGHUP)
            s = wait(lambda s: len(pods(s)) == 3 and
                     ('pmumon_attribution_proxy_error_ratio', frozenset()) in s,
                     'no pod series after the SIGHUP')
            self.assertEqual(s[('pmumon_attribution_proxy_error_ratio', frozenset())], 0.1)
            self.assertFalse([k for k in s if k[0] == 'pmumon_quality_flag' and
                              ('flag', 'proxy_bias_excluded') in k[1]])
            # none declared: the gauge goes, the series say their intervals exclude the bias
            write('metrics = ddr_read_bandwidth.all\nattribute-pods\n')
            p.send_signal(signal.SIGHUP)
            s = wait(lambda s: ('pmumon_attribution_proxy_error_ratio', frozenset()) not in s
                     and len(pods(s)) == 3, 'the declared error stays after the SIGHUP')
            flagged = {dict(k[1]).get('pod') for k in s if k[0] == 'pmumon_quality_flag' and
                       ('flag', 'proxy_bias_excluded') in k[1]}
            self.assertEqual(flagged, {'web-0', 'etl-1', 'node-agent', None})
            # --attribute-cgroups with the command line's or file's --attribute-pods: refused,
            # serve goes on as before
            write('metrics = ddr_read_bandwidth.all\nattribute-pods\n'
                  'attribute-cgroups = kubepods\n')
            p.send_signal(signal.SIGHUP)
            s = wait(lambda s: s.get(('pmumon_config_reloads_total',
                                      frozenset({('result', 'failure')}))) == 1,
                     'the refused file is not counted')
            self.assertEqual(len(pods(s)), 3)
        finally:
            p.send_signal(signal.SIGTERM)
            _, err = p.communicate(timeout=20)
            shutil.rmtree(tmp)
        self.assertEqual(p.returncode, 0, err)
        self.assertIn('--attribute-cgroups or --attribute-pods, not both', err)

    def test_systemd(self):
        self.serve_pods('systemd')

    def test_cgroupfs(self):
        self.serve_pods('cgroupfs')


if __name__ == '__main__':
    unittest.main()
