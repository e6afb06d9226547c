#!/usr/bin/env node
// The ordered apply of a synthesized dist/ (the examples app or any app using the install charts):
//   1. every CustomResourceDefinition, server-side, then wait until they are Established;
//   2. every Namespace;
//   3. the serving charts (files holding CRDs or webhook configurations: the Kueue and KubeRay
//      installs, the AdmissionController) without their webhook configurations;
//   4. wait until their Deployments are rolled out and every Service a webhook calls has endpoints
//      (from Kueue 0.15 its conversion webhook serves ClusterQueue/LocalQueue/Cohort);
//   5. their webhook configurations, then wait until each has a caBundle (Kueue, our controller or
//      cert-manager injects it; until then the API server cannot call the webhook);
//   6. everything else (queues, tenants, workloads).
// Jobs with generateName (dist/create/) are not applied: create them with `kubectl create -f`.
//
//   node scripts/apply.js [dist] [--dry-run] [--no-wait] [--kubeconfig FILE]
// --dry-run: server-side dry-run of every object (the CRDs and namespaces must exist already). --no-wait: for a cluster that
// cannot run pods (the e2e control plane has no kubelet): skips steps 4 and 5's waits and registers
// the webhooks last, so no unserved webhook rejects the rest.
'use strict';
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const YAML = require('yaml');

const WEBHOOK_KINDS = ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration', 'APIService'];

/**
 * The phases of the apply, from the files of a dist/ ({ file, objects } in file-name order). Pure,
 * so the order is tested without a cluster.
 */
function plan(docs) {
  const all = docs.flatMap((d) => d.objects);
  const unnamed = all.filter((o) => !o.metadata || !o.metadata.name);
  if (unnamed.length) throw new Error(`${unnamed.length} object(s) have no metadata.name (generateName): they cannot be applied; create them with kubectl create -f`);
  const isWebhook = (o) => WEBHOOK_KINDS.includes(o.kind);
  const serving = new Set(docs.filter((d) => d.objects.some((o) => o.kind === 'CustomResourceDefinition' || isWebhook(o))).map((d) => d.file));
  const servingObjects = docs.filter((d) => serving.has(d.file)).flatMap((d) => d.objects).filter((o) => o.kind !== 'CustomResourceDefinition');
  const webhooks = servingObjects.filter(isWebhook);
  const services = new Map();
  for (const w of webhooks) {
    for (const h of w.webhooks || []) {
      const s = h.clientConfig && h.clientConfig.service;
      if (s) services.set(`${s.namespace}/${s.name}`, { namespace: s.namespace, name: s.name });
    }
  }
  return {
    crds: all.filter((o) => o.kind === 'CustomResourceDefinition'),
    namespaces: all.filter((o) => o.kind === 'Namespace'),
    serving: servingObjects.filter((o) => o.kind !== 'Namespace' && !isWebhook(o)),
    deployments: servingObjects.filter((o) => o.kind === 'Deployment').map((o) => ({ namespace: o.metadata.namespace || 'default', name: o.metadata.name })),
    services: [...services.values()],
    webhooks,
    rest: docs.filter((d) => !serving.has(d.file)).flatMap((d) => d.objects).filter((o) => o.kind !== 'Namespace'),
  };
}

function main(args) {
  const flag = (f) => args.includes(f);
  const opt = (f) => { const i = args.indexOf(f); return i >= 0 ? args[i + 1] : undefined; };
  const dist = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--kubeconfig') || 'dist';
  const kubectl = process.env.KUBECTL || 'kubectl';
  const kubeconfig = opt('--kubeconfig');
  const dryRun = flag('--dry-run');
  const noWait = flag('--no-wait');
  const timeout = process.env.APPLY_TIMEOUT || '300s';

  const run = (argv, input) => {
    const full = [...(kubeconfig ? ['--kubeconfig', kubeconfig] : []), ...argv];
    return execFileSync(kubectl, full, { input, stdio: ['pipe', 'pipe', 'pipe'], maxBuffer: 256 * 1024 * 1024 }).toString();
  };
  const apply = (objects, what) => {
    if (!objects.length) return;
    const input = objects.map((o) => YAML.stringify(o)).join('---\n');
    try {
      run(['apply', '--server-side', '--force-conflicts', '--field-manager=cdk8s-kueue-ray', ...(dryRun ? ['--dry-run=server'] : []), '-f', '-'], input);
    } catch (e) {
      throw new Error(`apply of ${what} failed:\n${e.stderr ? e.stderr.toString() : e.message}`);
    }
    console.log(`${dryRun ? 'dry-run ' : ''}applied ${objects.length} ${what}`);
  };
  const waitCaBundles = (webhooks) => {
    const deadline = Date.now() + parseInt(timeout, 10) * 1000;
    for (const w of webhooks.filter((x) => x.kind !== 'APIService')) {
      const ref = `${w.kind.toLowerCase()}/${w.metadata.name}`;
      for (;;) {
        const got = JSON.parse(run(['get', ref, '-o', 'json']));
        if ((got.webhooks || []).every((h) => h.clientConfig && h.clientConfig.caBundle)) break;
        if (Date.now() > deadline) throw new Error(`${ref} has no caBundle after ${timeout}: is the controller that injects it running (Kueue, cdk8s-kueue-ray-controller, or cert-manager's cainjector)?`);
        execFileSync('sleep', ['2']);
      }
    }
  };

  if (!fs.existsSync(dist)) throw new Error(`${dist} does not exist: run \`npx cdk8s synth\` first`);
  const files = fs.readdirSync(dist).filter((f) => f.endsWith('.k8s.yaml')).sort();
  const docs = files.map((f) => ({ file: f, objects: YAML.parseAllDocuments(fs.readFileSync(path.join(dist, f), 'utf8')).map((d) => d.toJS()).filter(Boolean) }));
  const p = plan(docs);

  apply(p.crds, 'CustomResourceDefinitions');
  if (p.crds.length && !dryRun) {
    run(['wait', '--for=condition=Established', `--timeout=${timeout}`, ...p.crds.map((c) => `crd/${c.metadata.name}`)]);
    console.log(`${p.crds.length} CRDs Established`);
  }
  apply(p.namespaces, 'Namespaces');
  apply(p.serving, 'install objects (operators, controller, RBAC, services, config)');
  if (!noWait && !dryRun) {
    for (const d of p.deployments) run(['-n', d.namespace, 'rollout', 'status', `deployment/${d.name}`, `--timeout=${timeout}`]);
    for (const s of p.services) run(['-n', s.namespace, 'wait', '--for=jsonpath={.subsets[0].addresses[0].ip}', `endpoints/${s.name}`, `--timeout=${timeout}`]);
    console.log(`${p.deployments.length} deployments rolled out; ${p.services.length} webhook services have endpoints`);
    apply(p.webhooks, 'webhook configurations');
    waitCaBundles(p.webhooks);
    console.log('every webhook configuration has its caBundle');
    apply(p.rest, 'queues, tenants and workloads');
  } else {
    apply(p.rest, 'queues, tenants and workloads');
    apply(p.webhooks, 'webhook configurations');
  }
}

module.exports = { plan };

if (require.main === module) {
  try {
    main(process.argv.slice(2));
  } catch (e) {
    console.error(`apply: ${e.message}`);
    process.exit(1);
  }
}
