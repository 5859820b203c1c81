#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""serve --remote-write (issue 28): the specification's headers, basic auth,
bearer tokens and TLS from --remote-write.config, what is retried (5xx, 429)
and what never is (another 4xx), against a receiver of the test's own; and,
where Debian's prometheus is installed, a real Prometheus receiving: the
same series /metrics shows, each sample once and in order through an
outage, and a queue too small for the outage dropping what it says it
dropped."""
import base64
import http.server
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_serve import (FLAT, PMUMON, free_port, get, openssl, pick, samples,  # noqa: E402
                        wait_for)


class Receiver:
    """An HTTP receiver that keeps every request and answers as told: codes[i] for the
    i-th request, 204 after them (or `then`)."""

    def __init__(self, codes=(), then=204, tls=None):
        self.requests = []
        self.codes = list(codes)
        self.then = then
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers['Content-Length']))
                with threading.Lock():
                    i = len(outer.requests)
                    outer.requests.append((self.path, dict(self.headers), body))
                code = outer.codes[i] if i < len(outer.codes) else outer.then
                self.send_response(code)
                msg = b'' if code < 300 else b'not today\n'
                self.send_header('Content-Length', str(len(msg)))
                self.end_headers()
                self.wfile.write(msg)

            def log_message(self, *args):
                pass

        self.srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        if tls:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(*tls)
            self.srv.socket = ctx.wrap_socket(self.srv.socket, server_side=True)
        self.port = self.srv.server_address[1]
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()

    def close(self):
        self.srv.shutdown()
        self.srv.server_close()


class Serve:
    """serve on a simulated Yitian 710 at -I 100, pushing; stopped with SIGTERM."""

    def __init__(self, *args, sim='yitian710:clock=real'):
        self.port = free_port()
        self.url = 'http://127.0.0.1:%d' % self.port
        self.p = subprocess.Popen([PMUMON, '--sim', sim, 'serve', '-I', '100', '--listen',
                                   '127.0.0.1:%d' % self.port] + list(args),
                                  stderr=subprocess.PIPE, text=True)
        wait_for(lambda: self.p.poll() is not None or self.healthy(), 'serve healthy')
        assert self.p.poll() is None, self.p.stderr.read()

    def healthy(self):
        try:
            return get(self.url + '/healthz')[0] == 200
        except OSError:
            return False

    def metrics(self):
        return samples(get(self.url + '/metrics')[2].decode())

    def count(self, what, url):
        return self.metrics().get(('pmumon_remote_write_%s' % what,
                                   frozenset({('url', url)})))

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        _, err = self.p.communicate(timeout=60)
        return self.p.returncode, err


class Tmp(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)

    def file(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, 'w') as f:
            f.write(text)
        return path


class Protocol(Tmp):
    def test_headers_and_basic_auth(self):
        rcv = Receiver()
        self.addCleanup(rcv.close)
        url = 'http://127.0.0.1:%d/api/v1/write' % rcv.port
        pw = self.file('pass', 'open sesame\n')
        conf = self.file('rw.yml', 'remote_write:\n  - url: %s\n    basic_auth:\n'
                         '      username: pmumon\n      password_file: %s\n' % (url, pw))
        srv = Serve('--remote-write.config', conf)
        wait_for(lambda: len(rcv.requests) >= 3, 'three requests')
        code, err = srv.stop()
        self.assertEqual(code, 0, err)
        path, headers, body = rcv.requests[0]
        self.assertEqual(path, '/api/v1/write')
        self.assertEqual(headers['Content-Encoding'], 'snappy')
        self.assertEqual(headers['Content-Type'], 'application/x-protobuf')
        self.assertEqual(headers['X-Prometheus-Remote-Write-Version'], '0.1.0')
        self.assertTrue(headers['User-Agent'].startswith('pmumon/'), headers['User-Agent'])
        self.assertEqual(headers['Authorization'],
                         'Basic ' + base64.b64encode(b'pmumon:open sesame').decode())
        self.assertTrue(body)
        self.assertIn('remote write to %s' % url, err)

    def test_bearer_token_and_a_url_on_the_command_line(self):
        rcv = Receiver()
        self.addCleanup(rcv.close)
        url = 'http://127.0.0.1:%d/push' % rcv.port
        tok = self.file('token', 's3cret\n')
        conf = self.file('rw.yml', 'remote_write:\n  - url: %s\n    authorization:\n'
                         '      credentials_file: %s\n' % (url, tok))
        # the URL given on the command line too takes the file's settings
        srv = Serve('--remote-write', url, '--remote-write.config', conf)
        wait_for(lambda: len(rcv.requests) >= 2, 'two requests')
        code, err = srv.stop()
        self.assertEqual(code, 0, err)
        self.assertEqual(rcv.requests[0][1]['Authorization'], 'Bearer s3cret')

    @unittest.skipUnless(shutil.which('openssl'), 'openssl needed')
    def test_tls_with_a_ca_file(self):
        d = self.tmp
        openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj',
                '/CN=test CA', '-keyout', 'ca.key', '-out', 'ca.crt', cwd=d)
        openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-addext',
                'subjectAltName=IP:127.0.0.1', '-keyout', 's.key', '-out', 's.csr', cwd=d)
        openssl('x509', '-req', '-in', 's.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key',
                '-CAcreateserial', '-days', '2', '-copy_extensions', 'copy', '-out', 's.crt',
                cwd=d)
        rcv = Receiver(tls=(os.path.join(d, 's.crt'), os.path.join(d, 's.key')))
        self.addCleanup(rcv.close)
        url = 'https://127.0.0.1:%d/api/v1/write' % rcv.port
        # without the CA the certificate is not trusted: retried, never sent
        srv = Serve('--remote-write', url)
        wait_for(lambda: (srv.count('retried_samples_total', url) or 0) > 0, 'a retry')
        self.assertEqual(srv.count('sent_samples_total', url), 0)
        code, err = srv.stop()
        self.assertEqual(code, 0, err)
        self.assertEqual(rcv.requests, [])
        conf = self.file('rw.yml', 'remote_write:\n  - url: %s\n    tls_config:\n'
                         '      ca_file: %s/ca.crt\n' % (url, d))
        srv = Serve('--remote-write.config', conf)
        wait_for(lambda: (srv.count('sent_samples_total', url) or 0) > 0, 'a sample sent')
        code, err = srv.stop()
        self.assertEqual(code, 0, err)
        self.assertTrue(rcv.requests)

    def test_a_4xx_is_never_sent_again(self):
        rcv = Receiver(then=400)
        self.addCleanup(rcv.close)
        url = 'http://127.0.0.1:%d/w' % rcv.port
        srv = Serve('--remote-write', url)
        wait_for(lambda: len(rcv.requests) >= 5, 'five requests')
        s = srv.metrics()
        code, err = srv.stop()
        self.assertEqual(code, 0, err)
        bodies = [b for _, _, b in rcv.requests]
        self.assertEqual(len(set(bodies)), len(bodies), 'a refused request was sent again')
        self.assertEqual(s[('pmumon_remote_write_retried_samples_total',
                            frozenset({('url', url)}))], 0)
        self.assertEqual(s[('pmumon_remote_write_sent_samples_total',
                            frozenset({('url', url)}))], 0)
        self.assertGreater(s[('pmumon_remote_write_failed_samples_total',
                              frozenset({('url', url)}))], 0)
        self.assertIn('HTTP 400: not today', err)
        self.assertIn('not sent again', err)

    def check_retried(self, code, *args):
        rcv = Receiver(codes=[code, code, code])
        self.addCleanup(rcv.close)
        url = 'http://127.0.0.1:%d/w' % rcv.port
        srv = Serve('--remote-write', url, *args)
        wait_for(lambda: len(rcv.requests) >= 6, 'six requests')
        s = wait_for(lambda: srv.metrics() if srv.metrics().get(
            ('pmumon_remote_write_sent_samples_total', frozenset({('url', url)}))) else None,
            'samples sent')
        code_, err = srv.stop()
        self.assertEqual(code_, 0, err)
        bodies = [b for _, _, b in rcv.requests]
        # the refused request, sent again as it was, then the next ones
        self.assertEqual(bodies[0], bodies[1])
        self.assertEqual(bodies[0], bodies[2])
        self.assertEqual(bodies[0], bodies[3])
        self.assertEqual(len(set(bodies[3:])), len(bodies[3:]), 'a sent request sent again')
        retried = s[('pmumon_remote_write_retried_samples_total', frozenset({('url', url)}))]
        self.assertGreater(retried, 0)
        self.assertEqual(retried % 3, 0)  # three times the first batch
        self.assertEqual(s[('pmumon_remote_write_failed_samples_total',
                            frozenset({('url', url)}))], 0)

    def test_a_5xx_is_sent_again(self):
        self.check_retried(500)  # the first of them (>= 500, not > 500)

    def test_a_429_is_sent_again(self):
        self.check_retried(429)

    def test_a_429_is_not_when_told(self):
        rcv = Receiver(then=429)
        self.addCleanup(rcv.close)
        url = 'http://127.0.0.1:%d/w' % rcv.port
        conf = self.file('rw.yml', 'remote_write:\n  - url: %s\n    queue_config:\n'
                         '      retry_on_http_429: false\n' % url)
        srv = Serve('--remote-write.config', conf)
        wait_for(lambda: len(rcv.requests) >= 3, 'three requests')
        s = srv.metrics()
        srv.stop()
        self.assertEqual(s[('pmumon_remote_write_retried_samples_total',
                            frozenset({('url', url)}))], 0)
        self.assertGreater(s[('pmumon_remote_write_failed_samples_total',
                              frozenset({('url', url)}))], 0)

    def test_refused_settings(self):
        for args, want in ((['--remote-write', 'ftp://x/'], '--remote-write wants http://'),
                           (['--remote-write', 'http://a/', '--remote-write', 'http://a/'],
                            'given twice'),
                           (['--remote-write.config', '/nonexistent.yml'],
                            "cannot read the remote write configuration '/nonexistent.yml'"),
                           (['--remote-write.queue', '0'], '--remote-write.queue')):
            r = subprocess.run([PMUMON, '--sim', 'yitian710:clock=real', 'serve',
                                '--listen', '127.0.0.1:%d' % free_port()] + args,
                               capture_output=True, text=True, timeout=30)
            self.assertNotEqual(r.returncode, 0, args)
            self.assertIn(want, r.stderr, args)
        conf = self.file('rw.yml', 'remote_write:\n  - url: http://a/\n    basic_auth:\n'
                         '      username: u\n      password_file: /nonexistent\n')
        r = subprocess.run([PMUMON, '--sim', 'yitian710:clock=real', 'serve', '--listen',
                            '127.0.0.1:%d' % free_port(), '--remote-write.config', conf],
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot read the remote write password_file '/nonexistent'", r.stderr)

    def test_sighup_adds_and_removes_targets(self):
        one, two = Receiver(), Receiver()
        self.addCleanup(one.close)
        self.addCleanup(two.close)
        u1 = 'http://127.0.0.1:%d/w' % one.port
        u2 = 'http://127.0.0.1:%d/w' % two.port
        conf = self.file('serve.conf', 'remote-write = %s\n' % u1)
        srv = Serve('--config', conf)
        wait_for(lambda: one.requests, 'the first target')
        self.file('serve.conf', 'remote-write = %s\nremote-write = %s\n' % (u1, u2))
        srv.p.send_signal(signal.SIGHUP)
        wait_for(lambda: two.requests, 'the second target')
        self.file('serve.conf', 'remote-write = %s\n' % u2)
        srv.p.send_signal(signal.SIGHUP)
        key = ('pmumon_config_reloads_total', frozenset({('result', 'success')}))
        wait_for(lambda: srv.metrics().get(key) == 2, 'the second reload')
        time.sleep(0.5)
        n = len(one.requests)
        time.sleep(1.0)
        self.assertEqual(len(one.requests), n, 'the removed target still gets samples')
        code, err = srv.stop()
        self.assertEqual(code, 0, err)
        self.assertIn('remote write to %s: stopped' % u1, err)


@unittest.skipUnless(shutil.which('prometheus'), "Debian's prometheus needed")
class IntoPrometheus(Tmp):
    """A real Prometheus with its remote-write receiver: what arrives is what /metrics
    shows, each sample once and in order, through the receiver's outage."""

    def start_prometheus(self, port, data):
        cfg = self.file('prometheus.yml', 'global:\n  scrape_interval: 1h\n')
        with open(os.path.join(self.tmp, 'prometheus.log'), 'a') as log:
            p = subprocess.Popen(['prometheus', '--config.file=' + cfg,
                                  '--storage.tsdb.path=' + data,
                                  '--web.listen-address=127.0.0.1:%d' % port,
                                  '--web.enable-remote-write-receiver'],
                                 stdout=log, stderr=log)
        wait_for(lambda: self.ready(port), 'prometheus ready', timeout=30)
        return p

    def ready(self, port):
        try:
            return get('http://127.0.0.1:%d/-/ready' % port)[0] == 200
        except OSError:
            return False

    def query(self, port, q, t):
        u = 'http://127.0.0.1:%d/api/v1/query?%s' % (port, urllib.parse.urlencode(
            {'query': q, 'time': '%.3f' % t}))
        with urllib.request.urlopen(u, timeout=10) as r:
            import json
            return json.load(r)['data']['result']

    def run_outage(self, queue, outage_s):
        port, data = free_port(), os.path.join(self.tmp, 'data')
        prom = self.start_prometheus(port, data)
        url = 'http://127.0.0.1:%d/api/v1/write' % port
        scn = self.file('flat.scn', FLAT)
        srv = Serve('--remote-write', url, '--remote-write.queue', str(queue), '-M',
                    'ddr_read_bandwidth.all', sim='yitian710:clock=real,scenario=' + scn)
        try:
            wait_for(lambda: (srv.count('sent_samples_total', url) or 0) > 0, 'sent')
            prom.send_signal(signal.SIGTERM)
            prom.wait(timeout=30)
            time.sleep(outage_s)
            during = srv.metrics()
            prom = self.start_prometheus(port, data)
            wait_for(lambda: srv.count('queue_samples', url) == 0, 'the queue sent', 60)
            last = srv.metrics()
        finally:
            code, err = srv.stop()
        self.assertEqual(code, 0, err)
        return prom, port, url, during, last, err

    def received(self, port, last):
        """pmumon_samples_total's values as Prometheus has them, in time order."""
        t = last[('pmumon_last_sample_timestamp_seconds', frozenset())] + 1
        r = self.query(port, 'pmumon_samples_total[10m]', t)
        self.assertEqual(len(r), 1, r)
        return [float(v) for _, v in r[0]['values']]

    def test_every_sample_once_in_order_through_an_outage(self):
        prom, port, url, during, last, err = self.run_outage(100000, 4)
        try:
            key = lambda what: ('pmumon_remote_write_%s' % what, frozenset({('url', url)}))
            self.assertGreater(during[key('retried_samples_total')], 0)
            self.assertGreater(during[key('queue_samples')], 0)
            self.assertEqual(last[key('dropped_samples_total')], 0)
            self.assertEqual(last[key('failed_samples_total')], 0)
            got = self.received(port, last)
            n = last[('pmumon_samples_total', frozenset())]
            # every sample, from the first, once each and in order
            self.assertEqual(got, [float(i) for i in range(1, len(got) + 1)])
            self.assertGreaterEqual(len(got), n)
            # the same series and values /metrics showed for the last sample: both are
            # walks of the same sample (remote write's own counts move between the two)
            t = last[('pmumon_last_sample_timestamp_seconds', frozenset())]
            pushed = {}
            for r in self.query(port, '{__name__=~"pmumon_.+"}', t):
                labels = dict(r['metric'])
                self.assertEqual(labels.pop('job'), 'pmumon')
                self.assertEqual(labels.pop('instance').rsplit(':', 1)[1],
                                 str(srv_port_of(err)))
                name = labels.pop('__name__')
                pushed[(name, frozenset(labels.items()))] = float(r['value'][1])
            shown = {k: v for k, v in last.items()
                     if not k[0].startswith('pmumon_remote_write_')}
            self.assertTrue(pick(shown, 'pmumon_memory_read_bytes_total'))
            self.assertEqual({k: v for k, v in pushed.items()
                              if not k[0].startswith('pmumon_remote_write_')}, shown)
            self.assertEqual({k[0] for k in pushed if k[0].startswith('pmumon_remote_write_')},
                             {k[0] for k in last if k[0].startswith('pmumon_remote_write_')})
        finally:
            prom.send_signal(signal.SIGTERM)
            prom.wait(timeout=30)
        with open(os.path.join(self.tmp, 'prometheus.log')) as f:
            log = f.read()
        for bad in ('out of order', 'duplicate sample', 'out of bounds'):
            self.assertNotIn(bad, log.lower())

    def test_a_small_queue_drops_the_oldest_and_counts_them(self):
        prom, port, url, during, last, err = self.run_outage(2000, 4)
        try:
            key = lambda what: ('pmumon_remote_write_%s' % what, frozenset({('url', url)}))
            dropped = last[key('dropped_samples_total')]
            self.assertGreater(dropped, 0)
            self.assertEqual(during[key('queue_samples')], 2000)
            got = self.received(port, last)
            # in order, never twice; the gap is where the queue was full
            self.assertEqual(got, sorted(set(got)))
            missing = int(got[-1]) - len(got)
            self.assertGreater(missing, 0)
            # each sample of pmumon_samples_total that went took its sample's series with
            # it: the series per sample times the missing samples is what was dropped
            # (the queue drops single samples, oldest first: a sample's series can be cut
            # in two, so within one sample's series either way)
            per_sample = len(last)
            self.assertLessEqual(abs(dropped - missing * per_sample), 2 * per_sample,
                                 (dropped, missing, per_sample))
        finally:
            prom.send_signal(signal.SIGTERM)
            prom.wait(timeout=30)


def srv_port_of(err):
    """The port serve said it serves on."""
    import re
    return int(re.search(r'serving on http://[^:]+:(\d+)/', err).group(1))


if __name__ == '__main__':
    unittest.main(verbosity=2)
