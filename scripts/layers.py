#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""lib/'s layering, from its #includes and its function references: every
module may include, call or point to only modules below it in ORDER (and
itself). A call through the public API (pmumon/pmumon.h, which the include
check cannot see) counts as the module that defines the function. Prints
each include or reference that reaches up and each cycle between modules;
exits 1 when there is any. Run by the lib suite (tests/lib/meson.build).

Usage: scripts/layers.py [SOURCE_ROOT]
"""
import os
import re
import sys

# The order, bottom first. Each module may include what is before it:
#   util     pure helpers: parsing, arrays, CPU lists, count arithmetic
#   os       the seam to the machine (lib/os)
#   ctx      the context: the os and machine ops, the log callback and diagnostics
#   spec     the user's event specs, parsed
#   expr     metric expressions, and metrics compiled from them (metric/compiled.h)
#   pmu      PMUs, their formats (source/format) and aliases, the sources' ids (source/id.h)
#   topo     CPUs, dies, packages
#   db       platform packs: events and metrics for PMUs
#   resolve  specs -> events on PMUs (the evlist)
#   sources  what every counter source uses (source/: source.h, counters.h, estimate,
#            rotation, wrap, lock, sources.c: contexts' own sources and the sources' options)
#   perf, msr, hwmon, sideband, tool, replay
#            each source (its folder source/NAME/; replay's files): none reaches another
#   registry the table of the sources (source/registry.c)
#   machine  contexts for a live machine or a recording, and discovery
#   sched    event instances -> counters, each with the source that claims it
#   session  counters opened and read through the sources
#   aggr     rows from the session's counters
#   metric   metric rows from the aggregated rows
#   report   a session opened with its rows, its reports and snapshots
#   out      formatted reports
#   doctor   the machine looked over (pmumon doctor): packs, sources' surveys, metrics
ORDER = ['util', 'os', 'ctx', 'pods', 'spec', 'expr', 'pmu', 'topo', 'db', 'resolve', 'sources',
         'perf', 'msr', 'hwmon', 'sideband', 'tool', 'replay', 'registry', 'machine', 'sched', 'session', 'aggr', 'metric', 'attrib', 'report', 'out',
         'doctor']

# Modules of one rank: none may include or call another at all, either way (a source
# is its folder's business: docs/sources.md).
PEERS = {'perf', 'msr', 'hwmon', 'sideband', 'tool', 'replay'}

# lib/ paths (without extension) to modules; the first match wins.
MODULES = [
    (r'util/', 'util'), (r'os/', 'os'), (r'ctx$', 'ctx'), (r'pods$', 'pods'), (r'spec$', 'spec'),
    (r'metric/(expr|compiled)$', 'expr'), (r'(pmu|source/format|source/id)$', 'pmu'), (r'topo$', 'topo'),
    (r'db/', 'db'), (r'(resolve|evlist)$', 'resolve'),
    (r'source/(perf|msr|hwmon|sideband|tool|replay)/', None),
    (r'source/registry$', 'registry'), (r'source/', 'sources'), (r'machine$', 'machine'),
    (r'sched$', 'sched'), (r'session$', 'session'), (r'aggr$', 'aggr'), (r'(report|snapshot)$', 'report'),
    (r'metric/', 'metric'), (r'attrib$', 'attrib'), (r'out/', 'out'), (r'doctor$', 'doctor'),
]

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# a function defined at the start of a line (not static): "int pm_x__y(" or "T *\npm_x("
DEFINITION = re.compile(r'^(?!static\b)[A-Za-z_][\w \t\*]*?\b(pm_\w+)\(', re.M)
IDENT = re.compile(r'\bpm_\w+\b')
COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"', re.S)


def references(text):
    """The pm_ names a C text uses outside comments and strings."""
    return set(IDENT.findall(COMMENT.sub(' ', text)))


def module_of(rel):
    stem = os.path.splitext(rel)[0]
    for pat, mod in MODULES:
        m = re.match(pat, stem)
        if m:
            return mod or m.group(1)  # a source's folder: the source
    return None


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..')
    lib = os.path.join(root, 'lib')
    rank = {m: i for i, m in enumerate(ORDER)}
    edges = {}  # (from module, to module) -> [file: include or function]
    unknown = []
    texts = {}  # lib-relative path -> (module, text)
    defined = {}  # function -> module that defines it
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
            texts[rel] = (mod, text)
            if name.endswith('.c'):
                for fn in DEFINITION.findall(COMMENT.sub(' ', text)):
                    defined[fn] = mod
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
    for rel, (mod, text) in sorted(texts.items()):
        for fn in sorted(references(text)):
            to = defined.get(fn)
            if to is not None and to != mod:
                edges.setdefault((mod, to), []).append('%s: %s()' % (rel, fn))
    bad = 0
    for rel in sorted(set(unknown)):
        print('lib/%s: no module in ORDER' % rel)
        bad += 1
    for (a, b), where in sorted(edges.items(), key=lambda e: (rank[e[0][0]], rank[e[0][1]])):
        if rank[b] > rank[a]:
            print('%s reaches up to %s: %s' % (a, b, ', '.join(sorted(set(where)))))
            bad += 1
        elif a in PEERS and b in PEERS:
            print('%s reaches into %s, another source: %s' % (a, b, ', '.join(sorted(set(where)))))
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
    print('%d module pair(s) reaching up, %d circle(s)' % (bad, len(cycles)))
    return 1 if bad or cycles else 0


if __name__ == '__main__':
    sys.exit(main())
