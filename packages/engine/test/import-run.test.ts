/**
 * Engine.importRun: a closed run read from a second engine (the source, as AWS would answer) is taken in
 * with its history whole and its frames where the source left them, so that a redrive here runs as a
 * redrive at the source would: the same events, no succeeded state run again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { EngineHarness, invokeTask, jsonata, namedError, SHARED_STORE } from './support/engine-harness';
import type { RunImportHeader, WireHistoryEvent } from '../src';

let fixed = false;
const functions = {
  item: (n: number) => {
    if (n === 2 && !fixed) throw namedError('Defect', 'planted defect');
    return n * 10;
  },
  ok: (p: Record<string, unknown>) => ({ ...p, ok: true }),
  flaky: (p: Record<string, unknown>) => {
    if (!fixed) throw namedError('Defect', 'planted defect');
    return { ...p, done: true };
  },
};
const definition = jsonata({
  A: { ...invokeTask('ok'), Assign: { seen: '{% $states.result.Payload.n %}' }, Next: 'B' },
  B: { Type: 'Pass', Output: '{% $merge([$states.input, {"seen": $seen}]) %}', Next: 'C' },
  C: { ...invokeTask('flaky'), Retry: [{ ErrorEquals: ['Defect'], MaxAttempts: 1, IntervalSeconds: 1 }], End: true },
});

let source: EngineHarness;
let local: EngineHarness;
beforeAll(async () => {
  source = await new EngineHarness(functions, SHARED_STORE).start();
  local = await new EngineHarness(functions, SHARED_STORE).start();
});
afterAll(async () => {
  await source?.close();
  await local?.close();
});

/** Runs the machine at the source until it closes (retries wait on the virtual clock). */
async function failAtSource(
  name: string,
  machine: object = definition,
  machineName = 'importing',
): Promise<{ machineArn: string; executionArn: string }> {
  const machineArn = await source.machine(machine, machineName);
  const executionArn = await source.run(machineArn, { n: 7 }, name);
  for (let i = 0; i < 10 && (await source.describe(executionArn)).status === 'RUNNING'; i++) {
    await source.clock.advance(60_000);
    await source.idle();
  }
  return { machineArn, executionArn };
}

/** What a pull reads at the source: its two descriptions and every page of its history. */
async function readAtSource(executionArn: string): Promise<{ header: RunImportHeader; events: WireHistoryEvent[] }> {
  const execution = await source.describe(executionArn);
  const machine = await source.call('DescribeStateMachineForExecution', { executionArn });
  const events: WireHistoryEvent[] = [];
  let nextToken: string | undefined;
  do {
    const page = await source.call('GetExecutionHistory', {
      executionArn,
      maxResults: 3,
      ...(nextToken ? { nextToken } : {}),
    });
    events.push(...page.events.map((e: { timestamp: number }) => ({ ...e, timestamp: e.timestamp * 1000 })));
    nextToken = page.nextToken;
  } while (nextToken);
  return {
    header: {
      execution: { ...execution, startDate: execution.startDate * 1000, stopDate: execution.stopDate * 1000 },
      stateMachine: { name: machine.name, definition: machine.definition, roleArn: machine.roleArn },
    },
    events,
  };
}

async function* streamOf<T>(items: readonly T[]): AsyncIterable<T> {
  yield* items;
}

/** A run's frames as the store holds them, positions parsed. */
function framesOf(h: EngineHarness, executionArn: string): Record<string, unknown>[] {
  const db = new Database(join(h.dataDir, 'engine.sqlite'), { readonly: true });
  try {
    return (
      db
        .prepare('SELECT frame_id, parent_id, status, position FROM frames WHERE execution_arn = ?')
        .all(executionArn) as { position: string }[]
    ).map((f) => ({
      ...f,
      position: JSON.parse(f.position),
    }));
  } finally {
    db.close();
  }
}

/** History events without what differs between two engines' runs (times, the ids Lambda's answer carries). */
const comparable = (events: { timestamp?: number }[]) =>
  events.map(({ timestamp: _t, ...e }) =>
    JSON.stringify(e)
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, 'ID')
      .replace(/Root=1-[0-9a-f-]+/g, 'TRACE')
      .replace(/[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT/g, 'DATE'),
  );

describe('importing a failed run', () => {
  it('keeps its status, error, cause and every event, and stands where the source left it (the frames the source holds)', async () => {
    fixed = false;
    const { executionArn } = await failAtSource('run-1');
    const { header, events } = await readAtSource(executionArn);
    const answer = await local.engine.importRun(header, streamOf(events));
    expect(answer).toMatchObject({
      executionArn,
      status: 'FAILED',
      error: 'Defect',
      failedState: 'C',
      events: events.length,
      alreadyPulled: false,
    });

    const here = await local.describe(executionArn);
    const there = await source.describe(executionArn);
    expect({ ...here, redriveStatus: undefined }).toEqual({ ...there, redriveStatus: undefined });
    expect(here.redriveStatus).toBe('REDRIVABLE');
    expect(await local.history(executionArn)).toEqual(await source.history(executionArn));

    // What a redrive resets (retries) or only tells a late signal by (seq: a closed run has none in flight) may differ.
    const pick = (p: Record<string, unknown>) => {
      const { retries: _r, retryCount: _c, seq: _s, ...rest } = p;
      return rest;
    };
    const [mine] = framesOf(local, executionArn);
    const [theirs] = framesOf(source, executionArn);
    expect({ ...mine, position: pick(mine.position as Record<string, unknown>) }).toEqual({
      ...theirs,
      position: pick(theirs.position as Record<string, unknown>),
    });
    expect(local.engine.importedRun(executionArn)).toMatchObject({
      source_arn: executionArn,
      account: '123456789012',
      region: 'us-east-1',
      last_imported_id: events.length,
    });
  });

  it('redrives as the source would: the same events after it, no succeeded state run again, the fixed step succeeds', async () => {
    const executionArn = (
      await source.call('ListExecutions', {
        stateMachineArn: (await source.describe((await failAtSource('run-2')).executionArn)).stateMachineArn,
      })
    ).executions.find((e: { name: string }) => e.name === 'run-2').executionArn;
    const { header, events } = await readAtSource(executionArn);
    await local.engine.importRun(header, streamOf(events));
    fixed = true;
    const okBefore = local.count('ok');
    await local.call('RedriveExecution', { executionArn });
    await local.idle();
    await source.call('RedriveExecution', { executionArn });
    await source.idle();
    expect(await local.describe(executionArn)).toMatchObject({
      status: 'SUCCEEDED',
      redriveCount: 1,
      output: JSON.stringify({ n: 7, ok: true, seen: 7, done: true }),
    });
    expect(local.count('ok')).toBe(okBefore);
    expect(comparable(await local.history(executionArn))).toEqual(comparable(await source.history(executionArn)));
  });

  it('is idempotent for the same source run, and refuses another run of the same name', async () => {
    fixed = false;
    const { executionArn } = await failAtSource('run-3');
    const { header, events } = await readAtSource(executionArn);
    await local.engine.importRun(header, streamOf(events));
    expect(await local.engine.importRun(header, streamOf(events))).toMatchObject({
      alreadyPulled: true,
      status: 'FAILED',
    });
    const other = {
      ...header,
      execution: { ...header.execution, executionArn: executionArn.replace('123456789012', '210987654321') },
    };
    await expect(local.engine.importRun(other, streamOf(events))).rejects.toMatchObject({
      name: 'ExecutionAlreadyExists',
    });
  });
});

/** Items 1..3 through a Map whose iteration of 2 fails, then a Parallel whose second branch fails the same way. */
const nested = (maxConcurrency: number, items = [1, 2, 3]) =>
  jsonata({
    A: { Type: 'Pass', Output: { items }, Assign: { outer: 'kept' }, Next: 'M' },
    M: {
      Type: 'Map',
      Items: '{% $states.input.items %}',
      MaxConcurrency: maxConcurrency,
      ItemProcessor: {
        StartAt: 'I',
        States: { I: { ...invokeTask('item'), Output: '{% $states.result.Payload %}', End: true } },
      },
      Next: 'P',
    },
    P: {
      Type: 'Parallel',
      Arguments: '{% $states.input %}',
      Branches: [
        { StartAt: 'B1', States: { B1: { Type: 'Pass', Output: '{% $outer %}', End: true } } },
        {
          StartAt: 'B2',
          States: {
            B2: {
              ...invokeTask('item'),
              Arguments: { FunctionName: 'arn:aws:lambda:us-east-1:123456789012:function:item', Payload: 2 },
              Output: '{% $states.result.Payload %}',
              End: true,
            },
          },
        },
      ],
      End: true,
    },
  });

describe('a run that failed inside a Map or a Parallel', () => {
  it.each([
    [
      "every iteration started (MaxConcurrency 0): the frames are the source's, and the redrive re-runs only the failed iteration",
      0,
    ],
    ['some iterations never started (MaxConcurrency 1)', 1],
  ])('%s', async (_title, maxConcurrency) => {
    fixed = false;
    const name = `nested-${maxConcurrency}`;
    const { executionArn } = await failAtSource(name, nested(maxConcurrency), `nested${maxConcurrency}`);
    const { header, events } = await readAtSource(executionArn);
    const answer = await local.engine.importRun(header, streamOf(events));
    expect(answer).toMatchObject({ status: 'FAILED', failedState: 'M' });
    const ids = (h: EngineHarness) =>
      framesOf(h, executionArn)
        .map((f) => `${f.frame_id}:${f.status}`)
        .sort();
    if (maxConcurrency === 0) {
      expect(ids(local)).toEqual(ids(source));
      const byId = (h: EngineHarness): Record<string, Record<string, unknown>> =>
        Object.fromEntries(framesOf(h, executionArn).map((f) => [f.frame_id, f.position as Record<string, unknown>]));
      const mine = byId(local);
      for (const [id, theirs] of Object.entries(byId(source))) {
        for (const field of [
          'path',
          'state',
          'input',
          'variables',
          'phase',
          'output',
          'error',
          'lastEventId',
          'enteredEventId',
        ])
          expect(mine[id][field], `${id}.${field}`).toEqual(theirs[field]);
      }
    } else {
      expect(answer.warnings).toEqual([expect.stringContaining("Map 'M': 1 of its 3 iterations never started")]);
    }
    fixed = true;
    const before = local.count('item');
    await local.call('RedriveExecution', { executionArn });
    await local.idle();
    expect(await local.describe(executionArn)).toMatchObject({
      status: 'SUCCEEDED',
      output: JSON.stringify(['kept', 20]),
    });
    // Only the failed iteration (MaxConcurrency 0) or the iterations without a record (1), then the Parallel's branch.
    expect(local.count('item') - before).toBe(maxConcurrency === 0 ? 2 : 4);
    if (maxConcurrency === 0) {
      await source.call('RedriveExecution', { executionArn });
      await source.idle();
      expect(comparable(await local.history(executionArn))).toEqual(comparable(await source.history(executionArn)));
    }
  });
  it('a failed Parallel branch: the redrive runs that branch only', async () => {
    fixed = false;
    const { executionArn } = await failAtSource('parallel', nested(0, [1, 3]), 'parallel');
    const { header, events } = await readAtSource(executionArn);
    expect(await local.engine.importRun(header, streamOf(events))).toMatchObject({
      status: 'FAILED',
      failedState: 'P',
      warnings: [],
    });
    // The frames a redrive reads: the run's and the Parallel's branches (the source keeps the finished Map's too, which nothing reads again).
    const read = (h: EngineHarness) =>
      framesOf(h, executionArn)
        .map((f) => `${f.frame_id}:${f.status}`)
        .filter((id) => !id.startsWith('r.0.'))
        .sort();
    expect(read(local)).toEqual(read(source));
    fixed = true;
    const before = local.count('item');
    await local.call('RedriveExecution', { executionArn });
    await local.idle();
    expect(await local.describe(executionArn)).toMatchObject({
      status: 'SUCCEEDED',
      output: JSON.stringify(['kept', 20]),
    });
    expect(local.count('item') - before).toBe(1);
    await source.call('RedriveExecution', { executionArn });
    await source.idle();
    expect(comparable(await local.history(executionArn))).toEqual(comparable(await source.history(executionArn)));
  });
});

describe('what a pull refuses, in plain words', () => {
  const header = (
    status: string,
    executionArn = 'arn:aws:states:eu-west-1:111122223333:execution:importing:x1',
  ): RunImportHeader => ({
    execution: { executionArn, status, startDate: 0 },
    stateMachine: { name: 'importing', definition: JSON.stringify(definition) },
  });
  it.each([
    ['RUNNING', undefined, /still RUNNING: stop it first \(aws stepfunctions stop-execution --execution-arn/],
    [
      'SUCCEEDED',
      'arn:aws:states:eu-west-1:111122223333:express:importing:x1:2f1c',
      /EXPRESS run: the service keeps no history of it/,
    ],
  ])('a %s run (%s)', async (status, arn, message) => {
    await expect(local.engine.importRun(header(status, arn), streamOf([]))).rejects.toMatchObject({
      name: 'ImportRefusedError',
      message: expect.stringMatching(message),
    });
  });

  it('a history with a page missing, and leaves nothing behind', async () => {
    fixed = false;
    const { executionArn } = await failAtSource('gap');
    const { header: h, events } = await readAtSource(executionArn);
    const renamed = { ...h, stateMachine: { ...h.stateMachine, name: 'gapped' } };
    await expect(
      local.engine.importRun(renamed, streamOf([...events.slice(0, 3), ...events.slice(6)])),
    ).rejects.toMatchObject({
      name: 'ImportRefusedError',
      message: expect.stringContaining('skips from event 3 to 7'),
    });
    expect(local.engine.importedRun(executionArn.replace(':importing:', ':gapped:'))).toBeUndefined();
    const db = new Database(join(local.dataDir, 'engine.sqlite'), { readonly: true });
    expect(db.prepare('SELECT COUNT(*) AS n FROM import_staging').get()).toEqual({ n: 0 });
    db.close();
  });

  it('a history read without its execution data', async () => {
    const { executionArn } = await failAtSource('no-data');
    const { header: h, events } = await readAtSource(executionArn);
    const renamed = { ...h, stateMachine: { ...h.stateMachine, name: 'dataless' } };
    const stripped = events.map((e) =>
      e.type === 'ExecutionStarted' ? { ...e, executionStartedEventDetails: { roleArn: 'r' } } : e,
    );
    await expect(local.engine.importRun(renamed, streamOf(stripped))).rejects.toMatchObject({
      name: 'ImportRefusedError',
      message: expect.stringContaining('execution data'),
    });
  });
});

describe('fields the engine does not write round-trip', () => {
  it('a member beside the details, and an event with no details member', async () => {
    fixed = false;
    const { executionArn } = await failAtSource('extra');
    const { header: h, events } = await readAtSource(executionArn);
    const renamed = { ...h, stateMachine: { ...h.stateMachine, name: 'extras' } };
    const changed = events.map((e, i) => (i === 1 ? { ...e, futureEventDetails: { x: 1 } } : e));
    const executionHere = executionArn.replace(':importing:', ':extras:');
    await local.engine.importRun(renamed, streamOf(changed));
    const back = await local.history(executionHere);
    expect(back.map((e: { timestamp: number }) => ({ ...e, timestamp: e.timestamp * 1000 }))).toEqual(changed);
  });
});
