#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""What the commands share (issue 13): list's subcommand table is what its
help, its "did you mean" and its dispatch read. Everything runs on
simulated machines: no perf events needed."""
import os
import re
import subprocess
import unittest

PMUMON = os.environ['PMUMON']


def run(*args, **kw):
    return subprocess.run([PMUMON] + list(args), capture_output=True, text=True, timeout=60,
                          **kw)


class ListTable(unittest.TestCase):
    """list's subcommands come from one table: the usage line, the help entries,
    the "not a subcommand" message and the dispatch name the same ones."""

    def names(self):
        usage = run('list', '--help').stdout
        m = re.match(r'usage: pmumon list \[([a-z|]+)\] \[GLOB\]\n', usage)
        self.assertIsNotNone(m, usage)
        return m.group(1).split('|'), usage

    def test_help_and_messages_name_every_subcommand(self):
        names, usage = self.names()
        self.assertEqual(names, ['pmus', 'events', 'metrics', 'groups', 'scenario', 'program'])
        entries = re.findall(r'^  (\S+) ', usage, re.M)
        self.assertEqual(entries[:len(names)], names)
        r = run('--sim', 'amdzen2', 'list', 'zzz*')
        self.assertEqual(r.returncode, 2)
        self.assertIn("is not a list subcommand (%s)" % ', '.join(names), r.stderr)
        r = run('--sim', 'amdzen2', 'list', 'pmus', 'a', 'b')
        self.assertIn('pmumon list [%s] [GLOB]' % '|'.join(names), r.stderr)

    def test_every_subcommand_dispatches(self):
        names, _ = self.names()
        heads = {'pmus': 'PMU ', 'events': 'amd_df', 'metrics': 'metrics (pmumon stat -M',
                 'groups': 'metric groups', 'scenario': 'scenario quantities',
                 'program': '# '}
        for name in names:
            with self.subTest(name=name):
                plat = 'merrifield' if name == 'program' else 'amdzen2'
                r = run('--sim', plat, 'list', name)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertIn(heads[name], r.stdout)
                # each did-you-mean is the subcommand one typo away
                r = run('--sim', 'amdzen2', 'list', name[1:])
                self.assertIn("did you mean '%s'?" % name, r.stderr)

    def test_bare_list_is_pmus_events_metrics(self):
        banner = '[SIMULATED: amdzen2] a simulated machine (--sim), not this one\n\n'
        parts = {}
        for name in ('pmus', 'events', 'metrics'):
            r = run('--sim', 'amdzen2', 'list', name)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertTrue(r.stdout.startswith(banner))
            parts[name] = r.stdout[len(banner):]
        r = run('--sim', 'amdzen2', 'list')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout,
                         banner + parts['pmus'] + '\n' + parts['events'] + parts['metrics'])


if __name__ == '__main__':
    unittest.main(verbosity=2)
