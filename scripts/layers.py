#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""lib/'s layering, from its #includes: every module may include only modules
below it in ORDER (and itself). Prints each include that reaches up and each
cycle between modules; exits 1 when there is any.

Usage: scripts/layers.py [SOURCE_ROOT]

Not yet a test (issue 13, part 3): the violations it lists are what is left
to move. Once it passes, run it from tests/lib/meson.build (suite lib).
"""
import os
import re
import sys

# The order, bottom first. Each module may include what is before it:
#   util     pure helpers: parsing, arrays, CPU lists, count arithmetic
#   os       the seam to the machine (lib/os)
#   ctx      the context: the os and machine ops, the log callback and diagnostics
#   spec     the user's event specs, parsed
#   expr     metric expressions
#   pmu      PMUs, their formats (source/format) and aliases, the sources' ids (source/id.h)
#   topo     CPUs, dies, packages
#   db       platform packs: events and metrics for PMUs
#   resolve  specs -> events on PMUs (the evlist)
#   sources  the counter sources and their registry (source/)
#   machine  contexts for a live machine or a recording, and discovery
#   sched    event instances -> counters, each with the source that claims it
#   session  counters opened and read through the sources
#   aggr     rows from the session's counters
#   metric   metric rows from the aggregated rows
#   out      formatted reports
#   doctor   the machine looked over (pmumon doctor): packs, sources' surveys, metrics
ORDER = ['util', 'os', 'ctx', 'spec', 'expr', 'pmu', 'topo', 'db', 'resolve', 'sources',
         'machine', 'sched', 'session', 'aggr', 'metric', 'out', 'doctor']

# lib/ paths (without extension) to modules; the first match wins.
MODULES = [
    (r'util/', 'util'), (r'os/', 'os'), (r'ctx$', 'ctx'), (r'spec$', 'spec'),
    (r'metric/expr$', 'expr'), (r'(pmu|source/format|source/id)$', 'pmu'), (r'topo$', 'topo'),
    (r'db/', 'db'), (r'(resolve|evlist)$', 'resolve'), (r'source/', 'sources'), (r'machine$', 'machine'),
    (r'sched$', 'sched'), (r'(session|snapshot)$', 'session'), (r'aggr$', 'aggr'),
    (r'metric/', 'metric'), (r'out/', 'out'), (r'doctor$', 'doctor'),
]

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def module_of(rel):
    stem = os.path.splitext(rel)[0]
    for pat, mod in MODULES:
        if re.match(pat, stem):
            return mod
    return None


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..')
    lib = os.path.join(root, 'lib')
    rank = {m: i for i, m in enumerate(ORDER)}
    edges = {}  # (from module, to module) -> [file: include]
    unknown = []
    for dirpath, _, names in os.walk(lib):
        for name in sorted(names):
            if not name.endswith(('.c', '.h')):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, lib)
            mod = module_of(rel)
            if mod is None:
                unknown.append(rel)
                continue
            with open(path, encoding='utf-8') as f:
                text = f.read()
            for inc in INCLUDE.findall(text):
                # lib/ is the include root; a bare name may be beside the file
                cand = [inc, os.path.normpath(os.path.join(os.path.dirname(rel), inc))]
                target = next((c for c in cand if os.path.exists(os.path.join(lib, c))), None)
                if target is None:
                    continue  # pmumon/*.h (the public API) or a generated header
                to = module_of(target)
                if to is None:
                    unknown.append(target)
                elif to != mod:
                    edges.setdefault((mod, to), []).append('%s: %s' % (rel, inc))
    bad = 0
    for rel in sorted(set(unknown)):
        print('lib/%s: no module in ORDER' % rel)
        bad += 1
    for (a, b), where in sorted(edges.items(), key=lambda e: (rank[e[0][0]], rank[e[0][1]])):
        if rank[b] > rank[a]:
            print('%s reaches up to %s: %s' % (a, b, ', '.join(where)))
            bad += 1
    # cycles: groups of modules that all reach each other (Tarjan's components)
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
    index, low, stack, on, circles = {}, {}, [], set(), []

    def strong(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                circles.append(sorted(comp, key=rank.get))

    for m in ORDER:
        if m not in index:
            strong(m)
    for c in circles:
        print('circle of %d modules: %s' % (len(c), ', '.join(c)))
    cycles = circles
    print('%d include(s) reaching up, %d circle(s)' % (bad, len(cycles)))
    return 1 if bad or cycles else 0


if __name__ == '__main__':
    sys.exit(main())
