/**
 * Raw deflate of many small inputs through one zlib stream, reset between inputs.
 *
 * Why not `deflateRawSync`: every call builds a Transform stream and a fresh zlib state (about 270 KB of
 * tables to allocate and clear, and the preset dictionary to hash) before it compresses the ~1 KB a
 * transition writes. At 50 runs in flight that fixed cost was a quarter of the engine's CPU. zlib's own
 * answer is `deflateReset`: the same state serves any number of independent streams (madler/zlib#371).
 * Node exposes that as `reset()`, but its synchronous entry points close the stream after one input, so
 * this drives the stream's native handle directly, the way Node's own `processChunkSync` does.
 *
 * The handle is Node's internal API. So the fast path is taken only when the handle has the expected shape
 * and its output for a probe is byte-for-byte what `deflateRawSync` gives; otherwise, and for an input the
 * output buffer cannot hold, every call is `deflateRawSync`. The bytes stored never depend on which path ran.
 */
import { constants, DeflateRaw, deflateRawSync, type ZlibOptions } from 'node:zlib';

/** The native side of a zlib stream, as Node's `lib/zlib.js` uses it. */
interface NativeZlibHandle {
  writeSync(
    flush: number,
    input: Buffer,
    inOff: number,
    inLen: number,
    out: Buffer,
    outOff: number,
    outLen: number,
  ): void;
  reset(): void;
}

/** What a stream object carries beside its public API. */
interface StreamInternals {
  readonly _handle?: NativeZlibHandle;
  /** `[avail_out, avail_in]` after the last write. */
  readonly _writeState?: Uint32Array;
}

/** Inputs above this go through `deflateRawSync`: a bound that always fits the output buffer below. */
const MAX_FAST_INPUT = 48 * 1024;
/** zlib's worst case for stored blocks is a few bytes per 16 KB past the input, far inside this. */
const OUTPUT_BYTES = 64 * 1024;

/** The reused stream's native side, once it has proved to give `deflateRawSync`'s bytes. */
interface FastPath {
  readonly stream: DeflateRaw;
  readonly handle: NativeZlibHandle;
  readonly state: Uint32Array;
}

export class SegmentDeflater {
  private readonly out = Buffer.allocUnsafe(OUTPUT_BYTES);
  private readonly fastPath: FastPath | undefined;

  constructor(private readonly options: Pick<ZlibOptions, 'level' | 'dictionary'>) {
    const stream = new DeflateRaw(options);
    // A failed native write destroys the stream, which then emits 'error': the caller has already fallen back.
    stream.on('error', () => undefined);
    const { _handle: handle, _writeState: state } = stream as unknown as StreamInternals;
    if (
      typeof handle?.writeSync !== 'function' ||
      typeof handle.reset !== 'function' ||
      !(state instanceof Uint32Array)
    )
      return;
    const candidate = { stream, handle, state };
    const probe = Buffer.from('{"probe":["segment-deflater","segment-deflater"]}');
    const reused = this.tryFast(candidate, probe, 0);
    if (reused?.subarray(1).equals(deflateRawSync(probe, options))) this.fastPath = candidate;
  }

  /** Whether inputs go through the one reused stream (false: each is `deflateRawSync`, as before). */
  get reusesStream(): boolean {
    return this.fastPath !== undefined;
  }

  /**
   * Raw deflate of `input` with the options given at construction, after one `lead` byte: the result is
   * `[lead, ...deflateRawSync(input, options)]`.
   */
  deflate(input: Buffer, lead: number): Buffer {
    const fast = this.fastPath ? this.tryFast(this.fastPath, input, lead) : undefined;
    if (fast) return fast;
    const body = deflateRawSync(input, this.options);
    const blob = Buffer.allocUnsafe(body.length + 1);
    blob[0] = lead;
    body.copy(blob, 1);
    return blob;
  }

  /** The fast path, or undefined when it cannot finish this input in one write. */
  private tryFast({ stream, handle, state }: FastPath, input: Buffer, lead: number): Buffer | undefined {
    if (input.length > MAX_FAST_INPUT || stream.destroyed) return undefined;
    const out = this.out;
    try {
      handle.writeSync(constants.Z_FINISH, input, 0, input.length, out, 1, OUTPUT_BYTES - 1);
    } finally {
      // The stream may be half-way through a deflate; a reset makes it whole again either way.
      if (!stream.destroyed) handle.reset();
    }
    // With Z_FINISH and room left over, zlib ended the stream; no room left means it may not have.
    const roomLeft = state[0];
    if (state[1] !== 0 || roomLeft === 0 || stream.destroyed) return undefined;
    const used = OUTPUT_BYTES - 1 - roomLeft;
    const blob = Buffer.allocUnsafe(used + 1);
    blob[0] = lead;
    out.copy(blob, 1, 1, used + 1);
    return blob;
  }
}
