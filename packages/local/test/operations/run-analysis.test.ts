import type { HistoryEvent } from '@aws-sdk/client-sfn';
import { describe, expect, it } from 'vitest';
import {
  analyzeHistory,
  describeStepOutcome,
  isReplayedResult,
  pendingActivities,
  pendingApprovals,
  stepKind,
} from '../../src/operations/run-analysis';

/** Builds a history: each event gets the next id and a timestamp one second after the previous. */
function history(...events: Partial<HistoryEvent>[]): HistoryEvent[] {
  return events.map(
    (e, i) =>
      ({ id: i + 1, previousEventId: i, timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)), ...e }) as HistoryEvent,
  );
}
const entered = (name: string, kind = 'Task'): Partial<HistoryEvent> => ({
  type: `${kind}StateEntered` as HistoryEvent['type'],
  stateEnteredEventDetails: { name },
});
const exited = (name: string, kind = 'Task'): Partial<HistoryEvent> => ({
  type: `${kind}StateExited` as HistoryEvent['type'],
  stateExitedEventDetails: { name },
});
const scheduled = (fn: string, key?: string): Partial<HistoryEvent> => ({
  type: 'TaskScheduled',
  taskScheduledEventDetails: {
    resourceType: 'lambda',
    resource: 'invoke',
    region: 'us-east-1',
    parameters: JSON.stringify({
      FunctionName: `arn:aws:lambda:us-east-1:123456789012:function:${fn}`,
      Payload: key ? { idempotencyKey: key } : {},
    }),
  },
});
const started: Partial<HistoryEvent> = {
  type: 'TaskStarted',
  taskStartedEventDetails: { resourceType: 'lambda', resource: 'invoke' },
};
const succeeded = (payload: unknown): Partial<HistoryEvent> => ({
  type: 'TaskSucceeded',
  taskSucceededEventDetails: {
    resourceType: 'lambda',
    resource: 'invoke',
    output: JSON.stringify({ Payload: payload, StatusCode: 200 }),
  },
});
const failed = (error: string): Partial<HistoryEvent> => ({
  type: 'TaskFailed',
  taskFailedEventDetails: { resourceType: 'lambda', resource: 'invoke', error, cause: 'busy' },
});

describe('analyzeHistory', () => {
  it('reads a plain run: one entry per state, attempts, durations, keys, kinds', () => {
    const a = analyzeHistory(
      history(
        { type: 'ExecutionStarted' },
        entered('Start', 'Pass'),
        exited('Start', 'Pass'),
        entered('send'),
        scheduled('autosave-tool-step', 'site-1:welcome'),
        started,
        succeeded({ result: { messageId: 'm1' }, source: 'executed' }),
        exited('send'),
        { type: 'ExecutionSucceeded' },
      ),
    );
    expect(a.entries.map((e) => [e.name, e.type, e.outcome, e.attempts])).toEqual([
      ['Start', 'Pass', 'succeeded', 0],
      ['send', 'Task', 'succeeded', 1],
    ]);
    expect(a.entries[1]).toMatchObject({
      idempotencyKey: 'site-1:welcome',
      result: { messageId: 'm1' },
      source: 'executed',
      replayed: false,
    });
    expect(describeStepOutcome(a.entries[1])).toBe('done');
    expect(stepKind(a.entries[1])).toBe('tool');
    expect(a.entries[1].exitedAt!.getTime() - a.entries[1].enteredAt.getTime()).toBe(4000);
    expect([...a.states]).toEqual([
      ['Start', 'done'],
      ['send', 'done'],
    ]);
    expect(a.closeEvent).toBe('ExecutionSucceeded');
  });

  it('shows an agent-loop tool batch by its first key and the number of others', () => {
    const batch: Partial<HistoryEvent> = {
      type: 'TaskScheduled',
      taskScheduledEventDetails: {
        resourceType: 'lambda',
        resource: 'invoke',
        region: 'us-east-1',
        parameters: JSON.stringify({
          FunctionName: 'autosave-tool-step',
          Payload: { calls: [{ idempotencyKey: 'r:tools:1:a' }, { idempotencyKey: 'r:tools:1:b' }] },
        }),
      },
    };
    expect(analyzeHistory(history(entered('tools'), batch)).entries[0].idempotencyKey).toBe('r:tools:1:a (+1)');
  });

  const toolStep = (payload: unknown, fn = 'autosave-tool-step') =>
    analyzeHistory(history(entered('step'), scheduled(fn, 'k'), started, succeeded(payload), exited('step')))
      .entries[0];

  it.each([
    [
      'a replayed tool result',
      { result: { messageId: 'm1' }, source: 'replayed' },
      'done; from the ledger (no new call)',
    ],
    [
      'a reconciled tool result',
      { result: { messageId: 'm1' }, source: 'reconciled' },
      'done; reconciled with the provider',
    ],
    ['a tool result made now', { result: { messageId: 'm1' }, source: 'executed' }, 'done'],
    [
      'a batch all replayed',
      {
        results: [
          { id: 'a', name: 't', result: 1, source: 'replayed' },
          { id: 'b', name: 't', result: 2, source: 'replayed' },
        ],
      },
      'done; from the ledger (no new call)',
    ],
    [
      'a batch partly replayed, partly reconciled',
      {
        results: ['replayed', 'reconciled', 'executed'].map((source, i) => ({
          id: `c${i}`,
          name: 't',
          result: i,
          source,
        })),
      },
      'done; 1 of 3 calls from the ledger (no new call); 1 of 3 calls reconciled with the provider',
    ],
  ])('says where %s came from', (_, payload, expected) =>
    expect(describeStepOutcome(toolStep(payload))).toBe(expected),
  );

  it("keeps a tool step's source and the tool's own result apart, and a batch's per-call sources", () => {
    expect(toolStep({ result: { messageId: 'm1' }, source: 'reconciled' })).toMatchObject({
      result: { messageId: 'm1' },
      source: 'reconciled',
      replayed: false,
    });
    const batch = toolStep({
      results: [
        { id: 'a', name: 'calc', result: 1, source: 'replayed' },
        { id: 'b', name: 'calc', result: 2, source: 'executed' },
      ],
    });
    expect(batch.calls).toEqual([
      { id: 'a', name: 'calc', source: 'replayed' },
      { id: 'b', name: 'calc', source: 'executed' },
    ]);
    expect(batch.replayed).toBe(false);
  });

  it('tells a model turn that was replayed from its recording apart from the ledger', () => {
    expect(describeStepOutcome(toolStep({ text: 'hi', replayed: true }, 'autosave-model-step'))).toBe(
      'done; recorded model output, no new call',
    );
  });

  it('counts retries with their errors', () => {
    const a = analyzeHistory(
      history(
        entered('send'),
        scheduled('autosave-tool-step'),
        started,
        failed('IdempotencyInProgressError'),
        scheduled('autosave-tool-step'),
        started,
        succeeded({}),
        exited('send'),
      ),
    );
    expect(a.entries[0]).toMatchObject({
      attempts: 2,
      attemptErrors: ['IdempotencyInProgressError'],
      outcome: 'succeeded',
      reinvocations: 0,
    });
    expect(describeStepOutcome(a.entries[0])).toBe('done; retried after IdempotencyInProgressError');
  });

  it('tells a failure that a Catch took (an approval timeout routed to its timeout path) from a retry', () => {
    const timedOut: Partial<HistoryEvent> = {
      type: 'TaskTimedOut',
      taskTimedOutEventDetails: { resourceType: 'lambda', resource: 'invoke', error: 'States.Timeout' },
    };
    const a = analyzeHistory(
      history(
        entered('coordinator-approval'),
        scheduled('autosave-approval-request'),
        started,
        failed('Lambda.ServiceException'),
        scheduled('autosave-approval-request'),
        started,
        timedOut,
        exited('coordinator-approval'),
      ),
    );
    expect(a.entries[0]).toMatchObject({ attempts: 2, outcome: 'succeeded' });
    expect(describeStepOutcome(a.entries[0])).toBe('caught States.Timeout; retried after Lambda.ServiceException');
  });

  it("reads the local engine's restart marker (a second TaskStarted with no outcome between) as a re-invocation; the states before stay done", () => {
    const a = analyzeHistory(
      history(
        entered('first'),
        scheduled('autosave-tool-step'),
        started,
        succeeded({}),
        exited('first'),
        entered('send'),
        scheduled('autosave-tool-step', 'k'),
        started,
        started,
        succeeded({}),
        exited('send'),
      ),
    );
    expect(a.entries[1]).toMatchObject({ attempts: 2, reinvocations: 1, outcome: 'succeeded' });
    expect(describeStepOutcome(a.entries[1])).toBe('done; invoked again after an engine restart');
    expect(a.resumes).toBe(1);
    expect(a.redrives).toBe(0);
    expect(a.states.get('first')).toBe('done');
    expect(a.states.get('send')).toBe('done');
  });

  it('reads a Lambda killed mid-step as AWS records it (TaskFailed, then the Retry schedules it again) as the local restart reads: same states and attempts', () => {
    // On AWS a tool-step Lambda cut off mid-attempt (timeout, crash) fails the attempt; the Retry runs it again.
    const before = [
      entered('first'),
      scheduled('autosave-tool-step'),
      started,
      succeeded({}),
      exited('first'),
      entered('send'),
      scheduled('autosave-tool-step', 'k'),
      started,
    ];
    const after = [
      succeeded({ result: { messageId: 'm1' }, source: 'reconciled' }),
      exited('send'),
      { type: 'ExecutionSucceeded' } as Partial<HistoryEvent>,
    ];
    const onAws = analyzeHistory(
      history(...before, failed('Sandbox.Timedout'), scheduled('autosave-tool-step', 'k'), started, ...after),
    );
    const onLocalEngine = analyzeHistory(history(...before, started, ...after));

    expect([...onAws.states]).toEqual([
      ['first', 'done'],
      ['send', 'done'],
    ]);
    expect([...onLocalEngine.states]).toEqual([...onAws.states]);
    expect(onAws.entries[1]).toMatchObject({
      attempts: 2,
      attemptErrors: ['Sandbox.Timedout'],
      reinvocations: 0,
      source: 'reconciled',
      outcome: 'succeeded',
      idempotencyKey: 'k',
    });
    expect(onLocalEngine.entries[1]).toMatchObject({
      attempts: 2,
      attemptErrors: [],
      reinvocations: 1,
      source: 'reconciled',
      outcome: 'succeeded',
      idempotencyKey: 'k',
    });
    expect(describeStepOutcome(onAws.entries[1])).toBe(
      'done; reconciled with the provider; retried after Sandbox.Timedout',
    );
    expect(onAws).toMatchObject({ resumes: 0, redrives: 0, closeEvent: 'ExecutionSucceeded' });
  });

  it('reads a redrive: the failed state runs again, the states before it were skipped on resume', () => {
    const a = analyzeHistory(
      history(
        entered('first'),
        scheduled('autosave-tool-step'),
        started,
        succeeded({}),
        exited('first'),
        entered('send'),
        scheduled('autosave-tool-step'),
        started,
        failed('Boom'),
        { type: 'ExecutionFailed', executionFailedEventDetails: { error: 'Boom', cause: 'no' } },
        { type: 'ExecutionRedriven', executionRedrivenEventDetails: { redriveCount: 1 } },
        entered('send'),
        scheduled('autosave-tool-step'),
        started,
        succeeded({}),
        exited('send'),
        { type: 'ExecutionSucceeded' },
      ),
    );
    expect(a.entries.map((e) => [e.name, e.outcome])).toEqual([
      ['first', 'succeeded'],
      ['send', 'failed'],
      ['send', 'succeeded'],
    ]);
    expect(a.redrives).toBe(1);
    expect(a.states.get('first')).toBe('skipped');
    expect(a.states.get('send')).toBe('done');
  });

  it('marks the open state of a failed run as failed, and a redrive that continues the same entry reopens it', () => {
    const failedRun = history(entered('send'), scheduled('autosave-tool-step'), started, failed('Boom'), {
      type: 'ExecutionFailed',
      executionFailedEventDetails: { error: 'Boom' },
    });
    expect(analyzeHistory(failedRun).states.get('send')).toBe('failed');
    const resumed = analyzeHistory([
      ...failedRun,
      ...history({}, {}, {}, {}, {}, { type: 'ExecutionRedriven' }, scheduled('autosave-tool-step'), started)
        .slice(5)
        .map((e, i) => ({ ...e, id: 6 + i, previousEventId: 5 + i })),
    ]);
    expect(resumed.entries).toHaveLength(1);
    expect(resumed.entries[0]).toMatchObject({ outcome: 'running', attempts: 2 });
    expect(resumed.states.get('send')).toBe('running');
  });

  it('finds a pending approval and its link in the TaskSubmitted output', () => {
    const a = analyzeHistory(
      history(entered('approve'), scheduled('autosave-approval-request'), started, {
        type: 'TaskSubmitted',
        taskSubmittedEventDetails: {
          resourceType: 'lambda',
          resource: 'invoke.waitForTaskToken',
          output: JSON.stringify({
            Payload: { approvalId: 'ap1', url: 'http://x/approvals/ap1?sig=s', expiresAtSeconds: 1_800_000_000 },
            StatusCode: 200,
          }),
        },
      }),
    );
    expect(a.states.get('approve')).toBe('waiting');
    expect(pendingApprovals(a)).toEqual([
      {
        approvalId: 'ap1',
        url: 'http://x/approvals/ap1?sig=s',
        expiresAt: new Date(1_800_000_000_000).toISOString(),
        step: 'approve',
        since: a.entries[0].enteredAt,
      },
    ]);
  });
});

describe('isReplayedResult', () => {
  it.each([
    [{ text: 'hi', replayed: true }, true],
    [{ text: 'hi', replayed: false }, false],
    [{ result: { sent: 1 }, source: 'replayed' }, true],
    [{ result: { sent: 1 }, source: 'executed' }, false],
    [{ result: { sent: 1 }, source: 'reconciled' }, false],
    [
      {
        results: [
          { id: '1', name: 't', result: 1, source: 'replayed' },
          { id: '2', name: 't', result: 2, source: 'replayed' },
        ],
      },
      true,
    ],
    [
      {
        results: [
          { id: '1', name: 't', result: 1, source: 'replayed' },
          { id: '2', name: 't', result: 2, source: 'executed' },
        ],
      },
      false,
    ],
    [{ results: { $ref: 's3://b/k', bytes: 1, sha256: 'ab' } }, false],
    ['text', false],
    [null, false],
  ])('%j -> %s', (result, expected) => expect(isReplayedResult(result)).toBe(expected));
});

// An activity Task's events as GetExecutionHistory answers them (the SDK's ActivityScheduledEventDetails:
// resource, input, timeoutInSeconds, heartbeatInSeconds; ActivityStartedEventDetails: workerName).
const ACTIVITY = 'arn:aws:states:us-east-1:123456789012:activity:label-review';
const activityScheduled: Partial<HistoryEvent> = {
  type: 'ActivityScheduled',
  activityScheduledEventDetails: { resource: ACTIVITY, input: '{}', timeoutInSeconds: 3600, heartbeatInSeconds: 600 },
};

describe('a run waiting for an activity worker', () => {
  it('is waiting for a worker from ActivityScheduled, and taken by the worker ActivityStarted names', () => {
    const queued = analyzeHistory(history({ type: 'ExecutionStarted' }, entered('Review'), activityScheduled));
    expect(pendingActivities(queued)).toEqual([
      {
        step: 'Review',
        activityArn: ACTIVITY,
        scheduledAt: new Date(Date.UTC(2026, 0, 1, 0, 0, 2)),
        timeoutSeconds: 3600,
        heartbeatSeconds: 600,
      },
    ]);
    expect(describeStepOutcome(queued.entries[0])).toBe('waiting for a worker');
    // Coloured as waiting in the graph, like a state waiting on a human: nothing moves until someone answers.
    expect(queued.states.get('Review')).toBe('waiting');
    expect(pendingApprovals(queued)).toEqual([]);

    const taken = analyzeHistory(
      history({ type: 'ExecutionStarted' }, entered('Review'), activityScheduled, {
        type: 'ActivityStarted',
        activityStartedEventDetails: { workerName: 'labeller-7' },
      }),
    );
    expect(pendingActivities(taken)).toMatchObject([
      { step: 'Review', workerName: 'labeller-7', startedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, 3)) },
    ]);
    expect(describeStepOutcome(taken.entries[0])).toBe('taken by worker labeller-7');
  });

  it('waits no more once the worker answers, the task times out, or the run closes', () => {
    const start = [
      { type: 'ExecutionStarted' },
      entered('Review'),
      activityScheduled,
      { type: 'ActivityStarted', activityStartedEventDetails: {} },
    ] as Partial<HistoryEvent>[];
    const answered = analyzeHistory(
      history(...start, { type: 'ActivitySucceeded', activitySucceededEventDetails: { output: '{}' } }),
    );
    expect(pendingActivities(answered)).toEqual([]);
    const timedOut = analyzeHistory(
      history(...start, { type: 'ActivityTimedOut', activityTimedOutEventDetails: { error: 'States.Timeout' } }),
    );
    expect(pendingActivities(timedOut)).toEqual([]);
    const aborted = analyzeHistory(history(...start, { type: 'ExecutionAborted' }));
    expect(pendingActivities(aborted)).toEqual([]);
    // A worker that gave no workerName is still a worker that took the task.
    expect(describeStepOutcome(analyzeHistory(history(...start)).entries[0])).toBe('taken by a worker');
  });
});
