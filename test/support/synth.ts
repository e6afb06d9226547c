import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, Chart } from 'cdk8s';
import { parseAllDocuments } from 'yaml';
import { buildExamples, ExamplesOptions, Scenario, SCENARIOS } from '../../examples/app';
import { kubeRayCapabilities, kueueCapabilities } from '../../src/policy/versions';
import { rayServicePair } from '../../src/policy/pair-verdict';

export function tmpdir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'kueue-ray-test-'));
}

/** A new temp folder holding `contents` (relative path -> text; folders are made), for the CLIs' tests. */
export function tmpFiles(contents: Record<string, string>): string {
  const dir = tmpdir();
  for (const [name, text] of Object.entries(contents)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

/** Every object of every chart (create-only ones included), as synthesized. */
export function synthAll(app: App): any[] {
  const charts = app.node.findAll().filter((c): c is Chart => c instanceof Chart);
  return charts.flatMap((c) => c.toJson());
}

/** Scenarios a version pair refuses, with the message fragment the refusal must contain. */
export function refusedScenarios(kueue: string, kubeRay: string): Partial<Record<Scenario, string>> {
  const k = kueueCapabilities(kueue);
  const r = kubeRayCapabilities(kubeRay);
  const out: Partial<Record<Scenario, string>> = {};
  if (!k.elasticRayCluster) out['elastic-raycluster'] = 'elastic RayCluster needs Kueue >= v0.14.0';
  if (!k.elasticRayService) out['elastic-rayservice'] = 'elastic RayService needs Kueue >= v0.14.0';
  else if (rayServicePair(k, r).status === 'broken') out['elastic-rayservice'] = 'kuberay#4686';
  if (rayServicePair(k, r).status === 'broken') out.rayservice = 'kuberay#4686';
  return out;
}

export function supportedScenarios(kueue: string, kubeRay: string): Scenario[] {
  const refused = refusedScenarios(kueue, kubeRay);
  return SCENARIOS.filter((s) => !(s in refused));
}

export function examples(opts: Omit<ExamplesOptions, 'outdir'>) {
  return buildExamples({ outdir: tmpdir(), ...opts });
}

/** Every object of a multi-document YAML file. */
export function readManifests(file: string): any[] {
  return parseAllDocuments(fs.readFileSync(file, 'utf8')).map((d) => d.toJS()).filter(Boolean);
}

/** The synthesized files of a folder, by name without ".k8s.yaml", in file order. */
export function readManifestDir(dir: string): Record<string, any[]> {
  const out: Record<string, any[]> = {};
  for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.k8s.yaml')).sort()) out[f.replace(/\.k8s\.yaml$/, '')] = readManifests(path.join(dir, f));
  return out;
}
