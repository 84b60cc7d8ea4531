/**
 * A deploy while runs wait on task tokens (approvals): runs started before it finish on the definition they
 * started on; runs started after it use the new one. The deploy goes through the same code the boot uses.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SendTaskSuccessCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { startLocal, type LocalEngine } from '../../../packages/local/src/server';
import { deployDefinition } from '../../../packages/local/src/services/deploy-workflows';
import { eventually } from '../../fixtures/wait';
import { untilClosed } from './sfn-helpers';
import { exampleApp } from '../../fixtures/example-app';

const parked = new Map<string, string>();
const functions = {
  'await-approval': async (event: { token: string; run: string }) => {
    parked.set(event.run, event.token);
    return { approvalId: event.run };
  },
};

/** An approval then a Pass that stamps which definition ran it. */
function definition(release: string): string {
  return JSON.stringify({
    QueryLanguage: 'JSONata',
    StartAt: 'Approve',
    States: {
      Approve: {
        Type: 'Task',
        Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
        Arguments: {
          FunctionName: 'await-approval',
          Payload: { token: '{% $states.context.Task.Token %}', run: '{% $states.context.Execution.Name %}' },
        },
        Next: 'Finish',
      },
      Finish: { Type: 'Pass', Output: `{% {"release": "${release}", "decision": $states.input} %}`, End: true },
    },
  });
}

describe('deploying a new version while runs wait on approvals', () => {
  let dataDir: string;
  let local: LocalEngine;
  let sfn: SFNClient;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'autosave-deploy-'));
    local = await startLocal({
      ...(await exampleApp()),
      port: 0,
      dataDir,
      functions,
      deployWorkflows: false,
      log: () => {},
    });
    sfn = new SFNClient({
      endpoint: local.url,
      region: 'us-east-1',
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    });
  });
  afterAll(async () => {
    sfn?.destroy();
    await local?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const startAndPark = async (aliasArn: string, name: string) => {
    const { executionArn } = await sfn.send(
      new StartExecutionCommand({ stateMachineArn: aliasArn, name, input: '{}' }),
    );
    await eventually(`${name} to park on its task token`, () => (parked.has(name) ? true : undefined));
    return executionArn!;
  };

  const finish = async (name: string, executionArn: string) => {
    await sfn.send(
      new SendTaskSuccessCommand({
        taskToken: parked.get(name),
        output: JSON.stringify({ approved: true, by: 'coordinator' }),
      }),
    );
    return untilClosed(sfn, executionArn);
  };

  it('finishes old runs on the old version and starts new runs on the new one', async () => {
    const v1 = await deployDefinition(local.engine, 'onboarding', definition('v1'));
    expect(v1.change).toBe('created');
    const old = await Promise.all(
      ['old-1', 'old-2', 'old-3'].map(async (n) => [n, await startAndPark(v1.aliasArn, n)] as const),
    );

    const v2 = await deployDefinition(local.engine, 'onboarding', definition('v2'));
    expect(v2.change).toBe('updated');
    expect(v2.versionArn).not.toBe(v1.versionArn);
    expect(v2.aliasArn).toBe(v1.aliasArn);
    expect((await deployDefinition(local.engine, 'onboarding', definition('v2'))).change).toBe('unchanged');
    const fresh = await Promise.all(
      ['new-1', 'new-2'].map(async (n) => [n, await startAndPark(v2.aliasArn, n)] as const),
    );

    for (const [name, arn] of old) {
      const d = await finish(name, arn);
      expect(d.status).toBe('SUCCEEDED');
      expect(d.stateMachineVersionArn).toBe(v1.versionArn);
      expect(JSON.parse(d.output!)).toEqual({ release: 'v1', decision: { approved: true, by: 'coordinator' } });
    }
    for (const [name, arn] of fresh) {
      const d = await finish(name, arn);
      expect(d.status).toBe('SUCCEEDED');
      expect(d.stateMachineVersionArn).toBe(v2.versionArn);
      expect(d.stateMachineAliasArn).toBe(v2.aliasArn);
      expect(JSON.parse(d.output!).release).toBe('v2');
    }
  });
});
