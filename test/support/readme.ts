// The README's and docs/'s examples are tested as written: fenced blocks are read from them at test time.
import * as fs from 'fs';
import * as path from 'path';
import { REPO_ROOT } from './upstream';

/**
 * The fenced blocks of `lang` in the section of `file` (README.md or a page of docs/, from the repo root)
 * under `heading` (the whole heading line, e.g. "## One complete example"), up to the next heading of
 * the same level; at least one, or it throws.
 */
export function docBlocks(file: string, heading: string, lang: string): string[] {
  const text = fs.readFileSync(path.join(REPO_ROOT, file), 'utf8');
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`${file} has no heading "${heading}"`);
  const level = heading.split(' ')[0];
  const rest = text.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`\\n${level} `));
  const section = end < 0 ? rest : rest.slice(0, end);
  const blocks = [...section.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]);
  if (!blocks.length) throw new Error(`${file} has no \`\`\`${lang} block under "${heading}"`);
  return blocks;
}

/** The fenced blocks of `lang` in the README section under `heading` (see docBlocks). */
export function readmeBlocks(heading: string, lang: string): string[] {
  return docBlocks('README.md', heading, lang);
}
