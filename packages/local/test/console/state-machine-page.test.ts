/**
 * The console's state machine pages (`/state-machines`, `/state-machines/<arn>`), served as `autosave local`
 * mounts them: a state machine whose Tasks call integrations the engine accepts but does not serve shows a
 * warning per such Task, naming the state and the resource and how to serve it (the pass-through, a mock
 * config, the functions module) — the warning `autosave local` prints when the machine is created.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConsoleHandler } from '../../src/api/console-mount';
import { createLocalApiHandler, type LocalApiServer, startLocalApiServer } from '../../src/api/server';
import { stepFunctionsService } from '../../src/api/step-functions-service';
import { EngineHarness, jsonpath } from '../../../engine/test/support/engine-harness';

const harness = new EngineHarness();
let api: LocalApiServer;
beforeAll(async () => {
  await harness.start();
  let url = '';
  api = await startLocalApiServer(
    createLocalApiHandler({
      services: [stepFunctionsService(harness.engine)],
      console: (req, res) => loadConsoleHandler({ sfnEndpoint: url })(req, res),
    }),
    0,
  );
  url = api.url;
});
afterAll(async () => {
  await api?.close();
  await harness?.close();
});

const page = async (path: string) => {
  const res = await fetch(`${api.url}${path}`);
  return { status: res.status, body: await res.text() };
};
const pageOf = (arn: string) => page(`/state-machines/${encodeURIComponent(arn)}`);

describe('the state machine page', () => {
  it('lists each Task the engine does not serve: its state, its resource, and how to serve it', async () => {
    const arn = await harness.machine(
      jsonpath({
        Encrypt: { Type: 'Task', Resource: 'arn:aws:states:::aws-sdk:kms:encrypt', Parameters: {}, Next: 'Job' },
        Job: { Type: 'Task', Resource: 'arn:aws:states:::batch:submitJob.sync', Parameters: {}, End: true },
      }),
      'unserved-tasks',
    );
    const { status, body } = await pageOf(arn);
    expect(status).toBe(200);
    expect(body).toContain('data-warnings="2"');
    expect(body).toContain('2 Task states the local engine does not serve');
    const encrypt = /<li data-unserved-state="Encrypt">(.*?)<\/li>/s.exec(body)?.[1] ?? '';
    expect(encrypt).toContain('/States/Encrypt/Resource');
    expect(encrypt).toContain('arn:aws:states:::aws-sdk:kms:encrypt');
    expect(encrypt).toContain('Local.IntegrationNotServed');
    expect(encrypt).toContain('--pass-through kms[=&lt;endpoint&gt;]');
    expect(encrypt).toContain('--mock-config');
    expect(encrypt).toContain('--functions');
    // A .sync job is not served by the pass-through (its polling is not emulated): not offered.
    const job = /<li data-unserved-state="Job">(.*?)<\/li>/s.exec(body)?.[1] ?? '';
    expect(job).toContain('arn:aws:states:::batch:submitJob.sync');
    expect(job).not.toContain('--pass-through');
    expect(job).toContain('--mock-config');
  });

  it('shows no warning for a state machine the engine serves whole', async () => {
    const arn = await harness.machine(jsonpath({ P: { Type: 'Pass', End: true } }), 'served-whole');
    const { status, body } = await pageOf(arn);
    expect(status).toBe(200);
    expect(body).toContain('served-whole');
    expect(body).not.toContain('data-warnings');
  });

  it('answers 404 for a state machine that does not exist', async () => {
    const { status, body } = await pageOf('arn:aws:states:us-east-1:123456789012:stateMachine:nowhere');
    expect(status).toBe(404);
    expect(body).toContain('No such state machine');
  });

  it('the list links every state machine to its page', async () => {
    const { status, body } = await page('/state-machines');
    expect(status).toBe(200);
    expect(body).toContain(
      `href="/state-machines/${encodeURIComponent('arn:aws:states:us-east-1:123456789012:stateMachine:unserved-tasks')}"`,
    );
  });

  it('the list says which state machines have Tasks the engine does not serve, linking to the warnings', async () => {
    const { body } = await page('/state-machines');
    const row = (name: string) => new RegExp(`<tr data-state-machine="${name}">(.*?)</tr>`, 's').exec(body)?.[1] ?? '';
    expect(row('unserved-tasks')).toContain(
      `data-unserved="2" href="/state-machines/${encodeURIComponent('arn:aws:states:us-east-1:123456789012:stateMachine:unserved-tasks')}#warnings">2 Task states the local engine does not serve</a>`,
    );
    expect(row('served-whole')).toContain('<span class="muted">none</span>');
    expect(row('served-whole')).not.toContain('data-unserved');
  });
});
