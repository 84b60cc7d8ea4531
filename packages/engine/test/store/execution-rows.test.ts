/**
 * The store reads execution rows by column position (store/execution-rows.ts). These cases pin that what it
 * answers is what better-sqlite3's own row objects hold, column for column, for a run in every shape a row
 * takes: running, closed with an output, failed with an error and cause, started through a version and an
 * alias, redriven, and a `.sync` child with its parent Task.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EngineStore, type ExecutionRow } from '../../src/store';
import { executionRowOf } from '../support/execution-row';

const MACHINE = 'arn:aws:states:us-east-1:123456789012:stateMachine:m';

/** A row of machine `m` named `name`, with an input of its own. */
const row = (name: string, overrides: Partial<ExecutionRow>): ExecutionRow =>
  executionRowOf(`arn:aws:states:us-east-1:123456789012:execution:m:${name}`, {
    name,
    input: `{"name":"${name}"}`,
    start_ms: 1_765_000_000_123,
    ...overrides,
  });

const ROWS = [
  row('running', {}),
  row('succeeded', { status: 'SUCCEEDED', stop_ms: 1_765_000_001_000, output: '{"ok":true}', event_count: 9 }),
  row('failed', { status: 'FAILED', stop_ms: 1_765_000_002_000, error: 'States.TaskFailed', cause: 'boom' }),
  row('pinned', { version_arn: `${MACHINE}:3`, alias_arn: `${MACHINE}:live` }),
  row('redriven', { redrive_count: 2, redrive_ms: 1_765_000_003_000, redrive_token: 'token-1' }),
  row('child', { parent_task: '{"executionArn":"arn:parent","frameId":"root","seq":4,"version":1}' }),
];

describe('execution rows read by position', () => {
  let dir: string;
  let store: EngineStore;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'autosave-execution-rows-'));
    store = new EngineStore(dir);
    for (const r of ROWS) store.insertExecution({ ...r });
  });

  afterEach(async () => {
    store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("answers every column of a run as better-sqlite3's row object holds it", () => {
    // The store's statements in their default mode: better-sqlite3 names each row's properties itself.
    const own = store.sql('SELECT * FROM executions WHERE arn = ?');
    for (const r of ROWS) {
      const { open: _open, ...expected } = own.get(r.arn) as ExecutionRow & { open: number };
      expect(store.getExecution(r.arn)).toStrictEqual(expected);
    }
  });

  it("answers a run's header as the columns a transition reads, with its event count", () => {
    for (const r of ROWS) {
      const full = store.getExecution(r.arn)!;
      const header = store.getExecutionHeader(r.arn)!;
      expect(Object.keys(header).sort()).toStrictEqual(
        [
          'arn',
          'seq',
          'machine_arn',
          'machine_name',
          'name',
          'version_arn',
          'alias_arn',
          'role_arn',
          'definition_hash',
          'status',
          'start_ms',
          'redrive_count',
          'redrive_ms',
          'event_count',
        ].sort(),
      );
      for (const [column, value] of Object.entries(header)) expect(value, column).toStrictEqual(full[column as never]);
    }
  });

  it('answers undefined for a run it does not hold', () => {
    expect(store.getExecution(`${MACHINE.replace('stateMachine', 'execution')}:nobody`)).toBeUndefined();
    expect(store.getExecutionHeader(`${MACHINE.replace('stateMachine', 'execution')}:nobody`)).toBeUndefined();
  });
});
