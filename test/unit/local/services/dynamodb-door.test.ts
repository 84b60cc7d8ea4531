/**
 * The local DynamoDB's door (services/dynamodb-door.ts): its port answers before dynalite is loaded, and
 * no request gets through before the boot's `prepare` (the scan that ends orphaned idempotency leases) is
 * done, as on AWS no function of a new process sees a lease its dead predecessor held.
 */
import { DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '@autosave/workflow/config';
import { startLocalDynamoDbDoor } from '../../../../packages/local/src/services/dynamodb-door';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});
const client = (endpoint: string) => new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, maxAttempts: 1 });

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
        await own.send(new PutItemCommand({ TableName: 'records', Item: { id: { S: 'lease' }, state: { S: 'ended' } } }));
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

  it('answers a 500 in DynamoDB\'s words when the local DynamoDB cannot start, instead of holding the request', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'autosave-door-'));
    dirs.push(dir);
    const door = await startLocalDynamoDbDoor({ directory: dir, tables: [], prepare: async () => Promise.reject(new Error('scan failed')) });
    const c = client(door.endpoint);
    try {
      await expect(c.send(new GetItemCommand({ TableName: 'records', Key: { id: { S: 'x' } } }))).rejects.toMatchObject({ name: 'InternalServerError', message: expect.stringContaining('scan failed') });
      await expect(door.open()).rejects.toThrow('scan failed');
    } finally {
      c.destroy();
      await door.close();
    }
  });
});
