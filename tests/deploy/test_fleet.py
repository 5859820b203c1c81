#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A fleet across network namespaces (issue 28, item 5): four hosts, each a
network namespace with its own address on a veth pair to a central one,
each running `pmumon --sim P serve --config serve.conf` as the unit would
(the packaged serve.conf with README's listen line uncommented, and the
fleet's settings appended): a Yitian 710, a two-socket EPYC (amdzen2), a
BlueField-3 and a Merrifield. In the central namespace a Prometheus
(Debian's) finds them by file_sd and scrapes them, and a second one
receives remote write from the BlueField, the DPU nobody scrapes.

- The dashboard's Fleet row (dist/grafana/pmumon.json, its queries as
  they are): memory traffic per host equals the sum of that host's `stat`
  (the simulator's virtual clock, the same flat scenario: the exact truth)
  within 1 %, and the busiest ten channels are the ten the truth has, each
  within 1 % of its own.
- The receiver is stopped for 30 s and started again. The BlueField pushes
  to it twice (two addresses, an external label each): through a queue
  that holds the outage every sample arrives, once and in order; through
  one too small for it the oldest are dropped, and the samples that did
  not arrive are the ones pmumon_remote_write_dropped_samples_total counts.
  The receiver's log has no out-of-order, duplicate or out-of-bounds error,
  and the dashboard's BlueField query over the pushed counters equals stat.

The receiver is queried at the pushed samples' own times
(pmumon_last_sample_timestamp_seconds): a simulated machine under
clock=real dates them by this machine's wall clock (issue 27, item 8), and
dated them 2026-01-01 and on before; the test holds either way.

Needs root, `ip netns` and Debian's prometheus; skipped (77) saying why
where any is missing. Lean for CI: about two minutes, most of it the
outage and the scrape span, which overlap.
"""
import ctypes
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

PMUMON = os.environ['PMUMON']
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.environ.get('PMUMON_SOURCE_ROOT') or os.path.dirname(os.path.dirname(HERE))

SPAN = 60       # s between the two scrapes rate() is taken over: 0.1 s off at an end is 0.17 %
OUTAGE = 30     # s the receiver is away
PUSHED_SPAN = 20  # s of pushed samples rate() is taken over: the outage's, sent late
PORT = 9811     # each host's, as the packaged serve.conf says
SUBNET = '10.213'  # 10.213.I.0/24 between the central namespace (.1, .3) and host I (.2)

# name, --sim platform, scenario (flat, jitter 0), serve.conf lines, stat's places
# Channels: Yitian die0/ch3 at 12 + 2 GB/s, the rest 4 + 2; EPYC socket 0 channel 2 at
# 10 + 1, socket 1 channel 3 (the simulator's 11) at 8 + 1, the rest 3 + 1; Merrifield
# 1 + 0.4 each: the ten busiest are one set, with no tie at its edge (6 > 4).
HOSTS = [
    ('yitian710', 'yitian710',
     'jitter 0\nddr.read 4G\nddr.write 2G\nddr.rmw 0\nddr.read[3] 12G\n', [],
     ['--per-channel']),
    ('epyc', 'amdzen2:sockets=2',
     'jitter 0\ndram.read 3G\ndram.write 1G\ndram.read[2] 10G\ndram.read[11] 8G\n', [],
     ['--per-socket']),
    ('bluefield3', 'bluefield3', 'jitter 0\nllt.mem_reads 5M\nllt.mem_writes 2M\n',
     ['remote-write.config = {dir}/remote-write.yml'], ['--per-device']),
    ('merrifield', 'merrifield', 'jitter 0\nddr.read 1000M\nddr.write 400M\n',
     ['program = {dir}/merrifield.prog'], []),
]
PUSHER = 2                   # the BlueField
BIG, SMALL = 100000, 10000   # its two queues: the outage's ~35,000 samples fit in one only
UNITS = {'B/s': 1, 'MB/s': 1e6, 'GB/s': 1e9, '/s': 1}


def skip(why):
    print('skipped: ' + why, file=sys.stderr)
    sys.exit(77)


def run(*args, ok=True, **kw):
    r = subprocess.run(args, capture_output=True, text=True, timeout=60, **kw)
    if ok and r.returncode != 0:
        raise AssertionError('%s: %s' % (' '.join(args), r.stderr.strip()))
    return r


def get(url, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read().decode()


def samples(text):
    """{(name, frozenset(labels)): value} of an exposition."""
    out = {}
    for line in text.splitlines():
        if line and not line.startswith('#'):
            m = re.match(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$', line)
            assert m, line
            labels = frozenset(re.findall(r'([a-z_]+)="((?:[^"\\]|\\.)*)"', m.group(3) or ''))
            out[(m.group(1), labels)] = float(m.group(4))
    return out


def wait_for(fn, what, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            v = fn()
        except (OSError, AssertionError, KeyError, IndexError):
            v = None
        if v:
            return v
        time.sleep(0.2)
    raise AssertionError('waited %d s for %s' % (timeout, what))


def query(prom, expr, at):
    u = '%s/api/v1/query?%s' % (prom, urllib.parse.urlencode({'query': expr,
                                                               'time': '%.3f' % at}))
    doc = json.loads(get(u))
    assert doc['status'] == 'success', doc
    return doc['data']['result']


def same(got, want, what):
    if got != want:
        gone = sorted(set(want) - set(got))
        more = [x for x in got if x not in want or got.count(x) > 1]
        raise AssertionError('%s: %d, want %d; missing %s; not wanted or twice %s'
                             % (what, len(got), len(want), str(gone)[:400], str(more)[:400]))


def near(got, want, what):
    if not abs(got - want) <= 0.01 * abs(want):
        raise AssertionError('%s: %.6g, want %.6g (%.2f %% off)'
                             % (what, got, want, 100 * (got - want) / want))


class Fleet:
    def __init__(self):
        self.tag = 'pmf%d' % os.getpid()
        self.ns = []
        self.procs = []
        self.tmp = tempfile.mkdtemp(prefix='pmumon-fleet-')
        self.failures = []

    # ---- the network ------------------------------------------------------------------

    def netns(self):
        # namespaces a killed run of this test left behind (their pid is gone)
        for name in run('ip', 'netns', 'list').stdout.split():
            m = re.match(r'pmf(\d+)-', name)
            if m and not os.path.exists('/proc/' + m.group(1)):
                run('ip', 'netns', 'del', name, ok=False)
        self.central = self.tag + '-c'
        r = run('ip', 'netns', 'add', self.central, ok=False)
        if r.returncode != 0:
            skip('network namespaces cannot be made here (ip netns add: %s)'
                 % r.stderr.strip())
        self.ns.append(self.central)
        run('ip', '-n', self.central, 'link', 'set', 'lo', 'up')
        for i in range(len(HOSTS)):
            ns = '%s-%d' % (self.tag, i)
            run('ip', 'netns', 'add', ns)
            self.ns.append(ns)
            # the veth pair made in the central namespace, its peer moved to the host's
            run('ip', '-n', self.central, 'link', 'add', 'h%d' % i, 'type', 'veth', 'peer',
                'name', 'eth0', 'netns', ns)
            for addr in ('.1/24', '.3/24'):
                run('ip', '-n', self.central, 'addr', 'add', '%s.%d%s' % (SUBNET, i, addr),
                    'dev', 'h%d' % i)
            run('ip', '-n', self.central, 'link', 'set', 'h%d' % i, 'up')
            run('ip', '-n', ns, 'addr', 'add', '%s.%d.2/24' % (SUBNET, i), 'dev', 'eth0')
            run('ip', '-n', ns, 'link', 'set', 'eth0', 'up')
            run('ip', '-n', ns, 'link', 'set', 'lo', 'up')
        # this process (its main thread, which makes every request) into the central one
        libc = ctypes.CDLL(None, use_errno=True)
        fd = os.open('/var/run/netns/' + self.central, os.O_RDONLY)
        if libc.setns(fd, 0x40000000) != 0:  # CLONE_NEWNET
            skip('setns into a network namespace: %s' % os.strerror(ctypes.get_errno()))
        os.close(fd)

    def host(self, i):
        return '%s.%d.2:%d' % (SUBNET, i, PORT)

    # ---- processes --------------------------------------------------------------------

    def spawn(self, args, log, ns=None):
        f = open(os.path.join(self.tmp, log), 'a')
        p = subprocess.Popen((['ip', 'netns', 'exec', ns] if ns else []) + args,
                             stdout=f, stderr=subprocess.STDOUT, cwd=self.tmp)
        f.close()
        self.procs.append(p)
        return p

    def stop(self, p):
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        return p.returncode

    def log(self, name):
        with open(os.path.join(self.tmp, name)) as f:
            return f.read()

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, 'w') as f:
            f.write(text)
        return path

    def prometheus(self, name, port, *args):
        p = self.spawn(['prometheus', '--config.file=' + self.tmp + '/' + name + '.yml',
                        '--storage.tsdb.path=' + self.tmp + '/' + name + '-data',
                        '--web.listen-address=0.0.0.0:%d' % port] + list(args),
                       name + '.log')
        url = 'http://127.0.0.1:%d' % port
        wait_for(lambda: p.poll() is None and get(url + '/-/ready'), name + ' ready', 60)
        assert p.poll() is None, self.log(name + '.log')[-2000:]
        return p, url

    # ---- the hosts --------------------------------------------------------------------

    def start_hosts(self, receiver_port):
        with open(os.path.join(ROOT, 'dist', 'pmumon', 'serve.conf')) as f:
            packaged = f.read()
        # README's step for a remote scraper
        conf = re.sub(r'(?m)^# listen = 0\.0\.0\.0:9811$', 'listen = 0.0.0.0:9811', packaged)
        assert conf != packaged, "serve.conf has no '# listen = 0.0.0.0:9811' line"
        with open(os.path.join(self.tmp, 'merrifield.prog'), 'w') as f:
            subprocess.run([PMUMON, '--sim', 'merrifield', 'list', 'program'], stdout=f,
                           check=True, timeout=60)
        url = lambda a: 'http://%s.%d.%d:%d/api/v1/write' % (SUBNET, PUSHER, a, receiver_port)
        self.rw_big, self.rw_small = url(1), url(3)
        self.write('remote-write.yml',
                   'remote_write:\n'
                   '  - url: %s\n    external_labels: {queue: big}\n'
                   '    queue_config: {capacity: %d}\n'
                   '  - url: %s\n    external_labels: {queue: small}\n'
                   '    queue_config: {capacity: %d}\n' % (self.rw_big, BIG, self.rw_small, SMALL))
        self.hosts = []
        for i, (name, sim, scn, lines, _) in enumerate(HOSTS):
            self.write(name + '.scn', scn)
            path = self.write(name + '.conf', conf + '\n# the fleet test\ninterval = 100\n' +
                              ''.join(l.format(dir=self.tmp) + '\n' for l in lines))
            p = self.spawn([PMUMON, '--sim', '%s%sclock=real,scenario=%s/%s.scn'
                            % (sim, ',' if ':' in sim else ':', self.tmp, name),
                            'serve', '--config', path], name + '.log', '%s-%d' % (self.tag, i))
            self.hosts.append(p)
        for i, p in enumerate(self.hosts):
            wait_for(lambda: p.poll() is not None or get('http://%s/healthz' % self.host(i)),
                     HOSTS[i][0] + ' serving', 60)
            assert p.poll() is None, self.log(HOSTS[i][0] + '.log')

    def stat(self, i):
        """{(metric, socket, die, channel, device): B/s} of host i's memory metrics by stat
        on the virtual clock, over a SPAN of the same scenario; None where stat gives no
        such place."""
        name, sim, _, lines, places = HOSTS[i]
        metrics = sorted(self.metrics_of[self.host(i)])
        args = [PMUMON, '--sim', '%s%sscenario=%s/%s.scn' % (sim, ',' if ':' in sim else ':',
                                                              self.tmp, name), 'stat', '-a',
                '-M', ','.join(metrics), '-j'] + places
        if name == 'merrifield':
            args += ['--program', self.tmp + '/merrifield.prog']
        r = run(*(args + ['--', 'sleep', str(SPAN)]))
        out = {}
        for line in r.stdout.splitlines():
            o = json.loads(line)
            if o.get('metric') and o['event'] in metrics:
                key = (o['event'],) + tuple(None if o.get(k) is None else str(o[k])
                                            for k in ('socket', 'die', 'channel', 'device'))
                assert key not in out, key
                out[key] = o['value'] * UNITS[o['unit']]
        assert out, r.stdout
        return out

    # ---- the dashboard's queries -----------------------------------------------------

    def panel(self, title, family=''):
        """The query of a panel of the dashboard (the one on family, where it has more)."""
        with open(os.path.join(ROOT, 'dist', 'grafana', 'pmumon.json')) as f:
            dash = json.load(f)
        (p,) = [p for p in dash['panels'] if p.get('title') == title]
        (t,) = [t for t in p['targets'] if family in t['expr']]
        return t['expr']

    def at(self, prom, expr, t, span=SPAN):
        """A dashboard expression with every job and instance, $__rate_interval the span
        before t (within the data: rate() extrapolates half an interval past a series'
        ends only): rate() takes each series' first and last sample in it (a scrape every
        second, a pushed sample every 100 ms: extrapolated to the window's edges, which
        is their own increase over their own time)."""
        expr = expr.replace('$job', '.*').replace('$instance', '.*')
        return query(prom, expr.replace('$__rate_interval', '%ds' % span), t)

    # ---- the test ---------------------------------------------------------------------

    def main(self):
        if os.geteuid() != 0:
            skip('network namespaces need root')
        if not shutil.which('prometheus') or not shutil.which('ip'):
            skip("Debian's prometheus and iproute2 needed")
        self.netns()
        # the receiver, and the scraper finding the hosts by file_sd
        self.write('receiver.yml', 'global: {scrape_interval: 1h}\n')
        rport, sport = 9090, 9091
        receiver, self.receiver = self.prometheus('receiver', rport,
                                                  '--web.enable-remote-write-receiver')
        self.write('targets.json', json.dumps(
            [{'targets': [self.host(i)], 'labels': {'host': h[0]}}
             for i, h in enumerate(HOSTS)]))
        self.write('scraper.yml',
                   'global: {scrape_interval: 1s, scrape_timeout: 1s}\n'
                   'scrape_configs:\n'
                   '  - job_name: pmumon\n'
                   '    file_sd_configs: [{files: [%s/targets.json], refresh_interval: 1s}]\n'
                   % self.tmp)
        scraper, self.prom = self.prometheus('scraper', sport)
        self.start_hosts(rport)
        t_up = wait_for(lambda: len([r for r in query(self.prom, 'up == 1', time.time())
                                     if r['metric']['job'] == 'pmumon']) == len(HOSTS) and
                        time.time(), 'every host scraped', 60)
        bf = 'http://%s/metrics' % self.host(PUSHER)
        key = lambda what, url: ('pmumon_remote_write_%s' % what, frozenset({('url', url)}))
        wait_for(lambda: all(samples(get(bf))[key('sent_samples_total', u)] > 0
                             for u in (self.rw_big, self.rw_small)), 'pushed', 30)

        # the receiver away for OUTAGE seconds, then back; the BlueField reloads meanwhile
        # (systemctl reload: its targets keep their queues, its counters and numbers go on)
        assert self.stop(receiver) == 0, self.log('receiver.log')[-2000:]
        self.hosts[PUSHER].send_signal(signal.SIGHUP)
        time.sleep(OUTAGE)
        during = samples(get(bf))
        receiver, _ = self.prometheus('receiver', rport, '--web.enable-remote-write-receiver')
        wait_for(lambda: all(samples(get(bf))[key('queue_samples', u)] == 0
                             for u in (self.rw_big, self.rw_small)), 'the queues sent', 90)
        last = samples(get(bf))

        # the fleet row over SPAN seconds of scrapes (most of them during the outage)
        wait_for(lambda: time.time() > t_up + SPAN + 2, 'a span of scrapes', SPAN + 10)
        self.metrics_of = {}
        for r in query(self.prom, 'group by (instance, metric) (pmumon_memory_bytes_total)',
                       time.time()):
            self.metrics_of.setdefault(r['metric']['instance'], set()).add(
                r['metric']['metric'])
        hosts = [i for i in range(len(HOSTS)) if self.host(i) in self.metrics_of]
        assert [HOSTS[i][0] for i in hosts] == ['yitian710', 'epyc', 'merrifield'], \
            self.metrics_of
        truth = {i: self.stat(i) for i in hosts}
        t = time.time() - 1  # the scrapes of the last second may be in flight
        for i in hosts:
            got = [r for r in self.at(self.prom, self.panel('Memory traffic per host'), t)
                   if r['metric']['instance'] == self.host(i)]
            assert len(got) == 1, got
            self.check(near, float(got[0]['value'][1]), sum(truth[i].values()),
                       'memory traffic of ' + HOSTS[i][0])
        got = self.at(self.prom, self.panel('Busiest channels in the fleet (top 10)'), t)
        want = sorted(((v, self.host(i), k) for i in hosts for k, v in truth[i].items()),
                      reverse=True)
        assert want[9][0] > want[10][0], want[:11]  # the scenarios' ten are one set
        matched = []
        for r in got:
            m = r['metric']
            (w,) = [(v, inst, k) for v, inst, k in want
                    if inst == m['instance'] and k[0] == m['metric'] and
                    all(k[1 + j] is None or k[1 + j] == m.get(lab)
                        for j, lab in enumerate(('socket', 'die', 'channel')))]
            matched.append(w)
            self.check(near, float(r['value'][1]), w[0],
                       'busiest: %s %s' % (m['instance'], m.get('where')))
        self.check(same, sorted(matched, reverse=True), want[:10], 'the ten busiest channels')
        print('fleet row: per host %s; busiest %s' % (
            ', '.join('%s %.4g GB/s' % (HOSTS[i][0], sum(truth[i].values()) / 1e9)
                      for i in hosts),
            ', '.join('%.3g' % (w[0] / 1e9) for w in want[:10])), file=sys.stderr)

        # what the receiver holds, at the pushed samples' own times
        n = last[('pmumon_samples_total', frozenset())]
        t_last = last[('pmumon_last_sample_timestamp_seconds', frozenset())]
        per_frame = len(last)
        series = lambda q: [float(v) for _, v in query(
            self.receiver, 'pmumon_samples_total{queue="%s"}[1h]' % q, t_last)[0]['values']]
        wait_for(lambda: series('big')[-1] == n and series('small')[-1] == n,
                 'the last sample received', 30)
        big, small = series('big'), series('small')
        # the big queue: every sample, from the first, once and in order
        for u in (self.rw_big, self.rw_small):  # nothing refused (a 4xx: counted failed)
            self.check(same, last[key('failed_samples_total', u)], 0, 'failed to ' + u)
        self.check(same, big, [float(k) for k in range(1, int(n) + 1)],
                   'every sample through the big queue')
        assert last[key('dropped_samples_total', self.rw_big)] == 0, last
        assert last[('pmumon_config_reloads_total', frozenset({('result', 'success')}))] == 1
        assert during[key('retried_samples_total', self.rw_big)] > 0, during
        # the small one: full during the outage, the oldest dropped and counted; what
        # arrived is in order, once each, with one gap
        assert during[key('queue_samples', self.rw_small)] == SMALL, during
        dropped = last[key('dropped_samples_total', self.rw_small)]
        assert small == sorted(set(small)), 'out of order or twice through the small queue'
        gaps = [(a, b) for a, b in zip(small, small[1:]) if b != a + 1]
        assert len(gaps) == 1 and small[0] == 1, gaps
        missing = gaps[0][1] - gaps[0][0] - 1
        # the queue drops single samples, oldest first: the frames at the gap's two edges
        # may have lost part of their series
        assert abs(dropped - missing * per_frame) <= 2 * per_frame, \
            (dropped, missing, per_frame)
        print('pushed: %d samples a frame; big queue %d frames, none lost; small queue '
              'dropped %d samples, %d frames missing' % (per_frame, len(big), dropped,
                                                         missing), file=sys.stderr)
        # the dashboard's BlueField query on the pushed counters: stat's, exactly timed
        reqs = self.panel('Memory requests (BlueField)', 'pmumon_memory_read_requests_total')
        stat_bf = sum(self.stat_bluefield().values())
        got = [r for r in self.at(self.receiver, reqs, t_last, PUSHED_SPAN)
               if r['metric'].get('queue') == 'big']
        assert len(got) == 8, got
        self.check(near, sum(float(r['value'][1]) for r in got), stat_bf,
                   'BlueField read requests, pushed')

        # every host stops cleanly; the receiver's log has no complaint
        for i, p in enumerate(self.hosts):
            code = self.stop(p)
            assert code == 0, (HOSTS[i][0], code, self.log(HOSTS[i][0] + '.log')[-2000:])
        self.stop(receiver)
        self.stop(scraper)
        log = self.log('receiver.log').lower()
        for bad in ('out of order', 'duplicate sample', 'out of bounds', 'too old'):
            assert bad not in log, re.findall('.*%s.*' % bad, log)[:3]
        if self.failures:
            raise AssertionError('\n'.join(self.failures))

    def stat_bluefield(self):
        self.metrics_of[self.host(PUSHER)] = {'llt_memory_reads'}
        return self.stat(PUSHER)

    def check(self, fn, *args):
        """An assertion that lets the others run too (all failures said at the end)."""
        try:
            fn(*args)
        except AssertionError as e:
            self.failures.append(str(e))
            print('FAIL: %s' % e, file=sys.stderr)

    def cleanup(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        for ns in self.ns:
            run('ip', 'netns', 'del', ns, ok=False)
        shutil.rmtree(self.tmp, ignore_errors=True)


def main():
    fleet = Fleet()
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(1))  # meson's timeout: clean up
    try:
        fleet.main()
    except AssertionError as e:
        print('FAIL: %s' % e, file=sys.stderr)
        for name in [h[0] for h in HOSTS] + ['receiver', 'scraper']:
            try:
                print('--- %s.log (end)\n%s' % (name, fleet.log(name + '.log')[-1500:]),
                      file=sys.stderr)
            except OSError:
                pass
        return 1
    finally:
        fleet.cleanup()
    print('ok: the fleet row equals stat, every pushed sample arrived or was counted',
          file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main())
