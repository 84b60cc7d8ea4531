/**
 * `autosave rehearse` runs with glibc's malloc arenas capped (MALLOC_ARENA_MAX): every Lambda sandbox is a
 * worker thread, and glibc gives each thread an arena of its own (up to 8 per core), each keeping the
 * memory it freed. glibc reads the variable once, when the process starts, so the command cannot set it for
 * itself: when it is missing, the command runs itself again as a child with it set (the figure the rehearsal
 * prints then holds for the command users type, not only for `npm run rehearse`).
 */
import { describe, expect, it } from 'vitest';
import { MALLOC_ARENAS, relaunchWithMallocArenaCap, type Relaunch } from '../../../packages/local/src/cli/malloc-arenas';

function recorder(code = 0) {
  const calls: { command: string; args: string[]; env: NodeJS.ProcessEnv }[] = [];
  const relaunch: Relaunch = async (command, args, env) => {
    calls.push({ command, args, env });
    return code;
  };
  return { calls, relaunch };
}

const proc = { execPath: '/usr/bin/node', execArgv: ['--enable-source-maps'], script: '/app/bin/autosave.js', platform: 'linux' as NodeJS.Platform };

describe('the malloc arena cap of autosave rehearse', () => {
  it('runs the same command again with MALLOC_ARENA_MAX set when it is missing, and answers the child exit code', async () => {
    const { calls, relaunch } = recorder(3);
    const code = await relaunchWithMallocArenaCap(['rehearse', '--runs', '10000'], { ...proc, env: { PATH: '/bin' }, relaunch });
    expect(code).toBe(3);
    expect(calls).toEqual([
      { command: '/usr/bin/node', args: ['--enable-source-maps', '/app/bin/autosave.js', 'rehearse', '--runs', '10000'], env: { PATH: '/bin', MALLOC_ARENA_MAX: MALLOC_ARENAS } },
    ]);
    expect(MALLOC_ARENAS).toBe('1');
  });

  it('runs in this process when MALLOC_ARENA_MAX is already set (the user chose, or this is the relaunched child)', async () => {
    const { calls, relaunch } = recorder();
    expect(await relaunchWithMallocArenaCap(['rehearse'], { ...proc, env: { MALLOC_ARENA_MAX: '4' }, relaunch })).toBeUndefined();
    expect(calls).toEqual([]);
  });

  it('leaves every other command, and --help, in this process (autosave local restarts answer first: no second start)', async () => {
    const { calls, relaunch } = recorder();
    for (const argv of [['local'], ['start', 'x'], ['rehearse', '--help'], []]) {
      expect(await relaunchWithMallocArenaCap(argv, { ...proc, env: {}, relaunch })).toBeUndefined();
    }
    expect(calls).toEqual([]);
  });

  it('leaves the process alone off glibc (the variable is glibc\'s)', async () => {
    const { calls, relaunch } = recorder();
    expect(await relaunchWithMallocArenaCap(['rehearse'], { ...proc, platform: 'darwin', env: {}, relaunch })).toBeUndefined();
    expect(calls).toEqual([]);
  });
});
