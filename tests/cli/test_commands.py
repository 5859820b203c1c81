#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The command table in cli/commands.c is the only list of pmumon's commands
(issue 32 item 3): what is made from it (--help, --list-commands, meson's
reading of it, a man page per command, their SEE ALSO, the bash completion)
follows it, and what cannot be made from it (the install list, debian/, the
prose of docs/DESIGN.md and README) is checked against it here, so a command
added to the table without its page, its packaging or its mention fails.

usage: test_commands.py SOURCE_ROOT BUILD_ROOT MESON_COMMANDS PAGE...
(MESON_COMMANDS: the names cli/meson.build read from the table, comma-separated;
PAGE: the man pages dist/meson.build made)"""
import json
import os
import re
import subprocess
import sys
import unittest

PMUMON = os.environ['PMUMON']
SOURCE, BUILD, MESON_COMMANDS = sys.argv[1], sys.argv[2], sys.argv[3].split(',')
PAGES = [os.path.join(BUILD, p) for p in sys.argv[4:]]  # meson gives them relative


def run(*args):
    env = {k: v for k, v in os.environ.items() if k not in ('PMUMON_SIM', 'PMUMON_ROOT')}
    r = subprocess.run([PMUMON] + list(args), capture_output=True, text=True, timeout=60,
                       env=env)
    return r


def help_commands():
    """(name, summary) of the Commands: section of pmumon --help, in order."""
    out, on = [], False
    for line in run('--help').stdout.splitlines():
        if line == 'Commands:':
            on = True
        elif on and not line:
            break
        elif on:
            m = re.match(r'^  (\S+) +(.*)$', line)
            out.append((m.group(1), m.group(2)))
    return out


def read(*path):
    with open(os.path.join(SOURCE, *path)) as f:
        return f.read()


class Commands(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        r = run('--list-commands')
        assert r.returncode == 0 and not r.stderr, r
        cls.names = r.stdout.split()
        cls.summaries = dict(help_commands())

    def test_the_table_is_the_list(self):
        self.assertGreaterEqual(len(self.names), 1)
        self.assertEqual(len(set(self.names)), len(self.names), self.names)
        self.assertEqual([n for n, _ in help_commands()], self.names)
        # cli/meson.build's reading of commands.c, which dist/meson.build makes pages from
        self.assertEqual(MESON_COMMANDS, self.names)
        table = read('cli', 'commands.c')
        for name in self.names:
            self.assertTrue(re.search(r'\n\t\{ "%s", cmd_%s,' % (name, name.replace('-', '_')),
                                      table), 'cli/commands.c has no line { "%s", cmd_%s,'
                            % (name, name.replace('-', '_')))
        # not an option --help shows (a user has --help's list), but every command runs
        self.assertNotIn('--list-commands', run('--help').stdout)
        for name in self.names:
            r = run(name, '--help')
            self.assertEqual(r.returncode, 0, (name, r.stderr))
            self.assertTrue(r.stdout.startswith('usage: pmumon %s' % name), (name, r.stdout))

    def test_an_unknown_command_names_them_all(self):
        r = run('no-such-command')
        self.assertEqual(r.returncode, 2)
        for name in self.names:
            self.assertRegex(r.stderr, r'[ ,]%s[ ,(]' % re.escape(name))

    def test_a_man_page_per_command(self):
        pages = {os.path.basename(p): p for p in PAGES}
        self.assertEqual(sorted(pages),
                         sorted(['pmumon.1'] + ['pmumon-%s.1' % n for n in self.names]))
        for page, path in pages.items():
            with open(path) as f:
                text = f.read()
            name = page[:-2]
            command = name[len('pmumon-'):] if name != 'pmumon' else None
            title = re.search(r'^\.TH (\S+) 1 ', text, re.M)
            self.assertEqual(title and title.group(1), name.upper(), page)
            if command:
                # NAME is the command's line in pmumon --help; SYNOPSIS its usage
                self.assertIn('.SH NAME\n%s \\- %s\n' % (name.replace('-', '\\-'),
                                                         self.summaries[command]), text)
                self.assertTrue(re.search(r'^\.SH SYNOPSIS\n\.nf\npmumon %s\b' % command, text,
                                          re.M), '%s: its SYNOPSIS is not pmumon %s' % (page,
                                                                                     command))
            see = re.search(r'^\.SH SEE ALSO\n(.*)$', text, re.M).group(1)
            others = ['pmumon-%s' % n for n in self.names if n != command]
            for other in others + (['pmumon'] if command else []):
                self.assertIn('\\fB%s\\fR(1)' % other, see, page)

    def installed(self):
        """The man pages meson installs: their paths under the prefix."""
        with open(os.path.join(BUILD, 'meson-info', 'intro-installed.json')) as f:
            installed = json.load(f)
        with open(os.path.join(BUILD, 'meson-info', 'intro-buildoptions.json')) as f:
            prefix = [o['value'] for o in json.load(f) if o['name'] == 'prefix'][0]
        out = {}
        for path in PAGES:
            self.assertIn(path, installed, 'meson does not install ' + path)
            dest = installed[path]
            self.assertTrue(dest.startswith(prefix.rstrip('/') + '/'), dest)
            self.assertRegex(dest, r'/man1/%s$' % re.escape(os.path.basename(path)))
            out[os.path.basename(path)] = dest[len(prefix.rstrip('/')) + 1:]
        return out

    def test_installed_and_packaged(self):
        # debian/pmumon.install takes each page (by its path or a directory above it),
        # as the Debian build's prefix /usr puts it
        lines = [line.strip().rstrip('/') for line in read('debian', 'pmumon.install').splitlines()
                 if line.strip() and not line.startswith('#')]
        skipped = [line.strip().rstrip('/') for line in read('debian', 'not-installed').splitlines()
                   if line.strip() and not line.startswith('#')]
        for page, rel in self.installed().items():
            path = 'usr/' + rel if not rel.startswith('usr/') else rel
            self.assertTrue(any(path == line or path.startswith(line + '/') for line in lines),
                            '%s is in no line of debian/pmumon.install' % path)
            self.assertFalse(any(path == s or path.startswith(s + '/') for s in skipped),
                             '%s is in debian/not-installed' % path)
        # scripts/test-package looks for the installed page of every command it is told of
        self.assertIn('--list-commands', read('scripts', 'test-package'))

    def test_bash_completion_offers_every_command(self):
        # the completion as installed, with bash-completion's _init_completion stood in for
        script = '''
            _init_completion() {
                words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD
                cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}
            }
            source "$1"
            COMP_WORDS=(pmumon ""); COMP_CWORD=1
            _pmumon "$2" "" pmumon
            printf '%s\\n' "${COMPREPLY[@]}"
        '''
        r = subprocess.run(['bash', '-c', script, 'bash',
                            os.path.join(SOURCE, 'dist', 'bash-completion', 'pmumon'), PMUMON],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.stdout.split(), self.names, r.stderr)

    def test_docs_name_every_command(self):
        # DESIGN.md's layer diagram lists cli/'s commands
        m = re.search(r'^cli/ +commands: ([a-z, -]+?) \(', read('docs', 'DESIGN.md'), re.M)
        self.assertIsNotNone(m, "docs/DESIGN.md has no 'cli/      commands: ...' line")
        self.assertEqual(sorted(re.split(r', ', m.group(1))), sorted(self.names))
        # README shows each command at work
        readme = read('README.md')
        for name in self.names:
            self.assertRegex(readme, r'pmumon %s\b' % re.escape(name),
                             'README.md never shows pmumon %s' % name)


if __name__ == '__main__':
    unittest.main(argv=sys.argv[:1], verbosity=2)
