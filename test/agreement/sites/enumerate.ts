/**
 * Upstream refusal sites, read from the pinned sources: every `fmt.Errorf`, `errors.New` and
 * `field.Invalid/Forbidden/Required/NotSupported/TooMany/TooLong/Duplicate` call in the files where
 * KubeRay validates (controllers/ray/utils/validation.go and the webhooks) and where Kueue validates a
 * Ray object (jobframework/validation.go and the Ray webhooks). A site is keyed by its function and the
 * call's text (whitespace collapsed), so the same check keeps its key across versions and a reworded
 * one becomes a new site. The sources come from the Go module cache (`go mod download`, verified by the
 * checksum database), the same modules the test control plane is built from.
 */
import { execFileSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export interface UpstreamSource {
  readonly project: 'kuberay' | 'kueue';
  readonly module: string;
  /** Files that refuse Ray objects, relative to the module root; a file a version lacks is skipped. */
  readonly files: readonly string[];
}

export const KUBERAY_SOURCE: UpstreamSource = {
  project: 'kuberay', module: 'github.com/ray-project/kuberay/ray-operator',
  files: ['controllers/ray/utils/validation.go', 'pkg/webhooks/v1/raycluster_webhook.go', 'pkg/webhooks/v1/rayjob_webhook.go',
    'pkg/webhooks/v1/rayservice_webhook.go'],
};

export const KUEUE_SOURCE: UpstreamSource = {
  project: 'kueue', module: 'sigs.k8s.io/kueue',
  files: ['pkg/controller/jobframework/validation.go', 'pkg/controller/jobframework/tas_validation.go',
    'pkg/controller/jobs/rayjob/rayjob_webhook.go', 'pkg/controller/jobs/raycluster/raycluster_webhook.go',
    'pkg/controller/jobs/raycluster/common.go', 'pkg/controller/jobs/rayservice/rayservice_webhook.go',
    'pkg/util/webhook/validation_admissiongatedby.go'],
};

export interface Site {
  /** `<file>#<function>: <call>`, the same in every version that has the site. */
  readonly key: string;
  readonly file: string;
  readonly func: string;
  /** The call, whitespace collapsed, e.g. `fmt.Errorf("headGroupSpec should have at least one container")`. */
  readonly call: string;
  readonly line: number;
}

const CALL = /\b(fmt\.Errorf|(?:errors|errstd)\.New|field\.(?:Invalid|Forbidden|Required|NotSupported|TooMany|TooLong|Duplicate))\(/g;

/** Index just past the call's closing parenthesis, skipping strings, runes and comments. */
function callEnd(src: string, open: number): number {
  let depth = 0;
  for (let i = open; i < src.length; i++) {
    const c = src[i];
    if (c === '"' || c === '\'') {
      for (i++; i < src.length && src[i] !== c; i++) if (src[i] === '\\') i++;
    } else if (c === '`') {
      i = src.indexOf('`', i + 1);
    } else if (c === '/' && src[i + 1] === '/') {
      i = src.indexOf('\n', i);
    } else if (c === '/' && src[i + 1] === '*') {
      i = src.indexOf('*/', i) + 1;
    } else if (c === '(') {
      depth++;
    } else if (c === ')' && --depth === 0) {
      return i + 1;
    }
  }
  return src.length;
}

/** The sites of one Go file. Comments are blanked first, so a call in a comment is no site. */
export function sitesOfGo(file: string, src: string): Site[] {
  const code = src.replace(/\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, ' '))
    .replace(/("(?:[^"\\\n]|\\.)*"|`[^`]*`)|\/\/[^\n]*/g, (m, str) => (str ? m : ' '.repeat(m.length)));
  const funcs = [...code.matchAll(/^func\s+(?:\([^)]*\)\s*)?(\w+)/gm)].map((m) => ({ at: m.index!, name: m[1] }));
  const out: Site[] = [];
  const add = (start: number, call: string) => {
    const func = [...funcs].reverse().find((f) => f.at < start)?.name ?? '(top level)';
    out.push({ key: `${file}#${func}: ${call}`, file, func, call, line: code.slice(0, start).split('\n').length });
  };
  for (const m of code.matchAll(CALL)) {
    const end = callEnd(code, m.index! + m[0].length - 1);
    // A call that only wraps another site's error (fmt.Errorf("...: %w", err)) is still a site: upstream refuses there.
    add(m.index!, code.slice(m.index!, end).replace(/\s+/g, ' ').replace(/\( /g, '(').replace(/,\s*\)/g, ')'));
  }
  // An error of a function outside the enumerated packages, returned as is (`if err := pkg.F(...); err != nil { return err }`):
  // upstream refuses there too, with that function's message.
  const local = new Set(funcs.map((f) => f.name));
  for (const m of code.matchAll(/if\s+(?:[\w, ]*?)err\s*:?=\s*(?:([a-z]\w*)\.)?(\w+)\([^{]*\{\s*return\s+(?:nil,\s*)?err\b/g)) {
    if (!(m[1] ? ENUMERATED_PACKAGES.has(m[1]) : local.has(m[2]))) add(m.index!, `return err of ${m[1] ? `${m[1]}.` : ''}${m[2]}()`);
  }
  // The same for a list of errors appended as is: `allErrs = append(allErrs, pkg.Validate(...)...)`.
  for (const m of code.matchAll(/append\(\s*\w+\s*,\s*(?:([a-z]\w*)\.)?(\w+)\(/g)) {
    if (m[1] ? ENUMERATED_PACKAGES.has(m[1]) || ['field', 'fmt', 'errors', 'errstd', 'strings'].includes(m[1]) : local.has(m[2])) continue;
    add(m.index!, `errors of ${m[1] ? `${m[1]}.` : ''}${m[2]}()`);
  }
  // And a list returned or assigned as is: `return apivalidation.ValidateImmutableField(...)`, `allErrs := pkg.ValidateX(...)`.
  for (const m of code.matchAll(/(?:\breturn\s+|\b\w+\s*:?=\s*)([a-z]\w*)\.(Validate\w*)\(/g)) {
    if (!ENUMERATED_PACKAGES.has(m[1])) add(m.index!, `errors of ${m[1]}.${m[2]}()`);
  }
  out.sort((a, b) => a.line - b.line);
  // The same call twice in one function (e.g. two `%w` wrappers) are two sites.
  const seen = new Map<string, number>();
  return out.map((x) => {
    const n = (seen.get(x.key) ?? 0) + 1;
    seen.set(x.key, n);
    return n === 1 ? x : { ...x, key: `${x.key} #${n}` };
  });
}

/**
 * Packages whose refusals are enumerated themselves (their calls are not propagation sites), and local
 * receivers (a method of the webhook or a helper value).
 */
const ENUMERATED_PACKAGES = new Set(['utils', 'jobframework', 'raycluster', 'rayjob', 'rayservice', 'w', 'r', 'j', 'job']);

const PINS_FILE = path.join(__dirname, '..', '..', '..', 'scripts', 'testcluster', 'no-sumdb-pins.txt');

/** sha256 of the zip of modules the checksum database does not list (the file build.sh reads too). */
function noSumdbPin(module: string, version: string): string | undefined {
  for (const line of fs.readFileSync(PINS_FILE, 'utf8').split('\n')) {
    const [mv, sum] = line.trim().split(/\s+/);
    if (mv === `${module}@${version}`) return sum;
  }
  return undefined;
}

/**
 * The module's root in the Go module cache, downloaded if needed and verified: by the checksum database,
 * or for a module it does not list by the pinned sha256 of its zip. Undefined (with the reason) when the
 * proxy does not serve it.
 */
export function moduleDir(module: string, version: string): { dir?: string; why?: string } {
  const pin = noSumdbPin(module, version);
  const env = { ...process.env, GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local', ...(pin ? { GONOSUMDB: module } : {}) };
  let info: { Dir?: string; Zip?: string; Error?: string };
  try {
    info = JSON.parse(execFileSync('go', ['mod', 'download', '-json', `${module}@${version}`],
      { cwd: os.tmpdir(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env }));
  } catch (e: any) {
    const out = String(e.stdout ?? '');
    try {
      info = JSON.parse(out);
    } catch {
      return { why: `go mod download ${module}@${version} failed: ${String(e.stderr ?? e.message).trim().slice(0, 300)}` };
    }
  }
  if (info.Error || !info.Dir || !fs.existsSync(info.Dir)) return { why: info.Error ?? `no module directory for ${module}@${version}` };
  if (pin) {
    const got = createHash('sha256').update(fs.readFileSync(info.Zip!)).digest('hex');
    if (got !== pin) throw new Error(`${module}@${version}: module zip sha256 ${got}, pinned ${pin} (${path.relative(process.cwd(), PINS_FILE)})`);
  }
  return { dir: info.Dir };
}

/** Every site of `source` at `version`, in file order; `why` when the sources cannot be had here. */
export function sitesAt(source: UpstreamSource, version: string): { sites?: Site[]; why?: string } {
  const { dir, why } = moduleDir(source.module, version);
  if (!dir) return { why };
  return { sites: source.files.filter((f) => fs.existsSync(path.join(dir, f)))
    .flatMap((f) => sitesOfGo(f, fs.readFileSync(path.join(dir, f), 'utf8'))) };
}

/** The module's folder inside KubeRay's repository (the module path below the repository's). */
const KUBERAY_MODULE_DIR = 'ray-operator';

/**
 * The KubeRay sites of a tag the module proxy does not serve (a modelled-only version), read from a git directory holding
 * KubeRay's history: $KUBERAY_GIT_DIR (a clone's .git, or a bare mirror). `why` when it is unset or lacks the tag.
 */
export function kubeRaySitesFromGit(version: string, gitDir = process.env.KUBERAY_GIT_DIR): { sites?: Site[]; why?: string } {
  if (!gitDir) return { why: 'KUBERAY_GIT_DIR is not set (a git directory of ray-project/kuberay holding the tag)' };
  const show = (f: string) => {
    try {
      return execFileSync('git', ['--git-dir', gitDir, 'show', `${version}:${KUBERAY_MODULE_DIR}/${f}`],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });
    } catch {
      return undefined;
    }
  };
  const files = KUBERAY_SOURCE.files.map((f) => [f, show(f)] as const).filter(([, text]) => text !== undefined);
  if (!files.length) return { why: `KUBERAY_GIT_DIR=${gitDir} has no ${version}:${KUBERAY_MODULE_DIR}/${KUBERAY_SOURCE.files[0]}` };
  return { sites: files.flatMap(([f, text]) => sitesOfGo(f, text!)) };
}
