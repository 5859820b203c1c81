#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Benchmark: CPU time per interval and peak RSS of

    pmumon stat -a -I 10 --interval-count N -e E...
    perf stat   -a -I 10 --interval-count N -e E...
    bench/floor (opens the same counters and only reads them, same loop)
    bench/floor -g (the same, each CPU's events read as one group)

on the same events (msr/tsc/ and software events, every CPU), output to
/dev/null, the median of RUNS runs of each, measured in this one run; then
the output formats on simulated machines with many rows, and the speed and
peak RSS of `pmumon import` on a perf stat -x, file it writes (1 GiB).

With --baseline DIR, another build's pmumon (an earlier commit's) runs in
the same interleaved rounds as "base", so a change is measured against what
it changed, not against a figure from another day.

usage: bench/run.py [--build DIR] [--baseline DIR] [--seconds S] [--runs N]
                    [--interval MS] [--only stat|formats|import|rss] [--import-mib N]
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

# the events, and perf's generic software configs of the same (include/uapi/linux/
# perf_event.h: PERF_COUNT_SW_*) for the floor: 5 and 10 events per CPU
EVENT_SETS = [
    (['msr/tsc/', 'cpu-clock', 'page-faults', 'context-switches', 'cpu-migrations'],
     ['1:0', '1:2', '1:3', '1:4']),
    (['msr/tsc/', 'cpu-clock', 'task-clock', 'page-faults', 'context-switches',
      'cpu-migrations', 'minor-faults', 'major-faults', 'alignment-faults', 'emulation-faults'],
     ['1:0', '1:1', '1:2', '1:3', '1:4', '1:5', '1:6', '1:7', '1:8']),
]


def sysfs_type(pmu):
    with open('/sys/bus/event_source/devices/%s/type' % pmu) as f:
        return int(f.read())


def measure(launcher, cmd):
    """CPU seconds (user+sys) and peak RSS (KiB) of one run of cmd, via bench/measure."""
    r = subprocess.run([launcher] + cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit('failed (%d): %s' % (r.returncode, ' '.join(cmd)))
    user, system, rss = r.stdout.split()
    return float(user) + float(system), int(rss)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--build', default='build')
    ap.add_argument('--baseline', help="another build directory whose pmumon runs beside this one's")
    ap.add_argument('--seconds', type=float, default=5.0)
    ap.add_argument('--runs', type=int, default=5)
    ap.add_argument('--interval', type=int, default=10)
    ap.add_argument('--only', choices=['stat', 'formats', 'import', 'rss'])
    ap.add_argument('--import-mib', type=int, default=1024)
    a = ap.parse_args()
    pmumon = os.path.join(a.build, 'cli', 'pmumon')
    floor = os.path.join(a.build, 'bench', 'floor')
    launcher = os.path.join(a.build, 'bench', 'measure')
    perf = shutil.which('perf')
    if not perf:
        sys.exit('perf is not installed (apt-get install linux-perf)')
    if a.only in (None, 'stat'):
        for events, floor_events in EVENT_SETS:
            stat(a, pmumon, perf, floor, launcher, events, floor_events)
    if a.only in (None, 'formats'):
        formats(a, pmumon, launcher)
    if a.only in (None, 'import'):
        import_speed(a, pmumon, launcher)
    if a.only in (None, 'rss'):
        rss_by_file(pmumon)


def stat(a, pmumon, perf, floor, launcher, events, floor_events):
    ms = int(a.seconds * 1000)
    intervals = ms // a.interval
    evargs = sum((['-e', e] for e in events), [])
    # perf 6.1 refuses --timeout with -I; both stop after the same count of intervals
    iv = ['-a', '-I', str(a.interval), '--interval-count', str(intervals)]
    cmds = {
        'pmumon': [pmumon, 'stat'] + iv + evargs,
        'perf': [perf, 'stat'] + iv + evargs,
        **({'base': [baseline_of(a), 'stat'] + iv + evargs} if a.baseline else {}),
        'floor': [floor, str(a.interval), str(ms), '%d:0' % sysfs_type('msr')] + floor_events,
        'floor-g': [floor, '-g', str(a.interval), str(ms), '%d:0' % sysfs_type('msr')] +
        floor_events,
    }
    results = {k: [] for k in cmds}
    for _ in range(a.runs):
        for name, cmd in cmds.items():     # interleaved, so drift hits all alike
            results[name].append(measure(launcher, cmd))
    med = {k: (statistics.median(c for c, _ in v), statistics.median(r for _, r in v))
           for k, v in results.items()}
    per = {k: 1e6 * v[0] / intervals for k, v in med.items()}
    print('\n%d CPUs, %d events %s, -I %d ms for %.1f s (%d intervals), median of %d runs\n' %
          (os.cpu_count(), len(events), ' '.join(events), a.interval, a.seconds, intervals,
           a.runs))
    print('%-8s %14s %14s' % ('tool', 'CPU us/interval', 'peak RSS KiB'))
    for k in ('pmumon', 'perf', 'floor', 'floor-g') + (('base',) if a.baseline else ()):
        print('%-8s %14.1f %14d' % (k, per[k], med[k][1]))
    print('(floor-g: the floor with each CPU\'s events read as one group, as pmumon does)')
    print('\npmumon / perf CPU per interval: %.2fx (target <= 0.5x)' % (per['pmumon'] / per['perf']))
    print('pmumon / floor CPU per interval: %.2fx (target <= 3x)' % (per['pmumon'] / per['floor']))
    print('pmumon / perf peak RSS:          %.2fx (target <= 0.33x)' % (med['pmumon'][1] / med['perf'][1]))
    if a.baseline:
        print('pmumon / base CPU per interval:  %.2fx, peak RSS %.2fx (base: %s)'
              % (per['pmumon'] / per['base'], med['pmumon'][1] / med['base'][1], a.baseline))


def baseline_of(a):
    return os.path.join(a.baseline, 'cli', 'pmumon')


# simulated machines with many rows, on their virtual clock (each run is pure CPU): the
# output formats' cost per row against the table's (issue 19: -x, and -j within 1.5x)
FORMAT_CASES = [
    ('yitian710 per device + DDR metrics (80 rows)',
     ['--sim', 'yitian710', 'stat', '-a', '--per-device', '-M',
      'ddr_read_bandwidth.all,ddr_write_bandwidth.all']),
    ('amdzen2 2 sockets -A, DF and L3 (many rows)',
     ['--sim', 'amdzen2:sockets=2', 'stat', '-a', '-A', '-e', 'amd_l3/l3_accesses/',
      '-e', 'amd_l3/l3_misses/']),
]


def formats(a, pmumon, launcher):
    n = 2000
    print('\noutput formats on simulated machines (virtual clock), %d intervals at -I 10, '
          'median of %d runs: CPU us per interval, and against the table' % (n, a.runs))
    for name, args in FORMAT_CASES:
        base = [pmumon] + args + ['-I', '10', '--interval-count', str(n), '-o', '/dev/null']
        runs = {'table': [], '-x,': [], '-j': []}
        if a.baseline:
            runs['base table'] = []
        for _ in range(a.runs):
            for fmt in runs:
                cmd = base + ([] if fmt.endswith('table') else [fmt])
                if fmt == 'base table':
                    cmd = [baseline_of(a)] + cmd[1:]
                runs[fmt].append(measure(launcher, cmd)[0])
        per = {f: 1e6 * statistics.median(v) / n for f, v in runs.items()}
        print('  %s: table %.1f, -x, %.1f (%.2fx), -j %.1f (%.2fx)'
              % (name, per['table'], per['-x,'], per['-x,'] / per['table'], per['-j'],
                 per['-j'] / per['table']))
        if a.baseline:
            print('    base table %.1f: this build / base %.2fx'
                  % (per['base table'], per['table'] / per['base table']))


# a Yitian 710's 16 DDR PMUs x 3 events, every second, as perf stat -a -I 1000 -x, prints them
IMPORT_PMUS = ['ali_drw_%x' % (base + 0x80 * k) for base in (0x21000, 0x23000, 0x25000, 0x27000,
                                                             0x40021000, 0x40023000, 0x40025000,
                                                             0x40027000) for k in (0, 1)]
IMPORT_EVENTS = ['hif_rd', 'hif_wr', 'cycle']


def write_perf_csv(path, mib):
    """A perf stat -x, -I 1000 file of about mib MiB; its intervals."""
    target, size, i = mib << 20, 0, 0
    with open(path, 'w') as f:
        while size < target:
            i += 1
            chunk = ''.join('%14.9f,%d,,%s/%s/,1000000000,100.00,,\n'
                            % (i, 100000000 + (i * 7919 + k) % 1000, pmu, ev)
                            for k, (pmu, ev) in enumerate((p, e) for p in IMPORT_PMUS
                                                          for e in IMPORT_EVENTS))
            f.write(chunk)
            size += len(chunk)
    return i


def import_speed(a, pmumon, launcher):
    """pmumon import of a perf CSV: MB/s (wall and CPU) and peak RSS, against reading the
    file alone (wc -l, the floor of any reader) in the same run."""
    with tempfile.TemporaryDirectory(dir=os.environ.get('TMPDIR', '/var/tmp')) as d:
        path = os.path.join(d, 'perf.csv')
        n = write_perf_csv(path, a.import_mib)
        mb = os.path.getsize(path) / 1e6
        cmds = {'pmumon import': [pmumon, 'import', path, '-o', '/dev/null'],
                'wc -l': ['wc', '-l', path]}
        if a.baseline:
            cmds['base import'] = [baseline_of(a), 'import', path, '-o', '/dev/null']
        runs = {k: [] for k in cmds}
        for _ in range(max(1, a.runs // 2)):
            for k, cmd in cmds.items():
                t = time.monotonic()
                cpu, rss = measure(launcher, cmd)
                runs[k].append((time.monotonic() - t, cpu, rss))
        print('\nimport of a perf stat -x, file: %.0f MB, %d intervals of %d series, median of '
              '%d runs' % (mb, n, len(IMPORT_PMUS) * len(IMPORT_EVENTS), len(runs['wc -l'])))
        for k, v in runs.items():
            wall = statistics.median(x[0] for x in v)
            cpu = statistics.median(x[1] for x in v)
            rss = statistics.median(x[2] for x in v)
            print('  %-14s %7.1f MB/s wall, %7.1f MB/s CPU, peak RSS %6d KiB'
                  % (k, mb / wall, mb / cpu, rss))
        print('  (targets: import >= 150 MB/s CPU, peak RSS < 20 MB)')
        import_instructions(a, pmumon, path)


def import_instructions(a, pmumon, path):
    """Instructions per byte of the same import on the file's first 8 MiB (callgrind), and
    of wc -l: the program's own work, whatever else runs on the machine."""
    import re
    if not shutil.which('valgrind'):
        print('  (valgrind is not installed: no instruction counts)')
        return
    small = path + '.8m'
    with open(path, 'rb') as f, open(small, 'wb') as g:
        g.write(f.read(8 << 20).rsplit(b'\n', 1)[0] + b'\n')
    size = os.path.getsize(small)
    cmds = {'pmumon import': [pmumon, 'import', small, '-o', '/dev/null'],
            'wc -l': ['wc', '-l', small]}
    if a.baseline:
        cmds['base import'] = [baseline_of(a), 'import', small, '-o', '/dev/null']
    print('  instructions per byte (callgrind, the first %.1f MB):' % (size / 1e6))
    for k, cmd in cmds.items():
        r = subprocess.run(['valgrind', '--tool=callgrind', '--callgrind-out-file=/dev/null'] +
                           cmd, capture_output=True, text=True)
        m = re.search(r'Collected : (\d+)', r.stderr)
        print('  %-14s %7.1f' % (k, int(m.group(1)) / size if m else float('nan')))


def rss_by_file(pmumon):
    """Where a counting pmumon's resident memory is: /proc/PID/smaps of a running
    `stat -a -I 1000`, summed by mapped file (the libraries it loads)."""
    proc = subprocess.Popen([pmumon, 'stat', '-a', '-e', 'msr/tsc/', '-I', '1000',
                             '--interval-count', '3'], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    time.sleep(1.5)
    by, cur = {}, None
    with open('/proc/%d/smaps' % proc.pid) as f:
        for line in f:
            head = line.split()
            if '-' in head[0] and len(head) >= 5 and not line.startswith(('Rss', 'Size')):
                cur = os.path.basename(head[5]) if len(head) > 5 else '[anon]'
            elif head[0] == 'Rss:':
                by[cur] = by.get(cur, 0) + int(head[1])
    proc.wait()
    print('\nresident memory of a running pmumon stat -a -I 1000, KiB by mapped file')
    for name, kib in sorted(by.items(), key=lambda x: -x[1])[:12]:
        print('  %7d  %s' % (kib, name))
    print('  %7d  total' % sum(by.values()))


if __name__ == '__main__':
    main()
