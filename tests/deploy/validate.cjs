// SPDX-License-Identifier: GPL-2.0-only
// The rendered manifests of one kustomization (a file of YAML documents)
// validated offline against the Kubernetes API's schemas (npm kubernetes-models)
// and prometheus-operator's (@kubernetes-models/prometheus-operator): exit 1
// naming the object and the field at the first that does not pass, else
// print each object's kind/name.
'use strict';
const fs = require('fs');
const yaml = require('js-yaml');
const core = require('kubernetes-models/v1');
const apps = require('kubernetes-models/apps/v1');
const networking = require('kubernetes-models/networking.k8s.io/v1');
const monitoring = require('@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1');

const models = {
	'v1/Namespace': core.Namespace,
	'v1/ConfigMap': core.ConfigMap,
	'v1/Service': core.Service,
	'apps/v1/DaemonSet': apps.DaemonSet,
	'networking.k8s.io/v1/NetworkPolicy': networking.NetworkPolicy,
	'monitoring.coreos.com/v1/PodMonitor': monitoring.PodMonitor,
};

let failed = false;
for (const doc of yaml.loadAll(fs.readFileSync(process.argv[2], 'utf8'))) {
	if (!doc)
		continue;
	const key = `${doc.apiVersion}/${doc.kind}`;
	const name = `${doc.kind}/${doc.metadata && doc.metadata.name}`;
	const Model = models[key];
	if (!Model) {
		console.error(`${name}: no schema for ${key} here`);
		failed = true;
		continue;
	}
	try {
		new Model(doc).validate();
		console.log(name);
	} catch (e) {
		console.error(`${name}: ${e.message}`);
		failed = true;
	}
}
process.exit(failed ? 1 : 0);
