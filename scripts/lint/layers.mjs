// The layers of src/, as one table: each folder and the folders it may import. The ESLint rule below refuses any
// other import between folders, test/scripts/layers-picture.test.ts checks that the code's imports use exactly
// these edges (no allowed edge unused, so the table is the code's picture and not a wish), and
// docs/dev/architecture.md shows the picture `node scripts/lint/layers.mjs` renders from it.
import fs from 'fs';
import path from 'path';
import ts from 'typescript';
import { fileURLToPath } from 'url';

/** Bottom first. `index` is src/index.ts, the constructs' public API. */
export const LAYERS = [
  { folder: 'policy', uses: [], what: 'the pure rules, the version table, the plan simulator: no cdk8s, no I/O' },
  { folder: 'kube', uses: [], what: 'the one cluster client (client-node), for the controller and the CLIs' },
  { folder: 'platform', uses: ['policy'], what: "cdk8s helpers every construct shares: versions, quantities, the app's inventory, "
    + 'container resources, tolerations' },
  { folder: 'kueue', uses: ['policy', 'platform'], what: 'the queue constructs (ClusterQueue, LocalQueue, TenantQueue, ...)' },
  { folder: 'install', uses: ['policy', 'platform'], what: 'KueueInstall, KubeRayInstall, the AdmissionController' },
  { folder: 'controller', uses: ['policy', 'kube'], what: 'the webhook and reconciler: no cdk8s, no constructs' },
  { folder: 'plan', uses: ['policy', 'platform'], what: "Plan.of(app) and the plan's text" },
  { folder: 'ray', uses: ['policy', 'platform', 'kueue'], what: 'the queued Ray workloads, which name their LocalQueue' },
  { folder: 'observability', uses: ['policy', 'platform', 'install'], what: 'QueueObservability, over the installs it watches' },
  { folder: 'index', uses: ['platform', 'kueue', 'install', 'plan', 'ray', 'observability'], what: 'the package API (jsii)' },
  { folder: 'cli', uses: ['policy', 'kube', 'install', 'controller', 'plan'], what: 'check, plan, apply, and the controller entrypoint' },
];

const USES = new Map(LAYERS.map((l) => [l.folder, new Set(l.uses)]));

/** The layer of a file under srcDir: its first folder, or `index` for src/index.ts; undefined outside src. */
export function layerOf(srcDir, file) {
  const rel = path.relative(srcDir, file);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
  const parts = rel.split(path.sep);
  return parts.length === 1 ? path.basename(parts[0], '.ts') : parts[0];
}

function resolve(from, spec) {
  if (!spec.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), spec);
  for (const f of [`${base}.ts`, path.join(base, 'index.ts')]) if (fs.existsSync(f)) return f;
  return undefined;
}

function walk(dir, out) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/**
 * The folder edges the code's static imports (import type and export-from included, dynamic import() not) make:
 * "from -> to" → the first importing file and its specifier.
 */
export function folderEdges(srcDir) {
  const edges = new Map();
  for (const file of walk(srcDir, []).sort()) {
    const from = layerOf(srcDir, file);
    for (const i of ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, false).importedFiles) {
      const target = resolve(file, i.fileName);
      const to = target && layerOf(srcDir, target);
      if (!to || to === from) continue;
      const key = `${from} -> ${to}`;
      if (!edges.has(key)) edges.set(key, `${path.relative(srcDir, file)}: '${i.fileName}'`);
    }
  }
  return edges;
}

/** The picture for docs/dev/architecture.md: a Mermaid graph, each arrow an import the code makes. */
export function renderLayers() {
  const lines = ['```mermaid', 'flowchart BT'];
  for (const l of LAYERS) lines.push(`  ${l.folder}["${l.folder === 'index' ? 'index.ts' : `${l.folder}/`}"]`);
  for (const l of LAYERS) for (const u of l.uses) lines.push(`  ${l.folder} --> ${u}`);
  lines.push('```', '', '| layer | may import | what it holds |', '|---|---|---|');
  for (const l of LAYERS) lines.push(`| \`${l.folder}\` | ${l.uses.map((u) => `\`${u}\``).join(', ') || '-'} | ${l.what} |`);
  return lines.join('\n');
}

export default {
  meta: {
    type: 'problem',
    docs: { description: 'an import between two folders of src/ goes down the layers table (scripts/lint/layers.mjs)' },
    schema: [],
    messages: {
      layer: 'src/{{from}} may import {{allowed}}, not src/{{to}} (the layers: scripts/lint/layers.mjs, docs/dev/architecture.md). '
        + 'Move what both need down into a layer both may import',
      unknown: 'src/{{from}} is not in the layers table: add it to LAYERS in scripts/lint/layers.mjs, with the folders it may import',
    },
  },
  create(context) {
    const file = context.filename;
    const srcDir = path.join(context.cwd, 'src');
    const from = layerOf(srcDir, file);
    if (!from) return {};
    const allowed = USES.get(from);
    return {
      Program(node) {
        if (!allowed) {
          context.report({ node, messageId: 'unknown', data: { from } });
          return;
        }
        for (const stmt of node.body) {
          const spec = stmt.source?.value;
          if (typeof spec !== 'string' || !['ImportDeclaration', 'ExportNamedDeclaration', 'ExportAllDeclaration'].includes(stmt.type)) continue;
          const target = resolve(file, spec);
          const to = target && layerOf(srcDir, target);
          if (!to || to === from || allowed.has(to)) continue;
          context.report({ node: stmt, messageId: 'layer', data: { from, to, allowed: [...allowed].join(', ') || 'no other folder' } });
        }
      },
    };
  },
};

// `node scripts/lint/layers.mjs` prints the picture for docs/dev/architecture.md.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.stdout.write(`${renderLayers()}\n`);
