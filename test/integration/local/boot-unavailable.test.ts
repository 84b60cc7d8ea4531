/**
 * While the engine boots (the store opening, runs resuming, workflows deploying), the port answers the
 * retryable 503 `ServiceUnavailable`, never a 500: a client that retries only what the SDK calls retryable
 * must get through a restart.
 */
import { createServer } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListStateMachinesCommand, SFNClient } from '@aws-sdk/client-sfn';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '@autosave/workflow/config';
import { Engine } from '../../../packages/engine/src';
import { startLocal, type LocalEngine } from '../../../packages/local/src/server';
import { exampleApp } from '../../fixtures/example-app';

/** A port free right now (the engine binds it itself). */
const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

const listStateMachines = (url: string) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AWSStepFunctions.ListStateMachines' },
    body: '{}',
  });

describe('the local engine while it boots', () => {
  let local: LocalEngine | undefined;
  let dataDir: string | undefined;
  afterEach(async () => {
    vi.restoreAllMocks();
    await local?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('answers 503 ServiceUnavailable until it is ready, and the SDK retries through it', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'autosave-boot-'));
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    // A slow store open and recovery (a big store after a crash), made visible.
    let engineStarting!: () => void;
    const starting = new Promise<void>((resolve) => (engineStarting = resolve));
    const start = Engine.prototype.start;
    vi.spyOn(Engine.prototype, 'start').mockImplementation(async function (this: Engine) {
      engineStarting();
      await new Promise((resolve) => setTimeout(resolve, 600));
      return start.call(this);
    });
    const booting = startLocal({ ...(await exampleApp()), port, dataDir, log: () => {} });
    await starting;

    const during = await listStateMachines(url);
    expect(during.status).toBe(503);
    expect(await during.json()).toMatchObject({ __type: 'ServiceUnavailable' });

    const sfn = new SFNClient({ endpoint: url, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, maxAttempts: 30 });
    const listed = await sfn.send(new ListStateMachinesCommand({}));
    expect(listed.$metadata.attempts).toBeGreaterThan(1);
    expect(listed.stateMachines?.length).toBeGreaterThan(0);
    sfn.destroy();

    local = await booting;
    expect((await listStateMachines(url)).status).toBe(200);
  });
});
