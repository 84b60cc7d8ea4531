/**
 * One zlib stream, reset between inputs, deflates history segments (zlib: `deflateReset` keeps the state's
 * memory for the next independent stream). What it writes must be exactly what `deflateRawSync` writes, so a
 * store never depends on which path made its bytes, and every blob inflates on its own.
 */
import { randomBytes } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { SegmentDeflater } from '../../src/store/segment-deflater';

const dictionary = Buffer.from(
  '"TaskStateEntered","TaskScheduled","TaskSucceeded","arn:aws:states:us-east-1:123456789012:execution:',
);
const options = { dictionary, level: 6 };

const event = (i: number): string =>
  JSON.stringify([
    i,
    'TaskSucceeded',
    1_764_000_000_000 + i,
    i - 1,
    { output: { step: i, note: 'x'.repeat(i % 97) }, resource: 'invoke' },
  ]);
const segment = (from: number, count: number): Buffer =>
  Buffer.from(`[${Array.from({ length: count }, (_, k) => event(from + k)).join(',')}]`);

describe('SegmentDeflater', () => {
  const inputs: [string, Buffer][] = [
    ['an empty input', Buffer.alloc(0)],
    ['one event', segment(1, 1)],
    ['a transition of six events', segment(2, 6)],
    ['a closing run of 400 events', segment(8, 400)],
    ['40 KB that does not compress', randomBytes(40 * 1024)],
    ['an input larger than one reused write takes (200 KB)', randomBytes(200 * 1024)],
    ['a transition after all of those', segment(500, 6)],
  ];

  it("answers deflateRawSync's bytes after the lead byte, input after input on the one stream", () => {
    const deflater = new SegmentDeflater(options);
    for (const [what, input] of inputs) {
      const blob = deflater.deflate(input, 2);
      expect(blob[0], what).toBe(2);
      expect(blob.subarray(1).equals(deflateRawSync(input, options)), what).toBe(true);
    }
  });

  it('writes blobs that inflate one by one: no input leans on the one before it', () => {
    const deflater = new SegmentDeflater(options);
    const blobs = inputs.map(([, input]) => deflater.deflate(input, 7));
    blobs.reverse().forEach((blob, k) => {
      const [what, input] = inputs[inputs.length - 1 - k]!;
      expect(inflateRawSync(blob.subarray(1), { dictionary }).equals(input), what).toBe(true);
    });
  });

  it('reuses its stream on this Node (the reason it exists), and two deflaters do not share one', () => {
    const a = new SegmentDeflater(options);
    const b = new SegmentDeflater({ level: 1 });
    expect(a.reusesStream).toBe(true);
    expect(b.reusesStream).toBe(true);
    const input = segment(1, 12);
    expect(a.deflate(input, 0).subarray(1).equals(deflateRawSync(input, options))).toBe(true);
    expect(
      b
        .deflate(input, 0)
        .subarray(1)
        .equals(deflateRawSync(input, { level: 1 })),
    ).toBe(true);
  });
});
