import { describe, expect, it } from 'vitest';
import { ExpressRunLog } from '../../src/services/express-run-log';

const run = (n: number) => ({
  description: {
    executionArn: `arn:aws:states:us-east-1:123456789012:express:m:run-${n}:x`,
    name: `run-${n}`,
    status: 'SUCCEEDED',
    startDate: 1_700_000_000 + n,
    stopDate: 1_700_000_001.5 + n,
  },
  events: [
    { id: 1, type: 'ExecutionStarted', timestamp: 1_700_000_000 + n, executionStartedEventDetails: { input: '{}' } },
  ],
});

describe('the express run log', () => {
  it('keeps the newest runs up to its capacity, newest first, in the SDK shapes (Dates for epoch seconds)', () => {
    const log = new ExpressRunLog(2);
    for (const n of [1, 2, 3]) log.record(run(n));
    expect(log.list().map((r) => r.execution.name)).toEqual(['run-3', 'run-2']);
    expect(log.get(run(1).description.executionArn)).toBeUndefined();
    const kept = log.get(run(3).description.executionArn)!;
    expect(kept.execution.stopDate).toEqual(new Date(1_700_000_004_500));
    expect(kept.events[0].timestamp).toEqual(new Date(1_700_000_003_000));
    expect(kept.events[0].executionStartedEventDetails?.input).toBe('{}');
  });

  it('lists the runs in flight first, as the engine reads them when asked, and finds them by ARN', () => {
    const running = { ...run(9), description: { ...run(9).description, status: 'RUNNING', stopDate: undefined } };
    let inFlight = [running];
    const log = new ExpressRunLog(2, () => inFlight);
    log.record(run(1));
    expect(log.list().map((r) => `${r.execution.name} ${r.execution.status}`)).toEqual([
      'run-9 RUNNING',
      'run-1 SUCCEEDED',
    ]);
    expect(log.get(running.description.executionArn)?.execution.status).toBe('RUNNING');
    inFlight = [];
    expect(log.get(running.description.executionArn)).toBeUndefined();
  });
});
