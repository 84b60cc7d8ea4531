/**
 * The fastest of `times` calls, in milliseconds: the call's own cost, least disturbed by the machine. Tests
 * compare two such figures from the same minute as a ratio, never against a time.
 */
export async function fastest(times: number, call: () => Promise<unknown>): Promise<number> {
  let best = Infinity;
  for (let i = 0; i < times; i += 1) {
    const t = performance.now();
    await call();
    best = Math.min(best, performance.now() - t);
  }
  return best;
}
