/**
 * `autosave local --stack`: the engine boots from the synthesized CDK stack and runs what `cdk deploy`
 * ships — the four example workflows through their `live` aliases, each Lambda from its own esbuild
 * bundle with the template's environment resolved to the local services, the closed-runs rule delivering
 * AWS-shaped status-change events to run-monitor (whose DLQ is the stack's queue), the approval Function
 * URL on the engine port, the signing secret behind the local Parameter Store.
 */
import { join } from 'node:path';
import {
  DescribeExecutionCommand,
  DescribeStateMachineAliasCommand,
  SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS } from '@autosave/workflow/config';
import { loadRunDetails, submitApprovalDecision } from '../../../packages/local/src/operations';
import { OutboxEmailProvider } from '@autosave/runtime/tools';
import type { LocalEngine } from '../../../packages/local/src/server';
import { clinicalTrialOnboarding, contractRenewal, researchAgent } from '../../../statemachines';
import { appAssemblies, editedAssembly, SYNTH_TIMEOUT_MILLIS } from './support/assemblies';
import { eventually } from '../../fixtures/wait';
import { startStackEngine, type StackEngine } from './support/stack-engine';

let engine: StackEngine;
let local: LocalEngine;
let sfn: SFNClient;
let lines: readonly string[];
let v1: string;

beforeAll(async () => {
  ({ v1 } = await appAssemblies());
  engine = await startStackEngine(v1);
  ({ local, sfn, lines } = engine);
}, SYNTH_TIMEOUT_MILLIS);
afterAll(() => engine?.stop());

/** Runs in the stack's own Lambda sandboxes: a minute leaves room for cold starts on a loaded machine. */
const STACK_POLL = { timeoutMillis: 60_000, intervalMillis: 50 };
const aliasOf = (workflow: string) => local.deployments.find((d) => d.workflow === workflow)!.aliasArn;
const start = async (workflow: string, input: unknown, name: string) =>
  (
    await sfn.send(
      new StartExecutionCommand({ stateMachineArn: aliasOf(workflow), name, input: JSON.stringify(input) }),
    )
  ).executionArn!;
const closed = (executionArn: string) =>
  eventually(
    `${executionArn} closed`,
    async () => {
      const run = await sfn.send(new DescribeExecutionCommand({ executionArn }));
      return run.status === 'RUNNING' ? undefined : run;
    },
    STACK_POLL,
  );
const outbox = () => new OutboxEmailProvider(local.environment.AUTOSAVE_OUTBOX_DIR!);

describe('autosave local --stack', () => {
  it('says which assembly runs, lists the resource types it does not emulate once, and that IAM is not enforced', () => {
    const assemblyId = local.stack!.summary()!.assemblyId;
    expect(lines.find((l) => l.includes(`running stack Autosave, assembly ${assemblyId}`))).toBeDefined();
    const notEmulated = lines.filter((l) => l.includes('not emulated'));
    expect(notEmulated).toHaveLength(1);
    expect(notEmulated[0]).toMatch(/AWS::CloudWatch::Alarm.*AWS::Logs::LogGroup/);
    expect(lines.some((l) => l.includes('IAM is not enforced'))).toBe(true);
  });

  it('deploys the four workflows behind their live aliases on version 1, pinned to published Lambda versions', async () => {
    expect(local.deployments.map((d) => d.workflow).sort()).toEqual([
      'clinical-trial-onboarding',
      'contract-renewal',
      'research-agent',
      'support-triage',
    ]);
    for (const d of local.deployments) {
      const alias = await sfn.send(new DescribeStateMachineAliasCommand({ stateMachineAliasArn: d.aliasArn }));
      expect(alias.routingConfiguration).toEqual([{ stateMachineVersionArn: `${d.stateMachineArn}:1`, weight: 100 }]);
    }
    const versions = local.stack!.summary()!.functions.filter((f) => f.version !== '$LATEST');
    expect(versions.map((v) => `${v.name.split('-')[1].replace(/[0-9A-F]{8}$/, '')}:${v.version}`).sort()).toEqual([
      'FunctionsApprovalRequest:1',
      'FunctionsModelStep:1',
      'FunctionsToolStep:1',
    ]);
  });

  it('runs each function from its own bundle with the timeout and memory of the template', () => {
    const source = local.stack!.functions;
    const toolStep = local.stack!.summary()!.functions.find((f) => f.name.includes('ToolStep') && f.version === '1')!;
    const found = source.find(toolStep.name, '1')!;
    expect(found.executedVersion).toBe('1');
    expect(found.fn.timeoutSeconds).toBe(60);
    expect(found.fn.memoryMb).toBe(512);
    expect(source.codeDirectory(toolStep.codeSha)).toContain(join('stack', 'lambda-code'));
  });

  it('contract-renewal: the model-step and tool-step bundles draft and send the email once', async () => {
    const input = contractRenewal.exampleInput as { contractId: string; version: number };
    const run = await closed(await start('contract-renewal', input, 'renewal-1'));
    expect(run.status).toBe('SUCCEEDED');
    expect(run.stateMachineVersionArn).toMatch(/:contract-renewal:1$/);
    const sent = (await outbox().list()).filter(
      (e) => e.idempotencyKey === `renewal:${input.contractId}:${input.version}`,
    );
    expect(sent).toHaveLength(1);
  });

  it('research-agent: the agent loop runs on the bundles to a final answer', async () => {
    const run = await closed(await start('research-agent', researchAgent.exampleInput, 'research-1'));
    expect(run.status).toBe('SUCCEEDED');
    expect(run.output).toContain('Final answer');
  });

  it('clinical-trial-onboarding: the approval link points at the Function URL on the engine port and decides the run', async () => {
    const input = clinicalTrialOnboarding.exampleInput as { siteId: string };
    const executionArn = await start('clinical-trial-onboarding', input, input.siteId);
    const url = await eventually(
      'approval link',
      async () => (await loadRunDetails(sfn, executionArn)).approvals[0]?.url,
      STACK_POLL,
    );
    expect(url.startsWith(`${local.url}/approvals/`)).toBe(true);
    await submitApprovalDecision(url, { approve: true });
    expect((await closed(executionArn)).status).toBe('SUCCEEDED');
    expect((await outbox().list()).filter((e) => e.idempotencyKey === `${input.siteId}:welcome`)).toHaveLength(1);
  });

  it('the closed-runs rule hands a failed run to run-monitor, which dead-letters it on the stack queue', async () => {
    const executionArn = await start('contract-renewal', { contractId: 'broken' }, 'renewal-broken');
    const run = await closed(executionArn);
    expect(run.status).toBe('FAILED');
    const queueUrl = local.stack!.output('DeadLetterQueueUrl')!;
    expect(queueUrl.startsWith(local.url)).toBe(true);
    const sqs = new SQSClient({ endpoint: local.url, region: 'us-east-1', credentials: LOCAL_CREDENTIALS });
    try {
      const message = await eventually(
        'dead letter',
        async () => {
          const got = await sqs.send(
            new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 0 }),
          );
          return got.Messages?.map((m) => JSON.parse(m.Body!)).find((b) => b.executionArn === executionArn);
        },
        STACK_POLL,
      );
      expect(message).toMatchObject({ executionArn, status: 'FAILED', workflow: 'contract-renewal' });
    } finally {
      sqs.destroy();
    }
  });

  it('the console shows the workflows runs and which assembly runs', async () => {
    const page = await (await fetch(`${local.url}/`)).text();
    expect(page).toContain(`assembly ${local.stack!.summary()!.assemblyId}`);
    expect(page).toContain('renewal-1');
    expect(page).toContain('research-1');
  });

  it('refuses a deploy whose state machine needs a resource type it does not emulate, naming it', async () => {
    const edited = editedAssembly(v1, (t) => {
      t.Resources.ClickStream = { Type: 'AWS::Kinesis::Stream', Properties: { ShardCount: 1 } };
      const sm = Object.values(t.Resources).find(
        (r: any) => r.Properties?.StateMachineName === 'contract-renewal',
      ) as any;
      sm.Properties.DefinitionSubstitutions.ClickStreamName = { Ref: 'ClickStream' };
    });
    const response = await fetch(`${local.url}/_autosave/stack/deploy`, {
      method: 'POST',
      body: JSON.stringify({ assemblyDir: edited }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { __type: string; message: string };
    expect(body.__type).toBe('StackResourceNotEmulatedError');
    expect(body.message).toContain('ClickStream (AWS::Kinesis::Stream)');
  });

  it("creates the stack's SNS topics and subscriptions, EventBridge buses and rules on the local services: a workflow's publish and put-events reach the stack's queues", async () => {
    const edited = editedAssembly(v1, (t) => {
      const roleArn = (
        Object.values(t.Resources).find((r: any) => r.Properties?.StateMachineName === 'contract-renewal') as any
      ).Properties.RoleArn;
      t.Resources.Notices = { Type: 'AWS::SNS::Topic' };
      t.Resources.NoticesQueue = { Type: 'AWS::SQS::Queue' };
      t.Resources.NoticesToQueue = {
        Type: 'AWS::SNS::Subscription',
        Properties: {
          TopicArn: { Ref: 'Notices' },
          Protocol: 'sqs',
          Endpoint: { 'Fn::GetAtt': ['NoticesQueue', 'Arn'] },
          RawMessageDelivery: true,
        },
      };
      t.Resources.Orders = { Type: 'AWS::Events::EventBus', Properties: { Name: 'orders' } };
      t.Resources.OrdersQueue = { Type: 'AWS::SQS::Queue' };
      t.Resources.PaidOrders = {
        Type: 'AWS::Events::Rule',
        Properties: {
          EventBusName: { Ref: 'Orders' },
          EventPattern: { source: ['shop'], 'detail-type': ['paid'] },
          Targets: [{ Id: 'queue', Arn: { 'Fn::GetAtt': ['OrdersQueue', 'Arn'] } }],
        },
      };
      t.Resources.Notifier = {
        Type: 'AWS::StepFunctions::StateMachine',
        Properties: {
          StateMachineName: 'notifier',
          RoleArn: roleArn,
          DefinitionString: JSON.stringify({
            StartAt: 'Notify',
            States: {
              Notify: {
                Type: 'Task',
                Resource: 'arn:aws:states:::sns:publish',
                Parameters: { TopicArn: '${TopicArn}', 'Message.$': '$.message' },
                ResultPath: null,
                Next: 'Announce',
              },
              Announce: {
                Type: 'Task',
                Resource: 'arn:aws:states:::events:putEvents',
                Parameters: {
                  Entries: [{ EventBusName: '${BusName}', Source: 'shop', DetailType: 'paid', 'Detail.$': '$' }],
                },
                End: true,
              },
            },
          }),
          DefinitionSubstitutions: { TopicArn: { Ref: 'Notices' }, BusName: { Ref: 'Orders' } },
        },
      };
    });
    const response = await fetch(`${local.url}/_autosave/stack/deploy`, {
      method: 'POST',
      body: JSON.stringify({ assemblyDir: edited }),
    });
    expect(response.status, await response.clone().text()).toBe(200);
    const physical = (logicalId: string) =>
      local.stack!.summary()!.resources.find((r) => r.logicalId === logicalId)!.physicalId;
    const run = await closed(
      (
        await sfn.send(
          new StartExecutionCommand({
            stateMachineArn: `arn:aws:states:us-east-1:123456789012:stateMachine:notifier`,
            input: JSON.stringify({ message: 'order 7 paid', order: 7 }),
          }),
        )
      ).executionArn!,
    );
    expect(run.status).toBe('SUCCEEDED');

    const sqs = new SQSClient({ endpoint: local.url, region: 'us-east-1', credentials: LOCAL_CREDENTIALS });
    const bodies = async (logicalId: string) => {
      const got = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: `${local.url}/123456789012/${physical(logicalId)}`,
          MaxNumberOfMessages: 10,
        }),
      );
      return (got.Messages ?? []).map((m) => m.Body!);
    };
    // Raw message delivery: the queue holds the message itself, not SNS's JSON envelope.
    const notices = await eventually(
      'the topic delivered',
      async () => {
        const got = await bodies('NoticesQueue');
        return got.length ? got : undefined;
      },
      STACK_POLL,
    );
    expect(notices).toEqual(['order 7 paid']);
    const paid = await eventually(
      'the rule delivered',
      async () => {
        const got = await bodies('OrdersQueue');
        return got.length ? got : undefined;
      },
      STACK_POLL,
    );
    expect(JSON.parse(paid[0])).toMatchObject({ source: 'shop', 'detail-type': 'paid', detail: { order: 7 } });
    sqs.destroy();
  });

  it('a deploy deletes what left the template and keeps what a Retain policy keeps', async () => {
    const edited = editedAssembly(v1, (t) => {
      for (const [id, r] of Object.entries(t.Resources) as [string, any][]) {
        if (
          id.startsWith('ContractRenewalLiveAlias') ||
          id.startsWith('ContractRenewalVersion') ||
          r.Type === 'AWS::Events::Rule'
        )
          delete t.Resources[id];
      }
      for (const [id, o] of Object.entries(t.Outputs ?? {}) as [string, any][])
        if (JSON.stringify(o).includes('ContractRenewal')) delete t.Outputs![id];
    });
    const response = await fetch(`${local.url}/_autosave/stack/deploy`, {
      method: 'POST',
      body: JSON.stringify({ assemblyDir: edited }),
    });
    const body = (await response.json()) as { changes: { logicalId: string; change: string }[] };
    expect(response.status, JSON.stringify(body)).toBe(200);
    const change = (prefix: string) => body.changes.find((c) => c.logicalId.startsWith(prefix))?.change;
    expect(change('ContractRenewalLiveAlias')).toBe('deleted');
    expect(change('ContractRenewalVersion')).toBe('retained');
    expect(change('RunRoutingClosedRuns')).toBe('deleted');
    const aliasArn = aliasOf('contract-renewal');
    await expect(
      sfn.send(new DescribeStateMachineAliasCommand({ stateMachineAliasArn: aliasArn })),
    ).rejects.toMatchObject({ name: 'ResourceNotFound' });
    // The retained version still runs.
    const run = await closed(
      (
        await sfn.send(
          new StartExecutionCommand({
            stateMachineArn: aliasArn.replace(/:live$/, ':1'),
            name: 'renewal-on-v1',
            input: JSON.stringify(contractRenewal.exampleInput),
          }),
        )
      ).executionArn!,
    );
    expect(run.status).toBe('SUCCEEDED');
    const summary = local.stack!.summary()!;
    expect(
      summary.resources.find((r) => r.state === 'RETAINED' && r.type === 'AWS::StepFunctions::StateMachineVersion'),
    ).toBeDefined();
    expect(summary.complete).toBe(true);
  });
});
