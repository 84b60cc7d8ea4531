/**
 * env.pull as a regression test uses it: a run that failed elsewhere (a second test environment stands for
 * AWS, its tool-step broken) is pulled into the test's environment, redriven with the fixed handler, and
 * ends SUCCEEDED without its earlier step running again.
 */
import { SFNClient } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AutosaveTestEnvironment, minutes } from '@autosave/local/testing';
import { handler as exampleToolStep } from '../../../lambdas/tool-step';
import { contractRenewal } from '../../../statemachines';
import { exampleProject } from '../../fixtures/example-app';

/** The tool-step as deployed with the defect: every call fails before acting. */
const brokenToolStep = async () => {
  throw Object.assign(new Error('planted defect'), { name: 'PlantedDefect' });
};

let aws: AutosaveTestEnvironment;
let env: AutosaveTestEnvironment;
beforeAll(async () => {
  const script = (await exampleProject()).environment.AUTOSAVE_MODEL_SCRIPT;
  [aws, env] = await Promise.all([
    AutosaveTestEnvironment.start({
      workflows: [contractRenewal],
      functions: { 'tool-step': brokenToolStep },
      model: { script },
    }),
    AutosaveTestEnvironment.start({
      workflows: [contractRenewal],
      functions: { 'tool-step': exampleToolStep },
      model: { script },
    }),
  ]);
});
afterAll(async () => {
  await Promise.all([aws?.stop(), env?.stop()]);
});

describe('env.pull', () => {
  it('pulls a run that failed elsewhere; redriven with the fixed handler it succeeds, and its earlier step ran once', async () => {
    const failed = await aws.startRun(contractRenewal, contractRenewal.exampleInput, { name: 'renewal-c2291' });
    for (let i = 0; i < 20 && (await aws.describe(failed)).status === 'RUNNING'; i++) await aws.advanceTime(minutes(1));
    expect((await aws.describe(failed)).status).toBe('FAILED');
    const client = new SFNClient({
      endpoint: aws.url,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });

    const run = await env.pull(failed.executionArn, { client });
    expect(run).toMatchObject({
      executionArn: failed.executionArn,
      name: 'renewal-c2291',
      workflow: contractRenewal.name,
    });
    expect(run.pulled).toMatchObject({ status: 'FAILED', error: 'PlantedDefect', failedState: 'send-renewal-email' });
    expect(await env.history(run)).toEqual(await aws.history(failed));

    await env.redrive(run);
    const done = await env.waitFor(run, 'SUCCEEDED');
    expect(done.redriveCount).toBe(1);
    expect(await env.attempts(run, 'draft-renewal-email')).toBe(1);
    expect(await env.attempts(run, 'send-renewal-email')).toBe((await aws.attempts(failed, 'send-renewal-email')) + 1);
    expect((await env.outbox()).filter((e) => e.idempotencyKey === 'renewal:C-2291:3')).toHaveLength(1);
    client.destroy();
  });
});
