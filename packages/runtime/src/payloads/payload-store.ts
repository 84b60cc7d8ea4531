import { PAYLOAD_INLINE_LIMIT_BYTES } from '@autosave/workflow/config';
import { MetricName, noMetrics, type RuntimeMetrics } from '../metrics';
import type { BlobStore } from './blob-store';
import { PayloadIntegrityError } from './errors';
import { sha256Hex } from '../records';
import { isPayloadRef, parseS3Url, type PayloadRef } from './payload-ref';

/** Rough size of a reference in JSON; members no larger than this are never offloaded. */
const REF_OVERHEAD_BYTES = 200;
const byteLength = (value: unknown): number => Buffer.byteLength(JSON.stringify(value ?? null), 'utf8');

/** Prefix of every content-addressed payload key. */
export const PAYLOAD_KEY_PREFIX = 'payloads/';

/** Options of {@link PayloadStore}. */
export interface PayloadStoreOptions {
  /** Where the bytes go. */
  readonly blobs: BlobStore;
  /** Values whose JSON is larger than this go by reference. @default PAYLOAD_INLINE_LIMIT_BYTES (100 KB) */
  readonly inlineLimitBytes?: number;
  /** Reports `PayloadsOffloaded`. @default no metrics */
  readonly metrics?: RuntimeMetrics;
}

/**
 * Content-addressed payloads: a value is stored as its JSON under `payloads/<sha256>.json` and handed
 * around as `{"$ref","bytes","sha256"}`. Writing the same value twice writes the same key, so a retried
 * step that re-offloads its result produces the same reference (safe under concurrent writers).
 */
export class PayloadStore {
  private readonly blobs: BlobStore;
  private readonly inlineLimitBytes: number;
  private readonly metrics: RuntimeMetrics;

  constructor(options: PayloadStoreOptions) {
    this.blobs = options.blobs;
    this.inlineLimitBytes = options.inlineLimitBytes ?? PAYLOAD_INLINE_LIMIT_BYTES;
    this.metrics = options.metrics ?? noMetrics;
  }

  /** Stores a value and returns its reference (always, whatever its size). */
  async put(value: unknown): Promise<PayloadRef> {
    return this.putBytes(Buffer.from(JSON.stringify(value ?? null), 'utf8'));
  }

  /** The value behind a reference, after checking its length and sha256. @throws PayloadIntegrityError */
  async resolve<T = unknown>(ref: PayloadRef): Promise<T> {
    const { bucket, key } = parseS3Url(ref.$ref);
    const body = await this.blobs.get(bucket, key);
    const actual = sha256Hex(body);
    if (actual !== ref.sha256 || body.byteLength !== ref.bytes) {
      throw new PayloadIntegrityError(
        `Payload ${ref.$ref} does not match its reference: expected ${ref.bytes} bytes with sha256 ${ref.sha256}, got ${body.byteLength} bytes with sha256 ${actual}`,
      );
    }
    return JSON.parse(Buffer.from(body).toString('utf8')) as T;
  }

  /** The value itself when its JSON fits the inline limit, else a reference to it. */
  async offloadIfLarge<T>(value: T): Promise<T | PayloadRef> {
    if (isPayloadRef(value)) return value;
    const bytes = Buffer.from(JSON.stringify(value ?? null), 'utf8');
    if (bytes.byteLength <= this.inlineLimitBytes) return value;
    this.metrics.add(MetricName.PayloadsOffloaded);
    return this.putBytes(bytes);
  }

  /**
   * `value` made to fit the inline limit while keeping its shape: when its JSON is too large and it is an
   * object or array, its largest members are replaced by references, largest first, until it fits (so a
   * state machine can still read `result.final` or `result.url` inline); anything else, or an object that
   * still does not fit, goes whole by reference. Handlers resolve the references with {@link resolveDeep}.
   * `reserveBytes` leaves room under the limit for a wrapper the caller puts around the value (the
   * tool-step envelope), so the wrapper never pushes it over and gets it offloaded whole. @default 0
   */
  async shrinkToFit<T>(value: T, options: { readonly reserveBytes?: number } = {}): Promise<T | PayloadRef> {
    const limit = this.inlineLimitBytes - (options.reserveBytes ?? 0);
    if (isPayloadRef(value) || byteLength(value) <= limit) return value;
    if (value && typeof value === 'object') {
      const shrunk: Record<string, unknown> = Array.isArray(value)
        ? ([...value] as unknown as Record<string, unknown>)
        : { ...(value as object) };
      const bySize = Object.entries(shrunk)
        .map(([key, member]) => ({ key, member, bytes: byteLength(member) }))
        .sort((a, b) => b.bytes - a.bytes);
      for (const { key, member, bytes } of bySize) {
        if (byteLength(shrunk) <= limit) return shrunk as T;
        // A reference is about 150 bytes: replacing anything smaller would not help.
        if (bytes <= REF_OVERHEAD_BYTES || isPayloadRef(member)) break;
        this.metrics.add(MetricName.PayloadsOffloaded);
        shrunk[key] = await this.putBytes(Buffer.from(JSON.stringify(member ?? null), 'utf8'));
      }
      if (byteLength(shrunk) <= limit) return shrunk as T;
    }
    // Over the limit here (the first check returned otherwise): the whole value goes by reference.
    this.metrics.add(MetricName.PayloadsOffloaded);
    return this.put(value);
  }

  /**
   * A copy of `value` with every reference inside it (at any depth, including references whose content
   * holds references) replaced by what it points to. Each reference is verified.
   */
  async resolveDeep<T = unknown>(value: unknown): Promise<T> {
    if (isPayloadRef(value)) return this.resolveDeep<T>(await this.resolve(value));
    if (Array.isArray(value)) return (await Promise.all(value.map((v) => this.resolveDeep(v)))) as T;
    if (value && typeof value === 'object') {
      const entries = await Promise.all(
        Object.entries(value).map(async ([k, v]) => [k, await this.resolveDeep(v)] as const),
      );
      return Object.fromEntries(entries) as T;
    }
    return value as T;
  }

  private async putBytes(bytes: Buffer): Promise<PayloadRef> {
    const sha256 = sha256Hex(bytes);
    const key = `${PAYLOAD_KEY_PREFIX}${sha256}.json`;
    await this.blobs.put(key, bytes);
    return { $ref: `s3://${this.blobs.bucket}/${key}`, bytes: bytes.byteLength, sha256 };
  }
}
