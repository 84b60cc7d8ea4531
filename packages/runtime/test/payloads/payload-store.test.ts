import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAYLOAD_INLINE_LIMIT_BYTES } from '@autosave/workflow/config';
import { InMemoryMetrics, MetricName } from '@autosave/runtime/metrics';
import { PayloadIntegrityError, PayloadStore, S3BlobStore, isPayloadRef, parseS3Url } from '@autosave/runtime/payloads';
import { canonicalJson, sha256Hex } from '@autosave/runtime/records';
import { startLocalAws, type LocalAws } from '../../../../test/fixtures/runtime/local-aws';

let aws: LocalAws;
let store: PayloadStore;
const metrics = new InMemoryMetrics();

beforeAll(async () => {
  aws = await startLocalAws();
  store = new PayloadStore({ blobs: new S3BlobStore(aws.s3, aws.bucket), metrics });
});
afterAll(() => aws.close());

const big = (bytes: number) => ({ text: 'x'.repeat(bytes) });

describe('PayloadStore', () => {
  it('keeps a value under the inline limit inline', async () => {
    const value = { small: true };
    expect(await store.offloadIfLarge(value)).toBe(value);
  });

  it('stores a 300 KB value under its sha256 and hands back a reference', async () => {
    const value = big(300 * 1024);
    const ref = await store.offloadIfLarge(value);
    expect(isPayloadRef(ref)).toBe(true);
    if (!isPayloadRef(ref)) return;
    const json = JSON.stringify(value);
    expect(ref).toEqual({
      $ref: `s3://${aws.bucket}/payloads/${sha256Hex(json)}.json`,
      bytes: Buffer.byteLength(json),
      sha256: sha256Hex(json),
    });
    expect(await store.resolve(ref)).toEqual(value);
    expect(metrics.get(MetricName.PayloadsOffloaded)).toBeGreaterThanOrEqual(1);
  });

  it('offloads exactly above PAYLOAD_INLINE_LIMIT_BYTES', async () => {
    const overhead = JSON.stringify(big(0)).length;
    expect(isPayloadRef(await store.offloadIfLarge(big(PAYLOAD_INLINE_LIMIT_BYTES - overhead)))).toBe(false);
    expect(isPayloadRef(await store.offloadIfLarge(big(PAYLOAD_INLINE_LIMIT_BYTES - overhead + 1)))).toBe(true);
  });

  it('gives the same reference for the same value (content addressed)', async () => {
    expect(await store.put({ a: 1, b: [2] })).toEqual(await store.put({ a: 1, b: [2] }));
  });

  it('resolves references at any depth, including references inside referenced values', async () => {
    const inner = await store.put({ deep: 'value' });
    const outer = await store.put({ nested: inner });
    expect(await store.resolveDeep({ list: [outer, 1], plain: 'x' })).toEqual({
      list: [{ nested: { deep: 'value' } }, 1],
      plain: 'x',
    });
  });

  it('shrinks an oversized object by storing its largest members by reference, keeping the shape', async () => {
    const value = { final: false, text: 'short', doc: 'd'.repeat(150 * 1024), notes: 'n'.repeat(1024) };
    const shrunk = (await store.shrinkToFit(value)) as Record<string, unknown>;
    expect(shrunk.final).toBe(false);
    expect(shrunk.text).toBe('short');
    expect(shrunk.notes).toBe(value.notes);
    expect(isPayloadRef(shrunk.doc)).toBe(true);
    expect(await store.resolveDeep(shrunk)).toEqual(value);
    expect(await store.shrinkToFit({ a: 1 })).toEqual({ a: 1 });
  });

  it('stores a value whole when shrinking its members cannot make it fit', async () => {
    const manySmall = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`k${i}`, 'v'.repeat(100)]));
    expect(isPayloadRef(await store.shrinkToFit(manySmall))).toBe(true);
    expect(isPayloadRef(await store.shrinkToFit('s'.repeat(200 * 1024)))).toBe(true);
  });

  it('leaves reserveBytes free under the limit for a wrapper the caller adds', async () => {
    const justFits = { url: 'u', text: 't'.repeat(PAYLOAD_INLINE_LIMIT_BYTES - 40) };
    expect(await store.shrinkToFit(justFits)).toBe(justFits);
    const shrunk = (await store.shrinkToFit(justFits, { reserveBytes: 64 })) as Record<string, unknown>;
    expect(shrunk.url).toBe('u');
    expect(isPayloadRef(shrunk.text)).toBe(true);
    expect(
      isPayloadRef(await store.shrinkToFit('s'.repeat(PAYLOAD_INLINE_LIMIT_BYTES - 40), { reserveBytes: 64 })),
    ).toBe(true);
  });

  it('refuses a reference whose object was tampered with', async () => {
    const ref = await store.put({ amount: 100 });
    const { bucket, key } = parseS3Url(ref.$ref);
    await aws.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: JSON.stringify({ amount: 999 }) }));
    await expect(store.resolve(ref)).rejects.toBeInstanceOf(PayloadIntegrityError);
    await expect(store.resolveDeep({ x: ref })).rejects.toMatchObject({ name: 'PayloadIntegrityError' });
  });

  it('refuses a reference whose hash or length was edited', async () => {
    const ref = await store.put({ amount: 5 });
    await expect(store.resolve({ ...ref, sha256: sha256Hex('other') })).rejects.toBeInstanceOf(PayloadIntegrityError);
    await expect(store.resolve({ ...ref, bytes: ref.bytes + 1 })).rejects.toBeInstanceOf(PayloadIntegrityError);
  });
});

describe('canonicalJson', () => {
  it('is the same whatever order keys were built in', () => {
    expect(canonicalJson({ b: 1, a: { d: 2, c: [{ f: 1, e: 2 }] } })).toBe(
      canonicalJson({ a: { c: [{ e: 2, f: 1 }], d: 2 }, b: 1 }),
    );
  });
});
