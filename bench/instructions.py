#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Benchmark: a device-summed metric's cost per interval as its session's counters grow
(issue 19, item 3). The same 8 rows of ddr_read_bandwidth.ddrc per channel (a
SumOfDevices metric: 16 Yitian 710 PMUs, 2 inputs each) beside 0, 2, 5 and 11 other
ali_drw events on every PMU: 32 -> 64 -> 112 -> 208 counters. Instructions per
interval from callgrind (the difference of a 10- and a 30-interval run), so the figure
is the program's own, whatever else runs on the machine. Linear in the counters means
the metric costs the same whatever the others; the other events' own rows grow it.

usage: bench/summed.py [--build DIR]
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
