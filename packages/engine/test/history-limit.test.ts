/**
 * The 25,000-event history limit, as AWS applies it (developer guide, "Avoid reaching the history quota",
 * and histories recorded on AWS): at 24,999 events the next event decides — an `ExecutionSucceeded` may be
 * the 25,000th, anything else makes event 25,000 an `ExecutionFailed` with `States.Runtime` and "The
 * execution reached the maximum number of history events (25000)." Concurrent frames (a Map's iterations)
 * must not get past it between them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { HISTORY_EVENT_LIMIT } from '../../workflow/src/config/constants';
import { EngineHarness, jsonata } from './support/engine-harness';

const CAUSE = `The execution reached the maximum number of history events (${HISTORY_EVENT_LIMIT}).`;

/** A loop of `iterations` x (Pass + Choice) = 4 events each, then a Succeed state: 4 x iterations + 4 events in all. */
const loop = (iterations: number) =>
  jsonata({
    Spin: { Type: 'Pass', Assign: { n: '{% ($exists($n) ? $n : 0) + 1 %}' }, Next: 'Again' },
    Again: { Type: 'Choice', Choices: [{ Condition: `{% $n < ${iterations} %}`, Next: 'Spin' }], Default: 'Done' },
    Done: { Type: 'Succeed' },
  });

describe('the 25,000-event history limit', () => {
  let h: EngineHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  async function lastEvents(executionArn: string, n: number) {
    return (await h!.call('GetExecutionHistory', { executionArn, reverseOrder: true, maxResults: n })).events as any[];
  }

  it('fails a 10,000-item Map (40,004 events unbounded) at exactly event 25,000', async () => {
    h = await new EngineHarness().start();
    const m = await h.machine(
      jsonata({
        Each: {
          Type: 'Map',
          Items: '{% [1..10000] %}',
          ItemProcessor: { StartAt: 'Item', States: { Item: { Type: 'Pass', End: true } } },
          End: true,
        },
      }),
    );
    const arn = await h.run(m);
    expect(await h.describe(arn)).toMatchObject({ status: 'FAILED', error: 'States.Runtime', cause: CAUSE });
    const [last, before] = await lastEvents(arn, 2);
    expect(last).toMatchObject({
      id: HISTORY_EVENT_LIMIT,
      type: 'ExecutionFailed',
      executionFailedEventDetails: { error: 'States.Runtime', cause: CAUSE },
    });
    expect(before.id).toBe(HISTORY_EVENT_LIMIT - 1);
    expect((await h.call('DescribeExecution', { executionArn: arn })).redriveStatus).toBe('NOT_REDRIVABLE');
  });

  it('lets a run succeed when its 25,000th event is ExecutionSucceeded', async () => {
    h = await new EngineHarness().start();
    const arn = await h.run(await h.machine(loop((HISTORY_EVENT_LIMIT - 4) / 4)));
    expect(await h.describe(arn)).toMatchObject({ status: 'SUCCEEDED' });
    const [last] = await lastEvents(arn, 1);
    expect(last).toMatchObject({ id: HISTORY_EVENT_LIMIT, type: 'ExecutionSucceeded' });
  });

  it('fails a run one iteration longer, with ExecutionFailed as event 25,000', async () => {
    h = await new EngineHarness().start();
    const arn = await h.run(await h.machine(loop((HISTORY_EVENT_LIMIT - 4) / 4 + 1)));
    expect(await h.describe(arn)).toMatchObject({ status: 'FAILED', error: 'States.Runtime', cause: CAUSE });
    const [last] = await lastEvents(arn, 1);
    expect(last).toMatchObject({ id: HISTORY_EVENT_LIMIT, type: 'ExecutionFailed' });
  });
});
