#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A shared library exports exactly the functions its public headers mark
PM_API, each in the library's version node, and nothing else: no internal
pm_ function leaks, no public one is missing. The expected list comes from
the headers, and every function a header declares must be marked.

usage: test_exports.py LIBRARY VERSION_NODE HEADER...
"""
import re
import subprocess
import sys


def declarations(header):
    """(name, marked) for each function the header declares at file scope."""
    text = open(header).read()
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    text = re.sub(r'\\\n', ' ', text)  # continued macro lines
    text = re.sub(r'#ifdef __cplusplus.*?#endif', ' ', text, flags=re.S)
    text = re.sub(r'^\s*#[^\n]*', ' ', text, flags=re.M)
    # file-scope statements: drop every braced body (structs, enums)
    statements, depth, cur = [], 0, []
    for ch in text:
        if ch == '{':
            depth += 1
        elif ch == '}':
            depth -= 1
        elif depth == 0:
            if ch == ';':
                statements.append(''.join(cur))
                cur = []
            else:
                cur.append(ch)
    out = []
    for st in statements:
        st = ' '.join(st.split())
        if st.startswith('typedef'):
            continue
        m = re.match(r'(.*?)\b(\w+)\s*\(', st)
        if m and not m.group(1).rstrip().endswith('('):
            out.append((m.group(2), re.search(r'\bPM_API\b', m.group(1)) is not None))
    return out


def exported(library):
    """{name: version} of the defined dynamic symbols, version nodes aside."""
    nm = subprocess.run(['nm', '-D', '--defined-only', library], check=True,
                        capture_output=True, text=True).stdout
    syms = {}
    for line in nm.splitlines():
        fields = line.split()
        if len(fields) != 3 or fields[1] == 'A':  # 'A': the version node itself
            continue
        name, _, version = fields[2].partition('@@')
        syms[name] = version or fields[2].partition('@')[2]
    return syms


def main():
    library, node, headers = sys.argv[1], sys.argv[2], sys.argv[3:]
    decls = [d for h in headers for d in ((h, n, m) for n, m in declarations(h))]
    unmarked = ['%s: %s' % (h, n) for h, n, m in decls if not m]
    expected = {n for _, n, m in decls if m}
    got = exported(library)
    missing = sorted(expected - set(got))
    extra = sorted(set(got) - expected)
    unversioned = sorted(n for n in expected & set(got) if got[n] != node)
    print('%s: %d functions exported, %d marked PM_API in %s' %
          (library, len(got), len(expected), ', '.join(headers)))
    ok = len(expected) > 0
    for what, names in (('declared without PM_API (mark it, and add it to the version script)',
                         unmarked),
                        ('marked PM_API but not exported (the version script lacks it?)',
                         missing),
                        ('exported but not public (an internal symbol leaks)', extra),
                        ('exported outside version node ' + node, unversioned)):
        if names:
            ok = False
            print('%s:\n  %s' % (what, '\n  '.join(names)))
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
