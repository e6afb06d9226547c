// ESLint rule: no module of src/ imports, through any chain of static imports, itself. A circle hides which
// module is the lower one (CONTRIBUTING.md, "Layout": the snapshot below the flavor assigner and the preemptor, the
// policy below its callers), so the shared piece goes down into a module both import. `import type` counts (a
// type circle is the same tangle); a dynamic import() does not, since it is how a CLI loads a subcommand lazily.
// The graph of the other files is read from disk once per lint run; the linted file's own imports are its
// import and export declarations as linted.
import fs from 'fs';
import path from 'path';
import ts from 'typescript';

const graphs = new Map();

function resolve(from, spec) {
  if (!spec.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), spec);
  for (const f of [`${base}.ts`, path.join(base, 'index.ts')]) if (fs.existsSync(f)) return f;
  return undefined;
}

function staticImports(file, source) {
  // preProcessFile: every import, export-from and import type of the source, without dynamic import() (false).
  const pre = ts.preProcessFile(source, true, false);
  return pre.importedFiles.map((i) => resolve(file, i.fileName)).filter(Boolean);
}

function walk(dir, out) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

function graphOf(srcDir) {
  let g = graphs.get(srcDir);
  if (!g) {
    g = new Map(walk(srcDir, []).map((f) => [f, staticImports(f, fs.readFileSync(f, 'utf8'))]));
    graphs.set(srcDir, g);
  }
  return g;
}

/** The shortest chain of imports from `start` back to `target`, or undefined. */
function pathBack(g, start, target) {
  const prev = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length) {
    const f = queue.shift();
    for (const next of g.get(f) ?? []) {
      if (next === target) {
        const chain = [target];
        for (let at = f; at !== undefined; at = prev.get(at)) chain.unshift(at);
        return chain;
      }
      if (!prev.has(next)) {
        prev.set(next, f);
        queue.push(next);
      }
    }
  }
  return undefined;
}

export default {
  meta: {
    type: 'problem',
    docs: { description: 'no import circle among the modules of src/' },
    schema: [],
    messages: {
      cycle: 'import circle: {{chain}}. Move what both need down into a module they both import (CONTRIBUTING.md, "Layout")',
    },
  },
  create(context) {
    const file = context.filename;
    const srcDir = path.join(context.cwd, 'src');
    if (!file.startsWith(srcDir + path.sep)) return {};
    return {
      Program(node) {
        const g = graphOf(srcDir);
        const reported = new Set();
        for (const stmt of node.body) {
          const spec = stmt.source?.value;
          if (typeof spec !== 'string' || !['ImportDeclaration', 'ExportNamedDeclaration', 'ExportAllDeclaration'].includes(stmt.type)) continue;
          const target = resolve(file, spec);
          if (!target || reported.has(target)) continue;
          const chain = target === file ? [file] : pathBack(g, target, file);
          if (!chain) continue;
          reported.add(target);
          const rel = (f) => path.relative(srcDir, f);
          context.report({ node: stmt, messageId: 'cycle', data: { chain: [file, ...chain].map(rel).join(' → ') } });
        }
      },
    };
  },
};
