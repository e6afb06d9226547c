// Size limits of src: no file over 600 lines and no function over 80, so each stays readable in one
// sitting. Functions are every function-like node the TypeScript compiler sees (declarations, methods,
// arrow functions, function expressions, constructors, accessors), nested ones counted on their own.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as ts from 'typescript';
import { REPO_ROOT } from './support/upstream';

const SRC = path.join(REPO_ROOT, 'src');
const MAX_FILE_LINES = 600;
const MAX_FUNCTION_LINES = 80;

function tsFilesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return tsFilesUnder(full);
    return e.isFile() && e.name.endsWith('.ts') ? [full] : [];
  });
}

function isFunctionLike(n: ts.Node): n is ts.FunctionLikeDeclaration {
  return ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isArrowFunction(n) || ts.isFunctionExpression(n)
    || ts.isConstructorDeclaration(n) || ts.isGetAccessorDeclaration(n) || ts.isSetAccessorDeclaration(n);
}

/** A readable name for a function: its own, its variable's or property's, else the kind of node. */
function nameOf(n: ts.FunctionLikeDeclaration, sf: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(n)) return 'constructor';
  if (n.name) return n.name.getText(sf);
  const p = n.parent;
  if ((ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) && p.name) return p.name.getText(sf);
  if (ts.isCallExpression(p)) return `callback of ${p.expression.getText(sf).slice(0, 40)}`;
  return ts.SyntaxKind[n.kind];
}

interface Offender { readonly where: string; readonly lines: number; readonly what: string }

/** Every function-like node of `file` longer than MAX_FUNCTION_LINES (lines from its first token to its last). */
function longFunctions(file: string): Offender[] {
  const sf = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: Offender[] = [];
  const visit = (n: ts.Node): void => {
    if (isFunctionLike(n) && n.body) {
      const first = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(n.getEnd()).line;
      const lines = last - first + 1;
      if (lines > MAX_FUNCTION_LINES) out.push({ where: `${path.relative(REPO_ROOT, file)}:${first + 1}`, lines, what: nameOf(n, sf) });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

const files = tsFilesUnder(SRC);

test('src holds TypeScript files to measure', () => {
  expect(files.length).toBeGreaterThan(20);
});

test(`no file in src is over ${MAX_FILE_LINES} lines`, () => {
  const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  const offenders = files
    .map((f) => ({ where: `${path.relative(REPO_ROOT, f)}:1`, lines: lineCount(fs.readFileSync(f, 'utf8')) }))
    .filter((o) => o.lines > MAX_FILE_LINES)
    .map((o) => `${o.where}: ${o.lines} lines`);
  expect(offenders).toEqual([]);
});

test(`no function in src spans more than ${MAX_FUNCTION_LINES} lines`, () => {
  const offenders = files.flatMap(longFunctions).map((o) => `${o.where}: ${o.what} is ${o.lines} lines`);
  expect(offenders).toEqual([]);
});

test('the measure counts a function from its first line to its last', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'source-size-'));
  const file = path.join(dir, 'long.ts');
  const body = Array.from({ length: MAX_FUNCTION_LINES - 1 }, (_, i) => `  const v${i} = ${i};`).join('\n');
  fs.writeFileSync(file,
    `export function fits() {\n${body.split('\n').slice(1).join('\n')}\n}\nclass C {\n  long(): void {\n${body}\n  }\n}\nexport const c = C;\n`);
  expect(longFunctions(file)).toEqual([{ where: expect.stringMatching(/long\.ts:82$/), lines: MAX_FUNCTION_LINES + 1, what: 'long' }]);
});
