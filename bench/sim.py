#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Benchmark: what the simulator costs a live view on clock=real.

    pmumon --sim amdzen2:sockets=2,clock=real top -b -I 1000 -n N

CPU time (user+sys, bench/measure) of a run of LONG screens minus a run of
SHORT screens, over the LONG-SHORT seconds between them: the share of one CPU
that `top` keeps taking once started (the start-up cancels out). The same for
`stat -a -I 1000` on the pack's defaults (DF and L3 only), the cheap case, and
with --baseline DIR for another build's pmumon (an earlier commit's), in the
same interleaved rounds, so a change is measured against what it changed.

usage: bench/sim.py [--build DIR] [--baseline DIR] [--runs N] [--short S] [--long L]
"""
import argparse
import os
import statistics
import subprocess
import sys

SIM = 'amdzen2:sockets=2,clock=real'


def cpu_seconds(launcher, cmd):
    r = subprocess.run([launcher] + cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit('failed (%d): %s' % (r.returncode, ' '.join(cmd)))
    user, system, _ = r.stdout.split()
    return float(user) + float(system)


def cases(pmumon):
    return {
        'top': lambda n: [pmumon, '--sim', SIM, 'top', '-b', '-I', '1000', '-n', str(n)],
        'stat': lambda n: [pmumon, '--sim', SIM, 'stat', '-a', '-I', '1000',
                           '--interval-count', str(n)],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--build', default='build')
    ap.add_argument('--baseline', help="another build directory whose pmumon runs beside this one's")
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--short', type=int, default=2)
    ap.add_argument('--long', type=int, default=12)
    a = ap.parse_args()
    launcher = os.path.join(a.build, 'bench', 'measure')
    builds = {'pmumon': os.path.join(a.build, 'cli', 'pmumon')}
    if a.baseline:
        builds['base'] = os.path.join(a.baseline, 'cli', 'pmumon')
    share = {}
    for _ in range(a.runs):
        for b, pmumon in builds.items():   # interleaved, so drift hits all alike
            for case, cmd in cases(pmumon).items():
                d = cpu_seconds(launcher, cmd(a.long)) - cpu_seconds(launcher, cmd(a.short))
                share.setdefault((b, case), []).append(100 * d / (a.long - a.short))
    print('simulated 2-socket EPYC (256 CPUs), clock=real, -I 1000: share of one CPU '
          'once started\n(CPU of %d screens minus %d, over %d s; median of %d runs)\n'
          % (a.long, a.short, a.long - a.short, a.runs))
    print('%-8s %-6s %10s' % ('build', 'case', 'CPU %'))
    for (b, case), v in sorted(share.items()):
        print('%-8s %-6s %10.2f' % (b, case, statistics.median(v)))
    print('\ntop target: under 5 %% of a CPU (issue 32): %s' %
          ('met' if statistics.median(share[('pmumon', 'top')]) < 5 else 'NOT met'))


if __name__ == '__main__':
    main()
