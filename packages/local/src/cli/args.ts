import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CliUsageError } from './errors';

type Options = NonNullable<ParseArgsConfig['options']>;

/** One flag of a command: how `util.parseArgs` reads it, and how `--help` shows it. */
export type FlagSpec = Options[string] & {
  /** What the flag does, one line (more lines are indented under it). */
  readonly description: string;
  /** The value's placeholder in help (`<file|json>`); none for a boolean flag. @default `<value>` for a string flag */
  readonly value?: string;
};

/** A command's flags by name (without the leading `--`). */
export type FlagSpecs = Readonly<Record<string, FlagSpec>>;

/** The options every command accepts, unless its spec narrows them with `common`. */
export const COMMON_OPTIONS = {
  json: { type: 'boolean', default: false, description: 'print the result as JSON' },
  endpoint: {
    type: 'string',
    value: '<url>',
    description:
      'the Step Functions endpoint, with its scheme (http://127.0.0.1:8083)\n(default: AWS_ENDPOINT_URL_SFN or AWS_ENDPOINT_URL, else AWS when AWS_PROFILE/AWS_REGION is set, else the local engine)',
  },
  /** The project's config file. @default the first autosave.config.ts walking up from the current directory */
  config: {
    type: 'string',
    value: '<file>',
    description: "the project's config (default: the first autosave.config.ts walking up from here)",
  },
  help: { type: 'boolean', short: 'h', default: false, description: 'show this help' },
} as const satisfies Readonly<Record<string, FlagSpec>>;

/** A common option's name. */
export type CommonOption = keyof typeof COMMON_OPTIONS;

/** What a command takes and how it explains itself: the one source of its parser and of its `--help`. */
export interface CommandSpec<O extends FlagSpecs = FlagSpecs> {
  /** The synopsis, starting with `autosave <command>`. */
  readonly usage: string;
  /** The command's own flags. */
  readonly options: O;
  /** Command lines a user can copy, each starting with `npx autosave`. At least one. */
  readonly examples: readonly string[];
  /** Lines printed after the flags (what the positionals are, caveats). @default none */
  readonly notes?: readonly string[];
  /** Whether it takes positional arguments. @default true */
  readonly positionals?: boolean;
  /** The common options it takes (one it does not take is an unknown option). @default all of {@link COMMON_OPTIONS} */
  readonly common?: readonly CommonOption[];
}

/** Declares a command's spec, keeping its option types for {@link parseCommandArgs}. */
export const commandSpec = <O extends FlagSpecs>(spec: CommandSpec<O>): CommandSpec<O> => spec;

const commonOf = (spec: CommandSpec): Partial<typeof COMMON_OPTIONS> =>
  spec.common ? Object.fromEntries(spec.common.map((name) => [name, COMMON_OPTIONS[name]])) : COMMON_OPTIONS;

/** Keeps what `util.parseArgs` reads of a flag (it refuses keys it does not know on some Node versions). */
function parserOptions(flags: FlagSpecs): Options {
  return Object.fromEntries(
    Object.entries(flags).map(([name, { description: _d, value: _v, ...parse }]) => [name, parse]),
  );
}

/**
 * Parses a command's arguments strictly (unknown options are usage errors, exit 2) with node's own
 * `util.parseArgs`, adding the common options (`--json`, `--endpoint`, `--help`) the spec takes.
 */
export function parseCommandArgs<O extends FlagSpecs>(args: string[], spec: CommandSpec<O>) {
  const options = { ...(commonOf(spec) as typeof COMMON_OPTIONS), ...spec.options };
  try {
    return parseArgs({
      args,
      options: parserOptions(options) as typeof options,
      allowPositionals: spec.positionals ?? true,
      strict: true,
    });
  } catch (err) {
    throw new CliUsageError(`${(err as Error).message.split('\n')[0]} (usage: ${spec.usage})`);
  }
}

/** The flag as help shows it: `-h, --help`, `--input <file|json>`. */
function flagLabel(name: string, flag: FlagSpec): string {
  const value = flag.type === 'string' ? ` ${flag.value ?? '<value>'}` : '';
  return `${flag.short ? `-${flag.short}, ` : ''}--${name}${value}`;
}

/** A command's `--help`: its usage, every flag it takes (its own, then the common ones) and examples. */
export function commandHelp(spec: CommandSpec): string {
  const flags = [...Object.entries(spec.options), ...Object.entries(commonOf(spec) as FlagSpecs)].map(
    ([name, flag]) => [flagLabel(name, flag), flag] as const,
  );
  const width = Math.min(Math.max(...flags.map(([label]) => label.length)), 34);
  const lines = [`usage: ${spec.usage}`, ''];
  if (spec.notes?.length) lines.push(...spec.notes, '');
  lines.push('options:');
  for (const [label, flag] of flags) {
    const [first, ...rest] = flag.description.split('\n');
    const defaulted = flag.default !== undefined && flag.type === 'string' ? ` (default: ${String(flag.default)})` : '';
    if (label.length > width) lines.push(`  ${label}`, `  ${' '.repeat(width)}  ${first}${defaulted}`);
    else lines.push(`  ${label.padEnd(width)}  ${first}${defaulted}`);
    for (const more of rest) lines.push(`  ${' '.repeat(width)}  ${more}`);
  }
  lines.push('', spec.examples.length > 1 ? 'examples:' : 'example:', ...spec.examples.map((e) => `  ${e}`));
  return lines.join('\n');
}

/** The positional argument at `index`, or a usage error naming what is missing. */
export function requirePositional(positionals: string[], index: number, what: string, usage: string): string {
  const value = positionals[index];
  if (value === undefined || value === '') throw new CliUsageError(`missing ${what} (usage: ${usage})`);
  return value;
}
