# SPDX-License-Identifier: GPL-2.0-only
"""What the side-by-side tests with perf share: running either tool, and whether each
can count software events on this machine (the tests skip, 77 for the suite, where not)."""
import os
import shutil
import subprocess
import unittest

PMUMON = os.environ['PMUMON']

# about 20 ms of one CPU in the shell, the same for both tools
BUSY = ['sh', '-c', 'i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done']


def run(*args, timeout=60, **kw):
    """pmumon ARGS, its output captured as text."""
    return subprocess.run([PMUMON] + list(args), capture_output=True, text=True,
                          timeout=timeout, **kw)


def perf(*args, timeout=60, **kw):
    """perf ARGS, its output captured as text."""
    return subprocess.run(['perf'] + list(args), capture_output=True, text=True,
                          timeout=timeout, **kw)


def perf_works():
    """perf stat counts a software event for a command here."""
    if not shutil.which('perf'):
        return False
    try:
        r = perf('stat', '-x,', '-e', 'task-clock', 'true')
    except OSError:
        return False
    return r.returncode == 0 and 'task-clock' in r.stderr


def pmumon_works():
    """pmumon stat counts a software event for a command here."""
    return run('stat', '-x,', '-e', 'task-clock', '--', 'true').returncode == 0


def until_alike(attempt, tries=3):
    """attempt() gives (alike, result): it runs again, up to tries times, while what it
    compares depends on how the machine's load fell on the two tools' runs and fell
    unlike (their CPU time, their start against their clocks); the last result is the
    caller's to assert, so a comparison that never comes out alike still fails."""
    for _ in range(tries):
        alike, result = attempt()
        if alike:
            break
    return result


PERF = perf_works()
LIVE = pmumon_works()
need_both = unittest.skipUnless(PERF and LIVE, 'perf stat and pmumon stat cannot both count here')
