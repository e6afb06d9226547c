// Issue 41: the API reference (API.md for TypeScript, API.python.md for Python) is what jsii-docgen
// writes for the current assembly; a stale one fails here with the fix (`npm run docgen`). Every public type,
// property, method and enum member of the assembly has a summary, and every optional prop has @default.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { REPO_ROOT } from '../support/upstream';

test('API.md and API.python.md are current (npm run docgen)', () => {
  const r = spawnSync(process.execPath, [path.join(REPO_ROOT, 'scripts', 'docgen.js'), '--check'], { cwd: REPO_ROOT, encoding: 'utf8' });
  expect([r.status, r.stderr.split('\n').filter((l) => l.startsWith('docgen:'))]).toEqual([0, []]);
  expect(r.stdout).toBe('docgen: API.md, API.python.md current\n');
}, 300_000);

test('the references cover the constructs in each language, and the README points at them', () => {
  const ts = fs.readFileSync(path.join(REPO_ROOT, 'API.md'), 'utf8');
  const py = fs.readFileSync(path.join(REPO_ROOT, 'API.python.md'), 'utf8');
  for (const name of ['KueueInstall', 'KubeRayInstall', 'ElasticRayCluster', 'ElasticRayService', 'QueuedRayJob', 'TenantQueue']) {
    expect([name, ts.includes(`### ${name} `), py.includes(`### ${name} `)]).toEqual([name, true, true]);
  }
  expect(ts).toContain("import { KueueInstall } from 'cdk8s-kueue-ray'");
  expect(py).toContain('import cdk8s_kueue_ray');
  expect(py).toContain('manifest_file');
  const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  expect(readme).toContain('[API.md](API.md)');
  expect(readme).toContain('[API.python.md](API.python.md)');
});

interface Docs { readonly summary?: string; readonly default?: string }
interface Member { readonly name: string; readonly docs?: Docs; readonly optional?: boolean }
interface JsiiType {
  readonly fqn: string; readonly kind: string; readonly docs?: Docs; readonly datatype?: boolean;
  readonly properties?: Member[]; readonly methods?: Member[]; readonly members?: Member[];
}

/** What the assembly's public API leaves undocumented, one line each naming the type and member and what is missing. */
function undocumented(types: Record<string, JsiiType>): string[] {
  const missing: string[] = [];
  // A summary that only restates the name ("Name.", "The value") says nothing.
  const bare = (s: string | undefined, name: string) => !s?.trim()
    || s.toLowerCase().replace(/^the /, '').replace(/[^a-z0-9]/g, '') === name.toLowerCase().replace(/[^a-z0-9]/g, '');
  for (const t of Object.values(types)) {
    const type = t.fqn.split('.').pop()!;
    if (bare(t.docs?.summary, type)) missing.push(`${type}: no summary`);
    for (const p of t.properties ?? []) {
      if (bare(p.docs?.summary, p.name)) missing.push(`${type}.${p.name}: no summary`);
      if (t.datatype && p.optional && p.docs?.default === undefined) missing.push(`${type}.${p.name}: optional with no @default`);
    }
    for (const m of t.methods ?? []) if (bare(m.docs?.summary, m.name)) missing.push(`${type}.${m.name}(): no summary`);
    for (const m of t.members ?? []) if (bare(m.docs?.summary, m.name)) missing.push(`${type}.${m.name}: no summary`);
  }
  return missing;
}

test('every public type, property, method and enum member has a summary, and every optional prop @default', () => {
  // The first test rebuilt .jsii when src/ was newer (scripts/docgen.js), so this is the current API.
  const assembly = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, '.jsii'), 'utf8')) as { types: Record<string, JsiiType> };
  const types = Object.values(assembly.types);
  // Not vacuous: the constructs, their props and the enums are all there.
  expect(types.length).toBeGreaterThan(100);
  expect(types.filter((t) => t.datatype && (t.properties ?? []).some((p) => p.optional)).length).toBeGreaterThanOrEqual(30);
  expect(undocumented(assembly.types)).toEqual([]);
});

test('the check names what is missing: a type, a prop, an optional prop without @default, an enum member, a restated name', () => {
  expect(undocumented({
    'x.Good': { fqn: 'x.Good', kind: 'interface', datatype: true, docs: { summary: 'A documented struct.' },
      properties: [{ name: 'replicas', optional: true, docs: { summary: 'Workers of the group.', default: '1' } }] },
    'x.FooProps': { fqn: 'x.FooProps', kind: 'interface', datatype: true,
      properties: [{ name: 'a', docs: {} }, { name: 'b', optional: true, docs: { summary: 'Something useful.' } },
        { name: 'name', docs: { summary: 'Name.' } }] },
    'x.Mode': { fqn: 'x.Mode', kind: 'enum', docs: { summary: 'Modes.' }, members: [{ name: 'ON' }] },
    'x.Thing': { fqn: 'x.Thing', kind: 'class', docs: { summary: 'A thing.' }, methods: [{ name: 'toString' }] },
  })).toEqual(['FooProps: no summary', 'FooProps.a: no summary', 'FooProps.b: optional with no @default', 'FooProps.name: no summary',
    'Mode.ON: no summary', 'Thing.toString(): no summary']);
});
