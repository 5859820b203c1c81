#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""pmumon doctor on this machine agrees with what stat manages to count.

- perf: where the doctor finds system-wide counting permitted, `stat -a -e
  cpu-clock` counts; where it finds it blocked (a problem), stat fails.
- machine: where it finds a virtual machine without a virtual PMU, `stat -e
  cycles` has no count (a <not supported> row); where a core PMU exists, it counts.
- both as the user the tests run as and, when that is root, as nobody
  (setpriv), where perf_event_paranoid decides.
- the exit status is 1 exactly when some finding is a problem."""
import json
import os
import shutil
import subprocess
import sys

PMUMON = os.environ['PMUMON']


def run(prefix, *args):
    return subprocess.run(prefix + [PMUMON] + list(args), capture_output=True, text=True,
                          timeout=60)


def check(prefix, who):
    r = run(prefix, 'doctor', '-j')
    doc = json.loads(r.stdout)
    findings = doc['findings']
    problems = [f for f in findings if f['verdict'] == 'problem']
    assert doc['problems'] == len(problems), doc
    assert r.returncode == (1 if problems else 0), (r.returncode, problems)
    for f in findings:
        assert f['what'] and (f['verdict'] == 'ok' or f['fix'] or f['topic'] == 'metrics'), f

    perf = [f for f in findings if f['topic'] == 'perf']
    assert perf, findings
    blocked = [f for f in perf if f['verdict'] == 'problem']
    verdict = 'problem' if blocked else 'ok'
    stat = run(prefix, 'stat', '-a', '-e', 'cpu-clock', '-I', '100', '--interval-count', '1',
               '-x,')
    counted = stat.returncode == 0
    if counted != (verdict == 'ok'):
        sys.exit('%s: doctor says perf %s (%s), stat -a returned %d: %s'
                 % (who, verdict, (blocked or perf)[0]['what'], stat.returncode, stat.stderr))

    no_vpmu = any(f['topic'] == 'machine' and f['verdict'] == 'problem' for f in findings)
    core = any(os.path.isdir('/sys/bus/event_source/devices/' + p)
               for p in ('cpu', 'cpu_core', 'armv8_pmuv3_0'))
    if counted and (no_vpmu or core):
        # cycles counts where a core PMU is, and is a <not supported> row where none is
        cyc = run(prefix, 'stat', '-x,', '-e', 'cycles', '--', 'true')
        flags = [line.split(',')[14] for line in cyc.stdout.splitlines()[1:]
                 if line.startswith('total,')]
        # (cycles alone and not supported: 'none of the events is supported here', exit 1)
        countable = bool(cyc.returncode == 0 and flags and 'not_counted' not in flags[0])
        if countable == no_vpmu:
            sys.exit('%s: doctor says %s, stat -e cycles: %d %s %s'
                     % (who, 'no virtual PMU' if no_vpmu else 'a core PMU', cyc.returncode,
                        flags, cyc.stderr))
    print('%s: %d findings, %d problems; perf %s and stat agrees'
          % (who, len(findings), len(problems), verdict))


def main():
    check([], 'uid %d' % os.geteuid())
    setpriv = shutil.which('setpriv')
    nobody = [setpriv, '--reuid=65534', '--regid=65534', '--clear-groups'] if setpriv else []
    if os.geteuid() != 0 or not setpriv:
        print('not root (or no setpriv): the unprivileged check is skipped')
    elif run(nobody, '--version').returncode != 0:
        # a checkout nobody may not enter (under /root, mode 0700)
        print('nobody cannot run %s: the unprivileged check is skipped' % PMUMON)
    else:
        check(nobody, 'nobody')


if __name__ == '__main__':
    main()
