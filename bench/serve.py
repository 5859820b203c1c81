#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Benchmark pmumon serve (issue 15), in one run, as figures and ratios:

  render   the exposition of a Yitian 710 sample: every ali_drw event on 16
           PMUs per device with the DDR metrics (build/bench/expo-render)
  load     CLIENTS concurrent clients scraping /metrics of a simulated Yitian
           710 (per device, the pack's defaults, -I 100) SCRAPES times in all:
           failed scrapes, latency p50/p99, and the sampler's lateness as the
           scrapes saw it (p99)
  cpu      pmumon serve and prometheus-node-exporter --collector.disable-defaults
           --collector.perf on this machine, the same software events per CPU,
           scraped every 15 s for SECONDS: CPU seconds each, per hour, as a ratio;
           and serve's idle cost at 1 s sampling with no scrapes
  soak     RSS and open file descriptors of serve at -I 100 after its live page's
           memory filled, and SECONDS later (they must not grow)
  syscalls system calls per sample of serve at -I 1000 (strace -c, 20 s)

usage: bench/serve.py [--build DIR] [--seconds S] [--clients N] [--scrapes N] [--only syscalls]
"""
import argparse
import concurrent.futures
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import time
import urllib.request

SOFT_EVENTS = ['page-faults', 'context-switches', 'cpu-migrations', 'minor-faults',
               'major-faults']


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def cpu_seconds(pid):
    """CPU time of every thread of pid now, to the nanosecond (/proc/PID/task/TID/schedstat:
    the scheduler's run time; utime and stime count 10 ms ticks, too coarse for an exporter
    that is idle most of the time)."""
    total = 0
    for tid in os.listdir('/proc/%d/task' % pid):
        try:
            with open('/proc/%d/task/%s/schedstat' % (pid, tid)) as f:
                total += int(f.read().split()[0])
        except OSError:
            pass  # a thread that ended meanwhile
    return total / 1e9


def rss_kib_fds(pid):
    with open('/proc/%d/status' % pid) as f:
        rss = int(re.search(r'VmRSS:\s+(\d+)', f.read()).group(1))
    return rss, len(os.listdir('/proc/%d/fd' % pid))


def wait_http(url, timeout=20):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.1)
    sys.exit('no answer from ' + url)


def scrape(url):
    t0 = time.perf_counter()
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            body = r.read()
        ok = r.status == 200
    except OSError:
        return None, None
    m = re.search(rb'\npmumon_sample_lateness_seconds (\S+)', body)
    n = re.search(rb'\npmumon_samples_total (\S+)', body)
    late = (int(float(n.group(1))), float(m.group(1))) if m and n and ok else None
    return time.perf_counter() - t0, late


def sim_serve(build):
    """pmumon serve -I 100 on a simulated Yitian 710 (the pack's screen): the process and
    its /metrics."""
    port = free_port()
    p = subprocess.Popen([os.path.join(build, 'cli/pmumon'), '--sim', 'yitian710:clock=real',
                          'serve', '-I', '100', '--listen', '127.0.0.1:%d' % port],
                         stderr=subprocess.DEVNULL)
    return p, 'http://127.0.0.1:%d/metrics' % port


def load(build, clients, scrapes):
    p, url = sim_serve(build)
    try:
        wait_http(url)
        with concurrent.futures.ThreadPoolExecutor(clients) as ex:
            results = list(ex.map(lambda _: scrape(url), range(scrapes)))
    finally:
        p.terminate()
        p.wait()
    lat = sorted(r[0] for r in results if r[0] is not None)
    # each sample's lateness once (many scrapes see the same sample)
    late = sorted(dict(r[1] for r in results if r[1] is not None).values())
    failed = sum(1 for r in results if r[0] is None)
    q = lambda v, f: v[min(len(v) - 1, int(f * len(v)))] if v else float('nan')
    print('load: %d clients, %d scrapes: %d failed; latency p50 %.2f ms, p99 %.2f ms; '
          'sampler lateness over %d samples p50 %.3f ms, p99 %.3f ms (max %.3f ms)'
          % (clients, scrapes, failed, q(lat, 0.5) * 1e3, q(lat, 0.99) * 1e3, len(late),
             q(late, 0.5) * 1e3, q(late, 0.99) * 1e3,
             (late[-1] if late else float('nan')) * 1e3))


def cpu(build, seconds):
    exporter = shutil.which('prometheus-node-exporter')
    pport, nport, iport, sport = free_port(), free_port(), free_port(), free_port()

    def serve(port, *more):
        cmd = [os.path.join(build, 'cli/pmumon'), 'serve', '-A', '--listen',
               '127.0.0.1:%d' % port] + list(more)
        for e in SOFT_EVENTS:
            cmd += ['-e', e]
        return subprocess.Popen(cmd, stderr=subprocess.DEVNULL)
    # serve samples on its own clock (1 s); node-exporter reads at each scrape: serve at
    # -I 15000 reads as often as it does
    procs = {'pmumon serve': serve(pport),
             'pmumon serve -I 15000': serve(sport, '-I', '15000'),
             'pmumon serve idle (1 s, no scrapes)': serve(iport)}
    urls = {'pmumon serve': 'http://127.0.0.1:%d/metrics' % pport,
            'pmumon serve -I 15000': 'http://127.0.0.1:%d/metrics' % sport}
    if exporter:
        procs['node-exporter perf'] = subprocess.Popen(
            [exporter, '--collector.disable-defaults', '--collector.perf',
             '--web.listen-address=127.0.0.1:%d' % nport], stderr=subprocess.DEVNULL)
        urls['node-exporter perf'] = 'http://127.0.0.1:%d/metrics' % nport
    try:
        for u in urls.values():
            wait_http(u)
        wait_http('http://127.0.0.1:%d/healthz' % iport)
        start = {n: cpu_seconds(p.pid) for n, p in procs.items()}
        mem0 = rss_kib_fds(procs['pmumon serve'].pid)
        t0 = time.time()
        while time.time() - t0 < seconds:
            for u in urls.values():
                scrape(u)
            time.sleep(15)
        elapsed = time.time() - t0
        used = {n: cpu_seconds(p.pid) - start[n] for n, p in procs.items()}
        mem1 = rss_kib_fds(procs['pmumon serve'].pid)
    finally:
        for p in procs.values():
            p.terminate()
            p.wait()
    for n, c in used.items():
        print('cpu: %-36s %.3f s in %.0f s = %.1f s per hour' % (n, c, elapsed,
                                                                c * 3600 / elapsed))
    if 'node-exporter perf' in used and used['node-exporter perf'] > 0:
        for n in ('pmumon serve', 'pmumon serve -I 15000'):
            print('cpu: %s / node-exporter = %.2f' % (n, used[n] / used['node-exporter perf']))
    print('soak: serve RSS %d -> %d KiB, open fds %d -> %d over %.0f s (its live page '
          'memory fills for the first 600 samples)'
          % (mem0[0], mem1[0], mem0[1], mem1[1], elapsed))


def soak(build, seconds):
    """serve at -I 100 (its page memory of 600 samples full after 60 s) scraped every
    second: RSS and open fds from then to the end."""
    p, url = sim_serve(build)
    try:
        wait_http(url)
        t0 = time.time()
        while time.time() - t0 < 65:
            scrape(url)
            time.sleep(1)
        mem0, t1 = rss_kib_fds(p.pid), time.time()
        while time.time() - t1 < seconds:
            scrape(url)
            time.sleep(1)
        mem1 = rss_kib_fds(p.pid)
    finally:
        p.terminate()
        p.wait()
    print('soak: serve -I 100 on a simulated Yitian 710, scraped every second: RSS %d -> %d '
          'KiB, open fds %d -> %d over %.0f s after its page memory filled'
          % (mem0[0], mem1[0], mem0[1], mem1[1], time.time() - t1))


def syscalls(build, seconds=20):
    """System calls per sample of serve at -I 1000 (5 software events per CPU, no scrapes),
    counted by strace -c over SECONDS: what a sample costs the kernel's side."""
    if not shutil.which('strace'):
        print('syscalls: strace is not installed (apt-get install strace)')
        return
    port = free_port()
    cmd = [os.path.join(build, 'cli/pmumon'), 'serve', '-A', '--listen', '127.0.0.1:%d' % port]
    for e in SOFT_EVENTS:
        cmd += ['-e', e]
    p = subprocess.Popen(cmd, stderr=subprocess.DEVNULL)
    try:
        wait_http('http://127.0.0.1:%d/healthz' % port)
        r = subprocess.run(['timeout', '-s', 'INT', str(seconds), 'strace', '-f', '-c', '-p',
                            str(p.pid)], capture_output=True, text=True)
    finally:
        p.terminate()
        p.wait()
    m = re.search(r'\n\S+\s+\S+\s+\S+\s+(\d+)\s+(?:\d+\s+)?total', r.stderr)
    calls = int(m.group(1)) if m else 0
    print('syscalls: %d system calls in %d s of 1 s samples: %.1f per sample'
          % (calls, seconds, calls / seconds))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', default='build')
    ap.add_argument('--seconds', type=float, default=120)
    ap.add_argument('--clients', type=int, default=50)
    ap.add_argument('--scrapes', type=int, default=3000)
    ap.add_argument('--only', choices=('syscalls',), help='that measurement alone')
    a = ap.parse_args()
    if a.only == 'syscalls':
        syscalls(a.build)
        return
    r = subprocess.run([os.path.join(a.build, 'bench/expo-render'), '300'],
                       capture_output=True, text=True, check=True)
    for line in r.stdout.splitlines():
        print('render:', line)
    load(a.build, a.clients, a.scrapes)
    cpu(a.build, a.seconds)
    soak(a.build, a.seconds)
    syscalls(a.build)


if __name__ == '__main__':
    main()
