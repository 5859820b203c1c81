#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""libpmumon's public headers, one per object (pmumon/pmumon.h includes them
all): each compiles alone as the first include of a strict C11 file (twice,
so its guard works), none has more than 500 lines, and each is one the build
installs (lib/meson.build's libpmumon_headers, sim/meson.build's sim.h).

usage: test_headers.py INCLUDE_DIR CC... -- INSTALLED_HEADER...

With --cli SOURCE_ROOT CC...: the command line's own headers (cli/cli-*.h,
one per part of it; GNU C, as cli/ builds) each compile alone and none has
more than 500 lines.
"""
import glob
import os
import subprocess
import sys
import tempfile

MAX_LINES = 500


def compiles(cc, flags, header, tmp):
    src = os.path.join(tmp, os.path.basename(header).replace('.h', '.c'))
    with open(src, 'w') as f:
        f.write('#include "%s"\n#include "%s"\n' % (header, header))
    r = subprocess.run(cc + flags + ['-Wall', '-Wextra', '-Werror', '-Wstrict-prototypes',
                                     '-fsyntax-only', src], capture_output=True, text=True)
    return r.returncode == 0, r.stderr.strip()


def cli(root, cc):
    headers = sorted(glob.glob(os.path.join(root, 'cli', 'cli-*.h')))
    flags = ['-std=gnu11', '-D_GNU_SOURCE'] + ['-I' + os.path.join(root, d)
                                              for d in ('include', 'lib/util', 'cli')]
    bad = []
    if os.path.exists(os.path.join(root, 'cli', 'cli.h')):
        bad.append('cli/cli.h is back: include the cli/cli-*.h a file uses')
    with tempfile.TemporaryDirectory() as tmp:
        for h in headers:
            name = os.path.basename(h)
            lines = sum(1 for _ in open(h))
            if lines > MAX_LINES:
                bad.append('cli/%s: %d lines (at most %d)' % (name, lines, MAX_LINES))
            ok, err = compiles(cc, flags, name, tmp)
            if not ok:
                bad.append('cli/%s does not compile alone:\n%s' % (name, err))
            print('cli/%s: %d lines%s' % (name, lines, ', compiles alone' if ok else ''))
    for b in bad:
        print(b)
    print('%d headers, %d problems' % (len(headers), len(bad)))
    return 1 if bad or not headers else 0


def main():
    if sys.argv[1] == '--cli':
        return cli(sys.argv[2], sys.argv[3:])
    include = sys.argv[1]
    sep = sys.argv.index('--')
    cc, installed = sys.argv[2:sep], set(sys.argv[sep + 1:])
    headers = sorted(os.path.basename(h) for h in glob.glob(os.path.join(include, 'pmumon', '*.h')))
    bad = []
    if 'pmumon.h' not in headers:
        bad.append('no pmumon/pmumon.h under %s' % include)
    with tempfile.TemporaryDirectory() as tmp:
        for h in headers:
            path = os.path.join(include, 'pmumon', h)
            lines = sum(1 for _ in open(path))
            if lines > MAX_LINES:
                bad.append('pmumon/%s: %d lines (at most %d: split it by object)' % (h, lines, MAX_LINES))
            if h not in installed:
                bad.append('pmumon/%s is not installed (lib/meson.build: libpmumon_headers)' % h)
            src = os.path.join(tmp, h.replace('.h', '.c'))
            with open(src, 'w') as f:
                f.write('#include "pmumon/%s"\n#include "pmumon/%s"\n' % (h, h))
            r = subprocess.run(cc + ['-std=c11', '-Wall', '-Wextra', '-Wpedantic', '-Werror',
                                     '-Wstrict-prototypes', '-I', include, '-fsyntax-only', src],
                               capture_output=True, text=True)
            if r.returncode != 0:
                bad.append('pmumon/%s does not compile alone:\n%s' % (h, r.stderr.strip()))
            print('pmumon/%s: %d lines%s' % (h, lines, '' if r.returncode else ', compiles alone'))
    for h in sorted(installed - set(headers)):
        bad.append('pmumon/%s is installed but not in %s' % (h, include))
    for b in bad:
        print(b)
    print('%d headers, %d problems' % (len(headers), len(bad)))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
