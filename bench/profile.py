#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Where one interval's cost goes, for the benchmark's command line:

- pmumon's own instructions per interval (valgrind callgrind: a run of N+200
  intervals minus a run of N, divided by 200, so start-up cancels out);
- system calls per interval of pmumon and of perf stat (strace -c, same trick).

usage: bench/profile.py [--build DIR] [--events 5|10]   (needs valgrind and strace)

The events are bench/run.py's sets, so the numbers stand beside its table.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

from run import EVENT_SETS


def stat_cmd(tool, n, events):
    return [tool, 'stat', '-a', '-I', '10', '--interval-count', str(n)] + \
        sum((['-e', e] for e in events), [])


def instructions(cmd):
    with tempfile.TemporaryDirectory() as d:
        r = subprocess.run(['valgrind', '--tool=callgrind',
                            '--callgrind-out-file=' + os.path.join(d, 'cg')] + cmd,
                           capture_output=True, text=True)
    m = re.search(r'Collected : (\d+)', r.stderr)
    if not m:
        sys.exit('callgrind failed: ' + r.stderr[-500:])
    return int(m.group(1))


def syscalls(cmd):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, 'st')
        subprocess.run(['strace', '-f', '-c', '-o', out] + cmd, capture_output=True)
        with open(out) as f:
            total = [l for l in f if l.rstrip().endswith('total')]
    return int(total[0].split()[3]) if total else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--build', default='build')
    ap.add_argument('--events', type=int, choices=[len(e) for e, _ in EVENT_SETS], default=5)
    a = ap.parse_args()
    events = next(e for e, _ in EVENT_SETS if len(e) == a.events)
    pmumon = os.path.join(a.build, 'cli', 'pmumon')
    for tool in ('valgrind', 'strace', 'perf'):
        if not shutil.which(tool):
            sys.exit('%s is not installed' % tool)
    n, extra = 10, 200
    ins = (instructions(stat_cmd(pmumon, n + extra, events)) -
           instructions(stat_cmd(pmumon, n, events))) / extra
    print('%d events' % len(events))
    print('pmumon instructions per interval (callgrind): %.0f' % ins)
    for name, tool in (('pmumon', pmumon), ('perf', shutil.which('perf'))):
        per = (syscalls(stat_cmd(tool, n + extra, events)) -
               syscalls(stat_cmd(tool, n, events))) / extra
        print('%-6s system calls per interval (strace): %.1f' % (name, per))


if __name__ == '__main__':
    main()
