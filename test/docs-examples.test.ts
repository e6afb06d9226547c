// Issue 41: the docs cannot rot. Every complete TypeScript example of README.md and docs/ (a block that
// imports 'cdk8s-kueue-ray' and calls synth()) type-checks under strict settings against the package's
// API and synthesizes as written, offline, with the releases the package carries.
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';
import { RELEASES_DIR_ENV } from '../src/install/bundled-releases';
import { tmpdir } from './support/synth';
import { REPO_ROOT } from './support/upstream';

interface Example { readonly file: string; readonly line: number; readonly code: string }

function examples(): Example[] {
  const files = ['README.md', ...fs.readdirSync(path.join(REPO_ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  return files.flatMap((file) => {
    const text = fs.readFileSync(path.join(REPO_ROOT, file), 'utf8');
    return [...text.matchAll(/```(?:ts|typescript)\n([\s\S]*?)```/g)]
      .filter((m) => m[1].includes("from 'cdk8s-kueue-ray'") && /\bsynth\(\)/.test(m[1]))
      .map((m) => ({ file, line: text.slice(0, m.index).split('\n').length + 1, code: m[1] }));
  });
}

const EXAMPLES = examples();

test('the complete examples are found (the README\'s two, docs/constructs.md\'s two at least)', () => {
  expect(EXAMPLES.filter((e) => e.file === 'README.md').length).toBeGreaterThanOrEqual(2);
  expect(EXAMPLES.filter((e) => e.file === 'docs/constructs.md').length).toBeGreaterThanOrEqual(2);
});

test('every complete example type-checks under strict settings', () => {
  const dir = fs.mkdtempSync(path.join(REPO_ROOT, 'test', '.docs-examples-'));
  try {
    const mains = EXAMPLES.map((e, i) => {
      const f = path.join(dir, `example${i}.ts`);
      // Each file a module of its own, so the examples' top-level names do not collide.
      fs.writeFileSync(f, `${e.code}\nexport {};\n`);
      return f;
    });
    const program = ts.createProgram(mains, {
      strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, esModuleInterop: true, skipLibCheck: true,
      moduleResolution: ts.ModuleResolutionKind.Node10, baseUrl: REPO_ROOT, paths: { 'cdk8s-kueue-ray': ['src/index.ts'] },
    });
    const errors = ts.getPreEmitDiagnostics(program).filter((d) => d.file && mains.includes(d.file.fileName)).map((d) => {
      const e = EXAMPLES[mains.indexOf(d.file!.fileName)];
      const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
      return `${e.file}:${e.line + line}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
    });
    expect(errors).toEqual([]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 180_000);

describe('every complete example synthesizes offline', () => {
  const saved = { releases: process.env[RELEASES_DIR_ENV], outdir: process.env.CDK8S_OUTDIR, cache: process.env.CDK8S_KUEUE_RAY_CACHE };
  let cache: string;
  beforeAll(() => {
    const bundle = path.join(tmpdir(), 'releases');
    execFileSync(process.execPath, [path.join(REPO_ROOT, 'scripts', 'pack-releases.js'), bundle], { stdio: 'pipe' });
    process.env[RELEASES_DIR_ENV] = bundle;
    cache = path.join(tmpdir(), 'cache');
    process.env.CDK8S_KUEUE_RAY_CACHE = cache;
  });
  afterAll(() => {
    for (const [k, v] of [[RELEASES_DIR_ENV, saved.releases], ['CDK8S_OUTDIR', saved.outdir], ['CDK8S_KUEUE_RAY_CACHE', saved.cache]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  test.each(EXAMPLES.map((e) => [`${e.file}:${e.line}`, e]))('%s', (_where, e) => {
    const outdir = path.join(tmpdir(), 'dist');
    process.env.CDK8S_OUTDIR = outdir;
    const js = ts.transpileModule(e.code, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } }).outputText;
    const modules: Record<string, unknown> = { 'cdk8s-kueue-ray': require('../src') };
    const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      new Function('require', 'exports', js)((m: string) => modules[m] ?? require(m), {});
    } finally {
      log.mockRestore();
    }
    expect(fs.readdirSync(outdir).filter((f) => f.endsWith('.k8s.yaml')).length).toBeGreaterThan(0);
    // Offline: nothing was downloaded (a download is always cached).
    expect(fs.existsSync(cache)).toBe(false);
  }, 120_000);
});
