/**
 * The thin handlers, invoked as Lambda would invoke them, configured only through the environment
 * (docs/architecture.md §3) against dynalite, s3rver and a stand-in Step Functions + SQS endpoint.
 */
import { resolve } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { functionSpec, functions, localFunctionName } from '@autosave/runtime/handlers';
import { isPayloadRef } from '@autosave/runtime/payloads';
import { OutboxEmailProvider } from '@autosave/runtime/tools';
import {
  FakeAwsError,
  sqsSendMessage,
  startFakeAwsJson,
  type FakeAwsJsonServer,
} from '../../../../test/fixtures/runtime/fake-aws-json';
import { startLocalAws, type LocalAws } from '../../../../test/fixtures/runtime/local-aws';

let aws: LocalAws;
let fake: FakeAwsJsonServer;
const dlq: any[] = [];
const executionArn = 'arn:aws:states:us-east-1:123456789012:execution:contract-renewal:c-7';

beforeAll(async () => {
  aws = await startLocalAws();
  fake = await startFakeAwsJson({
    'AWSStepFunctions.SendTaskSuccess': () => ({}),
    'AWSStepFunctions.DescribeExecution': () => ({
      executionArn,
      stateMachineArn: 'arn:aws:states:us-east-1:123456789012:stateMachine:contract-renewal',
      status: 'TIMED_OUT',
      startDate: 1_764_493_200,
      stopDate: 1_764_496_800,
      redriveCount: 0,
    }),
    'AWSStepFunctions.GetExecutionHistory': () => ({
      events: [
        {
          id: 3,
          type: 'TaskStateEntered',
          timestamp: 1_764_493_201,
          stateEnteredEventDetails: { name: 'SendRenewal' },
        },
      ],
    }),
    'AWSStepFunctions.RedriveExecution': (input) => {
      if (input.executionArn.endsWith('flaky')) throw new FakeAwsError('ServiceUnavailable', 'later', 503);
      return { redriveDate: 1_764_500_000 };
    },
    'AmazonSQS.SendMessage': sqsSendMessage(dlq),
  });
  Object.assign(process.env, aws.env, {
    AWS_ENDPOINT_URL_SFN: fake.endpoint,
    AWS_ENDPOINT_URL_SQS: fake.endpoint,
    AWS_MAX_ATTEMPTS: '1',
    AUTOSAVE_DLQ_URL: `${fake.endpoint}/123456789012/autosave-dlq`,
    AUTOSAVE_APPROVAL_SECRET: 'handler-test-secret',
    AUTOSAVE_APPROVAL_BASE_URL: 'http://127.0.0.1:9999/',
    AUTOSAVE_MODEL_SCRIPT: resolve('test/fixtures/model-script.json'),
  });
});
afterAll(async () => {
  await fake.close();
  await aws.close();
});
beforeEach(() => {
  fake.calls.length = 0;
});

const invoke = async (name: string, event: unknown, remainingMillis = 60_000) =>
  (await functionSpec(name).load())(event, { getRemainingTimeInMillis: () => remainingMillis }) as Promise<any>;

describe('lambdas/index.ts registry', () => {
  it('lists the six functions of docs/architecture.md §2 with their entry files, limits and needs', async () => {
    expect(functions.map((f) => f.name)).toEqual([
      'model-step',
      'tool-step',
      'approval-request',
      'approval-endpoint',
      'run-monitor',
      'redrive',
    ]);
    for (const f of functions) {
      expect(f.entry).toBe(resolve('packages/runtime/src/handlers', `${f.name}.ts`));
      expect(f.handler).toBe('handler');
      expect(f.timeoutSeconds).toBeGreaterThan(0);
      expect(f.memoryMb).toBeGreaterThanOrEqual(128);
      expect(typeof (await f.load())).toBe('function');
    }
    expect(functionSpec('run-monitor').needs).toEqual(['sfn', 'dlq', 'table']);
  });

  it('names local functions autosave-<name> and finds them by either name', () => {
    expect(localFunctionName('tool-step')).toBe('autosave-tool-step');
    expect(functionSpec('autosave-tool-step')).toBe(functionSpec('tool-step'));
    expect(() => functionSpec('nope')).toThrow(/Unknown function/);
  });
});

describe('tool-step handler', () => {
  it("the example app's (lambdas/tool-step.ts) returns the {result, source} envelope inline, a result over the inline limit with its large value as a payload reference", async () => {
    const { handler } = await import('../../../../lambdas/tool-step');
    const out: any = await handler(
      {
        workflow: 'research-agent',
        executionArn,
        step: 'Research',
        tool: 'read-document',
        idempotencyKey: 'h:doc',
        input: { url: 'https://example.org/long', bytes: 300 * 1024 },
      },
      { getRemainingTimeInMillis: () => 60_000 },
    );
    expect(out.source).toBe('executed');
    expect(out.result.url).toBe('https://example.org/long');
    expect(isPayloadRef(out.result.text)).toBe(true);
  });

  it('sends through the configured outbox', async () => {
    await invoke('tool-step', {
      workflow: 'contract-renewal',
      executionArn,
      step: 'SendRenewal',
      tool: 'send-email',
      idempotencyKey: 'renewal:c-7:1',
      input: { to: 'buyer@example.com', subject: 'Renewal', body: 'Hi' },
    });
    expect((await new OutboxEmailProvider(aws.env.AUTOSAVE_OUTBOX_DIR).list()).map((e) => e.idempotencyKey)).toContain(
      'renewal:c-7:1',
    );
  });
});

describe('model-step handler', () => {
  it('answers from the scripted provider and replays on retry', async () => {
    const event = { workflow: 'contract-renewal', executionArn, step: 'DraftRenewal', turn: 0, prompt: 'Draft it' };
    const first = await invoke('model-step', event);
    expect(first).toMatchObject({ final: true, replayed: false, toolCalls: [] });
    expect(await invoke('model-step', event)).toEqual({ ...first, replayed: true });
  });
});

describe('approval-request and approval-endpoint handlers', () => {
  it('issue a link, email it to the approvers, show the page on GET and decide on POST', async () => {
    const issued = await invoke('approval-request', {
      workflow: 'clinical-trial-onboarding',
      executionArn,
      step: 'CoordinatorApproval',
      taskToken: 'token-for-handler-test',
      timeoutSeconds: 3600,
      title: 'Approve site-4412',
      details: { siteId: 'site-4412' },
      approvers: ['coordinator@example.com'],
    });
    expect(issued.url.startsWith('http://127.0.0.1:9999/approvals/')).toBe(true);
    const email = (await new OutboxEmailProvider(aws.env.AUTOSAVE_OUTBOX_DIR).list()).find(
      (e) => e.idempotencyKey === `approval:${issued.approvalId}`,
    );
    expect(email?.body).toContain(issued.url);
    expect(email?.body).not.toContain('token-for-handler-test');

    const url = new URL(issued.url);
    const functionUrlEvent = (method: string, body?: string) => ({
      version: '2.0',
      rawPath: url.pathname,
      rawQueryString: url.search.slice(1),
      queryStringParameters: { sig: url.searchParams.get('sig')! },
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      requestContext: { http: { method, path: url.pathname } },
      ...(body === undefined ? {} : { body: Buffer.from(body).toString('base64'), isBase64Encoded: true }),
    });
    const page = await invoke('approval-endpoint', functionUrlEvent('GET'));
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Approve site-4412');
    expect(fake.calls).toHaveLength(0);

    const decided = await invoke(
      'approval-endpoint',
      functionUrlEvent('POST', 'decision=approve&by=dr.lee&comment=ok'),
    );
    expect(decided.statusCode).toBe(200);
    const call = fake.calls.find((c) => c.target === 'AWSStepFunctions.SendTaskSuccess')!;
    expect(call.input.taskToken).toBe('token-for-handler-test');
    expect(JSON.parse(call.input.output)).toMatchObject({ approved: true, by: 'dr.lee', comment: 'ok' });
  });
});

describe('run-monitor handler', () => {
  it('turns a timed-out run into one DLQ message naming the failed state', async () => {
    const out = await invoke('run-monitor', {
      version: '0',
      source: 'aws.states',
      'detail-type': 'Step Functions Execution Status Change',
      time: '2026-11-30T10:00:00Z',
      detail: { executionArn, status: 'TIMED_OUT' },
    });
    expect(out).toEqual({
      deadLettered: true,
      alreadySent: false,
      executionArn,
      failedState: 'SendRenewal',
      historyEvents: 3,
    });
    expect(fake.calls.filter((c) => c.target === 'AWSStepFunctions.GetExecutionHistory')).toHaveLength(1);
    expect(dlq).toHaveLength(1);
    expect(dlq[0].QueueUrl).toBe(`${fake.endpoint}/123456789012/autosave-dlq`);
    expect(JSON.parse(dlq[0].MessageBody)).toMatchObject({
      executionArn,
      workflow: 'contract-renewal',
      status: 'TIMED_OUT',
      failedState: 'SendRenewal',
      redriveCount: 0,
    });
  });

  it('sends nothing for the same closed run delivered again (EventBridge at least once, Lambda async retries)', async () => {
    const before = dlq.length;
    const again = await invoke('run-monitor', { detail: { executionArn, status: 'TIMED_OUT' } });
    expect(again).toMatchObject({ deadLettered: true, alreadySent: true });
    expect(dlq).toHaveLength(before);
  });

  it('reports the history size of a run that succeeded and leaves it out of the DLQ', async () => {
    const before = dlq.length;
    expect(await invoke('run-monitor', { detail: { executionArn, status: 'SUCCEEDED' } })).toEqual({
      deadLettered: false,
      historyEvents: 3,
    });
    expect(dlq).toHaveLength(before);
  });
});

describe('redrive handler', () => {
  it('redrives each DLQ message and reports the ones that failed as batch item failures', async () => {
    const out = await invoke('redrive', {
      Records: [
        { messageId: 'm1', body: JSON.stringify({ executionArn, redriveCount: 0 }) },
        { messageId: 'm2', body: JSON.stringify({ executionArn: `${executionArn}-flaky`, redriveCount: 0 }) },
        { messageId: 'm3', body: 'garbage' },
      ],
    });
    expect(out).toEqual({ batchItemFailures: [{ itemIdentifier: 'm2' }, { itemIdentifier: 'm3' }] });
    const redrives = fake.calls.filter((c) => c.target === 'AWSStepFunctions.RedriveExecution');
    expect(redrives.map((c) => c.input.executionArn)).toEqual([executionArn, `${executionArn}-flaky`]);
    expect(redrives[0].input.clientToken).toMatch(/^[0-9a-f]{64}$/);
  });
});
