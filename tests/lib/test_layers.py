#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""lib/'s layering (scripts/layers.py): the tree as it is passes, and the
check fails on each kind of breach it exists for, made in a copy of lib/:
an include that reaches up, a call through the public API that reaches up,
a file in no module, and a circle."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.environ.get('PMUMON_SOURCE_ROOT') or os.path.join(os.path.dirname(__file__), '..', '..')
LAYERS = os.path.join(ROOT, 'scripts', 'layers.py')


def layers(root):
    p = subprocess.run([sys.executable, LAYERS, root], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


class Layers(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        shutil.copytree(os.path.join(ROOT, 'lib'), os.path.join(self.tmp, 'lib'))

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def append(self, rel, text):
        with open(os.path.join(self.tmp, 'lib', rel), 'a', encoding='utf-8') as f:
            f.write(text)

    def test_the_tree_passes(self):
        rc, out = layers(ROOT)
        self.assertEqual(rc, 0, out)
        self.assertIn('0 module pair(s) reaching up, 0 circle(s)', out)

    def test_a_source_reaching_into_another(self):
        # below it in the order, and still refused: sources are peers
        self.append('source/hwmon/hwmon.c', '\n#include "source/msr/msr.h"\n')
        rc, out = layers(self.tmp)
        self.assertEqual(rc, 1, out)
        self.assertIn('hwmon reaches into msr, another source: source/hwmon/hwmon.c: '
                      'source/msr/msr.h', out)

    def test_an_include_reaching_up(self):
        self.append('pmu.c', '\n#include "session.h"\n')
        rc, out = layers(self.tmp)
        self.assertEqual(rc, 1, out)
        self.assertIn('pmu reaches up to session: pmu.c: session.h', out)

    def test_a_public_call_reaching_up(self):
        # pmumon.h declares it, so no include shows it: the call does
        self.append('resolve.c', '\nstatic void f(struct pm_session *s)\n{\n'
                    '\t(void)pm_session__report(s, true); /* pm_ctx__new() in a comment */\n}\n')
        rc, out = layers(self.tmp)
        self.assertEqual(rc, 1, out)
        self.assertIn('resolve reaches up to report: resolve.c: pm_session__report()', out)
        self.assertNotIn('pm_ctx__new', out)  # comments are not references

    def test_a_file_in_no_module(self):
        with open(os.path.join(self.tmp, 'lib', 'stray.c'), 'w', encoding='utf-8') as f:
            f.write('int x;\n')
        rc, out = layers(self.tmp)
        self.assertEqual(rc, 1, out)
        self.assertIn('lib/stray.c: no module in ORDER', out)

    def test_a_circle(self):
        self.append('topo.c', '\n#include "db/pack.h"\n')
        self.append('db/pack.c', '\n#include "topo.h"\n')
        rc, out = layers(self.tmp)
        self.assertEqual(rc, 1, out)
        self.assertIn('circle of 2 modules: topo, db', out)


if __name__ == '__main__':
    unittest.main(verbosity=2)
