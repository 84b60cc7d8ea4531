/**
 * The `autosave` command: dispatches to one module per command in cli/commands/.
 * Each command module exports `run(args: string[]): Promise<number>` (the exit code).
 */

import type { CommandSpec } from './args';

export interface CommandModule {
  /** One-line description for `autosave help`. */
  readonly summary: string;
  /** Its flags and examples: what `autosave <command> --help` prints. */
  readonly spec: CommandSpec;
  run(args: string[]): Promise<number>;
}

/** Every command, loaded on demand (`autosave help` is the only caller that loads them all). */
export const COMMANDS: Readonly<Record<string, () => Promise<CommandModule>>> = {
  compile: () => import('./commands/compile'),
  local: () => import('./commands/local'),
  start: () => import('./commands/start'),
  runs: () => import('./commands/runs'),
  describe: () => import('./commands/describe'),
  history: () => import('./commands/history'),
  approvals: () => import('./commands/approvals'),
  approve: () => import('./commands/approve'),
  dlq: () => import('./commands/dlq'),
  pull: () => import('./commands/pull'),
  redrive: () => import('./commands/redrive'),
  'deploy-check': () => import('./commands/deploy-check'),
  deploy: () => import('./commands/deploy'),
  'test-state': () => import('./commands/test-state'),
};

function usage(): string {
  return ['usage: autosave <command> [options]', '', 'commands:', ...Object.keys(COMMANDS).map((c) => `  ${c}`)].join(
    '\n',
  );
}

/** `autosave help`: every command with its summary (loads each command module, so only on demand). */
async function helpText(): Promise<string> {
  const entries = await Promise.all(
    Object.entries(COMMANDS).map(async ([name, load]) => [name, (await load()).summary] as const),
  );
  const width = Math.max(...entries.map(([name]) => name.length));
  return [
    'usage: autosave <command> [options]   (autosave <command> --help for its options)',
    '',
    'commands:',
    ...entries.map(([n, s]) => `  ${n.padEnd(width)}  ${s}`),
  ].join('\n');
}

/** Runs the CLI and resolves to the process exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    console.log(name ? await helpText() : usage());
    return name ? 0 : 1;
  }
  const load = COMMANDS[name];
  if (!load) {
    console.error(`autosave: unknown command '${name}'\n${usage()}`);
    return 2;
  }
  const command = await load();
  try {
    return await command.run(rest);
  } catch (err) {
    const e = err as Error;
    console.error(`autosave ${name}: ${e.name && e.name !== 'Error' ? `${e.name}: ` : ''}${e.message}`);
    return 1;
  }
}

/**
 * Runs the CLI as this process's command, as both `autosave` entry points do (the repository's bin/autosave.js over
 * the CLI bundle, and the installed package's dist/bin.js).
 */
export async function runAsCommand(argv: string[]): Promise<void> {
  // The SDK (3.11xx) warns on every command that Node 20 support is ending; we pin versions that support it.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  // `autosave history <run> | head` closes the pipe early: stop quietly, as Unix tools do.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
  process.exitCode = await main(argv);
}
