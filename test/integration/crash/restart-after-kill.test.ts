/**
 * A supervisor's restart right after `kill -9` must never be refused: the engine is started the way a user
 * does (`npx autosave local`, so the engine is a grandchild that init reaps late, or never in a container
 * without one), its whole process group is SIGKILLed as soon as it holds the data directory, and the next
 * engine starts 50 ms later — 20 times in a row. The last one must serve requests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { DATA_DIR_OWNER_FILE } from '../../../packages/engine/src/store/data-dir-lock';
import { eventually } from '../../fixtures/wait';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const RESTARTS = 20;
const RESTART_DELAY_MILLIS = 50;
const WAIT_MILLIS = 45_000;

/** `npx autosave local` in its own process group. */
function npxEngine(dataDir: string): { child: ChildProcess; output: () => string } {
  const child = spawn('npx', ['--no-install', 'autosave', 'local', '--port', '0', '--data', dataDir], {
    cwd: ROOT,
    detached: true,
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  return { child, output: () => out };
}

const ownerPid = (dataDir: string) =>
  readFile(join(dataDir, DATA_DIR_OWNER_FILE), 'utf8').then(
    (s) => Number(s.trim()),
    () => undefined,
  );

/** Resolves once `check` holds; fails with the engine's output if the engine exits first or time runs out. */
async function until(engine: ReturnType<typeof npxEngine>, what: string, check: () => Promise<boolean>): Promise<void> {
  await eventually(
    what,
    async () => {
      if (engine.child.exitCode !== null || engine.child.signalCode !== null)
        throw new Error(`the engine exited (${engine.child.exitCode}) before ${what}:\n${engine.output()}`);
      return (await check()) || undefined;
    },
    { timeoutMillis: WAIT_MILLIS },
  );
}

function killGroup(child: ChildProcess): Promise<unknown> {
  const exited = child.exitCode === null && child.signalCode === null ? once(child, 'exit') : Promise.resolve();
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // already gone
  }
  return exited;
}

describe('restart after kill -9 of the process group', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it(
    `is never refused: ${RESTARTS} SIGKILLs of npx autosave local, each restarted ${RESTART_DELAY_MILLIS} ms later`,
    { timeout: 240_000 },
    async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'autosave-restart-'));
      dirs.push(dataDir);
      let previous: number | undefined;
      for (let round = 1; round <= RESTARTS; round++) {
        const engine = npxEngine(dataDir);
        try {
          // It holds the data directory once it has written its pid (after taking the lock).
          await until(engine, `round ${round}: the data directory taken`, async () => {
            const pid = await ownerPid(dataDir);
            return pid !== undefined && pid !== previous;
          });
          previous = await ownerPid(dataDir);
          if (round === RESTARTS) {
            await until(engine, 'the engine listening', async () =>
              /listening on http:\/\/127\.0\.0\.1:\d+/.test(engine.output()),
            );
            const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(engine.output())![1];
            const res = await fetch(url, {
              method: 'POST',
              headers: {
                'content-type': 'application/x-amz-json-1.0',
                'x-amz-target': 'AWSStepFunctions.ListStateMachines',
              },
              body: '{}',
            });
            expect(res.status).toBe(200);
            expect(((await res.json()) as { stateMachines: unknown[] }).stateMachines.length).toBeGreaterThan(0);
          }
        } finally {
          await killGroup(engine.child);
        }
        await sleep(RESTART_DELAY_MILLIS);
      }
    },
  );
});
