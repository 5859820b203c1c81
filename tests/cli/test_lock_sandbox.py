#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The sources' lock in /run/pmumon inside pmumon-serve's sandbox (issue 34):
ProtectSystem=strict leaves /run read-only, so the root-sources drop-in's
ReadWritePaths=/run/pmumon is what lets serve take it; without it the lock
cannot be taken (EROFS), and the library then refuses the counters
(tests/sim/test-msr.c). Run under systemd-run with the units' own
properties where systemd runs this machine; else the same mounts made by
hand in a private mount namespace (unshare), which is what those two
properties make; else skipped, saying why."""
import os
import shutil
import subprocess
import unittest

TAKE_LOCK = os.environ['TAKE_LOCK']
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def unit_properties(*files):
    """The [Service] settings of the unit and its drop-in, in order: [(key, value)]."""
    out = []
    for name in files:
        section = None
        with open(os.path.join(ROOT, 'dist/systemd', name)) as f:
            for line in f:
                line = line.strip()
                if line.startswith('['):
                    section = line
                elif section == '[Service]' and '=' in line and not line.startswith('#'):
                    out.append(tuple(line.split('=', 1)))
    return out


def sandbox():
    """The properties that decide what /run is: ProtectSystem, ReadWritePaths."""
    props = unit_properties('pmumon-serve.service', 'pmumon-serve-root-sources.conf')
    return [(k, v) for k, v in props if k in ('ProtectSystem', 'ReadWritePaths')]


class Sandbox(unittest.TestCase):
    def test_the_units_make_the_lock_directory_writable(self):
        props = dict(sandbox())
        self.assertEqual(props.get('ProtectSystem'), 'strict')
        self.assertEqual(props.get('ReadWritePaths'), '/run/pmumon')
        with open(os.path.join(ROOT, 'dist/tmpfiles/pmumon.conf')) as f:
            self.assertIn('d /run/pmumon 0755 root root -\n', f.read())

    @unittest.skipUnless(os.path.isdir('/run/systemd/system') and os.geteuid() == 0 and
                         shutil.which('systemd-run'),
                         'systemd does not run this machine (or not as root): systemd-run '
                         'cannot start a unit here; the namespace test makes the same mounts')
    def test_systemd_run_with_the_units_properties(self):
        os.makedirs('/run/pmumon', mode=0o755, exist_ok=True)  # as tmpfiles.d does
        for props, want in ((sandbox(), 'taken'),
                            ([p for p in sandbox() if p[0] != 'ReadWritePaths'], 'EROFS')):
            cmd = ['systemd-run', '--wait', '--pipe', '--quiet', '--collect']
            for k, v in props:
                cmd += ['-p', '%s=%s' % (k, v)]
            r = subprocess.run(cmd + [TAKE_LOCK, '/', 'run/pmumon/sandbox-test.lock'],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(r.stdout.strip(), want, r.stderr)

    @unittest.skipUnless(os.geteuid() == 0 and shutil.which('unshare') and
                         subprocess.run(['unshare', '--mount', 'true'],
                                        capture_output=True).returncode == 0,
                         'no private mount namespace here (unshare --mount needs root)')
    def test_the_same_mounts_in_a_namespace(self):
        # a private /run (tmpfs: nothing of the machine's is touched), read-only as
        # ProtectSystem=strict makes it, /run/pmumon bound writable over it as
        # ReadWritePaths does; then without that bind, and without the directory
        cases = (
            ('mkdir -m 0755 /run/pmumon; mount --bind /run/pmumon /run/pmumon;'
             'mount -o remount,bind,ro /run', 'taken'),
            ('mkdir -m 0755 /run/pmumon; mount -o remount,bind,ro /run', 'EROFS'),
            ('mount -o remount,bind,ro /run', 'EROFS'),
        )
        for mounts, want in cases:
            script = ('set -e; mount --make-rprivate /; mount -t tmpfs -o mode=0755 tmpfs /run;'
                      '%s; exec "$0" / run/pmumon/msr.lock' % mounts)
            r = subprocess.run(['unshare', '--mount', 'sh', '-c', script, TAKE_LOCK],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(r.stdout.strip(), want, mounts + ': ' + r.stderr)


if __name__ == '__main__':
    unittest.main(verbosity=2)
