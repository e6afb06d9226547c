// The README's examples are tested as written: fenced blocks are read from it at test time.
import * as fs from 'fs';
import * as path from 'path';
import { REPO_ROOT } from './upstream';

/**
 * The fenced blocks of `lang` in the README section under `heading` (the whole heading line, e.g.
 * "### One complete example"), up to the next heading of the same level; at least one, or it throws.
 */
export function readmeBlocks(heading: string, lang: string): string[] {
  const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`README.md has no heading "${heading}"`);
  const level = heading.split(' ')[0];
  const rest = readme.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`\\n${level} `));
  const section = end < 0 ? rest : rest.slice(0, end);
  const blocks = [...section.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]);
  if (!blocks.length) throw new Error(`README.md has no \`\`\`${lang} block under "${heading}"`);
  return blocks;
}
