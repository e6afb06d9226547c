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
// A re-apply never restarts, unsuspends or reshapes a workload: a Ray object that exists already is applied
// with its live suspend value (Kueue's to change: it unsuspends on admission and suspends on preemption),
// guarded by its resourceVersion, and without --force-conflicts; if a field of it is owned by Kueue,
// KubeRay or the Ray autoscaler (an elastic cluster's worker groups), the object is left as it is and
// listed with those fields.
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
  const unnamed = docs.flatMap((d) => d.objects.filter((o) => !o.metadata || !o.metadata.name).map((o) => ({ file: d.file, o })));
  if (unnamed.length) {
    const list = unnamed.map(({ file, o }) => `  ${file}: ${o.kind} ${(o.metadata && o.metadata.generateName) || '(no name)'}*`).join('\n');
    throw new Error(`${unnamed.length} object(s) have no metadata.name (generateName), so they cannot be applied:\n${list}\n`
      + 'create them with kubectl create -f <file>: put them in a chart of their own and synthesize with KueueRayApp, which writes such charts to '
      + 'dist/create/ (skipped by this apply; README, "Installs")');
  }
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
    deployments: servingObjects.filter((o) => o.kind === 'Deployment')
      .map((o) => ({ namespace: o.metadata.namespace || 'default', name: o.metadata.name })),
    services: [...services.values()],
    webhooks,
    rest: docs.filter((d) => !serving.has(d.file)).flatMap((d) => d.objects).filter((o) => o.kind !== 'Namespace'),
  };
}

const USAGE = `usage: cdk8s-kueue-ray-apply [DIR] [--dry-run] [--no-wait] [--kubeconfig FILE]

The ordered, server-side apply of a synthesized dist/ (DIR, default dist): CRDs, then namespaces, the
installs and the controller, their rollout and webhook endpoints, the webhook configurations and their
caBundles, then queues, tenants and workloads. Ray objects that exist already keep what Kueue and KubeRay
own (their live suspend value is re-applied and conflicts are never forced), so a re-apply restarts and
unsuspends nothing.

  --dry-run          server-side dry run of every object (the CRDs and namespaces must exist already)
  --no-wait          do not wait for rollouts, endpoints or caBundles (a cluster that runs no pods)
  --kubeconfig FILE  the cluster (default: kubectl's, i.e. KUBECONFIG or ~/.kube/config)
  -h, --help         this text

kubectl is taken from KUBECTL (default: kubectl on the PATH); APPLY_TIMEOUT bounds each wait (300s).`;

/** The options, or { exit, message } for --help (0) and a usage error (2), decided before anything is applied. */
function parseArgs(args) {
  const out = { dist: undefined, dryRun: false, noWait: false, kubeconfig: undefined };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '-h' || a === '--help') return { exit: 0, message: USAGE };
    if (a === '--dry-run') out.dryRun = true;
    else if (a === '--no-wait') out.noWait = true;
    else if (a === '--kubeconfig' || a.startsWith('--kubeconfig=')) {
      out.kubeconfig = a.includes('=') ? a.slice(a.indexOf('=') + 1) : args[++i];
      if (!out.kubeconfig) return { exit: 2, message: `--kubeconfig needs a file\n${USAGE}` };
    } else if (a.startsWith('-')) return { exit: 2, message: `unknown flag ${a}\n${USAGE}` };
    else if (out.dist !== undefined) return { exit: 2, message: `one folder only (got ${out.dist} and ${a})\n${USAGE}` };
    else out.dist = a;
  }
  return { ...out, dist: out.dist || 'dist' };
}

const isRay = (o) => typeof o.apiVersion === 'string' && o.apiVersion.startsWith('ray.io/');
// Where Kueue suspends each Ray kind (the kind table, src/policy/kinds: test/scripts/apply-plan.test.ts checks
// that these are its suspend fields; this script runs without the compiled library).
const SUSPEND_FIELDS = { RayJob: ['spec', 'suspend'], RayCluster: ['spec', 'suspend'], RayService: ['spec', 'rayClusterConfig', 'suspend'] };

/** A copy of a Ray object without the suspend field Kueue owns after admission. */
function withoutSuspend(o) {
  const c = JSON.parse(JSON.stringify(o));
  const p = SUSPEND_FIELDS[c.kind];
  if (!p) return c;
  let at = c;
  for (const k of p.slice(0, -1)) at = at && typeof at === 'object' ? at[k] : undefined;
  if (at && typeof at === 'object') delete at[p[p.length - 1]];
  return c;
}

const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A Ray object to re-apply over `live`: its suspend field carries the live value, and its resourceVersion
 * the live one. Left out, server-side apply would remove a field this manager set at create (the webhook's
 * or the synthesized suspend: true) and so unsuspend a pending object; the same value as Kueue's changes
 * nothing and conflicts with nothing. The resourceVersion makes the apply fail, rather than suspend again,
 * if Kueue admitted the object after `live` was read. `suspend`: the value carried (undefined: none).
 */
function withLiveSuspend(o, live) {
  const c = withoutSuspend(o);
  const p = SUSPEND_FIELDS[c.kind];
  c.metadata = { ...c.metadata, resourceVersion: live.metadata.resourceVersion };
  if (!p) return { object: c, field: undefined, suspend: undefined };
  let from = live;
  for (const k of p) from = isObject(from) ? from[k] : undefined;
  const field = p.join('.');
  if (typeof from !== 'boolean') return { object: c, field, suspend: undefined };
  let at = c;
  for (const k of p.slice(0, -1)) {
    if (!isObject(at[k])) at[k] = {};
    at = at[k];
  }
  at[p[p.length - 1]] = from;
  return { object: c, field, suspend: from };
}

/** How a re-apply leaves an object's suspend field (withLiveSuspend's result), for the apply's listing. */
function suspendNote(next) {
  if (next.field === undefined) return 'no suspend field';
  if (next.suspend === undefined) return `${next.field} unset, left unset`;
  return next.suspend ? `${next.field} true, left to Kueue (pending: Kueue unsuspends it when it admits its Workload)`
    : `${next.field} false, left to Kueue`;
}

function main(args) {
  const parsed = parseArgs(args);
  if (parsed.exit !== undefined) {
    (parsed.exit === 0 ? console.log : console.error)(parsed.message);
    return parsed.exit;
  }
  const { dist, dryRun, noWait, kubeconfig } = parsed;
  const kubectl = process.env.KUBECTL || 'kubectl';
  const timeout = process.env.APPLY_TIMEOUT || '300s';

  const run = (argv, input) => {
    const full = [...(kubeconfig ? ['--kubeconfig', kubeconfig] : []), ...argv];
    return execFileSync(kubectl, full, { input, stdio: ['pipe', 'pipe', 'pipe'], maxBuffer: 256 * 1024 * 1024 }).toString();
  };
  const apply = (objects, what, force = true, hint = '') => {
    if (!objects.length) return;
    const input = objects.map((o) => YAML.stringify(o)).join('---\n');
    try {
      run(['apply', '--server-side', ...(force ? ['--force-conflicts'] : []), '--field-manager=cdk8s-kueue-ray',
        ...(dryRun ? ['--dry-run=server'] : []), '-f', '-'], input);
    } catch (e) {
      throw new Error(`apply of ${what} failed:\n${e.stderr ? e.stderr.toString() : e.message}${hint}`);
    }
    console.log(`${dryRun ? 'dry-run ' : ''}applied ${objects.length} ${what}`);
  };
  const key = (o) => `${o.kind}/${o.metadata.namespace || ''}/${o.metadata.name}`;
  // The live objects of `objects` that exist already, by kind/namespace/name.
  const existing = (objects) => {
    if (!objects.length) return new Map();
    const input = objects.map((o) => YAML.stringify({ apiVersion: o.apiVersion, kind: o.kind,
      metadata: { name: o.metadata.name, namespace: o.metadata.namespace } })).join('---\n');
    // kubectl prints a List, one object, or nothing (none found), depending on the count.
    const text = run(['get', '--ignore-not-found', '-o', 'json', '-f', '-'], input).trim();
    const got = text ? JSON.parse(text) : {};
    const items = Array.isArray(got.items) ? got.items : [got];
    return new Map(items.filter((o) => o && o.metadata && o.metadata.name).map((o) => [key(o), o]));
  };
  // Queues, tenants and workloads. A Ray object already on the cluster is applied on its own, with its live
  // suspend value and without forcing: applying suspend: true again would suspend an admitted workload
  // (KubeRay deletes its RayCluster, Kueue admits it again, the work restarts), leaving it out would
  // unsuspend a pending one (server-side apply removes a field its manager set and no longer sends), and
  // forcing would take back worker replicas the autoscaler or Kueue set. If another manager owns a field,
  // the object is left as it is.
  const applyRest = (objects) => {
    const ray = objects.filter(isRay);
    const there = existing(ray);
    apply(objects.filter((o) => !isRay(o) || !there.has(key(o))), 'queues, tenants and workloads');
    const kept = [];
    const updated = [];
    for (const o of ray.filter((x) => there.has(key(x)))) {
      try {
        // The object changed since it was read (Kueue admitted it, KubeRay wrote its status): read it again.
        let live = there.get(key(o));
        for (let attempt = 1; ; attempt++) {
          const next = withLiveSuspend(o, live);
          try {
            run(['apply', '--server-side', '--field-manager=cdk8s-kueue-ray', ...(dryRun ? ['--dry-run=server'] : []), '-f', '-'],
              YAML.stringify(next.object));
            updated.push(`  ${o.kind} ${o.metadata.namespace || ''}/${o.metadata.name}: ${suspendNote(next)}`);
            break;
          } catch (e) {
            const err = e.stderr ? e.stderr.toString() : e.message;
            if (attempt >= 5 || !/the object has been modified/.test(err)) throw e;
            live = existing([o]).get(key(o));
            if (!live) throw new Error(`${key(o)} was deleted during the apply`);
          }
        }
      } catch (e) {
        const err = e.stderr ? e.stderr.toString() : e.message;
        if (!/Apply failed with \d+ conflicts?/.test(err)) throw new Error(`apply of ${key(o)} failed:\n${err}`);
        const fields = [...err.matchAll(/conflicts? with "([^"]+)"[^:]*:\s*(?:\n- )?(\S+)/g), ...err.matchAll(/^- (\S+)$/gm)]
          .map((m) => m[2] || m[1]).filter((f) => f.startsWith('.'));
        const owners = [...new Set([...err.matchAll(/conflicts? with "([^"]+)"/g)].map((m) => m[1]))];
        kept.push(`  ${o.kind} ${o.metadata.namespace || ''}/${o.metadata.name}: ${[...new Set(fields)].join(', ') || 'fields'} owned `
          + `by ${owners.join(', ')}; ${suspendNote(withLiveSuspend(o, there.get(key(o))))}`);
      }
    }
    if (updated.length) {
      console.log(`${dryRun ? 'dry-run ' : ''}updated ${updated.length} Ray object(s) that exist already (their suspend field left to Kueue):\n`
        + updated.join('\n'));
    }
    if (kept.length) {
      console.log(`left ${kept.length} Ray object(s) as they are: Kueue, KubeRay or the autoscaler own these fields (delete and apply again `
        + `to change them; the work restarts):\n${kept.join('\n')}`);
    }
  };
  const waitCaBundles = (webhooks) => {
    const deadline = Date.now() + parseInt(timeout, 10) * 1000;
    for (const w of webhooks.filter((x) => x.kind !== 'APIService')) {
      const ref = `${w.kind.toLowerCase()}/${w.metadata.name}`;
      for (;;) {
        const got = JSON.parse(run(['get', ref, '-o', 'json']));
        if ((got.webhooks || []).every((h) => h.clientConfig && h.clientConfig.caBundle)) break;
        if (Date.now() > deadline) throw new Error(`${ref} has no caBundle after ${timeout}: is the controller that injects it running (Kueue, `
          + 'cdk8s-kueue-ray-controller, or cert-manager\'s cainjector)?');
        execFileSync('sleep', ['2']);
      }
    }
  };

  if (!fs.existsSync(dist)) throw new Error(`${dist} does not exist: run \`npx cdk8s synth\` first`);
  const files = fs.readdirSync(dist).filter((f) => f.endsWith('.k8s.yaml')).sort();
  const docs = files.map((f) => ({ file: f,
    objects: YAML.parseAllDocuments(fs.readFileSync(path.join(dist, f), 'utf8')).map((d) => d.toJS()).filter(Boolean) }));
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
    for (const s of p.services) run(['-n', s.namespace, 'wait', '--for=jsonpath={.subsets[0].addresses[0].ip}', `endpoints/${s.name}`,
      `--timeout=${timeout}`]);
    console.log(`${p.deployments.length} deployments rolled out; ${p.services.length} webhook services have endpoints`);
    apply(p.webhooks, 'webhook configurations');
    waitCaBundles(p.webhooks);
    console.log('every webhook configuration has its caBundle');
    applyRest(p.rest);
  } else {
    applyRest(p.rest);
    apply(p.webhooks, 'webhook configurations');
  }
  return 0;
}

module.exports = { plan, parseArgs, withoutSuspend, withLiveSuspend, suspendNote, SUSPEND_FIELDS };

if (require.main === module) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (e) {
    console.error(`apply: ${e.message}`);
    process.exit(1);
  }
}
