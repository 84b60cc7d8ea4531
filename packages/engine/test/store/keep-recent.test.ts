/** The bounded caches' one rule: a re-kept key becomes the newest, and past the limit the oldest goes. */
import { describe, expect, it } from 'vitest';
import { keepRecent } from '../../src/store';

describe('keepRecent', () => {
  it('drops the entry kept longest ago once the map holds more than the limit', () => {
    const map = new Map<string, number>();
    for (const [i, key] of ['a', 'b', 'c', 'd'].entries()) keepRecent(map, key, i, 3);
    expect([...map.keys()]).toEqual(['b', 'c', 'd']);
  });

  it('keeps a key kept again as the newest, with its new value, so it outlives the others', () => {
    const map = new Map<string, number>();
    keepRecent(map, 'a', 1, 2);
    keepRecent(map, 'b', 2, 2);
    keepRecent(map, 'a', 3, 2);
    keepRecent(map, 'c', 4, 2);
    expect([...map.entries()]).toEqual([
      ['a', 3],
      ['c', 4],
    ]);
  });
});
