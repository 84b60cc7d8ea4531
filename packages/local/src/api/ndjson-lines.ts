/**
 * The JSON values of a newline-delimited JSON body, one line at a time, as the body streams in: a reader
 * that stops pulling stops the stream (no more of it is read than one line and a chunk).
 */
import type { Readable } from 'node:stream';

/** A line of the body is not JSON, or is longer than allowed. */
export class NdjsonLineError extends Error {
  override readonly name = 'NdjsonLineError';
}

/** Yields each non-empty line's value; throws {@link NdjsonLineError} for a line over `maxLineBytes` or not JSON. */
export async function* ndjsonValues(body: Readable, maxLineBytes: number): AsyncGenerator<unknown> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const parse = (bytes: Buffer, lineNo: number): unknown => {
    try {
      return JSON.parse(bytes.toString('utf8'));
    } catch (err) {
      throw new NdjsonLineError(`line ${lineNo} is not JSON: ${(err as Error).message}`);
    }
  };
  let lineNo = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      const line = Buffer.concat([...pending, chunk.subarray(start, nl)]);
      pending = [];
      pendingBytes = 0;
      start = nl + 1;
      lineNo += 1;
      if (line.length > maxLineBytes) throw new NdjsonLineError(`line ${lineNo} is over ${maxLineBytes} bytes`);
      if (line.length > 0) yield parse(line, lineNo);
    }
    if (start < chunk.length) {
      pending.push(chunk.subarray(start));
      pendingBytes += chunk.length - start;
      if (pendingBytes > maxLineBytes) throw new NdjsonLineError(`line ${lineNo + 1} is over ${maxLineBytes} bytes`);
    }
  }
  if (pendingBytes > 0) yield parse(Buffer.concat(pending), lineNo + 1);
}
