/**
 * `autosave local --stack --enforce-iam`: every Task call the engine makes is judged by the IAM policy
 * simulator against the state machine role as the deployed stack defines it now. The stack as shipped
 * allows every call its workflows make; a deploy that takes a grant away fails the next call the way AWS
 * fails it (Lambda.AWSLambdaException, AccessDeniedException in AWS's wording).
 */
import {
  DescribeExecutionCommand,
  GetExecutionHistoryCommand,
  SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minutes } from '../../../packages/workflow/src/config/duration';
import type { LocalEngine } from '../../../packages/local/src/server';
import { contractRenewal, researchAgent } from '../../../statemachines';
import { appAssemblies, editedAssembly, SYNTH_TIMEOUT_MILLIS } from './support/assemblies';
import { startStackEngine, type StackEngine } from './support/stack-engine';

let engine: StackEngine;
let local: LocalEngine;
let sfn: SFNClient;
let lines: readonly string[];
let v1: string;

beforeAll(async () => {
  ({ v1 } = await appAssemblies());
  engine = await startStackEngine(v1, { console: false, virtualClock: true, stack: { enforceIam: true } });
  ({ local, sfn, lines } = engine);
}, SYNTH_TIMEOUT_MILLIS);
afterAll(() => engine?.stop());

const aliasOf = (workflow: string) => local.deployments.find((d) => d.workflow === workflow)!.aliasArn;

/** Starts a run and moves the virtual clock (retry backoff included) until it closes. */
async function runToEnd(workflow: string, input: unknown, name: string) {
  const { executionArn } = await sfn.send(
    new StartExecutionCommand({ stateMachineArn: aliasOf(workflow), name, input: JSON.stringify(input) }),
  );
  for (let i = 0; i < 200; i++) {
    const run = await sfn.send(new DescribeExecutionCommand({ executionArn }));
    if (run.status !== 'RUNNING') return run;
    await local.clock!.advance(minutes(1));
  }
  throw new Error(`${name} never closed`);
}

describe('autosave local --stack --enforce-iam', () => {
  it('says once at boot that IAM is enforced', () => {
    expect(lines.filter((l) => l.includes('IAM enforced'))).toHaveLength(1);
    expect(lines.some((l) => l.includes('IAM is not enforced'))).toBe(false);
  });

  it('runs the workflows as shipped: their roles allow every call they make', async () => {
    expect((await runToEnd('contract-renewal', contractRenewal.exampleInput, 'renewal-allowed')).status).toBe(
      'SUCCEEDED',
    );
    expect((await runToEnd('research-agent', researchAgent.exampleInput, 'research-allowed')).status).toBe('SUCCEEDED');
  });

  it('after a deploy that takes the Lambda grant away, fails the Task as AWS does, before the function runs', async () => {
    const edited = editedAssembly(v1, (t) => {
      const policy = Object.entries(t.Resources).find(
        ([id, r]) => id.startsWith('ContractRenewalRoleDefaultPolicy') && r.Type === 'AWS::IAM::Policy',
      )![1];
      policy.Properties.PolicyDocument.Statement = policy.Properties.PolicyDocument.Statement.filter(
        (s: { Action: unknown }) => s.Action !== 'lambda:InvokeFunction',
      );
    });
    const deployed = await local.stack!.deploy(edited);
    expect(deployed.changes.filter((c) => c.change !== 'unchanged').map((c) => c.logicalId)).toEqual([
      expect.stringMatching(/^ContractRenewalRoleDefaultPolicy/),
    ]);

    const run = await runToEnd('contract-renewal', contractRenewal.exampleInput, 'renewal-denied');
    expect(run.status).toBe('FAILED');
    const { events } = await sfn.send(
      new GetExecutionHistoryCommand({ executionArn: run.executionArn, maxResults: 1000 }),
    );
    const failures = (events ?? []).filter((e) => e.type === 'TaskFailed').map((e) => e.taskFailedEventDetails!);
    expect(failures.length).toBeGreaterThan(0);
    const roleName = local
      .stack!.summary()!
      .resources.find((r) => r.logicalId.startsWith('ContractRenewalRole') && r.type === 'AWS::IAM::Role')!.physicalId;
    for (const f of failures) {
      expect(f.error).toBe('Lambda.AWSLambdaException');
      expect(f.cause).toMatch(
        new RegExp(
          `^User: arn:aws:sts::123456789012:assumed-role/${roleName}/[A-Za-z]{32} is not authorized to perform: lambda:InvokeFunction on resource: ` +
            'arn:aws:lambda:us-east-1:123456789012:function:[^ ]+:1 because no identity-based policy allows the lambda:InvokeFunction action ' +
            '\\(Service: AWSLambda; Status Code: 403; Error Code: AccessDeniedException; Request ID: [0-9a-f-]{36}; Proxy: null\\)$',
        ),
      );
    }
    // Denied before the call: no model step ran, so no draft was recorded for this run.
    expect((events ?? []).some((e) => e.type === 'TaskSucceeded')).toBe(false);
  });
});
