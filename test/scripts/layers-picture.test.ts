// The layers table (scripts/lint/layers.mjs) is the code's picture: the folder edges src/'s imports make are exactly
// the table's, and docs/dev/architecture.md shows what the table renders. The lint rule refuses an edge the table
// lacks (layers-lint.test.ts); this test refuses an edge the table keeps after the code stopped using it.
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

const ROOT = path.join(__dirname, '..', '..');

// The table is an ES module (ESLint loads it); jest's module system refuses a dynamic import, so a child reads it.
const READ = `import(require('url').pathToFileURL(require('path').resolve('scripts/lint/layers.mjs')).href).then((m) => {
  process.stdout.write(JSON.stringify({ layers: m.LAYERS, edges: Object.fromEntries(m.folderEdges(require('path').resolve('src'))),
    picture: m.renderLayers() }));
});`;

const { layers, edges, picture } = JSON.parse(execFileSync(process.execPath, ['-e', READ], { cwd: ROOT, encoding: 'utf8' })) as {
  layers: Array<{ folder: string; uses: string[] }>; edges: Record<string, string>; picture: string;
};
const allowed = layers.flatMap((l) => l.uses.map((u) => `${l.folder} -> ${u}`)).sort();

test('every folder of src/ is a layer of the table, and every layer a folder', () => {
  const folders = fs.readdirSync(path.join(ROOT, 'src'), { withFileTypes: true })
    .map((e) => (e.isDirectory() ? e.name : e.name.replace(/\.ts$/, ''))).sort();
  expect(layers.map((l) => l.folder).sort()).toEqual(folders);
});

test('the folder edges the imports make are exactly the table\'s', () => {
  // An edge the code makes and the table lacks names its first import; one the table keeps and no import makes is unused.
  const made = Object.keys(edges).sort();
  expect({ notInTable: made.filter((e) => !allowed.includes(e)).map((e) => `${e} (${edges[e]})`), unused: allowed.filter((e) => !made.includes(e)) })
    .toEqual({ notInTable: [], unused: [] });
});

test('the table goes one way: no layer reaches itself through the edges', () => {
  const uses = new Map(layers.map((l) => [l.folder, l.uses]));
  const reaches = (from: string, seen = new Set<string>()): Set<string> => {
    for (const u of uses.get(from) ?? []) if (!seen.has(u)) reaches(u, seen.add(u));
    return seen;
  };
  expect(layers.filter((l) => reaches(l.folder).has(l.folder)).map((l) => l.folder)).toEqual([]);
});

test('docs/dev/architecture.md shows the picture the table renders', () => {
  expect(fs.readFileSync(path.join(ROOT, 'docs', 'dev', 'architecture.md'), 'utf8')).toContain(picture);
});
