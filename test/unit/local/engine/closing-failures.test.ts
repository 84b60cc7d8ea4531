/**
 * A run never stays RUNNING because its close could not be written: packing the history (space only) that
 * fails leaves the events as rows and the run closes; StopExecution stops the run or answers an error, never
 * a stop that changed nothing; a transition that cannot be written twice fails the run with States.Runtime
 * and the error as its cause.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EngineStore } from '../../../../packages/local/src/store';
import { EngineHarness, jsonpath } from './support/engine-harness';

const waitForever = jsonpath({ W: { Type: 'Wait', Seconds: 86_400, Next: 'P' }, P: { Type: 'Pass', End: true } });

describe('failures while closing a run', () => {
  let h: EngineHarness | undefined;
  afterEach(async () => {
    vi.restoreAllMocks();
    await h?.close();
    h = undefined;
  });

  it('a history that cannot be packed stays as rows: the run closes SUCCEEDED and its history reads whole', async () => {
    h = await new EngineHarness({}).start();
    vi.spyOn(EngineStore.prototype as unknown as { packSegments: () => void }, 'packSegments').mockImplementation(() => {
      throw new RangeError('Invalid string length');
    });
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const exec = await h.run(await h.machine(jsonpath({ A: { Type: 'Pass', Next: 'B' }, B: { Type: 'Pass', End: true } })), { a: 1 });
    expect(await h.describe(exec)).toMatchObject({ status: 'SUCCEEDED' });
    expect(await h.eventTypes(exec)).toEqual(['ExecutionStarted', 'PassStateEntered', 'PassStateExited', 'PassStateEntered', 'PassStateExited', 'ExecutionSucceeded']);
  });

  it('StopExecution stops a run whose history cannot be packed', async () => {
    h = await new EngineHarness({}).start();
    vi.spyOn(EngineStore.prototype as unknown as { packSegments: () => void }, 'packSegments').mockImplementation(() => {
      throw new RangeError('Invalid string length');
    });
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const exec = await h.run(await h.machine(waitForever), {});
    await h.call('StopExecution', { executionArn: exec, error: 'Stopped', cause: 'by the test' });
    expect(await h.describe(exec)).toMatchObject({ status: 'ABORTED' });
    expect((await h.eventTypes(exec)).at(-1)).toBe('ExecutionAborted');
  });

  it('a closing transition that cannot be written fails the run with States.Runtime, the error in its cause', async () => {
    h = await new EngineHarness({}).start();
    vi.spyOn(EngineStore.prototype, 'deleteFrames').mockImplementation(() => {
      throw new Error('disk I/O error');
    });
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const exec = await h.run(await h.machine(jsonpath({ W: { Type: 'Wait', Seconds: 1, Next: 'A' }, A: { Type: 'Pass', End: true } })), {});
    await h.clock.advance(2_000);
    await h.idle();
    const described = await h.describe(exec);
    expect(described).toMatchObject({ status: 'FAILED', error: 'States.Runtime' });
    expect(described.cause).toContain('disk I/O error');
    expect((await h.eventTypes(exec)).at(-1)).toBe('ExecutionFailed');
  });
});
