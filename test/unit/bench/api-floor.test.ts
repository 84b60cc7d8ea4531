/**
 * The durable API floor (bench/api-floor-server.mjs) does what the bench says it does: the SDK's runs close
 * with the seventh step's result, each step's output is a committed row in a WAL database, and its CPU route
 * answers. A floor that skipped a commit would flatter every engine compared with it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeExecutionCommand, SFNClient } from '@aws-sdk/client-sfn';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '@autosave/workflow/config';
import { apiRunDriver } from '../../../bench/api-engine';
import { API_FLOOR_SERVER, floorCpuMicros } from '../../../bench/api-floor';
import { startFloorProcess, type HttpFloorServer } from '../../../bench/http-floor';
import { javascriptFunctionsModule } from '../../../bench/restart';
import { runWithConcurrency } from '../../../bench/workload';

const MACHINE = 'arn:aws:states:us-east-1:123456789012:stateMachine:bench-seven';

describe('the durable API floor', () => {
  let dir: string;
  let floor: HttpFloorServer;
  let sfn: SFNClient;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'autosave-api-floor-test-'));
    floor = await startFloorProcess([API_FLOOR_SERVER, join(dir, 'floor.db'), await javascriptFunctionsModule(dir)]);
    sfn = new SFNClient({ endpoint: floor.url, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  }, 60_000);
  afterAll(async () => {
    sfn?.destroy();
    await floor?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves runs through the SDK to their seventh step, one commit per step', async () => {
    const cpuMicros = () => floorCpuMicros(floor.url);
    const cpuBefore = await cpuMicros();
    const driver = apiRunDriver(sfn, MACHINE, () => 1);
    await runWithConcurrency(12, 4, driver.runToEnd);
    expect(driver.runs).toBe(12);

    const described = await sfn.send(
      new DescribeExecutionCommand({ executionArn: `${MACHINE.replace(':stateMachine:', ':execution:')}:run-11` }),
    );
    expect(described.status).toBe('SUCCEEDED');
    expect(JSON.parse(described.output!)).toMatchObject({ runId: 'run-11', last: { step: 7, status: 'ok' } });
    expect(described.stopDate!.getTime()).toBeGreaterThanOrEqual(described.startDate!.getTime());

    const db = new Database(join(dir, 'floor.db'), { readonly: true });
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      const perRun = db.prepare('SELECT arn, COUNT(*) AS steps FROM steps GROUP BY arn').all() as {
        steps: number;
      }[];
      expect(perRun).toHaveLength(12);
      expect(perRun.every((r) => r.steps === 7)).toBe(true);
    } finally {
      db.close();
    }
    expect(await cpuMicros()).toBeGreaterThan(cpuBefore);
  }, 60_000);
});
