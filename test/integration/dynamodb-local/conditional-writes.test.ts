/**
 * The runtime's conditional writes on AWS's own DynamoDB Local beside dynalite. dynalite ignores
 * `ReturnValuesOnConditionCheckFailure`, so the branch that reads the blocking item out of the
 * ConditionalCheckFailedException — the one AWS takes — runs only here.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbLedgerStore } from '@autosave/runtime/idempotency';
import { RecordTable } from '@autosave/runtime/records';
import { startDynamoDbLocal } from '../../fixtures/runtime/dynamodb-local';
import { startLocalAws } from '../../fixtures/runtime/local-aws';

interface Backend {
  readonly dynamodb: DynamoDBClient;
  readonly table: string;
  close(): Promise<void>;
}

/** Counts the DynamoDB operations a client sends, by command name. */
function countCommands(client: DynamoDBClient): Map<string, number> {
  const counts = new Map<string, number>();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      counts.set(context.commandName!, (counts.get(context.commandName!) ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: 'countCommands' },
  );
  return counts;
}

describe.each([
  { name: 'DynamoDB Local (AWS)', start: startDynamoDbLocal, returnsItemOnConditionFailure: true },
  { name: 'dynalite', start: startLocalAws, returnsItemOnConditionFailure: false },
])('conditional writes on $name', ({ start, returnsItemOnConditionFailure }) => {
  let backend: Backend;
  let table: RecordTable;
  let commands: Map<string, number>;
  let n = 0;
  const freshId = () => `test#${++n}`;

  beforeAll(async () => {
    backend = await start();
    commands = countCommands(backend.dynamodb);
    table = new RecordTable(backend.dynamodb, backend.table);
  }, 150_000); // a JVM start under load
  afterAll(() => backend?.close());

  it(`a failed putIf returns the blocking item ${returnsItemOnConditionFailure ? 'from the exception, with no second read' : 'by one consistent read'}`, async () => {
    const id = freshId();
    await table.putIfAbsent({ id, status: 'IN_PROGRESS', n: 1 });
    commands.clear();
    const out = await table.putIfAbsent({ id, status: 'IN_PROGRESS', n: 2 });
    expect(out).toEqual({ written: false, existing: { id, status: 'IN_PROGRESS', n: 1 } });
    expect(commands.get('GetItemCommand') ?? 0).toBe(returnsItemOnConditionFailure ? 0 : 1);
  });

  it('a failed updateIf returns the item that stopped it, and leaves it as it was', async () => {
    const id = freshId();
    await table.putIfAbsent({ id, status: 'COMPLETED', result: '"r"' });
    const out = await table.updateIf(
      id,
      { status: 'IN_PROGRESS' },
      { expression: '#s = :p', names: { '#s': 'status' }, values: { ':p': 'IN_PROGRESS' } },
    );
    expect(out).toEqual({ written: false, existing: { id, status: 'COMPLETED', result: '"r"' } });
    expect(await table.get(id)).toEqual({ id, status: 'COMPLETED', result: '"r"' });
  });

  it('an updateIf on a missing item fails with no item and creates nothing', async () => {
    const id = freshId();
    const out = await table.updateIf(id, { status: 'COMPLETED' }, { expression: 'attribute_exists(id)' });
    expect(out).toEqual({ written: false, existing: undefined });
    expect(await table.get(id)).toBeUndefined();
  });

  it('a putIf that replaces an item returns the replaced item', async () => {
    const id = freshId();
    await table.putIfAbsent({ id, v: 1 });
    const out = await table.putIf({ id, v: 2 }, { expression: 'v = :one', values: { ':one': 1 } });
    expect(out).toEqual({ written: true, replaced: { id, v: 1 } });
  });

  it('the ledger: a second claim meets the first, a takeover after the lease returns what it replaced, a stale token cannot complete', async () => {
    const store = new DynamoDbLedgerStore(backend.dynamodb, backend.table);
    const key = `site-${++n}:welcome`;
    const now = Date.UTC(2026, 11, 1);
    const claimA = {
      key,
      status: 'IN_PROGRESS' as const,
      payloadHash: 'h',
      claimToken: 'A',
      leaseExpiresAtMillis: now + 1_000,
      expiresAtSeconds: now / 1000 + 86_400,
    };
    expect(await store.claim(claimA, now)).toEqual({ acquired: true, replaced: undefined });
    const blocked = await store.claim({ ...claimA, claimToken: 'B' }, now + 500);
    expect(blocked).toEqual({ acquired: false, existing: claimA });
    const takeover = await store.claim({ ...claimA, claimToken: 'B', leaseExpiresAtMillis: now + 3_000 }, now + 2_000);
    expect(takeover).toEqual({ acquired: true, replaced: claimA });
    expect(await store.complete(key, 'A', { sent: true }, now / 1000 + 86_400)).toBe(false);
    expect(await store.complete(key, 'B', { sent: true }, now / 1000 + 86_400)).toBe(true);
    expect((await store.get(key))?.result).toEqual({ sent: true });
  });
});
