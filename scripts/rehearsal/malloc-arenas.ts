/**
 * glibc malloc arenas the engine process of `npm run rehearse` runs with. Every Lambda sandbox is a worker
 * thread and glibc gives each thread an arena of its own (up to 8 per core), each keeping what it freed.
 * npm run rehearse (2 Dec 2026, engine and driver then in one process): --runs 10000 peak RSS 445 MiB
 * uncapped -> 415 MiB at two arenas; --runs 2000 387 MiB at two -> 360 MiB at one, CPU the same (183 and
 * 186 s user): the V8 heaps are not malloc's, so one lock is enough.
 */
export const MALLOC_ARENAS = '1';

/**
 * The variables that cap the malloc arenas of a process started with them: glibc reads MALLOC_ARENA_MAX
 * once, when a process starts, so a command cannot cap its own, only a child's. {@link MALLOC_ARENAS} on
 * Linux when `env` leaves it unset; nothing when the user set it (their choice stands) or off Linux (the
 * variable is glibc's).
 */
export function mallocArenaCap(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): { MALLOC_ARENA_MAX?: string } {
  if (platform !== 'linux' || env.MALLOC_ARENA_MAX !== undefined) return {};
  return { MALLOC_ARENA_MAX: MALLOC_ARENAS };
}
