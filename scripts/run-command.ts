/**
 * Runs one of the repository's own commands (`npm run rehearse`, `npm run demo`) as this process's command, the way
 * the published CLI runs its own: `tsx scripts/run-command.ts <rehearse|demo> [options]`.
 */
import { pathToFileURL } from 'node:url';

/** The repository's commands: each module exports `run(args)`, resolving to the exit code. */
const COMMANDS: Readonly<Record<string, () => Promise<{ run(args: string[]): Promise<number> }>>> = {
  rehearse: () => import('./rehearsal/rehearse'),
  demo: () => import('./demo/demo'),
};

/** Runs `name` with `args`; resolves to the exit code (2 for a name it does not know). */
export async function runRepositoryCommand(name: string | undefined, args: string[]): Promise<number> {
  const load = name === undefined ? undefined : COMMANDS[name];
  if (!load) {
    console.error(`usage: tsx scripts/run-command.ts <${Object.keys(COMMANDS).join('|')}> [options]`);
    return 2;
  }
  return (await load()).run(args);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  // The SDK (3.11xx) warns that Node 20 support is ending; we pin versions that support it.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const [name, ...args] = process.argv.slice(2);
  process.exitCode = await runRepositoryCommand(name, args);
}
