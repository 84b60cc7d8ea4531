/**
 * `autosave local` runs the engine alone in its process, so its in-process functions read their environment as
 * the process's runtime environment, not through an AsyncLocalStorage scope around each invocation: on Node 20
 * the first scope turns on promise hooks that every promise of the engine then pays for (a fifth of its CPU per
 * run through the API, issue 34). The functions still see the local endpoints, and `process.env` is not written.
 */
import { CreateStateMachineCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '@autosave/workflow/config';
import { startEngineProcess, type EngineProcess } from '../crash/support/engine-process';
import { untilClosed } from './sfn-helpers';

const PROBE_MODULE = fileURLToPath(new URL('./fixtures/environment-probe.ts', import.meta.url));

describe('autosave local: the functions environment of a process that runs the engine alone', () => {
  let dir: string | undefined;
  let engine: EngineProcess | undefined;
  afterAll(async () => {
    await engine?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('gives the functions the local endpoints with no async hook on the engine, and leaves process.env alone', async () => {
    dir = await mkdtemp(join(tmpdir(), 'autosave-process-env-'));
    const dataDir = join(dir, 'data');
    engine = await startEngineProcess({ dataDir, functionsModule: PROBE_MODULE });
    const sfn = new SFNClient({ endpoint: engine.url, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
    const { stateMachineArn } = await sfn.send(
      new CreateStateMachineCommand({
        name: 'probe',
        roleArn: 'arn:aws:iam::123456789012:role/t',
        definition: JSON.stringify({
          QueryLanguage: 'JSONata',
          StartAt: 'Probe',
          States: {
            Probe: {
              Type: 'Task',
              Resource: 'arn:aws:states:::lambda:invoke',
              Arguments: { FunctionName: 'environment-probe', Payload: {} },
              Output: '{% $states.result.Payload %}',
              End: true,
            },
          },
        }),
      }),
    );
    // Twice: a scope entered by the first invocation would show in the second.
    for (const name of ['first', 'second']) {
      const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn, name, input: '{}' }));
      const run = await untilClosed(sfn, executionArn!);
      expect(run.status, `${run.error} ${run.cause}`).toBe('SUCCEEDED');
      expect(JSON.parse(run.output!)).toEqual({
        asyncId: 0,
        sfnEndpoint: engine.url,
        dataDir,
        processSfnEndpoint: null,
      });
    }
    sfn.destroy();
  });
});
