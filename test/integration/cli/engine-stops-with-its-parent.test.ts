/**
 * An engine that a program started for itself (the rehearsal, the crash demo, the benchmarks, the tests)
 * stops when that program dies, however it dies: a SIGKILLed or timed-out parent must not leave an engine
 * running with no one to stop it, holding a port, a data directory's lock and a core.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { parentGone, STOP_WITH_PARENT_ENV } from '../../../packages/local/src/cli/parent-watch';

const PARENT = fileURLToPath(new URL('./fixtures/spawn-engine-then-wait.ts', import.meta.url));
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('an engine started by spawnEngine', () => {
  let dir: string | undefined;
  let enginePid: number | undefined;
  afterEach(async () => {
    if (enginePid !== undefined && alive(enginePid)) process.kill(enginePid, 'SIGKILL');
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('stops on its own once the process that started it is SIGKILLed', async () => {
    dir = await mkdtemp(join(tmpdir(), 'autosave-parent-dies-'));
    const parent = spawn(process.execPath, ['--import', 'tsx', PARENT, join(dir, 'data'), dir], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    enginePid = await new Promise<number>((resolve, reject) => {
      parent.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /ENGINE_PID (\d+)/.exec(out);
        if (match) resolve(Number(match[1]));
      });
      parent.once('exit', (code) =>
        reject(new Error(`the parent exited (${code}) before its engine listened:\n${out}`)),
      );
    });
    expect(alive(enginePid)).toBe(true);

    parent.kill('SIGKILL');
    // Generous: the point is that it ends, not how fast.
    for (const deadline = Date.now() + 30_000; alive(enginePid) && Date.now() < deadline;)
      await new Promise((r) => setTimeout(r, 100));
    expect(alive(enginePid), `engine ${enginePid} still running 30 s after its parent died`).toBe(false);
  }, 90_000);
});

describe("a user's autosave local", () => {
  it('does not look for its parent: it outlives the shell that started it, as a server does', () => {
    expect(parentGone({})).toBeUndefined();
    expect(parentGone({ [STOP_WITH_PARENT_ENV]: '0' })).toBeUndefined();
  });
});
