/**
 * The local DynamoDB's door (services/dynamodb-door.ts): its port answers before dynalite is loaded, and
 * no request gets through before the boot's `prepare` (the scan that ends orphaned idempotency leases) is
 * done, as on AWS no function of a new process sees a lease its dead predecessor held.
 */
import { DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { Agent } from 'node:http';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '@autosave/workflow/config';
import { startLocalDynamoDbDoor } from '../../src/services/dynamodb-door';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});
const client = (endpoint: string) =>
  new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, maxAttempts: 1 });

describe('startLocalDynamoDbDoor', () => {
  it('holds the first requests until dynalite has its tables and prepare is done, runs prepare once, then answers them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'autosave-door-'));
    dirs.push(dir);
    let prepared = 0;
    const door = await startLocalDynamoDbDoor({
      directory: dir,
      tables: ['records'],
      prepare: async (endpoint) => {
        prepared += 1;
        const own = client(endpoint);
        await own.send(
          new PutItemCommand({ TableName: 'records', Item: { id: { S: 'lease' }, state: { S: 'ended' } } }),
        );
        own.destroy();
      },
    });
    const c = client(door.endpoint);
    try {
      const [a, b] = await Promise.all([
        c.send(new GetItemCommand({ TableName: 'records', Key: { id: { S: 'lease' } }, ConsistentRead: true })),
        c.send(new GetItemCommand({ TableName: 'records', Key: { id: { S: 'lease' } }, ConsistentRead: true })),
      ]);
      expect(a.Item?.state?.S).toBe('ended');
      expect(b.Item?.state?.S).toBe('ended');
      await door.open();
      expect(prepared).toBe(1);
    } finally {
      c.destroy();
      await door.close();
    }
  });

  it("answers a 500 in DynamoDB's words when the local DynamoDB cannot start, instead of holding the request", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'autosave-door-'));
    dirs.push(dir);
    const door = await startLocalDynamoDbDoor({
      directory: dir,
      tables: [],
      prepare: async () => Promise.reject(new Error('scan failed')),
    });
    const c = client(door.endpoint);
    try {
      await expect(c.send(new GetItemCommand({ TableName: 'records', Key: { id: { S: 'x' } } }))).rejects.toMatchObject(
        { name: 'InternalServerError', message: expect.stringContaining('scan failed') },
      );
      await expect(door.open()).rejects.toThrow('scan failed');
    } finally {
      c.destroy();
      await door.close();
    }
  });

  // A request let in just before close() used to reach dynalite after its database had begun to close, and dynalite
  // turns such an operation into an unhandled rejection ('Database is closed') that fails the whole test run
  // (CI, approval-on-engine.test.ts); closing also cut off the requests dynalite was working on. close() now lets
  // every request let in finish before dynalite closes.
  it('lets the requests already in finish before dynalite closes: none is cut off, no operation reaches a closed database', async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      for (let round = 0; round < 6; round += 1) {
        const dir = await mkdtemp(join(tmpdir(), 'autosave-door-'));
        dirs.push(dir);
        const door = await startLocalDynamoDbDoor({ directory: dir, tables: ['records'] });
        await door.open();
        // One connection per write, all opened at once.
        const c = new DynamoDBClient({
          endpoint: door.endpoint,
          region: LOCAL_REGION,
          credentials: LOCAL_CREDENTIALS,
          maxAttempts: 1,
          requestHandler: { httpAgent: new Agent({ keepAlive: false, maxSockets: 200 }) },
        });
        const writes = Array.from({ length: 120 }, (_, i) =>
          c
            .send(
              new PutItemCommand({
                TableName: 'records',
                Item: { id: { S: `k${i % 7}` }, n: { N: String(i) } },
                ConditionExpression: 'attribute_not_exists(done)',
              }),
            )
            .then(
              () => 'answered',
              (err: Error) => `${err.name}: ${err.message}`,
            ),
        );
        // Close as soon as dynalite answers the first: the others are in, or still connecting.
        await Promise.race(writes);
        await door.close();
        const outcomes = await Promise.all(writes);
        c.destroy();
        // A write is answered by DynamoDB (done, or refused in DynamoDB's words while stopping), or it never got in
        // (its connection refused or reset before its request was read, as the door stopped listening): never cut
        // off once let in ('socket hang up').
        const cutOff = outcomes.filter(
          (o) =>
            o !== 'answered' &&
            !o.startsWith('ServiceUnavailableException') &&
            !/\b(ECONNREFUSED|ECONNRESET)\b/.test(o),
        );
        expect(cutOff).toEqual([]);
        expect(outcomes.filter((o) => o === 'answered').length).toBeGreaterThan(1);
        // Give a late operation of dynalite's the turns it would need to reject.
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      process.off('unhandledRejection', record);
    }
    expect(unhandled.map(String)).toEqual([]);
  }, 60_000);
});
