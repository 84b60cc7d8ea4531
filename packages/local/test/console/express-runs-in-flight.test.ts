/**
 * EXPRESS runs in flight in the console (issue 30, Deliver 4: EXPRESS runs listed and viewable): the service
 * keeps no express run, so the console reads the engine's runs in flight beside the ones it kept as they
 * closed. A running express run is listed, RUNNING, and its page shows its steps so far, without the Stop
 * button (StopExecution is not supported by EXPRESS state machines, Step Functions API reference).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConsoleHandler } from '../../src/api/console-mount';
import { createLocalApiHandler, type LocalApiServer, startLocalApiServer } from '../../src/api/server';
import { stepFunctionsService } from '../../src/api/step-functions-service';
import { EXPRESS_RUNS_KEPT, ExpressRunLog } from '../../src/services/express-run-log';
import { EngineHarness, jsonata } from '../../../engine/test/support/engine-harness';

const expressRuns = new ExpressRunLog(EXPRESS_RUNS_KEPT, () => harness.engine.expressRunsInFlight());
const harness = new EngineHarness({}, { onExpressRunClosed: (run) => expressRuns.record(run) });
let api: LocalApiServer;
beforeAll(async () => {
  await harness.start();
  let url = '';
  api = await startLocalApiServer(
    createLocalApiHandler({
      services: [stepFunctionsService(harness.engine)],
      console: (req, res) => loadConsoleHandler({ sfnEndpoint: url, services: { expressRuns } })(req, res),
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

describe('EXPRESS runs in flight', () => {
  it('are listed RUNNING and viewable, without Stop; once closed they stay listed', async () => {
    const machine = await harness.machine(
      jsonata({
        Greet: { Type: 'Pass', Output: { hello: 'world' }, Next: 'Linger' },
        Linger: { Type: 'Wait', Seconds: 60, End: true },
      }),
      'lingering',
      { type: 'EXPRESS' },
    );
    const { executionArn } = (await harness.call('StartExecution', {
      stateMachineArn: machine,
      name: 'in-flight',
      input: '{}',
    })) as { executionArn: string };
    await harness.idle();

    const list = await page('/runs');
    expect(list.status).toBe(200);
    const row = new RegExp(`<tr[^>]*>(?:(?!</tr>).)*in-flight(?:(?!</tr>).)*</tr>`, 's').exec(list.body)?.[0] ?? '';
    expect(row).toContain('RUNNING');

    const run = await page(`/runs/${encodeURIComponent(executionArn)}`);
    expect(run.status).toBe(200);
    expect(run.body).toContain('in-flight');
    expect(run.body).toContain('Linger');
    expect(run.body).not.toContain('class="stop"');

    await harness.clock.advance(61_000);
    await harness.idle();
    const closed = await page(`/runs/${encodeURIComponent(executionArn)}`);
    expect(closed.status).toBe(200);
    expect(closed.body).toContain('SUCCEEDED');
  });
});
