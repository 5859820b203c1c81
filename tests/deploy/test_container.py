#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The container image (dist/container/build-image, issue 28) started with
podman as docs/deploy.md runs it: no capability but CAP_PERFMON, a read-only
root, no new privileges. /metrics answers on the simulator and on this
machine's software events; the process's capability sets are CAP_PERFMON
alone (and CAP_SYS_RAWIO beside it for the msr variant); without CAP_PERFMON
nothing counts. Skipped, with podman's own words, where no container can
start here (this machine may itself be a container).

    tests/deploy/test_container.py pmumon-VERSION-oci.tar
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
IMAGE_TAR = os.environ.get('PMUMON_IMAGE', '')
CAP_SYS_RAWIO, CAP_PERFMON = 17, 38
# podman's defaults raise RLIMIT_NOFILE and RLIMIT_NPROC (CAP_SYS_RESOURCE, which a
# container running podman may lack) and crun refuses cgroup v1+v2 hybrids: the second
# way to start is for such machines
WAYS = ([], ['--runtime', 'runc', '--ulimit', 'nofile=1024:1024', '--ulimit',
             'nproc=1000:1000'])


def podman(*args, timeout=120):
    return subprocess.run(['podman'] + list(args), capture_output=True, text=True,
                          timeout=timeout)


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


class Image(unittest.TestCase):
    way = None
    image = None

    @classmethod
    def setUpClass(cls):
        if not shutil.which('podman'):
            raise unittest.SkipTest('podman is not installed')
        if not IMAGE_TAR or not os.path.exists(IMAGE_TAR):
            raise unittest.SkipTest('no image archive given (PMUMON_IMAGE)')
        r = podman('load', '-i', IMAGE_TAR)
        if r.returncode:
            raise unittest.SkipTest('podman load failed: ' + r.stderr.strip()[-300:])
        cls.image = r.stdout.strip().split()[-1]  # "Loaded image: localhost/pmumon:V"
        why = []
        for way in WAYS:
            r = podman('run', '--rm', '--network=none', *way, '--entrypoint',
                       '/usr/bin/pmumon', cls.image, '--version')
            if r.returncode == 0 and r.stdout.startswith('pmumon '):
                cls.way = way
                break
            why.append(r.stderr.strip().splitlines()[-1] if r.stderr.strip() else
                       'exit %d' % r.returncode)
        if cls.way is None:
            raise unittest.SkipTest('no container starts here: ' + '; '.join(why))
        cls.tmp = tempfile.mkdtemp()
        # the runtime's default profile with perf_event_open for CAP_PERFMON, where the
        # runtime's own allows it to CAP_SYS_ADMIN only (docs/deploy.md)
        cls.seccomp = os.path.join(cls.tmp, 'seccomp.json')
        default = '/usr/share/containers/seccomp.json'
        if os.path.exists(default):
            with open(cls.seccomp, 'w') as f:
                subprocess.run([os.path.join(ROOT, 'dist', 'container', 'seccomp-perfmon'),
                                default], stdout=f, check=True)
        else:
            cls.seccomp = None

    @classmethod
    def tearDownClass(cls):
        if getattr(cls, 'tmp', None):
            shutil.rmtree(cls.tmp)
        if cls.image:
            podman('rmi', '-f', cls.image)

    def start(self, *args, caps=('perfmon',), seccomp=True):
        port = free_port()
        name = 'pmumon-test-%d' % port
        opts = ['--network=host', '--read-only', '--cap-drop=all',
                '--security-opt=no-new-privileges']
        opts += ['--cap-add=' + c for c in caps]
        if seccomp and self.seccomp:
            opts.append('--security-opt=seccomp=' + self.seccomp)
        r = podman('run', '-d', '--name', name, *self.way, *opts, self.image,
                   '--listen', '127.0.0.1:%d' % port, *args)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.addCleanup(podman, 'rm', '-f', name)
        return name, port

    def metrics(self, name, port):
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                with urllib.request.urlopen('http://127.0.0.1:%d/metrics' % port,
                                            timeout=5) as r:
                    return r.read().decode()
            except OSError:
                if podman('inspect', '-f', '{{.State.Running}}', name).stdout.strip() != \
                        'true':
                    break
                time.sleep(0.2)
        self.fail('no /metrics: ' + podman('logs', name).stderr[-2000:])

    def status(self, name):
        pid = podman('inspect', '-f', '{{.State.Pid}}', name).stdout.strip()
        with open('/proc/%s/status' % pid) as f:
            return dict(line.split(':\t', 1) for line in f.read().splitlines()
                        if ':\t' in line)

    def test_simulated_machine(self):
        name, port = self.start('--sim', 'yitian710:clock=real')
        text = self.metrics(name, port)
        self.assertIn('pmumon_build_info{version=', text)
        self.assertIn('simulated="true"', text)
        self.assertIn('pmumon_memory_read_bytes_total{', text)
        st = self.status(name)
        for k in ('CapEff', 'CapPrm', 'CapBnd'):
            self.assertEqual(int(st[k], 16), 1 << CAP_PERFMON, (k, st[k]))
        self.assertEqual(int(st['CapAmb'], 16), 0)
        self.assertEqual(int(st['CapInh'], 16), 0)
        self.assertEqual(st['NoNewPrivs'].strip(), '1')
        self.assertEqual(st['Uid'].split()[:2], ['0', '0'])
        # the image's own serve.conf listens beyond loopback; the command line's wins
        logs = podman('logs', name).stderr
        self.assertIn("'listen' is given on the command line too", logs)

    def test_this_machines_software_events(self):
        name, port = self.start()
        text = self.metrics(name, port)
        self.assertIn('pmumon_event_total{event="cpu-clock"', text)
        self.assertIn('simulated="false"', text)

    def test_nothing_counts_without_perfmon(self):
        port = free_port()
        r = podman('run', '--rm', *self.way, '--network=host', '--read-only',
                   '--cap-drop=all', '--security-opt=no-new-privileges',
                   *(['--security-opt=seccomp=' + self.seccomp] if self.seccomp else []),
                   self.image, '--listen', '127.0.0.1:%d' % port, timeout=60)
        self.assertNotEqual(r.returncode, 0)

    def test_msr_variant_capabilities(self):
        name, port = self.start('--sim', 'amdzen2:clock=real', caps=('perfmon', 'sys_rawio'))
        self.assertIn('platform="amdzen2"', self.metrics(name, port))
        st = self.status(name)
        self.assertEqual(int(st['CapEff'], 16), (1 << CAP_PERFMON) | (1 << CAP_SYS_RAWIO))

    def test_image_config(self):
        r = podman('image', 'inspect', self.image)
        cfg = json.loads(r.stdout)[0]['Config']
        self.assertEqual(cfg['Entrypoint'], ['/usr/bin/pmumon', 'serve', '--config',
                                             '/etc/pmumon/serve.conf'])
        self.assertEqual(cfg.get('User'), '0:0')
        self.assertIn('9811/tcp', cfg.get('ExposedPorts', {}))
        # nothing set-id, no shell, no package manager in it
        r = podman('run', '--rm', *self.way, '--network=none', '--entrypoint',
                   '/bin/sh', self.image, '-c', 'true')
        self.assertNotEqual(r.returncode, 0)


if __name__ == '__main__':
    if len(sys.argv) > 1 and sys.argv[1].endswith('.tar'):
        IMAGE_TAR = sys.argv.pop(1)
    unittest.main(verbosity=2)
