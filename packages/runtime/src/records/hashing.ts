import { createHash } from 'node:crypto';

/** Hex SHA-256 of a string (UTF-8) or bytes. */
export const sha256Hex = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex');

/**
 * JSON with object keys sorted at every depth, so equal values hash equally whatever order their keys
 * were built in (two retries of a step may build the same input in different orders).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}
