/**
 * Every statement the engine prepares while the API is driven through its paths, checked against SQLite's own
 * query plans: none reads a whole table that grows with the store. A statement that does is a call whose cost
 * grows with every run ever kept, paid on the engine's one thread while the API and every run wait (a
 * ListExecutions filter and an activity poll did, 68 and 32 ms with 100,000 closed runs).
 */
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockConfig } from '../../src';
import { EngineHarness, jsonpath } from '../support/engine-harness';

/** Tables that grow with the runs a store keeps. */
const GROWING = [
  'executions',
  'history',
  'events',
  'packed_events',
  'frames',
  'timers',
  'task_tokens',
  'activity_tasks',
  'mocked_runs',
  'mock_invocations',
  'imported_runs',
  'import_staging',
];

/**
 * Reads of a whole table (or of a whole index: `SCAN … USING INDEX`) that are bounded all the same, each with why.
 * Matched against the statement's text and the plan's step as SQLite prints it.
 */
const BOUNDED: readonly { readonly sql: RegExp; readonly step: RegExp; readonly why: string }[] = [
  {
    sql: /^SELECT EXISTS \(SELECT 1 FROM events\) OR EXISTS \(SELECT 1 FROM packed_events\)/,
    step: /^SCAN (events|packed_events)$/,
    why: 'stops at the first row (at start: is any history left in the older layout?)',
  },
  {
    sql: /FROM executions WHERE status = 'RUNNING' ORDER BY seq DESC LIMIT/,
    step: /^SCAN executions$/,
    why: 'the express runtime’s store in memory, whose runs are removed as they close',
  },
  {
    sql: /./,
    step: /USING (COVERING )?INDEX executions_open\b/,
    why: 'a partial index of the open runs alone',
  },
  {
    sql: /./,
    step: /USING (COVERING )?INDEX timers_by_due\b/,
    why: 'timers belong to open runs, and are read soonest first',
  },
];
/** The SQL text of every statement prepared in this process, with its database. */
const prepared = new Map<string, Database.Database>();
const originalPrepare = Database.prototype.prepare;

/** SQLite's plan for `sql` on `db`, one line per step, its placeholders bound to NULL. */
function planOf(db: Database.Database, sql: string): string[] {
  const explain: Database.Statement<unknown[]> = originalPrepare.call(db, `EXPLAIN QUERY PLAN ${sql}`);
  // Named placeholders are read off the text (string literals set aside); positional ones are added as asked.
  const unquoted = sql.replace(/'(?:[^']|'')*'/g, "''");
  const names = [...unquoted.matchAll(/(?<![\w:])[@:$]([A-Za-z_]\w*)/g)].map((m) => m[1]);
  const named = Object.fromEntries(names.map((name) => [name, null]));
  const positional: null[] = [];
  for (let attempt = 0; attempt < 64; attempt += 1) {
    try {
      const args: unknown[] = names.length > 0 ? [...positional, named] : positional;
      return (explain.all(...args) as { detail: string }[]).map((row) => row.detail);
    } catch (err) {
      if (!/Too few parameter values/.test((err as Error).message)) throw err;
      positional.push(null);
    }
  }
  throw new Error(`could not bind the placeholders of: ${sql}`);
}

/** The tables a statement names by another name (`FROM frames f`, `JOIN executions AS e`), by that name. */
function aliases(sql: string): Map<string, string> {
  const named = new Map<string, string>();
  for (const [, table, alias] of sql.matchAll(/\b(?:FROM|JOIN)\s+(\w+)\s+(?:AS\s+)?(\w+)/gi))
    if (!/^(WHERE|ON|JOIN|LEFT|INNER|CROSS|INDEXED|NOT|ORDER|GROUP|LIMIT|USING|SET|VALUES)$/i.test(alias))
      named.set(alias, table);
  return named;
}

describe('the query plans of the engine’s statements', () => {
  let h: EngineHarness;
  const tokens: string[] = [];

  beforeAll(async () => {
    Database.prototype.prepare = function recorded(this: Database.Database, source: string) {
      prepared.set(source, this);
      return originalPrepare.call(this, source);
    } as typeof originalPrepare;
    h = await new EngineHarness(
      {
        work: (payload: { fail?: boolean }) => {
          if (payload.fail) throw Object.assign(new Error('asked to'), { name: 'Boom' });
          return { done: true };
        },
        park: (payload: { token: string }) => {
          tokens.push(payload.token);
          return {};
        },
      },
      {
        activityPollMillis: 50,
        closedExecutionRetentionMillis: 60_000,
        mockConfig: MockConfig.parse(
          JSON.stringify({
            StateMachines: { 'every-path': { TestCases: { Mocked: { Work: 'Works' } } } },
            MockedResponses: { Works: { '0-9': { Return: { mocked: true } } } },
          }),
        ),
      },
    ).start();
    const { activityArn } = await h.call('CreateActivity', { name: 'review' });
    const created = await h.call('CreateStateMachine', {
      name: 'every-path',
      roleArn: 'arn:aws:iam::123456789012:role/test',
      publish: true,
      definition: JSON.stringify(
        jsonpath({
          Decide: {
            Type: 'Choice',
            Choices: [
              { Variable: '$.path', StringEquals: 'token', Next: 'Park' },
              { Variable: '$.path', StringEquals: 'activity', Next: 'Review' },
              { Variable: '$.path', StringEquals: 'wait', Next: 'Hold' },
            ],
            Default: 'Each',
          },
          Each: {
            Type: 'Map',
            ItemsPath: '$.items',
            MaxConcurrency: 1,
            ItemProcessor: {
              StartAt: 'Work',
              States: {
                Work: {
                  Type: 'Task',
                  Resource: 'arn:aws:states:::lambda:invoke',
                  Parameters: { FunctionName: 'work', 'Payload.$': '$' },
                  End: true,
                },
              },
            },
            End: true,
          },
          Park: {
            Type: 'Task',
            Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
            Parameters: { FunctionName: 'park', Payload: { 'token.$': '$$.Task.Token' } },
            HeartbeatSeconds: 600,
            End: true,
          },
          Review: { Type: 'Task', Resource: activityArn, End: true },
          Hold: { Type: 'Wait', Seconds: 3_600, End: true },
        }),
      ),
    });
    const machine = created.stateMachineArn as string;
    const version = created.stateMachineVersionArn as string;
    const { stateMachineAliasArn: alias } = await h.call('CreateStateMachineAlias', {
      name: 'live',
      routingConfiguration: [{ stateMachineVersionArn: version, weight: 100 }],
    });
    const runs: Record<string, string> = {};
    for (const [name, input, target] of [
      ['ok', { path: 'map', items: [{}, {}, {}] }, machine],
      ['fails', { path: 'map', items: [{}, { fail: true }] }, version],
      ['token-ok', { path: 'token' }, alias],
      ['token-fails', { path: 'token' }, machine],
      ['token-beats', { path: 'token' }, machine],
      ['activity', { path: 'activity' }, machine],
      ['activity-stopped', { path: 'activity' }, machine],
      ['waits', { path: 'wait' }, alias],
      ['mocked', { path: 'map', items: [{}, {}] }, `${machine}#Mocked`],
    ] as const)
      runs[name] = await h.run(target, input, name);
    await h.call('SendTaskSuccess', { taskToken: tokens[0], output: '{}' });
    await h.call('SendTaskFailure', { taskToken: tokens[1], error: 'No' });
    await h.call('SendTaskHeartbeat', { taskToken: tokens[2] });
    await h.call('StopExecution', { executionArn: runs['activity-stopped'] });
    const task = await h.call('GetActivityTask', { activityArn, workerName: 'w' });
    await h.call('SendTaskSuccess', { taskToken: task.taskToken, output: '{}' });
    await h.call('GetActivityTask', { activityArn });
    await h.idle();
    await h.call('RedriveExecution', { executionArn: runs.fails });
    await h.idle();
    for (const stateMachineArn of [machine, version, alias])
      for (const filter of [
        {},
        { statusFilter: 'RUNNING' },
        { statusFilter: 'SUCCEEDED' },
        { statusFilter: 'FAILED' },
        { redriveFilter: 'REDRIVEN' },
        { redriveFilter: 'NOT_REDRIVEN' },
      ]) {
        const page = await h.call('ListExecutions', { stateMachineArn, maxResults: 2, ...filter });
        if (page.nextToken)
          await h.call('ListExecutions', { stateMachineArn, maxResults: 2, nextToken: page.nextToken, ...filter });
      }
    for (const executionArn of Object.values(runs)) {
      await h.describe(executionArn);
      await h.call('DescribeStateMachineForExecution', { executionArn });
      for (const reverseOrder of [false, true]) {
        const page = await h.call('GetExecutionHistory', { executionArn, maxResults: 3, reverseOrder });
        await h.call('GetExecutionHistory', { executionArn, maxResults: 3, reverseOrder, nextToken: page.nextToken });
      }
    }
    await h.call('ListStateMachines', {});
    await h.call('ListStateMachineVersions', { stateMachineArn: machine });
    await h.call('ListStateMachineAliases', { stateMachineArn: machine });
    await h.call('ListActivities', {});
    const express = await h.machine(
      jsonpath({ Work: { Type: 'Task', Resource: 'arn:aws:lambda:us-east-1:123456789012:function:work', End: true } }),
      'express',
      { type: 'EXPRESS' },
    );
    await h.call('StartSyncExecution', { stateMachineArn: express, input: '{}' });
    h.engine.expressRunsInFlight(10);
    // A restart resumes the open runs; later, the retention sweep removes the closed ones with all they left.
    await h.engine.stop();
    h = await h.restart();
    await h.idle();
    await h.clock.advance(2 * 3_600_000);
    await h.idle();
    await h.engine.sweepClosedExecutions();
  });

  afterAll(async () => {
    Database.prototype.prepare = originalPrepare;
    await h?.close();
  });

  it('reads no table that grows with the store from end to end, but where that is bounded', () => {
    const wholeTableReads: string[] = [];
    const unexplained: string[] = [];
    let checked = 0;
    // A statement prepared before the restart is explained on the same file through the engine running now.
    const openOn = new Map([...prepared.values()].filter((db) => db.open).map((db) => [db.name, db]));
    for (const [sql, preparedOn] of prepared) {
      if (!/^\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\b/i.test(sql)) continue;
      const db = preparedOn.open ? preparedOn : openOn.get(preparedOn.name);
      if (!db) {
        unexplained.push(`${preparedOn.name}: ${sql}`);
        continue;
      }
      checked += 1;
      const tableOf = aliases(sql);
      for (const step of planOf(db, sql)) {
        const scanned = /^SCAN (\w+)/.exec(step)?.[1];
        const table = scanned === undefined ? undefined : (tableOf.get(scanned) ?? scanned);
        if (!table || !GROWING.includes(table)) continue;
        if (BOUNDED.some((b) => b.sql.test(sql.trim()) && b.step.test(step))) continue;
        wholeTableReads.push(`${step}  <-  ${sql.replace(/\s+/g, ' ').trim()}`);
      }
    }
    expect(checked).toBeGreaterThan(60);
    expect(unexplained).toEqual([]);
    expect(wholeTableReads).toEqual([]);
  });
});
