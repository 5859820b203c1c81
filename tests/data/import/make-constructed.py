#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Write the CONSTRUCTED import fixtures (not captured: this machine has no
amd_df or ali_drw PMU). Lines follow perf 6.1's tools/perf/util/stat-display.c
(docs/facts-perf-tools.md §8; checked against the captured perf61-* files):
CSV "[%6lu.%09lu,]VALUE,UNIT,EVENT,RUN_NS,PCT,METRIC,METRIC_UNIT", the value
"%.0f" (already scaled by enabled/running), no quoting (so an event with
terms spans fields), --no-merge names "ali_drw_21000/hif_rd/" or
"hif_rd [ali_drw_21000]" (uniquify_event_name); JSON keys "interval",
"counter-value" (a string), "unit", "event", "event-runtime",
"pcnt-running", "metric-value", "metric-unit". Event codes are from
docs/facts-perf-tools.md §1 and §2a. Every rate is chosen so the test knows
the answer: DF channel N moves (N+1) x 1e8 64-byte requests a second
((N+1) x 6.4 GB/s); each ali_drw sub-channel 1e8 reads (6400 MB/s), 5e7
writes and 1e6 read-modify-writes a second."""
import sys

HDR = '# CONSTRUCTED by make-constructed.py in perf 6.1\'s format, not captured\n'
DRW = ['ali_drw_21000', 'ali_drw_21080', 'ali_drw_23000', 'ali_drw_23080',
       'ali_drw_25000', 'ali_drw_25080', 'ali_drw_27000', 'ali_drw_27080',
       'ali_drw_40021000', 'ali_drw_40021080', 'ali_drw_40023000', 'ali_drw_40023080',
       'ali_drw_40025000', 'ali_drw_40025080', 'ali_drw_40027000', 'ali_drw_40027080']


def df_code(ch):
    return 0x07 + 0x40 * ch   # data-fabric.json: 0x07, 0x47, ... 0x1c7


def amd_df_csv():
    # perf stat -x, -a -I 1000 -e amd_df/event=0x7,umask=0x38/,... (8 events, 4 DF
    # counters: the kernel multiplexes, each runs ~50%)
    out = [HDR]
    for i in (1, 2):
        ts = '%6d.%09d' % (i, 0)
        for ch in range(8):
            count = (ch + 1) * 10**8
            run = 500000000 + ch
            out.append('%s,%d,,amd_df/event=0x%x,umask=0x38/,%d,%.2f,,\n' %
                       (ts, count, df_code(ch), run, 100.0 * run / 1000000000))
    return ''.join(out)


def amd_df_json():
    # perf stat -j -a -M nps1_die_to_dram --metric-no-group -- sleep 2: bare names
    out = [HDR]
    for ch in range(8):
        out.append('{"counter-value" : "%d.000000", "unit" : "", "event" : '
                   '"dram_channel_data_controller_%d", "event-runtime" : %d, '
                   '"pcnt-running" : 50.00, "metric-value" : nan, "metric-unit" : "(null)"}\n'
                   % (2 * (ch + 1) * 10**8, ch, 1000000000))
    out.append('{"counter-value" : "2000123456.000000", "unit" : "ns", "event" : '
               '"duration_time", "event-runtime" : 2000123456, "pcnt-running" : 100.00, '
               '"metric-value" : 0.000000, "metric-unit" : ""}\n')
    return ''.join(out)


def drw_csv():
    # perf stat -x, -a -I 1000 --no-merge -e ali_drw/hif_rd/,ali_drw/hif_wr/,ali_drw/hif_rmw/
    out = [HDR]
    for i in (1, 2):
        ts = '%6d.%09d' % (i, 0)
        for ev, rate in (('hif_rd', 10**8), ('hif_wr', 5 * 10**7), ('hif_rmw', 10**6)):
            for pmu in DRW:
                out.append('%s,%d,,%s/%s/,1000000000,100.00,,\n' % (ts, rate, pmu, ev))
    return ''.join(out)


def drw_json():
    # perf stat -j -a -I 1000 --no-merge -e hif_rd: "hif_rd [ali_drw_21000]"
    out = [HDR]
    for i in (1, 2):
        for pmu in DRW:
            out.append('{"interval" : %d.000000000, "counter-value" : "100000000.000000", '
                       '"unit" : "", "event" : "hif_rd [%s]", "event-runtime" : 1000000000, '
                       '"pcnt-running" : 100.00, "metric-value" : 0.000000, '
                       '"metric-unit" : ""}\n' % (i, pmu))
    return ''.join(out)


def drw_counts():
    # the counts CSV (docs/import.md) from a collector that reads the raw counters
    out = ['# CONSTRUCTED counts CSV: rates as in make-constructed.py\n',
           'time_s,device,event,count,enabled_ns,running_ns\n']
    for i in (1, 2):
        for pmu in DRW:
            for ev, rate in (('hif_rd', 10**8), ('hif_wr', 5 * 10**7), ('hif_rmw', 10**6)):
                out.append('%d.0,%s,%s,%d,1000000000,1000000000\n' % (i, pmu, ev, rate))
    return ''.join(out)


for name, text in (('constructed-amdzen2-perf61-x.csv', amd_df_csv()),
                   ('constructed-amdzen2-perf61-j.json', amd_df_json()),
                   ('constructed-yitian710-perf61-x.csv', drw_csv()),
                   ('constructed-yitian710-perf61-j.json', drw_json()),
                   ('constructed-yitian710-counts.csv', drw_counts())):
    with open(name, 'w') as f:
        f.write(text)
