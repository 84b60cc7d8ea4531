import { SFNClient } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ApprovalLinkSigner,
  ApprovalService,
  handleApprovalHttp,
  type ApprovalHttpResponse,
} from '@autosave/runtime/approvals';
import { RecordTable } from '@autosave/runtime/records';
import { InMemoryMetrics, MetricName } from '@autosave/runtime/metrics';
import {
  FakeAwsError,
  startFakeAwsJson,
  type FakeAwsJsonServer,
} from '../../../../test/fixtures/runtime/fake-aws-json';
import { startLocalAws, type LocalAws } from '../../../../test/fixtures/runtime/local-aws';

let aws: LocalAws;
let sfnServer: FakeAwsJsonServer;
let table: RecordTable;
/** Tokens the fake Step Functions treats as belonging to a run that timed out, or as unreachable. */
const closedTokens = new Set<string>();
const flakyTokens = new Set<string>();
const clock = {
  millis: Date.UTC(2026, 10, 30, 9),
  now() {
    return this.millis;
  },
};
const metrics = new InMemoryMetrics();
const notices: { approvers: readonly string[]; url: string }[] = [];
let service: ApprovalService;
let tokenCounter = 0;

beforeAll(async () => {
  aws = await startLocalAws();
  table = new RecordTable(aws.dynamodb, aws.table);
  sfnServer = await startFakeAwsJson({
    'AWSStepFunctions.SendTaskSuccess': (input) => {
      if (closedTokens.has(input.taskToken)) throw new FakeAwsError('TaskTimedOut', 'Task Timed Out');
      if (flakyTokens.has(input.taskToken)) throw new FakeAwsError('ServiceUnavailable', 'try later', 503);
      return {};
    },
  });
  const sfn = new SFNClient({
    endpoint: sfnServer.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'y' },
    maxAttempts: 1,
  });
  service = new ApprovalService({
    table,
    signer: new ApprovalLinkSigner(['test-secret']),
    sfn,
    baseUrl: 'http://127.0.0.1:8083',
    clock,
    metrics,
    notify: async (approval, url) => void notices.push({ approvers: approval.approvers, url }),
  });
});
afterAll(async () => {
  await sfnServer.close();
  await aws.close();
});
beforeEach(() => {
  sfnServer.calls.length = 0;
});

async function requestApproval(overrides: Record<string, unknown> = {}) {
  const taskToken = `AAAA-secret-task-token-${++tokenCounter}-${'t'.repeat(600)}`;
  const issued = await service.request({
    workflow: 'clinical-trial-onboarding',
    executionArn: 'arn:aws:states:us-east-1:123456789012:execution:clinical-trial-onboarding:site-4412',
    step: 'CoordinatorApproval',
    taskToken,
    timeoutSeconds: 5 * 86_400,
    title: 'Approve site-4412 onboarding',
    details: { siteId: 'site-4412', irb: '<script>alert(1)</script>' },
    approvers: ['coordinator@example.com'],
    ...overrides,
  });
  const url = new URL(issued.url);
  return { ...issued, taskToken, path: url.pathname, sig: url.searchParams.get('sig')! };
}

const get = (path: string, sig?: string, receivedAtMillis?: number) =>
  handleApprovalHttp(service, { method: 'GET', path, query: { sig }, receivedAtMillis });
const post = (
  path: string,
  sig: string | undefined,
  form: Record<string, string>,
  headers: Record<string, string> = {},
) =>
  handleApprovalHttp(service, {
    method: 'POST',
    path,
    query: { sig },
    contentType: 'application/x-www-form-urlencoded',
    body: new URLSearchParams(form).toString(),
    headers: { host: '127.0.0.1:8083', ...headers },
  });
const sendTaskSuccessCalls = () => sfnServer.calls.filter((c) => c.target === 'AWSStepFunctions.SendTaskSuccess');

describe('approval request', () => {
  it('stores the task token in the table and never in the link; the link expires with the wait', async () => {
    const issued = await requestApproval();
    expect(issued.url).toMatch(/^http:\/\/127\.0\.0\.1:8083\/approvals\/[0-9a-f]{32}\?sig=v1\.\d+\./);
    expect(issued.url).not.toContain(issued.taskToken);
    expect(issued.expiresAtSeconds).toBe(clock.millis / 1000 + 5 * 86_400);
    expect((await table.get(`approval#${issued.approvalId}`))?.taskToken).toBe(issued.taskToken);
    expect((await service.get(issued.approvalId)) as object).not.toHaveProperty('taskToken');
    expect(notices.at(-1)).toEqual({ approvers: ['coordinator@example.com'], url: issued.url });
  });

  it('issues the same link when the request is retried with the same token', async () => {
    const first = await requestApproval();
    const again = await service.request({
      workflow: 'w',
      executionArn: 'arn:x',
      step: 'CoordinatorApproval',
      taskToken: first.taskToken,
      timeoutSeconds: 60,
      title: 't',
      details: {},
    });
    expect(again.url).toBe(first.url);
  });

  it('refuses a request without a task token or timeout', async () => {
    await expect(service.request({ executionArn: 'a', step: 's', timeoutSeconds: 5 })).rejects.toMatchObject({
      name: 'InvalidStepInputError',
    });
    await expect(
      service.request({ executionArn: 'a', step: 's', taskToken: 't', timeoutSeconds: 0 }),
    ).rejects.toMatchObject({ name: 'InvalidStepInputError' });
  });
});

describe('approval endpoint', () => {
  it('GET shows what is to be approved, with Approve and Reject and a comment box, and decides nothing', async () => {
    const a = await requestApproval();
    const res = await get(a.path, a.sig);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.body).toContain('Approve site-4412 onboarding');
    expect(res.body).toContain('value="approve"');
    expect(res.body).toContain('value="reject"');
    expect(res.body).toContain('<textarea name="comment"');
    expect(res.body).toContain('&lt;script&gt;');
    expect(res.body).not.toContain('<script>');
    expect(res.body).not.toContain(a.taskToken);
    await get(a.path, a.sig);
    expect(sendTaskSuccessCalls()).toHaveLength(0);
    expect((await service.get(a.approvalId))?.status).toBe('PENDING');
  });

  it('POST approve sends {approved, by, at, comment} with SendTaskSuccess, once', async () => {
    const a = await requestApproval();
    clock.millis += 3_600_000;
    const res = await post(a.path, a.sig, { decision: 'approve', by: 'dr.lee@example.com', comment: 'IRB looks good' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Approved');
    const [call] = sendTaskSuccessCalls();
    expect(call.input.taskToken).toBe(a.taskToken);
    expect(JSON.parse(call.input.output)).toEqual({
      approved: true,
      by: 'dr.lee@example.com',
      at: new Date(clock.millis).toISOString(),
      comment: 'IRB looks good',
    });
    expect(metrics.get(MetricName.ApprovalWaitSeconds)).toBeGreaterThanOrEqual(3600);

    const replay = await post(a.path, a.sig, { decision: 'reject', by: 'mallory' });
    expect(replay.statusCode).toBe(409);
    expect(replay.body).toContain('already approved by dr.lee@example.com');
    expect((await get(a.path, a.sig)).statusCode).toBe(409);
    expect(sendTaskSuccessCalls()).toHaveLength(1);
  });

  it('POST reject sends approved=false', async () => {
    const a = await requestApproval();
    expect((await post(a.path, a.sig, { decision: 'reject', by: 'dr.lee' })).statusCode).toBe(200);
    expect(JSON.parse(sendTaskSuccessCalls()[0].input.output)).toMatchObject({ approved: false, by: 'dr.lee' });
  });

  it('two POSTs racing on one link decide once', async () => {
    const a = await requestApproval();
    const results = await Promise.all([
      post(a.path, a.sig, { decision: 'approve', by: 'a' }),
      post(a.path, a.sig, { decision: 'reject', by: 'b' }),
    ]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    // One decision reaches the run: the winner's. The loser's read may deliver that recorded decision once
    // more while the winner's SendTaskSuccess is still on its way (redelivery on read, by design); the service
    // answers such a second success TaskTimedOut. It never sends the loser's decision.
    const approveWon = results[0].statusCode === 200;
    const sent = sendTaskSuccessCalls().map((c) => JSON.parse(c.input.output) as { approved: boolean; by: string });
    expect(sent.length).toBeGreaterThanOrEqual(1);
    expect(sent.every((d) => d.approved === approveWon && d.by === (approveWon ? 'a' : 'b'))).toBe(true);
  });

  it.each<[string, (a: Awaited<ReturnType<typeof requestApproval>>) => Promise<ApprovalHttpResponse>, number, string]>([
    ['a forged signature', (a) => post(a.path, a.sig.slice(0, -3) + 'xyz', { decision: 'approve' }), 403, 'not valid'],
    ['a missing signature', (a) => get(a.path), 403, 'not valid'],
    ["another approval's signature", async (a) => get(a.path, (await requestApproval()).sig), 403, 'not valid'],
    [
      'an unknown approval with a genuine signature',
      async () =>
        get(
          '/approvals/AAAAAAAAAAAAAAAAAAAAAA',
          new ApprovalLinkSigner(['test-secret']).sign('AAAAAAAAAAAAAAAAAAAAAA', 4_000_000_000),
        ),
      404,
      'Unknown approval',
    ],
    ['a path that is no approval', () => get('/approvals/../../etc/passwd', 'v1.1.x'), 404, 'Not found'],
  ])('answers %s with its own page and status', async (_case, act, status, text) => {
    const a = await requestApproval();
    const res = await act(a);
    expect(res.statusCode).toBe(status);
    expect(res.body).toContain(text);
    expect(sendTaskSuccessCalls()).toHaveLength(0);
  });

  it('answers an expired link with 410 and decides nothing', async () => {
    const a = await requestApproval({ timeoutSeconds: 60 });
    clock.millis += 61_000;
    const res = await post(a.path, a.sig, { decision: 'approve' });
    expect(res.statusCode).toBe(410);
    expect(res.body).toContain('expired');
    expect(sendTaskSuccessCalls()).toHaveLength(0);
  });

  it('says so when the run timed out before the decision arrived (TaskTimedOut), with 410', async () => {
    const a = await requestApproval();
    closedTokens.add(a.taskToken);
    const res = await post(a.path, a.sig, { decision: 'approve', by: 'late' });
    expect(res.statusCode).toBe(410);
    expect(res.body).toContain('no longer waiting');
    expect((await service.get(a.approvalId))?.status).toBe('RUN_CLOSED');
    expect((await get(a.path, a.sig)).statusCode).toBe(410);
  });

  it('when the decision cannot be delivered, records nothing so the approver can retry (503)', async () => {
    const a = await requestApproval();
    flakyTokens.add(a.taskToken);
    expect((await post(a.path, a.sig, { decision: 'approve' })).statusCode).toBe(503);
    expect((await service.get(a.approvalId))?.status).toBe('PENDING');
    flakyTokens.delete(a.taskToken);
    expect((await post(a.path, a.sig, { decision: 'approve' })).statusCode).toBe(200);
  });

  /** A service whose SendTaskSuccess calls (a real SFN client) each wait at a gate, so a test orders them. */
  function gatedService() {
    const held: { release: () => void }[] = [];
    let reached!: () => void;
    let arrival = new Promise<void>((r) => (reached = r));
    const sfn = new SFNClient({
      endpoint: sfnServer.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'y' },
      maxAttempts: 1,
    });
    sfn.middlewareStack.add(
      (next) => async (args) => {
        await new Promise<void>((release) => {
          held.push({ release });
          reached();
        });
        return next(args);
      },
      { step: 'initialize' },
    );
    const gated = new ApprovalService({
      table,
      signer: new ApprovalLinkSigner(['test-secret']),
      sfn,
      baseUrl: 'http://127.0.0.1:8083',
      clock,
    });
    return {
      held,
      /** Resolves once the next SendTaskSuccess waits at its gate. */
      async nextArrival() {
        await arrival;
        arrival = new Promise<void>((r) => (reached = r));
      },
      post: (path: string, sig: string, form: Record<string, string>) =>
        handleApprovalHttp(gated, {
          method: 'POST',
          path,
          query: { sig },
          contentType: 'application/x-www-form-urlencoded',
          body: new URLSearchParams(form).toString(),
        }),
    };
  }

  it('never sends two different decisions: a redelivery racing a failed first delivery keeps the decision it delivers', async () => {
    const gated = gatedService();
    const a = await requestApproval();
    flakyTokens.add(a.taskToken);
    const first = gated.post(a.path, a.sig, { decision: 'approve', by: 'a' }); // records APPROVED, sends
    await gated.nextArrival();
    const second = gated.post(a.path, a.sig, { decision: 'approve', by: 'a' }); // a double click: redelivers
    await gated.nextArrival();
    gated.held[0].release(); // the first delivery fails (503)...
    await first;
    flakyTokens.delete(a.taskToken);
    gated.held[1].release(); // ...while the redelivery gets through: the run is approved
    await second;
    await post(a.path, a.sig, { decision: 'reject', by: 'b' });
    const sent = new Set(
      sendTaskSuccessCalls()
        .filter((c) => c.input.taskToken === a.taskToken)
        .map((c) => JSON.parse(c.input.output).approved),
    );
    expect([...sent]).toEqual([true]);
    expect((await service.get(a.approvalId))?.status).toBe('APPROVED');
  });

  it('does not record RUN_CLOSED when a redelivery overtook the first delivery and the run took the decision', async () => {
    const gated = gatedService();
    const a = await requestApproval();
    const first = gated.post(a.path, a.sig, { decision: 'approve', by: 'a' });
    await gated.nextArrival();
    const second = gated.post(a.path, a.sig, { decision: 'approve', by: 'a' });
    await gated.nextArrival();
    gated.held[1].release(); // the redelivery arrives first: the run is approved, its token closes
    const redelivered = await second;
    expect(redelivered.statusCode).toBe(200);
    expect(redelivered.body).toContain('has now been delivered');
    closedTokens.add(a.taskToken);
    gated.held[0].release(); // the first delivery now finds the task closed (TaskTimedOut)
    expect((await first).statusCode).toBe(200);
    expect((await service.get(a.approvalId))?.status).toBe('APPROVED');
  });

  it('a POST without a decision shows the page again and decides nothing', async () => {
    const a = await requestApproval();
    expect((await post(a.path, a.sig, { by: 'x' })).statusCode).toBe(200);
    expect(sendTaskSuccessCalls()).toHaveLength(0);
  });

  it('refuses other methods with 405', async () => {
    const a = await requestApproval();
    expect(
      (await handleApprovalHttp(service, { method: 'DELETE', path: a.path, query: { sig: a.sig } })).statusCode,
    ).toBe(405);
  });

  it("expires the link with the wait on the engine's clock: requestedAt (the state's EnteredTime) and the request's arrival time", async () => {
    const enteredMillis = clock.millis - 30 * 86_400_000; // a virtual clock far behind the Lambda's
    const a = await requestApproval({ timeoutSeconds: 3600, requestedAt: new Date(enteredMillis).toISOString() });
    expect(a.expiresAtSeconds).toBe(enteredMillis / 1000 + 3600);
    expect((await get(a.path, a.sig, enteredMillis + 3_599_000)).statusCode).toBe(200);
    expect((await get(a.path, a.sig, enteredMillis + 3_600_000)).statusCode).toBe(410);
    await expect(requestApproval({ requestedAt: 'yesterday' })).rejects.toMatchObject({
      name: 'InvalidStepInputError',
    });
  });

  it.each([
    ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }, 403],
    ['Sec-Fetch-Site: same-site (a sibling subdomain)', { 'sec-fetch-site': 'same-site' }, 403],
    ['an Origin of another site', { origin: 'https://attacker.example' }, 403],
    ['a garbage Origin', { origin: 'garbage' }, 403],
    ['Sec-Fetch-Site: same-origin', { 'sec-fetch-site': 'same-origin', origin: 'null' }, 200],
    ['the same Origin', { origin: 'http://127.0.0.1:8083' }, 200],
    ['Origin: null (a no-referrer page, a browser without Sec-Fetch-Site)', { origin: 'null' }, 200],
    ['no browser headers (the CLI)', {}, 200],
  ])('answers a POST with %s with %i', async (_case, headers, status) => {
    const a = await requestApproval();
    const res = await post(a.path, a.sig, { decision: 'approve' }, headers);
    expect(res.statusCode).toBe(status);
    expect(sendTaskSuccessCalls()).toHaveLength(status === 200 ? 1 : 0);
    if (status === 403) expect(res.body).toContain('another site');
  });

  /** A decision recorded whose SendTaskSuccess never happened (the engine was killed in between). */
  async function recordedNotDelivered(approved = true) {
    const a = await requestApproval();
    const decision = { approved, by: 'dr.lee@example.com', at: new Date(clock.millis).toISOString() };
    await table.updateIf(
      `approval#${a.approvalId}`,
      { status: approved ? 'APPROVED' : 'REJECTED', decision },
      { expression: '#s = :p', names: { '#s': 'status' }, values: { ':p': 'PENDING' } },
    );
    return a;
  }

  it('delivers a recorded decision that never reached the run when the link is read, and says so', async () => {
    const a = await recordedNotDelivered();
    const page = await get(a.path, a.sig);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Approved by dr.lee@example.com');
    expect(page.body).toContain('has now been delivered');
    expect(sendTaskSuccessCalls().map((c) => [c.input.taskToken, JSON.parse(c.input.output).approved])).toEqual([
      [a.taskToken, true],
    ]);
    const again = await get(a.path, a.sig);
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain('already approved by dr.lee@example.com');
    expect(sendTaskSuccessCalls()).toHaveLength(1);
  });

  it('delivers a recorded decision on a POST asking for the same one with 200 (what `autosave approve` does), and 409 to a different one', async () => {
    const a = await recordedNotDelivered();
    expect((await post(a.path, a.sig, { decision: 'reject' })).statusCode).toBe(409);
    const b = await recordedNotDelivered();
    expect((await post(b.path, b.sig, { decision: 'approve' })).statusCode).toBe(200);
    expect(sendTaskSuccessCalls().map((c) => JSON.parse(c.input.output).approved)).toEqual([true, true]);
  });

  it("delivers every recorded decision that never reached its run in one sweep (the engine's boot)", async () => {
    const recorded = [await recordedNotDelivered(true), await recordedNotDelivered(false)];
    expect(await service.redeliverAllRecordedDecisions()).toBeGreaterThanOrEqual(2);
    const sent = new Map(sendTaskSuccessCalls().map((c) => [c.input.taskToken, JSON.parse(c.input.output).approved]));
    expect(recorded.map((a) => sent.get(a.taskToken))).toEqual([true, false]);
    expect(await service.redeliverAllRecordedDecisions()).toBe(0);
  });

  it('settles a timing-out wait: a recorded decision is handed over; without one the approval closes and refuses later decisions', async () => {
    const decided = await recordedNotDelivered(false);
    expect(await service.settleBeforeTimeout(decided.taskToken)).toMatchObject({
      approved: false,
      by: 'dr.lee@example.com',
    });
    const pending = await requestApproval();
    expect(await service.settleBeforeTimeout(pending.taskToken)).toBeUndefined();
    const late = await post(pending.path, pending.sig, { decision: 'approve' });
    expect(late.statusCode).toBe(410);
    expect(late.body).toContain('no longer waiting');
    expect(await service.settleBeforeTimeout('AAAA-a-token-of-no-approval')).toBeUndefined();
    expect(sendTaskSuccessCalls()).toHaveLength(0);
  });
});
