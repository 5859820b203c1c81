#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""dist/kubernetes (issue 28): every kustomization rendered offline with the
kubectl kustomize on PATH, validated against the Kubernetes API's schemas and
prometheus-operator's (npm kubernetes-models, @kubernetes-models/prometheus-
operator, through tests/deploy/validate.cjs), and its security settings
checked: no capability but CAP_PERFMON (and CAP_SYS_RAWIO for msr), read-only
root, RuntimeDefault seccomp, no host PID, network or IPC, not privileged, no
privilege escalation, only the host paths each variant needs and never
/dev/mem; the lock directory mounted; --attribute-pods on the platforms that attribute
memory traffic, with the host's cgroup2 mount and kubelet log trees read-only;
each platform's nodes chosen by
node-feature-discovery labels; a NetworkPolicy that lets in the scraper only
and out DNS only. No cluster runs here: nothing is applied."""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import importlib.util

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.environ.get('PMUMON_SOURCE_ROOT') or os.path.dirname(os.path.dirname(HERE))
K8S = os.path.join(ROOT, 'dist', 'kubernetes')
# where npm ci puts the validator's packages: the build directory's, else a cache
NODE_DIR = os.path.join(os.path.dirname(os.path.dirname(os.environ['PMUMON'])), 'tests',
                        'deploy-node') if 'PMUMON' in os.environ else \
    os.path.join(os.path.expanduser('~'), '.cache', 'pmumon-deploy-node')

# what the platforms that attribute memory traffic to pods (--attribute-pods) read of the
# host: the cgroup2 hierarchy and the kubelet's log trees, read-only (docs/attribution.md)
PODS = {'/sys/fs/cgroup', '/var/log/pods', '/var/log/containers'}
# what each kustomization may add to the base's PERFMON, and the host paths it may mount
VARIANTS = {
    'base': ({'PERFMON'}, {'/run/pmumon'}),
    'epyc': ({'PERFMON'}, {'/run/pmumon'} | PODS),
    'epyc-msr': ({'PERFMON', 'SYS_RAWIO'}, {'/run/pmumon', '/dev/cpu'} | PODS),
    'yitian710': ({'PERFMON'}, {'/run/pmumon'} | PODS),
    'bluefield': ({'PERFMON'}, {'/run/pmumon', '/sys'}),
}

yaml_spec = importlib.util.find_spec('yaml')


def kustomizations():
    return [os.path.join(K8S, 'base')] + sorted(glob.glob(os.path.join(K8S, 'overlays', '*')))


def render(path):
    r = subprocess.run(['kubectl', 'kustomize', path], capture_output=True, text=True,
                       timeout=120)
    if r.returncode:
        raise AssertionError('kubectl kustomize %s: %s' % (path, r.stderr))
    return r.stdout


def node_modules():
    """The validator's npm packages (tests/deploy/package-lock.json), installed once:
    the directory, or None with why."""
    lock = os.path.join(HERE, 'package-lock.json')
    have = os.path.join(NODE_DIR, 'package-lock.json')
    if os.path.isdir(os.path.join(NODE_DIR, 'node_modules')) and os.path.exists(have):
        with open(lock) as a, open(have) as b:
            if a.read() == b.read():
                return NODE_DIR, None
    os.makedirs(NODE_DIR, exist_ok=True)
    shutil.copy(os.path.join(HERE, 'package.json'), NODE_DIR)
    shutil.copy(lock, NODE_DIR)
    r = subprocess.run(['npm', 'ci', '--no-audit', '--no-fund', '--loglevel=error'],
                       cwd=NODE_DIR, capture_output=True, text=True, timeout=600)
    if r.returncode:
        return None, 'npm ci failed (the npm registry not reachable?): ' + r.stderr[-500:]
    return NODE_DIR, None


def validate(text):
    d, why = node_modules()
    if not d:
        raise unittest.SkipTest(why)
    with tempfile.NamedTemporaryFile('w', suffix='.yaml') as f:
        f.write(text)
        f.flush()
        env = dict(os.environ, NODE_PATH=os.path.join(d, 'node_modules'))
        return subprocess.run(['node', os.path.join(HERE, 'validate.cjs'), f.name],
                              capture_output=True, text=True, timeout=120, env=env)


def docs(text):
    import yaml
    return [d for d in yaml.safe_load_all(text) if d]


@unittest.skipUnless(shutil.which('kubectl'),
                     'kubectl is not on PATH: Debian 12 has no kubectl or kustomize package, '
                     'and npm none that runs offline')
@unittest.skipUnless(shutil.which('node') and shutil.which('npm'), 'node and npm needed')
@unittest.skipUnless(yaml_spec, 'python3-yaml needed')
class Kubernetes(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.rendered = {os.path.basename(p): render(p) for p in kustomizations()}

    def test_every_kustomization_is_there(self):
        self.assertEqual(set(self.rendered), set(VARIANTS))

    def test_old_and_new_kustomize_read_the_overlays(self):
        # patchesStrategicMerge and patchesJson6902: kustomize 3 to 5 read both
        for path in kustomizations():
            with open(os.path.join(path, 'kustomization.yaml')) as f:
                k = f.read()
            self.assertNotIn('\npatches:', k, path)
            self.assertNotIn('\ncomponents:', k, path)

    def test_schemas(self):
        for name, text in self.rendered.items():
            r = validate(text)
            self.assertEqual(r.returncode, 0, '%s: %s' % (name, r.stderr))
            kinds = sorted(line.split('/')[0] for line in r.stdout.split())
            self.assertEqual(kinds, ['ConfigMap', 'DaemonSet', 'Namespace', 'NetworkPolicy',
                                     'PodMonitor', 'Service'], name)

    def test_the_validator_refuses_what_is_wrong(self):
        import yaml
        text = self.rendered['base']
        for path, value, what in ((['spec', 'template', 'spec', 'containers', 0,
                                    'securityContext', 'privileged'], 'no', 'privileged'),
                                   (['spec', 'podMetricsEndpoints', 0, 'interval'], 15,
                                    'interval')):
            ds = docs(text)
            target = next(d for d in ds if d['kind'] == ('PodMonitor' if what == 'interval'
                                                         else 'DaemonSet'))
            node = target
            for k in path[:-1]:
                node = node[k]
            node[path[-1]] = value
            r = validate(yaml.safe_dump_all(ds))
            self.assertEqual(r.returncode, 1, what)
            self.assertIn(what, r.stderr)

    def test_security(self):
        for name, text in self.rendered.items():
            caps, host_paths = VARIANTS[name]
            objs = docs(text)
            ds = [d for d in objs if d['kind'] == 'DaemonSet']
            self.assertEqual(len(ds), 1, name)
            pod = ds[0]['spec']['template']['spec']
            for k in ('hostPID', 'hostNetwork', 'hostIPC'):
                self.assertIs(pod.get(k, False), False, (name, k))
            self.assertIs(pod['automountServiceAccountToken'], False, name)
            self.assertEqual(pod['securityContext']['seccompProfile'],
                             {'type': 'RuntimeDefault'}, name)
            # uid 0, so that the added capability is effective (docs/deploy.md)
            self.assertEqual(pod['securityContext']['runAsUser'], 0, name)
            self.assertEqual(len(pod['containers']), 1, name)
            c = pod['containers'][0]
            sc = c['securityContext']
            self.assertIs(sc['privileged'], False, name)
            self.assertIs(sc['allowPrivilegeEscalation'], False, name)
            self.assertIs(sc['readOnlyRootFilesystem'], True, name)
            self.assertEqual(sc['capabilities']['drop'], ['ALL'], name)
            self.assertEqual(set(sc['capabilities']['add']), caps, name)
            self.assertNotIn('initContainers', pod, name)
            volumes = {v['name']: v for v in pod['volumes']}
            got = {v['hostPath']['path'] for v in volumes.values() if 'hostPath' in v}
            self.assertEqual(got, host_paths, name)
            for p in got:
                self.assertFalse(p in ('/', '/dev', '/dev/mem', '/proc', '/etc', '/var'), p)
            mounts = {m['mountPath']: m for m in c['volumeMounts']}
            self.assertNotIn('/dev/mem', mounts)
            # the host's lock directory, so that locks exclude every pmumon on the node
            self.assertEqual(volumes[mounts['/run/pmumon']['name']]['hostPath']['path'],
                             '/run/pmumon', name)
            self.assertTrue(mounts['/etc/pmumon'].get('readOnly'), name)
            # /sys is writable only where BlueField's hwmon files are written
            if '/sys' in mounts:
                self.assertEqual(name, 'bluefield')
            # the platforms whose packs say how attribute memory traffic per pod, and only
            # they, pass --attribute-pods and read (never write) what it needs at the same
            # paths as on the host
            attributes = host_paths >= PODS
            self.assertEqual(c.get('args', []), ['--attribute-pods'] if attributes else [],
                             name)
            for path in PODS & got:
                self.assertIs(mounts[path].get('readOnly'), True, (name, path))
                self.assertEqual(volumes[mounts[path]['name']]['hostPath']['path'], path)

    def test_nodes_chosen_by_feature_labels(self):
        want = {'epyc': {'feature.node.kubernetes.io/cpu-model.vendor_id',
                         'feature.node.kubernetes.io/cpu-model.family',
                         'feature.node.kubernetes.io/cpu-model.id'},
                'epyc-msr': {'feature.node.kubernetes.io/cpu-model.family'},
                'yitian710': {'feature.node.kubernetes.io/cpu-model.vendor_id'},
                'bluefield': {'feature.node.kubernetes.io/kernel-config.MLXBF_PMC'}}
        selectors = {}
        for name, text in self.rendered.items():
            ds = next(d for d in docs(text) if d['kind'] == 'DaemonSet')
            pod = ds['spec']['template']
            selectors[name] = ds['spec']['selector']['matchLabels']
            self.assertLessEqual(selectors[name].items(), pod['metadata']['labels'].items())
            if name == 'base':
                self.assertNotIn('affinity', pod['spec'])
                continue
            keys = {e['key'] for t in pod['spec']['affinity']['nodeAffinity'][
                'requiredDuringSchedulingIgnoredDuringExecution']['nodeSelectorTerms']
                for e in t['matchExpressions']}
            self.assertLessEqual(want[name], keys, name)
        # the platforms' DaemonSets side by side: no two select each other's pods
        overlays = [n for n in selectors if n != 'base']
        for a in overlays:
            for b in overlays:
                if a != b:
                    self.assertNotEqual(selectors[a], selectors[b])

    def test_network_policy_and_scrape(self):
        for name, text in self.rendered.items():
            objs = docs(text)
            pol = next(d for d in objs if d['kind'] == 'NetworkPolicy')['spec']
            pm = next(d for d in objs if d['kind'] == 'PodMonitor')['spec']
            ds = next(d for d in objs if d['kind'] == 'DaemonSet')
            labels = ds['spec']['template']['metadata']['labels']
            self.assertEqual(sorted(pol['policyTypes']), ['Egress', 'Ingress'], name)
            self.assertLessEqual(pol['podSelector']['matchLabels'].items(), labels.items())
            self.assertLessEqual(pm['selector']['matchLabels'].items(), labels.items())
            self.assertEqual(len(pol['ingress']), 1, name)
            self.assertEqual(pol['ingress'][0]['ports'], [{'port': 'metrics',
                                                           'protocol': 'TCP'}])
            for peer in pol['ingress'][0]['from']:
                self.assertIn('podSelector', peer)  # the scraper's pods, not anyone
            ports = [p['port'] for e in pol['egress'] for p in e['ports']]
            self.assertEqual(sorted(set(ports)), [53], name)
            self.assertEqual(pm['podMetricsEndpoints'][0]['port'], 'metrics')
            port = ds['spec']['template']['spec']['containers'][0]['ports'][0]
            self.assertEqual((port['name'], port['containerPort']), ('metrics', 9811))
            # serve in the pod listens beyond loopback, where the policy lets the scraper in
            cm = next(d for d in objs if d['kind'] == 'ConfigMap')
            self.assertIn('\nlisten = 0.0.0.0:9811\n', '\n' + cm['data']['serve.conf'])


if __name__ == '__main__':
    unittest.main(verbosity=2)
