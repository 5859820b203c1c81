#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""What one node costs a fleet's store (docs/deploy.md, "Sizing"): for each
simulated platform, pmumon serve as the unit runs it (the platform pack's
screen, rows per device, -I 1000) scraped and pushing with remote write to
a receiver of this script's own for SECONDS; prints the series per node,
the exposition's bytes per scrape (plain and gzip), and remote write's
bytes per sample on the wire (protobuf, snappy) and requests per second.

    python3 bench/deploy_sizing.py [--seconds 20] [--pmumon build/cli/pmumon]
"""
import argparse
import gzip
import http.server
import os
import re
import signal
import socket
import subprocess
import threading
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLATFORMS = ['yitian710', 'amdzen2:sockets=2', 'amdzen2:sockets=2,source=msr', 'bluefield2',
             'bluefield3', 'merrifield']


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


class Receiver:
    def __init__(self):
        self.bytes = self.requests = 0
        outer = self

        class H(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                n = int(self.headers['Content-Length'])
                self.rfile.read(n)
                outer.bytes += n
                outer.requests += 1
                self.send_response(204)
                self.end_headers()

            def log_message(self, *a):
                pass

        self.srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), H)
        self.port = self.srv.server_address[1]
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()

    def close(self):
        self.srv.shutdown()
        self.srv.server_close()


def counter(text, name):
    m = re.search(r'^%s\{[^}]*\} (\S+)$' % re.escape(name), text, re.M)
    return float(m.group(1)) if m else 0.0


def measure(pmumon, platform, seconds):
    rcv = Receiver()
    port = free_port()
    sim, _, opts = platform.partition(':')
    source = []
    if sim == 'merrifield':  # its simulator's own programming list (list program)
        prog = os.path.join('/tmp', 'pmumon-sizing-%d.list' % os.getpid())
        with open(prog, 'w') as f:
            subprocess.run([pmumon, '--sim', 'merrifield', 'list', 'program'], stdout=f,
                           check=True)
        source = ['--program', prog]
    if 'source=msr' in opts:
        opts = ','.join(o for o in opts.split(',') if o != 'source=msr')
        source = ['--source', 'msr']
    spec = sim + ':clock=real' + (',' + opts if opts else '')
    p = subprocess.Popen([pmumon, '--sim', spec, 'serve', '-I', '1000', '--listen',
                          '127.0.0.1:%d' % port, '--remote-write',
                          'http://127.0.0.1:%d/api/v1/write' % rcv.port] + source,
                         stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(2)
        t0 = time.time()
        b0, r0 = rcv.bytes, rcv.requests
        with urllib.request.urlopen('http://127.0.0.1:%d/metrics' % port) as r:
            s0 = counter(r.read().decode(), 'pmumon_remote_write_sent_samples_total')
        time.sleep(seconds)
        with urllib.request.urlopen('http://127.0.0.1:%d/metrics' % port) as r:
            text = r.read().decode()
        dt = time.time() - t0
        s1 = counter(text, 'pmumon_remote_write_sent_samples_total')
        b1, r1 = rcv.bytes, rcv.requests
    finally:
        p.send_signal(signal.SIGTERM)
        p.communicate(timeout=30)
        rcv.close()
        if sim == 'merrifield':
            os.unlink(prog)
    series = sum(1 for line in text.splitlines() if line and not line.startswith('#'))
    raw = len(text.encode())
    gz = len(gzip.compress(text.encode(), 6))
    return {'platform': platform, 'series': series, 'scrape_bytes': raw, 'scrape_gzip': gz,
            'rw_bytes_per_sample': (b1 - b0) / (s1 - s0) if s1 > s0 else float('nan'),
            'rw_samples_per_s': (s1 - s0) / dt, 'rw_requests_per_s': (r1 - r0) / dt,
            'rw_bytes_per_s': (b1 - b0) / dt}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--seconds', type=float, default=20)
    ap.add_argument('--pmumon', default=os.path.join(ROOT, 'build', 'cli', 'pmumon'))
    a = ap.parse_args()
    print('| platform (simulated) | series per node | scrape: text, gzip | remote write: '
          'bytes per sample | samples/s | bytes/s | requests/s |')
    print('|---|---|---|---|---|---|---|')
    for plat in PLATFORMS:
        m = measure(a.pmumon, plat, a.seconds)
        print('| %s | %d | %.1f KB, %.1f KB | %.2f | %.0f | %.0f | %.2f |' % (
            m['platform'], m['series'], m['scrape_bytes'] / 1e3, m['scrape_gzip'] / 1e3,
            m['rw_bytes_per_sample'], m['rw_samples_per_s'], m['rw_bytes_per_s'],
            m['rw_requests_per_s']))


if __name__ == '__main__':
    main()
