import { describe, expect, it } from 'vitest';
import { formatElapsed } from '../../src/operations';

describe('formatElapsed', () => {
  const start = new Date('2026-01-01T00:00:00Z');
  it('measures between two engine times', () => {
    expect(formatElapsed(start, new Date('2026-01-01T00:00:04.200Z'))).toBe('4.2s');
    expect(formatElapsed(start, start.getTime() + 185_000)).toBe('3m 05s');
  });
  it("says it does not know rather than using the reader's clock", () => {
    expect(formatElapsed(start, undefined)).toBe('-');
    expect(formatElapsed(undefined, new Date())).toBe('-');
    expect(formatElapsed(start, undefined, '')).toBe('');
  });
});
