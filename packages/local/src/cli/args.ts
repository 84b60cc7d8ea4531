import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CliUsageError } from './errors';

type Options = NonNullable<ParseArgsConfig['options']>;

/** The options every command accepts. */
export const COMMON_OPTIONS = {
  json: { type: 'boolean', default: false },
  endpoint: { type: 'string' },
  /** The project's config file. @default the first autosave.config.ts walking up from the current directory */
  config: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const satisfies Options;

/** A common option's name. */
export type CommonOption = keyof typeof COMMON_OPTIONS;

/** What a command takes besides its own options. */
export interface CommandArgsSettings {
  /** Whether it takes positional arguments. @default true */
  readonly positionals?: boolean;
  /** The common options it takes (one it does not take is an unknown option). @default all of {@link COMMON_OPTIONS} */
  readonly common?: readonly CommonOption[];
}

/**
 * Parses a command's arguments strictly (unknown options are usage errors, exit 2) with node's own
 * `util.parseArgs`, adding the common options (`--json`, `--endpoint`, `--help`) it takes.
 */
export function parseCommandArgs<O extends Options>(args: string[], options: O, usage: string, settings: CommandArgsSettings = {}) {
  const common = settings.common ? Object.fromEntries(settings.common.map((name) => [name, COMMON_OPTIONS[name]])) : COMMON_OPTIONS;
  try {
    return parseArgs({ args, options: { ...(common as typeof COMMON_OPTIONS), ...options }, allowPositionals: settings.positionals ?? true, strict: true });
  } catch (err) {
    throw new CliUsageError(`${(err as Error).message.split('\n')[0]} (usage: ${usage})`);
  }
}

/** The positional argument at `index`, or a usage error naming what is missing. */
export function requirePositional(positionals: string[], index: number, what: string, usage: string): string {
  const value = positionals[index];
  if (value === undefined || value === '') throw new CliUsageError(`missing ${what} (usage: ${usage})`);
  return value;
}
