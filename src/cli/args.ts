/**
 * Flag parsing shared by `check` and `plan`, on node:util parseArgs, with kubectl's conventions:
 * `--name=value`, `--name value`, short flags (`-o json`, `-ojson`), `-f` repeatable beside positional
 * paths, "-" a positional (standard input), and each mistake reported as one line naming the flag.
 */
import { parseArgs } from 'util';
import { UsageError } from './yaml-source';

export interface FlagSpec {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  /** Repeatable (`--queues a --queues b`); a single-value flag given twice is a usage error. */
  readonly repeat?: boolean;
}

export interface ParsedFlags {
  /** The last value of each single-value flag, every value of a repeatable one (comma lists split). */
  readonly values: Record<string, string | boolean | string[] | undefined>;
  readonly positionals: string[];
  /** The positional paths and those of the `filename` flag (`-f`, comma lists split), in the order written. */
  readonly paths: string[];
}

/** What parseArgs' tokens say, as far as the paths are read from them. */
type ArgToken = { readonly kind: 'positional'; readonly value: string }
  | { readonly kind: 'option'; readonly name: string; readonly value?: string }
  | { readonly kind: 'option-terminator' };

/** How a flag is written in messages: "-o, --output". */
function label(name: string, spec: FlagSpec): string {
  return spec.short ? `-${spec.short}, --${name}` : `--${name}`;
}

/** Every flag of `specs`, for "known:" in a message. */
export function knownFlags(specs: Record<string, FlagSpec>): string {
  return Object.entries(specs).map(([n, s]) => label(n, s)).join(', ');
}

/** Parses `argv`; throws UsageError with a one-line message on an unknown flag, a missing value or a repeated single-value flag. */
export function parseFlags(argv: readonly string[], specs: Record<string, FlagSpec>): ParsedFlags {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string; multiple: boolean }> = {};
  for (const [name, s] of Object.entries(specs)) options[name] = { type: s.type, multiple: true, ...(s.short ? { short: s.short } : {}) };
  let parsed: { values: Record<string, unknown>; positionals: string[]; tokens: ArgToken[] };
  try {
    parsed = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true, tokens: true });
  } catch (caught) {
    // parseArgs throws a TypeError with a `code`.
    const e = caught as NodeJS.ErrnoException;
    // parseArgs' own messages run over several lines; say the same in one, naming the flag.
    const flag = /'(-[^' ,]+)/.exec(e.message)?.[1] ?? '';
    const long = /'(?:-., )?(--[^' <]+)/.exec(e.message)?.[1] ?? flag;
    if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw new UsageError(`unknown flag '${flag}'; known: ${knownFlags(specs)}`);
    if (/does not take an argument/.test(e.message)) throw new UsageError(`${long} takes no value`);
    if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') throw new UsageError(`${long} needs a value`);
    throw new UsageError(String(e.message).split('\n')[0]);
  }
  const values: ParsedFlags['values'] = {};
  for (const [name, s] of Object.entries(specs)) {
    const v = parsed.values[name] as (string | boolean)[] | undefined;
    if (v === undefined) continue;
    if (s.type === 'boolean') values[name] = true;
    else if (s.repeat) values[name] = (v as string[]).flatMap((x) => x.split(',')).filter(Boolean);
    else if (v.length > 1) throw new UsageError(`${label(name, s)} given twice`);
    else values[name] = v[0];
  }
  // parseArgs returns positionals and -f values apart; the tokens keep the order they were written in.
  const paths = parsed.tokens.flatMap((t) => (t.kind === 'positional' ? [t.value]
    : t.kind === 'option' && t.name === 'filename' && typeof t.value === 'string' ? t.value.split(',').filter(Boolean) : []));
  return { values, positionals: parsed.positionals, paths };
}

/** A usage error as kubectl prints one: the reason, then where the usage is (not the whole usage). */
export function usageErrorText(command: string, message: string): string {
  return `cdk8s-kueue-ray ${command}: ${message}\nSee 'cdk8s-kueue-ray ${command} --help' for usage.\n`;
}

