/**
 * The engine process `autosave rehearse` starts runs with glibc's malloc arenas capped (MALLOC_ARENA_MAX):
 * every Lambda sandbox is a worker thread, and glibc gives each thread an arena of its own (up to 8 per
 * core), each keeping the memory it freed. glibc reads the variable once, when a process starts, so it is
 * set in the environment the engine process is started with.
 */
import { describe, expect, it } from 'vitest';
import { MALLOC_ARENAS, mallocArenaCap } from '../../../scripts/rehearsal/malloc-arenas';

describe("the malloc arena cap of the rehearsal's engine process", () => {
  it('sets MALLOC_ARENA_MAX to one arena when the environment leaves it unset (Linux)', () => {
    expect(mallocArenaCap({ PATH: '/bin' }, 'linux')).toEqual({ MALLOC_ARENA_MAX: MALLOC_ARENAS });
    expect(MALLOC_ARENAS).toBe('1');
  });

  it("adds nothing when MALLOC_ARENA_MAX is already set: the user's choice stands", () => {
    expect(mallocArenaCap({ MALLOC_ARENA_MAX: '4' }, 'linux')).toEqual({});
  });

  it("adds nothing off Linux (the variable is glibc's)", () => {
    expect(mallocArenaCap({}, 'darwin')).toEqual({});
  });
});
