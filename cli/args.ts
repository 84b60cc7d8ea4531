import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CliUsageError } from './errors';

type Options = NonNullable<ParseArgsConfig['options']>;

/** The options every command accepts. */
export const COMMON_OPTIONS = {
  json: { type: 'boolean', default: false },
  endpoint: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const satisfies Options;

/**
 * Parses a command's arguments strictly (unknown options are usage errors, exit 2) with node's own
 * `util.parseArgs`, adding the common options (`--json`, `--endpoint`, `--help`).
 */
export function parseCommandArgs<O extends Options>(args: string[], options: O, usage: string) {
  try {
    return parseArgs({ args, options: { ...COMMON_OPTIONS, ...options }, allowPositionals: true, strict: true });
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
