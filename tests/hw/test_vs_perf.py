#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""pmumon against perf stat on this machine's kernel, in the same test.

- The TSC rate of each CPU (msr/tsc/), counted system-wide by both tools at
  the same time over the same second: within 0.5%.
- The page faults of a command that touches a known number of fresh pages,
  counted in `-- command` mode: within 1% of each other, and at least the
  pages touched.

Exit 77 (skip) where perf is missing, perf events are not permitted, or the
machine has no msr PMU."""
import csv
import io
import os
import shutil
import subprocess
import sys

PMUMON = os.environ['PMUMON']
TOUCH = os.environ['TOUCH_PAGES']
PAGES = 20000


def skip(why):
    print('SKIP: ' + why)
    sys.exit(77)


def perf_csv_rows(text):
    """perf stat -x, lines: [CPUn,]value,unit,event,runtime,pct,... (docs/facts-perf-tools.md §8)."""
    rows = []
    for line in text.splitlines():
        if not line or line.startswith('#'):
            continue
        f = line.split(',')
        cpu = None
        if f[0].startswith('CPU'):
            cpu, f = int(f[0][3:]), f[1:]
        rows.append({'cpu': cpu, 'value': f[0], 'event': f[2], 'runtime': f[3]})
    return rows


def tsc_rates():
    cmd = ['-a', '-A', '-x,', '-e', 'msr/tsc/', '--', 'sleep', '1']
    # both at once: the same window of wall time
    perf = subprocess.Popen(['perf', 'stat'] + cmd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    ours = subprocess.Popen([PMUMON, 'stat'] + cmd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    p_out, p_err = perf.communicate(timeout=30)
    o_out, o_err = ours.communicate(timeout=30)
    if perf.returncode != 0:
        skip('perf stat -a -e msr/tsc/ failed: ' + p_err.strip())
    if ours.returncode != 0:
        print(o_err)
        sys.exit(1)
    perf_rate = {r['cpu']: float(r['value']) / float(r['runtime']) * 1e9
                 for r in perf_csv_rows(p_err)}
    our_rate = {int(r['cpu']): float(r['value']) / float(r['enabled_ns']) * 1e9
                for r in csv.DictReader(io.StringIO(o_out))}
    return perf_rate, our_rate


def page_faults(tool):
    if tool == 'perf':
        r = subprocess.run(['perf', 'stat', '-x,', '-e', 'page-faults', '--', TOUCH, str(PAGES)],
                           capture_output=True, text=True, timeout=60)
        return float(perf_csv_rows(r.stderr)[0]['value'])
    r = subprocess.run([PMUMON, 'stat', '-x,', '-e', 'page-faults', '--', TOUCH, str(PAGES)],
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        print(r.stderr)
        sys.exit(1)
    return float(next(csv.DictReader(io.StringIO(r.stdout)))['value'])


def main():
    if not shutil.which('perf'):
        skip('perf is not installed (apt-get install linux-perf)')
    if not os.path.isdir('/sys/bus/event_source/devices/msr'):
        skip('this machine has no msr PMU')
    probe = subprocess.run(['perf', 'stat', '-a', '-e', 'msr/tsc/', '--', 'true'],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        skip('perf events are not permitted here: ' + probe.stderr.strip()[:200])
    failed = False

    perf_rate, our_rate = tsc_rates()
    if sorted(perf_rate) != sorted(our_rate):
        print('CPUs differ: perf %s, pmumon %s' % (sorted(perf_rate), sorted(our_rate)))
        sys.exit(1)
    for cpu in sorted(perf_rate):
        diff = abs(our_rate[cpu] - perf_rate[cpu]) / perf_rate[cpu]
        ok = diff <= 0.005
        failed |= not ok
        print('%s TSC CPU%d: pmumon %.6g/s, perf %.6g/s, differ by %.4f%% (limit 0.5%%)' %
              ('ok  ' if ok else 'FAIL', cpu, our_rate[cpu], perf_rate[cpu], 100 * diff))

    ours, theirs = page_faults('pmumon'), page_faults('perf')
    diff = abs(ours - theirs) / theirs
    ok = diff <= 0.01 and ours >= PAGES
    failed |= not ok
    print('%s page-faults of touch-pages %d: pmumon %d, perf %d, differ by %.3f%% (limit 1%%)' %
          ('ok  ' if ok else 'FAIL', PAGES, ours, theirs, 100 * diff))
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
