import { MAX_PAGE_SIZE } from '@autosave/workflow/config';
import { InvalidToken, ValidationException } from '../service-errors';

/** AWS JSON 1.0 timestamps are epoch seconds (fractional). */
export const epochSeconds = (ms: number): number => ms / 1000;

/** Reads a required string field or throws `ValidationException` as the service does. */
export function requireString(input: Record<string, unknown>, field: string): string {
  const v = input[field];
  // A number or an object where a string belongs is not "null": say what it is.
  if (v !== undefined && v !== null && typeof v !== 'string')
    throw new ValidationException(
      `Value at '${field}' must be a string, not ${Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `the ${typeof v} ${JSON.stringify(v)}`}`,
    );
  if (typeof v !== 'string' || v.length === 0) {
    throw new ValidationException(
      `1 validation error detected: Value null at '${field}' failed to satisfy constraint: Member must not be null`,
    );
  }
  return v;
}

/** The service's words for a field breaking a constraint (AWS JSON 1.0 validation). */
export const constraint = (field: string, value: unknown, rule: string): ValidationException =>
  new ValidationException(
    `1 validation error detected: Value ${value === undefined || value === null ? 'null' : `'${String(value)}'`} at '${field}' failed to satisfy constraint: ${rule}`,
  );

/** `value` when it is one of `allowed`; another value is the service's enum constraint on `field`. */
export function oneOf<T extends string>(field: string, value: unknown, allowed: readonly T[]): T {
  if (!allowed.includes(value as T))
    throw constraint(field, value, `Member must satisfy enum value set: [${allowed.join(', ')}]`);
  return value as T;
}

/** Reads an optional field whose model is an enum: another value is the service's enum constraint. */
export function optionalEnum<T extends string>(
  input: Record<string, unknown>,
  field: string,
  allowed: readonly T[],
): T | undefined {
  const v = optionalString(input, field);
  return v === undefined ? undefined : oneOf(field, v, allowed);
}

/** Reads an optional string field. */
export function optionalString(input: Record<string, unknown>, field: string): string | undefined {
  const v = input[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new ValidationException(`Value at '${field}' must be a string`);
  return v;
}

/**
 * An optional string of at most `max` characters; a longer one is the service's length constraint
 * (`ValidationException`, "Member must have length less than or equal to <max>").
 */
export function optionalStringOfAtMost(input: Record<string, unknown>, field: string, max: number): string | undefined {
  const v = optionalString(input, field);
  if (v !== undefined && v.length > max) {
    throw new ValidationException(
      `1 validation error detected: Value at '${field}' failed to satisfy constraint: Member must have length less than or equal to ${max}`,
    );
  }
  return v;
}

/** Page size when the caller gives none (or 0), as the service. */
export const DEFAULT_PAGE_SIZE = 100;

/** A page request: where to start and how many. */
export interface PageRequest {
  readonly offset: number;
  readonly limit: number;
}

/** Parses `maxResults` / `nextToken` (tokens are opaque offsets). */
export function pageRequest(input: Record<string, unknown>): PageRequest {
  const max = input.maxResults;
  if (
    max !== undefined &&
    max !== null &&
    (typeof max !== 'number' || !Number.isInteger(max) || max < 0 || max > MAX_PAGE_SIZE)
  ) {
    throw new ValidationException(
      `1 validation error detected: Value '${String(max)}' at 'maxResults' failed to satisfy constraint: Member must have value less than or equal to ${MAX_PAGE_SIZE}`,
    );
  }
  const limit = typeof max === 'number' && max > 0 ? max : DEFAULT_PAGE_SIZE;
  const token = input.nextToken;
  if (token === undefined || token === null) return { offset: 0, limit };
  const offset = decodeToken(token);
  return { offset, limit };
}

/**
 * The position a `nextToken` carries. Only a token this engine could have issued is accepted: a safe
 * integer position, spelled exactly as {@link pageToken} spells it (the service answers any other token,
 * `{"o":1e300}` or padded base64 included, with `InvalidToken`).
 */
function decodeToken(token: unknown): number {
  if (typeof token === 'string' && token.length <= MAX_TOKEN_LENGTH) {
    try {
      const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { o?: unknown } | null;
      const o = parsed?.o;
      if (typeof o === 'number' && Number.isSafeInteger(o) && o >= 0 && pageToken(o) === token) return o;
    } catch {
      // not JSON: refused below
    }
  }
  throw new InvalidToken(
    `Invalid Token: ${JSON.stringify(typeof token === 'string' ? token.slice(0, MAX_TOKEN_LENGTH) : (token ?? null))}`,
  );
}

/** Longest `nextToken` the API reference allows. */
const MAX_TOKEN_LENGTH = 1024;

/** An opaque `nextToken` carrying a position (an offset, or the last key of a keyset page). */
export const pageToken = (position: number): string =>
  Buffer.from(JSON.stringify({ o: position })).toString('base64url');

/** The `nextToken` for the page after `offset + count`, or undefined when this page was the last. */
export function nextToken(req: PageRequest, got: number, total?: number): string | undefined {
  const end = req.offset + got;
  if (got < req.limit || (total !== undefined && end >= total)) return undefined;
  return pageToken(end);
}

/** Slices one page out of a full list. */
export function page<T>(all: readonly T[], req: PageRequest): { items: T[]; nextToken?: string } {
  const items = all.slice(req.offset, req.offset + req.limit);
  return { items, nextToken: nextToken(req, items.length, all.length) };
}

/**
 * Whether the JSON text nests arrays and objects deeper than `limit`: a scan of the text, no parse and no
 * recursion, so it is safe on any input (a 10 KB text can nest 5,000 levels).
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** Whether `text` is within Step Functions' payload limit (UTF-8 bytes). */
export const byteLength = (text: string): number => Buffer.byteLength(text, 'utf8');
