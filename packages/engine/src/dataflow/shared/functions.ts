/**
 * The functions Step Functions adds to both query languages, written once: JSONata's `$partition`,
 * `$range`, `$hash`, `$random`, `$uuid`, `$parse` and the intrinsics `States.ArrayPartition`,
 * `States.ArrayRange`, `States.Hash`, `States.MathRandom`, `States.UUID`, `States.StringToJson`.
 * Each throws a plain `Error` with a message; the caller wraps it in its language's ASL error.
 */
import { createHash, randomUUID } from 'node:crypto';
import { MAX_RANGE_ITEMS } from '@autosave/workflow/config';

/** Step Functions' hash algorithm names mapped to node:crypto's. */
export const HASH_ALGORITHMS: Readonly<Record<string, string>> = {
  MD5: 'md5',
  'SHA-1': 'sha1',
  'SHA-256': 'sha256',
  'SHA-384': 'sha384',
  'SHA-512': 'sha512',
};

/** Splits `array` into chunks of `size` (the last may be shorter). */
export function partition(array: unknown, size: unknown): unknown[][] {
  if (!Array.isArray(array)) throw new Error('the first argument must be an array');
  if (!Number.isInteger(size) || (size as number) <= 0) throw new Error('the chunk size must be a positive integer');
  const chunks: unknown[][] = [];
  for (let i = 0; i < array.length; i += size as number) chunks.push(array.slice(i, i + (size as number)));
  return chunks;
}

/** The numbers from `start` to `end` inclusive, `step` apart. */
export function range(start: unknown, end: unknown, step: unknown): number[] {
  if (![start, end, step].every((n) => Number.isInteger(n))) throw new Error('start, end and step must be integers');
  const [from, to, by] = [start as number, end as number, step as number];
  if (by === 0) throw new Error('step must not be 0');
  const out: number[] = [];
  for (let n = from; by > 0 ? n <= to : n >= to; n += by) {
    if (out.length === MAX_RANGE_ITEMS) throw new Error(`a range may hold at most ${MAX_RANGE_ITEMS} items`);
    out.push(n);
  }
  return out;
}

/** Hex digest of `data` with one of {@link HASH_ALGORITHMS}. */
export function hash(data: unknown, algorithm: unknown): string {
  if (typeof data !== 'string') throw new Error('the data to hash must be a string');
  const nodeName = typeof algorithm === 'string' ? HASH_ALGORITHMS[algorithm] : undefined;
  if (!nodeName)
    throw new Error(
      `unsupported hash algorithm ${JSON.stringify(algorithm)}; use one of ${Object.keys(HASH_ALGORITHMS).join(', ')}`,
    );
  return createHash(nodeName).update(data, 'utf8').digest('hex');
}

/**
 * A number in [0, 1): `Math.random()` without a seed; with one, the same seed always gives the same
 * number (mulberry32 over a 32-bit hash of the seed's JSON), as Step Functions promises.
 */
export function random(seed?: unknown): number {
  if (seed === undefined) return Math.random();
  let state = 0x811c9dc5;
  for (const ch of JSON.stringify(seed)) state = Math.imul(state ^ ch.charCodeAt(0), 0x01000193);
  state = (state + 0x6d2b79f5) | 0;
  let t = Math.imul(state ^ (state >>> 15), 1 | state);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

/** A random RFC 4122 version 4 UUID. */
export const uuid = (): string => randomUUID();

/** Parses a JSON string. */
export function parseJson(text: unknown): unknown {
  if (typeof text !== 'string') throw new Error('the argument must be a string of JSON');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`not valid JSON: ${(err as Error).message}`);
  }
}
