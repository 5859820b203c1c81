#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Run perf's jevents.py over the files here and write the event strings it generates.

usage: gen-expected.py JEVENTS_DIR > expected-jevents.txt

JEVENTS_DIR holds tools/perf/pmu-events/jevents.py (and the metric.py it
imports) of the kernel tree named in SOURCE. For each arch under arch/,
jevents.py runs as perf's build runs it (`jevents.py ARCH all DIR OUT`)
over a copy of arch/ with an empty `common` directory beside it (jevents
wants two arch directories). The generated C is read back: each
`pmu_table_entry` names a PMU and its compact_pmu_event array, each entry's
comment is the event's build_c_string (name\\000topic\\000desc\\000event\\000
compat\\000 deprecated perpkg unit\\000long_desc\\000). One line per event:

  TABLE<TAB>PMU<TAB>NAME<TAB>EVENT

sorted, where TABLE is jevents' table name (pmu_events__x86_sapphirerapids,
pmu_events__arm64_arm_cmn_sys, ...).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def run(jevents_dir, arch, tmp):
    out = os.path.join(tmp, 'pmu-events-%s.c' % arch)
    subprocess.run([sys.executable, os.path.join(jevents_dir, 'jevents.py'), arch, 'all',
                    os.path.join(tmp, 'arch'), out], check=True, cwd=jevents_dir)
    with open(out) as f:
        return f.read()


def parse(c):
    arrays, rows = {}, []
    for m in re.finditer(r'static const struct compact_pmu_event (\w+)\[\] = \{\n(.*?)\n\};',
                         c, re.S):
        arrays[m.group(1)] = re.findall(r'^\{ \d+ \}, /\* (.*) \*/$', m.group(2), re.M)
    for m in re.finditer(r'const struct pmu_table_entry (\w+)\[\] = \{\n(.*?)\n\};', c, re.S):
        table = m.group(1)
        if not table.startswith('pmu_events_'):
            continue
        for e in re.finditer(r'\.entries = (\w+),.*?\.pmu_name = \{ \d+ /\* (.*?)\\000 \*/ \}',
                             m.group(2), re.S):
            for s in arrays[e.group(1)]:
                name, _topic, _desc, event = s.split('\\000')[:4]
                rows.append('%s\t%s\t%s\t%s' % (table, e.group(2), name, event))
    return rows


def main():
    jevents_dir = os.path.abspath(sys.argv[1])
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(os.path.join(HERE, 'arch'), os.path.join(tmp, 'arch'))
        os.mkdir(os.path.join(tmp, 'arch', 'common'))
        for arch in sorted(os.listdir(os.path.join(HERE, 'arch'))):
            rows += parse(run(jevents_dir, arch, tmp))
    for r in sorted(set(rows)):
        print(r)


if __name__ == '__main__':
    main()
