/**
 * Pulling a 25,000-event history (the service's limit) takes bounded time and memory: the source answers
 * GetExecutionHistory a page at a time, made on demand (about 100 MB of events in all, 4 KB of data each),
 * and the pull streams them into the engine, which stages them a segment at a time. Neither side holds the
 * history: the process's live heap (sampled after a full collection) grows by less than half of it (a copy of
 * it would be all of it), and 25,000
 * events take about five times as long as 5,000. Both figures are printed.
 */
import {
  GetExecutionHistoryCommand,
  DescribeExecutionCommand,
  DescribeStateMachineForExecutionCommand,
  SFNClient,
  type HistoryEvent,
} from '@aws-sdk/client-sfn';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getFullHistory, pullRun } from '../../../packages/local/src/operations';
import { startCountedEngine, type CountedEngine } from './two-engines';

const PAYLOAD = JSON.stringify({ note: 'x'.repeat(4000) });
const DEFINITION = JSON.stringify({
  StartAt: 'Loop',
  States: {
    Loop: { Type: 'Pass', Next: 'Work' },
    Work: {
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke',
      Parameters: { FunctionName: 'autosave-tool-step', 'Payload.$': '$' },
      End: true,
    },
  },
});

/** The event `id` of a failed run of `total` events: Loop entered and exited over and over, then Work fails. */
function eventAt(id: number, total: number): HistoryEvent {
  const at = new Date(Date.UTC(2026, 0, 1) + id);
  const base = { id, previousEventId: id - 1, timestamp: at };
  const tail = total - id;
  if (id === 1)
    return {
      ...base,
      previousEventId: 0,
      type: 'ExecutionStarted',
      executionStartedEventDetails: {
        input: PAYLOAD,
        inputDetails: { truncated: false },
        roleArn: 'arn:aws:iam::111122223333:role/r',
      },
    };
  if (tail === 0)
    return { ...base, type: 'ExecutionFailed', executionFailedEventDetails: { error: 'Boom', cause: 'the last step' } };
  if (tail === 1)
    return {
      ...base,
      type: 'TaskFailed',
      taskFailedEventDetails: { resourceType: 'lambda', resource: 'invoke', error: 'Boom', cause: 'the last step' },
    };
  if (tail === 2)
    return {
      ...base,
      type: 'TaskScheduled',
      taskScheduledEventDetails: {
        resourceType: 'lambda',
        resource: 'invoke',
        region: 'eu-west-1',
        parameters: PAYLOAD,
      },
    };
  if (tail === 3)
    return {
      ...base,
      type: 'TaskStateEntered',
      stateEnteredEventDetails: { name: 'Work', input: PAYLOAD, inputDetails: { truncated: false } },
    };
  return id % 2 === 0
    ? {
        ...base,
        type: 'PassStateEntered',
        stateEnteredEventDetails: { name: 'Loop', input: PAYLOAD, inputDetails: { truncated: false } },
      }
    : {
        ...base,
        type: 'PassStateExited',
        stateExitedEventDetails: { name: 'Loop', output: PAYLOAD, outputDetails: { truncated: false } },
      };
}

/** A Step Functions source that makes a failed run's pages on demand (nothing holds its whole history). */
class GeneratedSource extends SFNClient {
  constructor(private readonly total: number) {
    super({ region: 'eu-west-1', credentials: { accessKeyId: 'a', secretAccessKey: 's' } });
  }
  override send(command: unknown): Promise<never> {
    const arn = `arn:aws:states:eu-west-1:111122223333:execution:big-${this.total}:run`;
    if (command instanceof DescribeExecutionCommand) {
      return Promise.resolve({
        executionArn: arn,
        name: 'run',
        status: 'FAILED',
        startDate: new Date(Date.UTC(2026, 0, 1)),
        stopDate: new Date(Date.UTC(2026, 0, 2)),
        input: PAYLOAD,
        error: 'Boom',
        cause: 'the last step',
      } as never);
    }
    if (command instanceof DescribeStateMachineForExecutionCommand)
      return Promise.resolve({
        name: `big-${this.total}`,
        definition: DEFINITION,
        roleArn: 'arn:aws:iam::111122223333:role/r',
      } as never);
    if (command instanceof GetExecutionHistoryCommand) {
      const from = Number(command.input.nextToken ?? 1);
      const to = Math.min(this.total, from + (command.input.maxResults ?? 1000) - 1);
      const events = Array.from({ length: to - from + 1 }, (_, i) => eventAt(from + i, this.total));
      return Promise.resolve({ events, ...(to < this.total ? { nextToken: String(to + 1) } : {}) } as never);
    }
    return Promise.reject(new Error(`unexpected ${String(command)}`));
  }
}

let laptop: CountedEngine;
beforeAll(async () => {
  laptop = await startCountedEngine();
});
afterAll(async () => {
  await laptop?.close();
});

// What the heap holds, not the garbage it has not collected yet: a full collection before each sample.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;
const liveHeap = (): number => {
  collectGarbage();
  return process.memoryUsage().heapUsed;
};

/** Pulls a generated history of `total` events; the wall time and the live heap's peak growth meanwhile (sampled every 250 ms). */
async function measurePull(total: number): Promise<{ millis: number; heapGrowthBytes: number; rssPeakBytes: number }> {
  const baseHeap = liveHeap();
  let heapPeak = baseHeap;
  let rssPeak = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    heapPeak = Math.max(heapPeak, liveHeap());
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
  }, 250);
  const started = performance.now();
  try {
    const pulled = await pullRun(
      new GeneratedSource(total),
      laptop.local.url,
      `arn:aws:states:eu-west-1:111122223333:execution:big-${total}:run`,
    );
    expect(pulled).toMatchObject({ status: 'FAILED', events: total, failedState: 'Work' });
  } finally {
    clearInterval(sampler);
  }
  return { millis: performance.now() - started, heapGrowthBytes: heapPeak - baseHeap, rssPeakBytes: rssPeak };
}

describe('pulling a 25,000-event history', () => {
  it('takes bounded time and memory (printed), and every event comes back', async () => {
    const small = await measurePull(5_000);
    const large = await measurePull(25_000);
    const historyBytes = 25_000 * PAYLOAD.length;
    const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
    console.log(
      `pull of 5,000 events: ${small.millis.toFixed(0)} ms, live heap +${mb(small.heapGrowthBytes)}; ` +
        `25,000 events (${mb(historyBytes)} of data): ${large.millis.toFixed(0)} ms, live heap +${mb(large.heapGrowthBytes)}, process RSS peak ${mb(large.rssPeakBytes)}`,
    );
    expect(large.heapGrowthBytes).toBeLessThan(historyBytes / 2);
    expect(large.millis / small.millis).toBeLessThan(10);
    const events = await getFullHistory(laptop.sfn, 'arn:aws:states:us-east-1:123456789012:execution:big-25000:run');
    expect(events).toHaveLength(25_000);
    expect(events[12_345]).toEqual(eventAt(12_346, 25_000));
  }, 600_000);
});
