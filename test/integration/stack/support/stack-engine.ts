/**
 * A local engine booted from a cloud assembly in a fresh data directory, with an SFN client on it: the
 * setup every stack-mode test shares. `stop()` ends both and removes the directory.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SFNClient } from '@aws-sdk/client-sfn';
import { LOCAL_CREDENTIALS } from '@autosave/workflow/config';
import { startLocal, type LocalEngine, type StartLocalOptions } from '../../../../packages/local/src/server';
import { exampleProject } from '../../../fixtures/example-app';

/** A running stack-mode engine. */
export interface StackEngine {
  readonly local: LocalEngine;
  readonly sfn: SFNClient;
  /** What the engine logged. */
  readonly lines: readonly string[];
  stop(): Promise<void>;
}

/** Boots `assemblyDir` (more stack options in `stack`, engine options beside it). */
export async function startStackEngine(
  assemblyDir: string,
  options: Omit<StartLocalOptions, 'port' | 'dataDir' | 'log' | 'stack'> & {
    readonly stack?: Omit<NonNullable<StartLocalOptions['stack']>, 'assemblyDir' | 'origin'>;
  } = {},
): Promise<StackEngine> {
  const dir = await mkdtemp(join(tmpdir(), 'autosave-stack-'));
  const lines: string[] = [];
  const { stack, ...engine } = options;
  // The example app's model script (its config's `model.script`) for the sandboxes' scripted model.
  const { environment } = await exampleProject();
  const local = await startLocal({
    environment,
    ...engine,
    port: 0,
    dataDir: join(dir, 'data'),
    log: (l) => lines.push(l),
    stack: { ...stack, assemblyDir, origin: 'test' },
  });
  const sfn = new SFNClient({ endpoint: local.url, region: 'us-east-1', credentials: LOCAL_CREDENTIALS });
  return {
    local,
    sfn,
    lines,
    async stop() {
      sfn.destroy();
      await local.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
