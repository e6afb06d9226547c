#!/usr/bin/env node
// The ordered apply of a synthesized dist/ (the examples app or any app using the install charts):
//   1. every CustomResourceDefinition, server-side, then wait until they are Established;
//   2. the install charts (files holding CRDs): operators, RBAC, Kueue's Services and ConfigMap;
//   3. wait for kueue-controller-manager to be Available and its webhook Service to have endpoints
//      (from Kueue 0.15 its conversion webhook serves ClusterQueue/LocalQueue/Cohort);
//   4. Kueue's webhook configurations, then everything else (queues, tenants, workloads).
// Jobs with generateName (dist/create/) are not applied: create them with `kubectl create -f`.
//
//   node scripts/apply.js [dist] [--dry-run] [--no-wait] [--kubeconfig FILE]
// --dry-run: server-side dry-run of every object (the CRDs and namespaces must exist already). --no-wait: for a cluster that
// cannot run the Kueue pod (the e2e control plane has no kubelet): skips step 3 and registers the
// webhooks last, so no unserved webhook rejects the rest.
'use strict';
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const YAML = require('yaml');

const args = process.argv.slice(2);
const flag = (f) => args.includes(f);
const opt = (f) => { const i = args.indexOf(f); return i >= 0 ? args[i + 1] : undefined; };
const dist = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--kubeconfig') || 'dist';
const kubectl = process.env.KUBECTL || 'kubectl';
const kubeconfig = opt('--kubeconfig');
const dryRun = flag('--dry-run');
const noWait = flag('--no-wait');
const timeout = process.env.APPLY_TIMEOUT || '300s';

function run(argv, input) {
  const full = [...(kubeconfig ? ['--kubeconfig', kubeconfig] : []), ...argv];
  return execFileSync(kubectl, full, { input, stdio: ['pipe', 'pipe', 'pipe'], maxBuffer: 256 * 1024 * 1024 }).toString();
}

function apply(objects, what) {
  if (!objects.length) return;
  const input = objects.map((o) => YAML.stringify(o)).join('---\n');
  try {
    run(['apply', '--server-side', '--force-conflicts', '--field-manager=cdk8s-kueue-ray', ...(dryRun ? ['--dry-run=server'] : []), '-f', '-'], input);
  } catch (e) {
    throw new Error(`apply of ${what} failed:\n${e.stderr ? e.stderr.toString() : e.message}`);
  }
  console.log(`${dryRun ? 'dry-run ' : ''}applied ${objects.length} ${what}`);
}

function main() {
  if (!fs.existsSync(dist)) throw new Error(`${dist} does not exist: run \`npx cdk8s synth\` first`);
  const files = fs.readdirSync(dist).filter((f) => f.endsWith('.k8s.yaml')).sort();
  const docs = files.map((f) => ({ file: f, objects: YAML.parseAllDocuments(fs.readFileSync(path.join(dist, f), 'utf8')).map((d) => d.toJS()).filter(Boolean) }));
  const all = docs.flatMap((d) => d.objects);
  const unnamed = all.filter((o) => !o.metadata?.name);
  if (unnamed.length) throw new Error(`${unnamed.length} object(s) have no metadata.name (generateName): they cannot be applied; create them with kubectl create -f`);
  const isWebhookConfig = (o) => ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration', 'APIService'].includes(o.kind);
  const crds = all.filter((o) => o.kind === 'CustomResourceDefinition');
  const installFiles = new Set(docs.filter((d) => d.objects.some((o) => o.kind === 'CustomResourceDefinition')).map((d) => d.file));
  const install = docs.filter((d) => installFiles.has(d.file)).flatMap((d) => d.objects).filter((o) => o.kind !== 'CustomResourceDefinition');
  const installNamespaces = install.filter((o) => o.kind === 'Namespace');
  const installRest = install.filter((o) => o.kind !== 'Namespace' && !isWebhookConfig(o));
  const webhooks = install.filter(isWebhookConfig);
  const rest = docs.filter((d) => !installFiles.has(d.file)).flatMap((d) => d.objects);
  const restNamespaces = rest.filter((o) => o.kind === 'Namespace');
  const restOthers = rest.filter((o) => o.kind !== 'Namespace');

  apply(crds, 'CustomResourceDefinitions');
  if (crds.length && !dryRun) {
    run(['wait', '--for=condition=Established', `--timeout=${timeout}`, ...crds.map((c) => `crd/${c.metadata.name}`)]);
    console.log(`${crds.length} CRDs Established`);
  }
  apply([...installNamespaces, ...restNamespaces], 'Namespaces');
  apply(installRest, 'install objects (operators, RBAC, services, config)');
  const kueue = install.find((o) => o.kind === 'Deployment' && o.metadata.name === 'kueue-controller-manager');
  if (!noWait && !dryRun) {
    if (kueue) {
      run(['-n', kueue.metadata.namespace, 'rollout', 'status', `deployment/${kueue.metadata.name}`, `--timeout=${timeout}`]);
      run(['-n', kueue.metadata.namespace, 'wait', '--for=jsonpath={.subsets[0].addresses[0].ip}', 'endpoints/kueue-webhook-service', `--timeout=${timeout}`]);
      console.log('kueue-controller-manager is Available and its webhook Service has endpoints');
    }
    apply(webhooks, 'webhook configurations');
    apply(restOthers, 'queues, tenants and workloads');
  } else {
    apply(restOthers, 'queues, tenants and workloads');
    apply(webhooks, 'webhook configurations');
  }
}

try {
  main();
} catch (e) {
  console.error(`apply: ${e.message}`);
  process.exit(1);
}
