#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Benchmark: pointed at a whole perf pmu-events tree, what does a command that needs
one CPU's directory cost? Wall time, CPU time and peak RSS of

    pmumon --sim amdzen2 --events-dir TREE list metrics   (the tree)
    pmumon --sim amdzen2 list metrics                     (no tree: the rest of the start)
    perf stat -e cpu-clock true                           (perf's own start-up)

the median of RUNS interleaved runs, measured in this one run on this machine;
pmumon's figures as ratios to perf's.

The tree is a kernel's: Debian's linux-source-6.12 (scripts/perf-tree extracts its
tools/perf/pmu-events, 23.7 MB of JSON in 801 files); the simulated AMD Zen 2 picks its
mapfile's amdzen2 row, and this machine's own CPU its row ('pmumon+tree live'). Give
--tree DIR for another checkout. Where no kernel source is installed, or with
--synthetic, the tree is made of the perf files committed in tests/data/pmu-events,
their entries repeated with new names into files of a real tree's sizes, under CPU
directories with a mapfile row each, until it is about --mib MiB; the row the
simulated Zen 2 matches is the last x86 row, and its directory a big server's.

usage: bench/packs.py [--build DIR] [--baseline DIR] [--runs N] [--tree DIR | --synthetic [--mib M]]
"""
import argparse
import copy
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, '..', 'tests', 'data', 'pmu-events', 'arch')
FILE_KIB = 200   # a real CPU directory holds a few files of 50-500 KiB each
MATCH_KIB = 1000  # the one it picks, as large as a big server's (sapphirerapids: ~4 MB)


def grow(entries, kib, tag):
    """entries repeated with new EventName/MetricName until about kib KiB of JSON."""
    out, i = [], 0
    while len(json.dumps(out, indent=4)) < kib * 1024:
        for e in entries:
            e = copy.deepcopy(e)
            for k in ('EventName', 'MetricName'):
                if k in e:
                    e[k] = '%s.%s%d' % (e[k], tag, i)
            out.append(e)
        i += 1
    return out


def load(rel):
    with open(os.path.join(DATA, rel)) as f:
        return json.load(f)


def make_tree(root, mib):
    """A pmu-events tree of about mib MiB; its size in bytes."""
    x86_src = [load('x86/sapphirerapids/' + n) for n in
               ('pipeline.json', 'memory.json', 'uncore-memory.json')] + \
        [load('x86/amdzen4/cache.json')]
    arm_src = [load('arm64/arm/neoverse-n2-v2/general.json')]
    arch = os.path.join(root, 'arch')
    os.makedirs(os.path.join(arch, 'x86'))
    os.makedirs(os.path.join(arch, 'arm64', 'arm', 'cmn', 'sys'))
    shutil.copy(os.path.join(DATA, 'arm64', 'common-and-microarch.json'),
                os.path.join(arch, 'arm64'))
    shutil.copy(os.path.join(DATA, 'arm64', 'arm', 'cmn', 'sys', 'cmn.json'),
                os.path.join(arch, 'arm64', 'arm', 'cmn', 'sys'))
    per_dir = len(x86_src) * FILE_KIB * 1024
    n_dirs = max(2, int(mib * 1024 * 1024 / per_dir))
    x86_rows, arm_rows = [], []
    for d in range(n_dirs):
        arm = d % 5 == 4     # a fifth arm64, as in a real tree
        name = 'cpu%03d' % d
        where = os.path.join(arch, 'arm64', 'vendor', name) if arm else os.path.join(arch, 'x86', name)
        os.makedirs(where)
        for i, src in enumerate(arm_src * 4 if arm else x86_src):
            with open(os.path.join(where, 'f%d.json' % i), 'w') as f:
                json.dump(grow(src, FILE_KIB, name), f, indent=4)
        if arm:
            arm_rows.append('0x00000000410f%04x,v1,vendor/%s,core' % (0xe000 + d, name))
        else:
            x86_rows.append('GenuineIntel-6-%X,v1,%s,core' % (0x100 + d, name))
    # the simulated Zen 2's row last: every row before it is tried; its directory large
    where = os.path.join(arch, 'x86', 'match')
    os.makedirs(where)
    for i, src in enumerate(x86_src):
        with open(os.path.join(where, 'f%d.json' % i), 'w') as f:
            json.dump(grow(src, MATCH_KIB, 'm'), f, indent=4)
    x86_rows.append('AuthenticAMD-23-[[:xdigit:]]+,v1,match,core')
    with open(os.path.join(arch, 'x86', 'mapfile.csv'), 'w') as f:
        f.write('Family-model,Version,Filename,EventType\n' + '\n'.join(x86_rows) + '\n')
    with open(os.path.join(arch, 'arm64', 'mapfile.csv'), 'w') as f:
        f.write('Family-model,Version,Filename,EventType\n' + '\n'.join(arm_rows) + '\n')
    return sum(os.path.getsize(os.path.join(dp, f)) for dp, _, fs in os.walk(root) for f in fs)


def measure(launcher, cmd):
    """Wall s, CPU s (user+sys) and peak RSS (KiB) of one run of cmd, via bench/measure."""
    t = time.perf_counter()
    r = subprocess.run([launcher] + cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t
    if r.returncode != 0:
        sys.exit('failed (%d): %s\n%s' % (r.returncode, ' '.join(cmd), r.stderr))
    user, system, rss = r.stdout.split()
    return wall, float(user) + float(system), int(rss)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--build', default='build')
    ap.add_argument('--baseline', help="another build directory whose pmumon runs beside this one's")
    ap.add_argument('--runs', type=int, default=11)
    ap.add_argument('--mib', type=float, default=25)
    ap.add_argument('--tree', help="a pmu-events directory (default: linux-source's, scripts/perf-tree)")
    ap.add_argument('--synthetic', action='store_true', help='a tree made of tests/data files')
    a = ap.parse_args()
    if not a.tree and not a.synthetic:
        r = subprocess.run([os.path.join(HERE, '..', 'scripts', 'perf-tree'),
                            os.path.join(a.build, 'tests', 'perf-tree')],
                           capture_output=True, text=True)
        if r.returncode == 0:
            a.tree = r.stdout.strip()
        else:
            print(r.stderr.strip() + '; a synthetic tree instead', file=sys.stderr)
            a.synthetic = True
    pmumon = os.path.join(a.build, 'cli', 'pmumon')
    launcher = os.path.join(a.build, 'bench', 'measure')
    perf = shutil.which('perf')
    if not perf:
        sys.exit('perf is not installed (apt-get install linux-perf)')
    with tempfile.TemporaryDirectory() as tmp:
        tree = a.tree or tmp
        size = make_tree(tmp, a.mib) if not a.tree else \
            sum(os.path.getsize(os.path.join(dp, f)) for dp, _, fs in os.walk(tree) for f in fs)
        cmd = ['--sim', 'amdzen2', '--events-dir', tree, 'list', 'metrics']
        cmds = {
            'pmumon+tree': [pmumon] + cmd,
            'pmumon': [pmumon, '--sim', 'amdzen2', 'list', 'metrics'],
            'perf': [perf, 'stat', '-e', 'cpu-clock', 'true'],
        }
        if a.tree:  # this machine's own CPU and its row of the kernel's mapfile
            cmds['pmumon+tree live'] = [pmumon, '--events-dir', tree, 'list', 'metrics']
            cmds['pmumon live'] = [pmumon, 'list', 'metrics']
            # the largest directory a mapfile row picks (6.12: cascadelakex, 2.6 MB, row
            # GenuineIntel-6-55-[56789ABCDEF]): the spr-1s fixture tree as a Cascade Lake
            clx = os.path.join(tmp, 'clx-root')
            shutil.copytree(os.path.join(a.build, 'tests', 'sysfs', 'spr-1s'), clx,
                            symlinks=True)
            with open(os.path.join(clx, 'proc', 'cpuinfo'), 'w') as f:
                f.write('processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n'
                        'model\t\t: 85\nstepping\t: 7\n')
            cmds['pmumon+tree clx'] = [pmumon, '--root', clx, '--events-dir', tree, 'list',
                                       'metrics']
            cmds['pmumon clx'] = [pmumon, '--root', clx, 'list', 'metrics']
        if a.baseline:
            cmds['base+tree'] = [os.path.join(a.baseline, 'cli', 'pmumon')] + cmd
        res = {k: [] for k in cmds}
        for _ in range(a.runs):
            for k, c in cmds.items():   # interleaved, so drift hits all alike
                res[k].append(measure(launcher, c))
        med = {k: [statistics.median(r[i] for r in v) for i in range(3)] for k, v in res.items()}
    print('%s: %.1f MB of JSON; %d CPUs; median of %d runs\n' %
          (a.tree or 'SYNTHETIC tree', size / 1e6, os.cpu_count(), a.runs))
    print('%-17s %9s %9s %13s' % ('', 'wall ms', 'CPU ms', 'peak RSS KiB'))
    for k, (w, c, r) in med.items():
        print('%-17s %9.1f %9.1f %13d' % (k, 1e3 * w, 1e3 * c, r))
    t, p, n = med['pmumon+tree'], med['perf'], med['pmumon']
    print('\npmumon with the tree, wall: %.1f ms (target < 100 ms); %.2fx perf stat start-up'
          % (1e3 * t[0], t[0] / p[0]))
    print('the tree costs: %+.1f ms wall, %+.1f ms CPU, %+.1f MiB peak RSS (target < 20 MiB)'
          % (1e3 * (t[0] - n[0]), 1e3 * (t[1] - n[1]), (t[2] - n[2]) / 1024))
    if a.tree:
        lt, ln = med['pmumon+tree live'], med['pmumon live']
        print('this machine (its own mapfile row): %.1f ms wall with the tree, %+.1f ms and '
              '%+.1f MiB for the tree' % (1e3 * lt[0], 1e3 * (lt[0] - ln[0]), (lt[2] - ln[2]) / 1024))
        st, sn = med['pmumon+tree clx'], med['pmumon clx']
        print('Cascade Lake (the largest directory): %.1f ms wall with the tree (%.2fx perf '
              'stat start-up), %+.1f ms and %+.1f MiB for the tree'
              % (1e3 * st[0], st[0] / p[0], 1e3 * (st[0] - sn[0]), (st[2] - sn[2]) / 1024))
    if a.baseline:
        b = med['base+tree']
        print('base with the tree: %.1f ms wall, %.1f MiB peak RSS (%s): %.1fx the time'
              % (1e3 * b[0], b[2] / 1024, a.baseline, b[0] / t[0]))


if __name__ == '__main__':
    main()
