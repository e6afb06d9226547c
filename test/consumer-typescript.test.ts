// The npm package as a user installs it: the packed tarball (`npm run package`) in a fresh cdk8s
// TypeScript app with the files `cdk8s init typescript-app` writes (its strict tsconfig), on a cdk8s
// patch release other than the repo's. The README's TypeScript examples compile and synthesize there.
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseAllDocuments } from 'yaml';
import { REPO_ROOT } from './support/upstream';

const repoPkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
const TEMPLATE = path.join(REPO_ROOT, 'node_modules', 'cdk8s-cli', 'templates', 'typescript-app');
// The app's cdk8s: the newest 2.70 patch on the registry, not the repo's own (the lower bound of the peer range).
const APP_CDK8S = '2.70.106';

/** Fenced code blocks of one language under a README heading (up to the next heading of the same level). */
export function readmeBlocks(heading: string, lang: string): string[] {
  const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`README.md has no heading "${heading}"`);
  const level = heading.split(' ')[0];
  const rest = readme.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`\\n${level} `));
  const section = end < 0 ? rest : rest.slice(0, end);
  return [...section.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]);
}

function tarball(): string {
  const dir = path.join(REPO_ROOT, 'dist', 'js');
  const f = fs.existsSync(dir) ? fs.readdirSync(dir).find((n) => n.endsWith('.tgz')) : undefined;
  if (!f) throw new Error('dist/js/*.tgz is missing: run `npm run package` first (`npm test` does)');
  return path.join(dir, f);
}

const run = (cwd: string, cmd: string, args: string[], env: NodeJS.ProcessEnv = {}) =>
  execFileSync(cmd, args, { cwd, env: { ...process.env, CI: '1', ...env }, stdio: 'pipe', maxBuffer: 64 << 20 }).toString();

describe('the npm package in a fresh cdk8s TypeScript app', () => {
  let app: string;

  beforeAll(() => {
    expect(APP_CDK8S).not.toBe(repoPkg.devDependencies.cdk8s);
    app = fs.mkdtempSync(path.join(os.tmpdir(), 'kueue-ray-consumer-ts-'));
    // The files `cdk8s init typescript-app` writes, from the CLI's own template.
    fs.copyFileSync(path.join(TEMPLATE, 'tsconfig.json'), path.join(app, 'tsconfig.json'));
    fs.writeFileSync(path.join(app, 'cdk8s.yaml'), 'language: typescript\napp: npx ts-node main.ts\n');
    const template = JSON.parse(fs.readFileSync(path.join(TEMPLATE, 'package.json'), 'utf8'));
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({
      name: 'consumer-app', version: '1.0.0', private: true, main: 'main.js', types: 'main.ts', license: 'Apache-2.0',
      scripts: { compile: template.scripts.compile, synth: 'ts-node main.ts' },
      dependencies: {
        'cdk8s': APP_CDK8S,
        // What the init template adds beside cdk8s; it too must share the app's cdk8s.
        'cdk8s-plus-33': `^${JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'node_modules', 'cdk8s-plus-33', 'package.json'), 'utf8')).version}`,
        'constructs': repoPkg.peerDependencies.constructs,
        'cdk8s-kueue-ray': `file:${tarball()}`,
      },
      devDependencies: { 'typescript': repoPkg.devDependencies.typescript, 'ts-node': repoPkg.devDependencies['ts-node'], '@types/node': repoPkg.devDependencies['@types/node'] },
    }, null, 2));
    run(app, 'npm', ['install', '--no-audit', '--no-fund', '--loglevel=error']);
  }, 600_000);

  afterAll(() => {
    if (app) fs.rmSync(app, { recursive: true, force: true });
  });

  test('one cdk8s in the tree, and none of the controller\'s runtime dependencies', () => {
    const copies = run(app, 'npm', ['ls', 'cdk8s', '--all', '--parseable']).trim().split('\n').filter(Boolean);
    expect(copies).toEqual([path.join(fs.realpathSync(app), 'node_modules', 'cdk8s')]);
    expect(require(path.join(app, 'node_modules', 'cdk8s', 'package.json')).version).toBe(APP_CDK8S);
    for (const dep of ['@kubernetes/client-node', 'node-forge']) expect(fs.existsSync(path.join(app, 'node_modules', dep))).toBe(false);
    const pkg = path.join(app, 'node_modules', 'cdk8s-kueue-ray');
    for (const f of ['LICENSE', 'NOTICE', '.jsii', 'lib/src/index.js', 'lib/src/index.d.ts']) expect(fs.existsSync(path.join(pkg, f))).toBe(true);
    // What construct users load never reaches the controller's code.
    expect(fs.existsSync(path.join(pkg, 'lib', 'src', 'controller'))).toBe(false);
    const du = (p: string) => Number(run(app, 'du', ['-sk', p]).split('\t')[0]);
    console.log(`consumer install: node_modules ${du('node_modules')} KiB, cdk8s-kueue-ray ${du(pkg)} KiB`);
  });

  test('the README\'s complete example compiles under the init tsconfig and synthesizes', () => {
    const [example] = readmeBlocks('### One complete example', 'ts');
    expect(example).toContain("from 'cdk8s-kueue-ray'");
    fs.writeFileSync(path.join(app, 'main.ts'), example);
    run(app, 'npx', ['tsc', '--build']);
    fs.rmSync(path.join(app, 'dist'), { recursive: true, force: true });
    const out = run(app, 'npx', ['ts-node', 'main.ts']);
    expect(out).toMatch(/cpu: '2\.5'/);
    const docs = fs.readdirSync(path.join(app, 'dist')).flatMap((f) =>
      parseAllDocuments(fs.readFileSync(path.join(app, 'dist', f), 'utf8')).map((d) => d.toJS()));
    const job = docs.find((d) => d.kind === 'RayJob');
    expect(job.metadata.labels).toMatchObject({ 'kueue.x-k8s.io/queue-name': 'user-queue', 'kueue.x-k8s.io/priority-class': 'dev-priority' });
    expect(job.spec.suspend).toBe(true);
    expect(docs.map((d) => d.kind).sort()).toEqual(['ClusterQueue', 'LocalQueue', 'RayJob', 'ResourceFlavor', 'WorkloadPriorityClass']);
  }, 300_000);
});
