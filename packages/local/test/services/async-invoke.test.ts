/**
 * An SNS subscription or an EventBridge target invokes its function asynchronously. Lambda's documented
 * behaviour for an asynchronous invocation whose function returns an error: it retries twice more, and with
 * no on-failure destination the event is then dropped
 * (https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-error-handling.html).
 */
import { describe, expect, it } from 'vitest';
import type { LambdaInvoker } from '../../../engine/src';
import { invokeAsynchronously } from '../../src/services/delivery';

const ARN = 'arn:aws:lambda:us-east-1:123456789012:function:subscriber';
function failing(times: number): { invoke: LambdaInvoker; calls: () => number } {
  let calls = 0;
  const invoke: LambdaInvoker = async () => {
    calls++;
    if (calls <= times) return { payload: { errorMessage: 'boom' }, functionError: 'Unhandled' } as never;
    return { payload: null } as never;
  };
  return { invoke, calls: () => calls };
}

describe('an asynchronous invocation', () => {
  it('is delivered at the first success', async () => {
    const f = failing(1);
    expect(await invokeAsynchronously(f.invoke, ARN, {})).toEqual({ delivered: true });
    expect(f.calls()).toBe(2);
  });

  it('whose function keeps failing runs three times in all, then the event is dropped', async () => {
    const f = failing(Infinity);
    const outcome = await invokeAsynchronously(f.invoke, ARN, {});
    expect(outcome).toMatchObject({ delivered: false, attempts: 3, detail: { errorMessage: 'boom' } });
    expect(f.calls()).toBe(3);
  });

  it('counts an invoke that throws (the function could not be run) as a failed attempt', async () => {
    let calls = 0;
    const outcome = await invokeAsynchronously(
      async () => {
        calls++;
        throw new Error('no such function');
      },
      ARN,
      {},
    );
    expect(outcome).toMatchObject({ delivered: false, attempts: 3 });
    expect(calls).toBe(3);
  });

  it('stops retrying when the engine stops, by throwing: the caller keeps the event for the next start', async () => {
    const f = failing(Infinity);
    await expect(invokeAsynchronously(f.invoke, ARN, {}, () => true)).rejects.toThrow(/while the engine stopped/);
    expect(f.calls()).toBe(1);
  });
});
