#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Benchmark: instructions per interval of pmumon stat on simulated machines, from
callgrind (the difference of a 10- and a 30-interval run), so each figure is the
program's own whatever else runs on the machine (issue 19):

  formats  table, -x, and -j of a Yitian 710 per device with the two DDR metrics
           (80 rows, 32 of them non-integral), and each against the table
  summed   a device-summed metric as its session's counters grow: the same 8 rows
           of ddr_read_bandwidth.ddrc per channel (16 PMUs, 2 inputs each) beside 0,
           2, 5 and 11 other ali_drw events on every PMU: 32 -> 64 -> 112 -> 208
           counters; linear in the counters means the metric costs the same whatever
           the others (their own rows grow the figure)

usage: bench/instructions.py [--build DIR]
"""
import argparse
import os
import re
import subprocess

OTHERS = ['hif_wr', 'hif_rmw', 'hif_rd_or_wr', 'hif_hi_pri_rd', 'chi_rxdat', 'chi_rxrsp',
          'chi_txdat', 'chi_txreq', 'dfi_rd_data_cycles', 'dfi_wr_data_cycles',
          'hpr_xact_when_critical']


def instructions(cmd, n):
    r = subprocess.run(['valgrind', '--tool=callgrind', '--callgrind-out-file=/dev/null'] +
                       cmd + ['--interval-count', str(n)], capture_output=True, text=True)
    return int(re.search(r'Collected : (\d+)', r.stderr).group(1))


def per_interval(cmd):
    return (instructions(cmd, 30) - instructions(cmd, 10)) / 20


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', default='build')
    a = ap.parse_args()
    pmumon = os.path.join(a.build, 'cli/pmumon')
    formats(pmumon)
    summed(pmumon)


def formats(pmumon):
    base = [pmumon, '--sim', 'yitian710', 'stat', '-a', '-I', '100', '--per-device', '-M',
            'ddr_read_bandwidth.all,ddr_write_bandwidth.all', '-o', '/dev/null']
    table = per_interval(base)
    print('formats, Yitian 710 per device + DDR metrics (80 rows): table %.0f' % table)
    for fmt in ('-x,', '-j'):
        n = per_interval(base + [fmt])
        print('  %-4s %9.0f  %.2fx the table (target 1.5x)' % (fmt, n, n / table))


def summed(pmumon):
    base = [pmumon, '--sim', 'yitian710', 'stat', '-a', '-I', '100', '--per-channel',
            '--define', 'ddrc_freq=1.6e9', '-M', 'ddr_read_bandwidth.ddrc', '-o', '/dev/null']
    print('counters  instructions per interval  (8 rows of ddr_read_bandwidth.ddrc, '
          'and the other events\' rows)')
    for k in (0, 2, 5, 11):
        events = sum((['-e', 'ali_drw/%s/' % e] for e in OTHERS[:k]), [])
        counters = 16 * (2 + k)
        print('%8d  %12.0f' % (counters, per_interval(base + events)))


if __name__ == '__main__':
    main()
