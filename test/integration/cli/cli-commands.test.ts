/**
 * The `autosave` commands against a live local engine (startLocal on port 0, a temp data directory): what
 * each prints and its exit code, on the onboarding workflow from start to approval to success, a run
 * dead-lettered and redriven, deploy-check, and the one-line errors.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DescribeExecutionCommand,
  DescribeStateMachineCommand,
  ListExecutionsCommand,
  SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
  UpdateStateMachineAliasCommand,
  UpdateStateMachineCommand,
} from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../../packages/local/src/cli/main';
import { captureTerminal } from '../../../packages/local/src/cli/output';
import { startLocal, type LocalEngine } from '../../../packages/local/src/server';
import { clinicalTrialOnboarding, contractRenewal } from '../../../statemachines/index';
import { loadRunDetails, submitApprovalDecision } from '../../../packages/local/src/operations';
import { exampleApp } from '../../fixtures/example-app';
import { pointCliAt } from '../../fixtures/cli-endpoint';

interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

let previous: Promise<unknown> = Promise.resolve();

/**
 * Runs `autosave <args>` in-process and captures what it printed. Calls run one at a time: the capture
 * is process-wide, and vi.waitFor may call again while a slow call is still running.
 */
function autosave(...args: string[]): Promise<CliResult> {
  const run = async (): Promise<CliResult> => {
    const out = captureTerminal();
    try {
      const code = await main(args);
      return { code, stdout: out.stdout, stderr: out.stderr };
    } finally {
      out.release();
    }
  };
  const result = previous.then(run, run);
  previous = result.catch(() => undefined);
  return result;
}

const json = <T>(r: CliResult): T => JSON.parse(r.stdout) as T;

let local: LocalEngine;
let dataDir: string;
let sfn: SFNClient;
let restoreEndpoint: (() => void) | undefined;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'autosave-cli-'));
  // A mock config with one test case, for `start --test-case`: the model's draft is mocked, the send is real.
  const mockConfigFile = join(dataDir, 'MockConfigFile.json');
  await writeFile(
    mockConfigFile,
    JSON.stringify({
      StateMachines: { 'contract-renewal': { TestCases: { MockedDraft: { 'draft-renewal-email': 'MockedDraft' } } } },
      MockedResponses: { MockedDraft: { '0': { Return: { StatusCode: 200, Payload: { text: 'A mocked draft.' } } } } },
    }),
  );
  local = await startLocal({ ...(await exampleApp()), port: 0, dataDir, mockConfigFile, log: () => undefined });
  // The CLI resolves its endpoint as a user's shell gives it: AWS_ENDPOINT_URL (startLocal writes no variable).
  restoreEndpoint = pointCliAt(local.url);
  sfn = new SFNClient({
    endpoint: local.url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
  });
});

afterAll(async () => {
  restoreEndpoint?.();
  await local?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const ONBOARDING = 'arn:aws:states:us-east-1:123456789012:stateMachine:clinical-trial-onboarding';
const runArn = (name: string) => `arn:aws:states:us-east-1:123456789012:execution:clinical-trial-onboarding:${name}`;
const status = async (name: string) =>
  (await sfn.send(new DescribeExecutionCommand({ executionArn: runArn(name) }))).status;

/** An onboarding run of the calling test's own (its own site, so its own idempotency keys), waiting on its approval. */
async function waitingRun(name: string): Promise<{ approvalId: string; url: string }> {
  const input = {
    ...clinicalTrialOnboarding.exampleInput,
    siteId: `site-${name}`,
    coordinatorEmail: `coordinator@${name}.example.org`,
  };
  await sfn.send(
    new StartExecutionCommand({ stateMachineArn: `${ONBOARDING}:live`, name, input: JSON.stringify(input) }),
  );
  return vi.waitFor(
    async () => {
      const approval = (await loadRunDetails(sfn, runArn(name))).approvals[0];
      if (!approval?.approvalId || !approval.url) throw new Error(`${name} is not waiting on its approval yet`);
      return { approvalId: approval.approvalId, url: approval.url };
    },
    { timeout: 45_000, interval: 100 },
  );
}

/** An onboarding run of the calling test's own, approved through the CLI with a comment, SUCCEEDED. */
async function approvedRun(name: string): Promise<void> {
  const { approvalId } = await waitingRun(name);
  expect(await autosave('approve', approvalId, '--comment', 'from the CLI test', '--by', 'cli-test')).toMatchObject({
    code: 0,
  });
  await vi.waitFor(async () => expect(await status(name)).toBe('SUCCEEDED'), { timeout: 45_000, interval: 100 });
}

/** Every test starts the runs it reads: none depends on another having run, or on the order. */
describe('autosave CLI on a live engine', () => {
  it('prints (none) when no run matches', async () => {
    const r = await autosave('runs', '--workflow', 'research-agent');
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout.trim()).toBe('(none)');
  });

  it('start --wait follows the run to its approval and prints the link', async () => {
    const r = await autosave('start', 'clinical-trial-onboarding', '--name', 'cli-start', '--wait');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('started cli-start (clinical-trial-onboarding)');
    expect(r.stdout).toMatch(/\[#+-*\] \d+\/\d+ {2}\S+/); // the progress line
    // The total is the workflow's 7 steps from the first line to the last.
    expect(new Set([...r.stdout.matchAll(/\] \d+\/(\d+) /g)].map((m) => m[1]))).toEqual(new Set(['7']));
    expect(r.stdout).toContain('waiting on a human at coordinator-approval');
    expect(r.stdout).toMatch(new RegExp(`approve in a browser: ${local.url}/approvals/[0-9a-f]{32}\\?sig=`));
    expect(r.stdout).toMatch(/npx autosave approve [0-9a-f]{32} /);
  });

  it('runs, describe and approvals show the waiting run', async () => {
    const { approvalId } = await waitingRun('cli-list');
    const runs = json<{ name: string; status: string; workflow: string }[]>(await autosave('runs', '--json'));
    expect(runs).toContainEqual(
      expect.objectContaining({ name: 'cli-list', status: 'RUNNING', workflow: 'clinical-trial-onboarding' }),
    );
    expect((await autosave('runs', '--status', 'succeeded')).stdout).not.toContain('cli-list');
    // The console's "waiting on a human" filter, in the CLI.
    const waiting = await autosave('runs', '--status', 'waiting');
    expect(waiting).toMatchObject({ code: 0, stderr: '' });
    expect(waiting.stdout).toMatch(/^cli-list +clinical-trial-onboarding +RUNNING \(waiting on a human\) /m);
    expect(
      json<{ name: string }[]>(await autosave('runs', '--status', 'WAITING', '--json')).map((r) => r.name),
    ).toContain('cli-list');
    expect((await autosave('runs', '--help')).stdout).toMatch(/^ +WAITING: runs RUNNING and waiting on a human/m);
    expect((await autosave('runs', '--workflow', 'contract-renewal')).stdout).not.toContain('cli-list');

    const described = await autosave('describe', 'cli-list');
    expect(described.code).toBe(0);
    expect(described.stdout).toMatch(/^status +RUNNING \(waiting on a human at coordinator-approval\)$/m);
    expect(described.stdout).toMatch(/^approval +http:\/\/127\.0\.0\.1:\d+\/approvals\//m);

    const approvals = json<{ approvalId: string; runName: string; step: string; url: string }[]>(
      await autosave('approvals', '--json'),
    );
    expect(approvals.filter((a) => a.runName === 'cli-list')).toEqual([
      expect.objectContaining({ approvalId, step: 'coordinator-approval' }),
    ]);
    expect((await autosave('approvals')).stdout).toContain(approvalId);
  });

  it('approve decides through the signed link, and the run moves on to SUCCEEDED', async () => {
    const { approvalId } = await waitingRun('cli-approve');
    const r = await autosave('approve', approvalId, '--comment', 'from the CLI test', '--by', 'cli-test');
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(/^approved .+ \(run cli-approve\): Approved: /);
    await vi.waitFor(async () => expect(await status('cli-approve')).toBe('SUCCEEDED'), {
      timeout: 45_000,
      interval: 100,
    });
    expect((await autosave('runs', '--status', 'WAITING')).stdout).not.toContain('cli-approve');

    // A second decision says who made the first and when, as the approval page does.
    for (const ref of [approvalId, 'cli-approve']) {
      const again = await autosave('approve', ref);
      expect(again.code).toBe(1);
      expect(again.stderr.trim().split('\n')).toHaveLength(1);
      expect(again.stderr).toMatch(
        /ApprovalRefusedError: .*409: Already decided: This request was already approved by cli-test at \d{4}-\d\d-\d\dT[\d:.]+Z\. A link can be used once\./,
      );
    }
  });

  it('start --wait --endpoint prints an approve command that keeps --endpoint, so the copied command reaches the same engine', async () => {
    const r = await autosave(
      'start',
      'clinical-trial-onboarding',
      '--name',
      'cli-start-endpoint',
      '--wait',
      '--endpoint',
      local.url,
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(
        `or here: +npx autosave approve [0-9a-f]{32} \\[--reject\\] \\[--comment "..."\\] --endpoint ${local.url}$`,
        'm',
      ),
    );
    const described = await autosave('describe', 'cli-start-endpoint', '--endpoint', local.url);
    expect(described.stdout).toMatch(
      new RegExp(`or: npx autosave approve [0-9a-f]{32} .*--endpoint ${local.url}$`, 'm'),
    );
    // A hint inside an error keeps it too.
    expect((await autosave('approve', 'no-such-approval', '--endpoint', local.url)).stderr).toContain(
      `(see \`autosave approvals --endpoint ${local.url}\`)`,
    );
  });

  it('start --test-case (or workflow#Case) runs under a test case of the mock config', async () => {
    for (const [args, name] of [
      [['contract-renewal', '--test-case', 'MockedDraft'], 'cli-case-flag'],
      [['contract-renewal#MockedDraft'], 'cli-case-hash'],
    ] as const) {
      const r = await autosave(
        'start',
        ...args,
        '--name',
        name,
        '--input',
        JSON.stringify({ ...contractRenewal.exampleInput, contractId: `C-${name}` }),
        '--wait',
      );
      expect(r, r.stderr).toMatchObject({ code: 0, stderr: '' });
      expect(r.stdout).toContain(`started ${name} (contract-renewal, test case MockedDraft)`);
      expect(r.stdout).toMatch(/^SUCCEEDED {2}output: .*"A mocked draft\."/m);
    }
    expect((await autosave('start', 'contract-renewal#NoSuchCase')).stderr).toMatch(/^autosave start: .*NoSuchCase/);
    expect((await autosave('start', 'contract-renewal#A', '--test-case', 'B')).code).toBe(2);
  });

  it('start --wait on an EXPRESS workflow runs it in one synchronous call instead of failing after starting it', async () => {
    const r = await autosave('start', 'support-triage', '--wait');
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(/^SUCCEEDED \S+ \(support-triage, express, billed \d+00 ms\)/);
  });

  it('history --events names the state of every state event, and --type filters them', async () => {
    await approvedRun('cli-events');
    const r = await autosave('history', 'cli-events', '--events');
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(/^ID +TIME +TYPE +STATE$/m);
    expect(r.stdout).toMatch(/^\d+ +\S+ +TaskStateEntered +verify-site$/m);
    expect(r.stdout).toMatch(/^\d+ +\S+ +TaskSucceeded +email-welcome-pack$/m);
    expect(r.stdout).toMatch(/^1 +\S+ +ExecutionStarted +-$/m);
    const failed = await autosave('history', 'cli-events', '--events', '--type', 'succeeded');
    const rows = failed.stdout.slice(failed.stdout.indexOf('ID ')).trim().split('\n').slice(1);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => /Succeeded/.test(row))).toBe(true);
  });

  it('approve takes the id after --, where an id starting with "-" cannot be read as an option', async () => {
    const { approvalId } = await waitingRun('cli-dashdash');
    const r = await autosave('approve', '--reject', '--comment', 'after --', '--', approvalId);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(/^rejected .+ \(run cli-dashdash\): Rejected: /);
    // What an id of the old spelling (base64url, 1 in 64 began with '-') met: a usage error naming the option.
    expect(await autosave('approve', '-Kx0')).toMatchObject({ code: 2 });
    expect((await autosave('approve', '--', '-Kx0')).stderr).toContain("no pending approval '-Kx0'");
  });

  it('history prints the timeline: every step once, its idempotency key, the approval decision', async () => {
    await approvedRun('cli-history');
    const r = await autosave('history', 'cli-history');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^cli-history \(clinical-trial-onboarding\) SUCCEEDED after /);
    for (const step of [
      'verify-site',
      'create-accounts',
      'request-irb-document',
      'provision-edc-access',
      'email-welcome-pack',
      'schedule-kickoff',
    ]) {
      expect(r.stdout).toMatch(new RegExp(`^\\d+ +${step} +tool +site-cli-history:\\S+ +1 +\\+\\S+ +\\S+ +done$`, 'm'));
    }
    expect(r.stdout).toMatch(/coordinator-approval +approval +1 .* done$/m);
    expect(r.stdout).toContain('site-cli-history:welcome');

    const steps = json<{ steps: { name: string; attempts: number; outcome: string; kind: string }[] }>(
      await autosave('history', 'cli-history', '--json'),
    ).steps;
    expect(steps.filter((s) => s.kind === 'tool').map((s) => [s.name, s.attempts, s.outcome])).toEqual([
      ['verify-site', 1, 'succeeded'],
      ['create-accounts', 1, 'succeeded'],
      ['request-irb-document', 1, 'succeeded'],
      ['provision-edc-access', 1, 'succeeded'],
      ['email-welcome-pack', 1, 'succeeded'],
      ['schedule-kickoff', 1, 'succeeded'],
    ]);
  });

  it("describe --wait waits for the run to close (the engine's wait: answered at the close), then describes it", async () => {
    const { url } = await waitingRun('cli-describe-wait');
    const described = autosave('describe', 'cli-describe-wait', '--wait', '--json');
    await new Promise((resolve) => setTimeout(resolve, 300));
    await submitApprovalDecision(url, { approve: true, by: 'cli-test', comment: 'while describe waits' });
    const d = json<{ status: string; output: string }>(await described);
    expect(d.status).toBe('SUCCEEDED');
    expect(JSON.parse(d.output).steps['coordinator-approval']).toMatchObject({
      approved: true,
      comment: 'while describe waits',
    });
  });

  it('describe --json gives the execution with its output', async () => {
    await approvedRun('cli-describe');
    const d = json<{ status: string; output: string; workflow: string }>(
      await autosave('describe', 'cli-describe', '--json'),
    );
    expect(d).toMatchObject({ status: 'SUCCEEDED', workflow: 'clinical-trial-onboarding' });
    expect(JSON.parse(d.output).steps['coordinator-approval']).toMatchObject({
      approved: true,
      by: 'cli-test',
      comment: 'from the CLI test',
    });
  });

  it('dlq list shows an aborted run and dlq redrive resumes it at its failed step', async () => {
    await waitingRun('cli-dlq');
    await sfn.send(
      new StopExecutionCommand({ executionArn: runArn('cli-dlq'), error: 'Test', cause: 'stopped by the test' }),
    );
    type Letter = { runName: string; letter: { status: string; failedState: string } };
    const mine = async () =>
      json<Letter[]>(await autosave('dlq', 'list', '--json')).filter((l) => l.runName === 'cli-dlq');
    const letters = await vi.waitFor(
      async () => {
        const l = await mine();
        expect(l).toHaveLength(1);
        return l;
      },
      { timeout: 45_000, interval: 100 },
    );
    expect(letters[0]).toMatchObject({
      runName: 'cli-dlq',
      letter: { status: 'ABORTED', failedState: 'coordinator-approval' },
    });
    const table = await autosave('dlq', 'list');
    expect(table.stdout).toMatch(/cli-dlq +clinical-trial-onboarding +ABORTED +coordinator-approval/);

    const redriven = await autosave('dlq', 'redrive', 'cli-dlq');
    expect(redriven).toMatchObject({ code: 0, stderr: '' });
    expect(redriven.stdout).toContain('redriven cli-dlq: it resumes at its failed step');
    expect(await status('cli-dlq')).toBe('RUNNING');
    expect(await mine()).toEqual([]);
    // It asks for the approval again (a new token, a new link).
    await vi.waitFor(
      async () =>
        expect(json<{ runName: string }[]>(await autosave('approvals', '--json')).map((a) => a.runName)).toContain(
          'cli-dlq',
        ),
      {
        timeout: 45_000,
        interval: 100,
      },
    );
    const timeline = (await autosave('history', 'cli-dlq')).stdout;
    expect(timeline).toMatch(/, redriven 1x$/m);
    expect(timeline).toMatch(/^-- +redrive 1 .* the run resumes at its failed step$/m);
    expect(timeline).toMatch(/coordinator-approval +approval +1 .* FAILED ExecutionAborted$/m);
    expect(timeline).toMatch(/coordinator-approval +approval +1 .* waiting on a human$/m);
    const nothing = await autosave('dlq', 'redrive', 'cli-dlq');
    expect(nothing).toMatchObject({ code: 1, stdout: '' });
    expect(nothing.stderr).toMatch(/^autosave dlq redrive: DeadLetterNotFoundError: no dead letter 'cli-dlq'/);
  });

  /** The onboarding runs in flight right now, from the API (other tests' runs included). */
  const onboardingInFlight = async () =>
    (
      await sfn.send(
        new ListExecutionsCommand({ stateMachineArn: ONBOARDING, statusFilter: 'RUNNING', maxResults: 1000 }),
      )
    ).executions!.length;

  it('deploy-check finds every workflow unchanged and counts the runs in flight', async () => {
    await waitingRun('cli-deploy-check');
    const report = json<{
      workflows: { workflow: string; action: string; runsInFlight: number }[];
      rolesChecked: boolean;
    }>(await autosave('deploy-check', '--json'));
    // The roles are judged only against a synthesized cdk.out (CI has none; a developer may have one).
    expect(report.rolesChecked).toBe(existsSync('cdk.out/manifest.json'));
    const checks = report.workflows;
    expect(checks.map((c) => [c.workflow, c.action])).toEqual([
      ['clinical-trial-onboarding', 'unchanged'],
      ['contract-renewal', 'unchanged'],
      ['research-agent', 'unchanged'],
      ['support-triage', 'unchanged'],
    ]);
    const inFlight = await onboardingInFlight();
    expect(checks.find((c) => c.workflow === 'clinical-trial-onboarding')?.runsInFlight).toBe(inFlight);
    const table = await autosave('deploy-check');
    expect(table.stdout).toMatch(
      new RegExp(`^clinical-trial-onboarding +1\\.0\\.0 +v1 +unchanged +${inFlight} \\(${inFlight} on v1\\)`, 'm'),
    );
    expect(table.stdout).toContain('A deploy now changes no workflow definition.');
    if (!report.rolesChecked) expect(table.stdout).toContain('Roles not checked: no cloud assembly at cdk.out.');
  });

  it('deploy-check says which workflow a deploy gives a new version when the deployed definition differs', async () => {
    await waitingRun('cli-deploy-diff');
    // Someone deployed a definition that is not what the code compiles to (here: another Comment).
    const live = await sfn.send(new DescribeStateMachineCommand({ stateMachineArn: `${ONBOARDING}:1` }));
    const edited = { ...JSON.parse(live.definition!), Comment: 'hand-edited in the console' };
    const published = await sfn.send(
      new UpdateStateMachineCommand({ stateMachineArn: ONBOARDING, definition: JSON.stringify(edited), publish: true }),
    );
    const routeTo = (versionArn: string) =>
      sfn.send(
        new UpdateStateMachineAliasCommand({
          stateMachineAliasArn: `${ONBOARDING}:live`,
          routingConfiguration: [{ stateMachineVersionArn: versionArn, weight: 100 }],
        }),
      );
    await routeTo(published.stateMachineVersionArn!);
    try {
      const inFlight = await onboardingInFlight();
      const checks = json<{
        workflows: {
          workflow: string;
          action: string;
          runsInFlight: number;
          runsInFlightByVersion: Record<string, number>;
          diff: { changedFields: string[] };
        }[];
      }>(await autosave('deploy-check', '--json')).workflows;
      const onboarding = checks.find((c) => c.workflow === 'clinical-trial-onboarding')!;
      expect(onboarding).toMatchObject({
        action: 'new-version',
        runsInFlight: inFlight,
        runsInFlightByVersion: { [`${ONBOARDING}:1`]: inFlight },
        diff: { changedFields: ['Comment'] },
      });
      expect(checks.filter((c) => c.action === 'new-version').map((c) => c.workflow)).toEqual([
        'clinical-trial-onboarding',
      ]);
      const table = await autosave('deploy-check');
      expect(table.stdout).toMatch(
        new RegExp(
          `^clinical-trial-onboarding +1\\.0\\.0 +v2 +NEW VERSION +${inFlight} \\(${inFlight} on v1\\) +fields Comment$`,
          'm',
        ),
      );
      expect(table.stdout).toContain(
        'A deploy now publishes 1 new version(s); runs in flight keep the version they started on.',
      );
    } finally {
      // Leave the engine as the other tests expect it: live on v1, the machine's definition as compiled.
      await routeTo(`${ONBOARDING}:1`);
      await sfn.send(new UpdateStateMachineCommand({ stateMachineArn: ONBOARDING, definition: live.definition! }));
    }
  });

  it('start --input <file> --wait follows a run without a human to SUCCEEDED and prints its output', async () => {
    const file = join(dataDir, 'renewal-input-a.json');
    await writeFile(file, JSON.stringify({ ...contractRenewal.exampleInput, contractId: 'C-cli-a' }));
    const r = await autosave('start', 'contract-renewal', '--input', file, '--name', 'renewal-a', '--wait');
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(/^SUCCEEDED {2}output: \{.*"contractId":"C-cli-a"/m);
    const history = await autosave('history', 'renewal-a');
    expect(history.stdout).toMatch(/ model +1 /);
    expect(history.stdout).toMatch(/ tool +renewal:C-cli-a:3 +1 /);
  });

  it('start --sync runs the EXPRESS support-triage in one StartSyncExecution call and prints its outcome; runs lists no express run', async () => {
    const r = await autosave('start', 'support-triage', '--sync', '--json');
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const done = json<{
      executionArn: string;
      status: string;
      output: string;
      billingDetails: { billedMemoryUsedInMB: number; billedDurationInMilliseconds: number };
    }>(r);
    expect(done.executionArn).toMatch(/:express:support-triage:/);
    expect(done.status).toBe('SUCCEEDED');
    const output = JSON.parse(done.output) as { steps: Record<string, unknown> };
    expect(output.steps['classify-message']).toEqual({ label: 'billing', matched: ['invoice', 'charged', 'refund'] });
    expect(output.steps['draft-reply']).toMatchObject({ text: expect.stringContaining('double charge'), final: true });
    expect(done.billingDetails.billedMemoryUsedInMB).toBe(64);
    const text = await autosave('start', 'support-triage', '--sync');
    expect(text.stdout).toMatch(/^SUCCEEDED \S+ \(support-triage, express, billed \d+00 ms\)/);
    const runs = await autosave('runs', '--workflow', 'support-triage');
    expect(runs).toMatchObject({ code: 0 });
    expect(runs.stdout).toContain('(none)');
    // A STANDARD workflow is refused with the service's error, in one line.
    const standard = await autosave('start', 'contract-renewal', '--sync');
    expect(standard.code).not.toBe(0);
    expect(standard.stderr).toContain('StateMachineTypeNotSupported');
  });
  it('history shows a tool result taken from the ledger: a second run with the same key sends nothing new', async () => {
    type HistoryStep = {
      name: string;
      kind: string;
      idempotencyKey?: string;
      source?: string;
      replayed: boolean;
      result?: { messageId?: string };
    };
    const sendOf = async (run: string) =>
      json<{ steps: HistoryStep[] }>(await autosave('history', run, '--json')).steps.find(
        (s) => s.name === 'send-renewal-email',
      );
    const file = join(dataDir, 'renewal-input-b.json');
    await writeFile(file, JSON.stringify({ ...contractRenewal.exampleInput, contractId: 'C-cli-b' }));
    expect((await autosave('start', 'contract-renewal', '--input', file, '--name', 'renewal-b1', '--wait')).code).toBe(
      0,
    );
    const first = await sendOf('renewal-b1');
    expect(first).toMatchObject({ kind: 'tool', source: 'executed', replayed: false });
    expect(first?.result?.messageId).toEqual(expect.any(String));
    // Same contract and version, so the same key `renewal:C-cli-b:3`: the ledger answers, no email is sent again.
    expect((await autosave('start', 'contract-renewal', '--input', file, '--name', 'renewal-b2', '--wait')).code).toBe(
      0,
    );
    const again = await sendOf('renewal-b2');
    expect(again).toMatchObject({
      kind: 'tool',
      idempotencyKey: 'renewal:C-cli-b:3',
      source: 'replayed',
      replayed: true,
      result: { messageId: first?.result?.messageId },
    });
    expect((await autosave('history', 'renewal-b2')).stdout).toMatch(
      /send-renewal-email +tool +renewal:C-cli-b:3 +1 .* done; from the ledger \(no new call\)$/m,
    );
    // The console's run page tells the same story in its timeline.
    const page = await (
      await fetch(
        `${local.url}/runs/${encodeURIComponent('arn:aws:states:us-east-1:123456789012:execution:contract-renewal:renewal-b2')}`,
      )
    ).text();
    expect(page).toMatch(/<tr data-step="send-renewal-email">.*<td>done; from the ledger \(no new call\)<\/td><\/tr>/);
  });

  it('help lists every command with its summary', async () => {
    const lines: string[] = [];
    const log = console.log;
    console.log = (line: string) => lines.push(line);
    try {
      expect(await main(['help'])).toBe(0);
    } finally {
      console.log = log;
    }
    for (const command of ['start', 'runs', 'describe', 'history', 'approvals', 'approve', 'dlq', 'deploy-check']) {
      expect(lines.join('\n')).toMatch(new RegExp(`^  ${command} +\\S.+$`, 'm'));
    }
  });

  it.each([
    [
      ['start', 'no-such-workflow'],
      1,
      /^autosave start: WorkflowNotFoundError: no workflow 'no-such-workflow' is deployed \(deployed: /,
    ],
    [['start'], 2, /^autosave start: missing workflow \(usage: /],
    [['describe', 'no-such-run'], 1, /^autosave describe: RunNotFoundError: no run named 'no-such-run'/],
    [['runs', '--status', 'sleeping'], 2, /^autosave runs: unknown status 'sleeping' \(one of RUNNING, /],
    [['runs', '--bogus'], 2, /^autosave runs: Unknown option '--bogus'/],
    [['dlq', 'purge'], 2, /^autosave dlq: unknown dlq command 'purge'/],
    [
      ['dlq', 'redrive', 'nope'],
      1,
      /^autosave dlq redrive: DeadLetterNotFoundError: no dead letter 'nope' \(see `autosave dlq list`\)$/m,
    ],
    [['dlq', 'redrive'], 2, /^autosave dlq redrive: say which dead letter to redrive, or --all/],
    [
      ['start', 'clinical-trial-onboarding', '--input', '{not json'],
      2,
      /^autosave start: --input is neither valid JSON nor a readable JSON file/,
    ],
    [
      ['local', '--bogus'],
      2,
      /^autosave local: Unknown option '--bogus' \(usage: autosave local \[--config <file>\] \[--port /,
    ],
    [['local', '--port', 'x'], 2, /^autosave local: --port must be a port number \(0 picks a free one\)/],
    [['local', '--endpoint', 'http://127.0.0.1:9'], 2, /^autosave local: Unknown option '--endpoint'/],
    [['deploy'], 2, /^autosave deploy: only --local is served here; to deploy to AWS: npm run deploy/],
    [['deploy', '--local', 'extra'], 2, /^autosave deploy: Unexpected argument 'extra'/],
    [
      ['runs', '--endpoint', '127.0.0.1:8083'],
      2,
      /^autosave runs: --endpoint '127\.0\.0\.1:8083' is not an http\(s\) URL: give it with its scheme, e\.g\. http:\/\/127\.0\.0\.1:8083$/m,
    ],
    [
      ['describe', 'x', '--endpoint', 'localhost'],
      2,
      /^autosave describe: --endpoint 'localhost' is not an http\(s\) URL/,
    ],
    [
      ['runs', '--endpoint', 'http://127.0.0.1:9'],
      1,
      /^autosave runs: cannot reach Step Functions at http:\/\/127\.0\.0\.1:9 \(--endpoint\): start the local engine with `npm start`/,
    ],
  ])('autosave %j fails with exit code %i and one line', async (args, code, message) => {
    const r = await autosave(...args);
    expect(r.code).toBe(code);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(message);
  });
});

describe('autosave start --wait on an engine with a virtual clock', () => {
  let clocked: LocalEngine;
  let clockedDir: string;
  beforeAll(async () => {
    clockedDir = await mkdtemp(join(tmpdir(), 'autosave-cli-clock-'));
    clocked = await startLocal({
      ...(await exampleApp()),
      port: 0,
      dataDir: clockedDir,
      virtualClock: true,
      log: () => undefined,
    });
  });
  afterAll(async () => {
    await clocked?.stop();
    if (clockedDir) await rm(clockedDir, { recursive: true, force: true });
  });

  it("measures the run's elapsed time on the engine's clock, not the CLI's (no '333d' from mixing the two)", async () => {
    const r = await autosave(
      'start',
      'clinical-trial-onboarding',
      '--name',
      'clock-1',
      '--wait',
      '--endpoint',
      clocked.url,
    );
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toContain('waiting on a human at coordinator-approval');
    const times = [...r.stdout.matchAll(/\] \d+\/\d+ {2}\S+ {2}(.+)$/gm)].map((m) => m[1]);
    expect(times.length).toBeGreaterThan(0);
    // The virtual clock only moves when told: the run took no time on it.
    for (const time of times) expect(time).toMatch(/^\d+ms$/);
  });

  it("measures a running run's elapsed and waiting times on the engine's clock in describe, runs, history and approvals", async () => {
    const at = ['--endpoint', clocked.url];
    expect((await autosave('describe', 'clock-1', ...at)).stdout).toMatch(/^elapsed +\d+ms$/m);
    expect((await autosave('runs', ...at)).stdout).toMatch(
      /^clock-1 +clinical-trial-onboarding +RUNNING +\S+ \S+ +\d+ms$/m,
    );
    expect((await autosave('history', 'clock-1', ...at)).stdout).toMatch(
      /^clock-1 \(clinical-trial-onboarding\) RUNNING after \d+ms,/m,
    );
    expect((await autosave('approvals', ...at)).stdout).toMatch(/ coordinator-approval +\d+ms +http/);
  });

  it("shows the same engine-clock durations in the console's runs, run and approvals pages", async () => {
    const page = async (path: string) => (await fetch(`${clocked.url}${path}`)).text();
    expect(await page('/')).toMatch(/<tr data-run="clock-1">.*<td>\d+ms<\/td><\/tr>/);
    expect(
      await page(
        `/runs/${encodeURIComponent('arn:aws:states:us-east-1:123456789012:execution:clinical-trial-onboarding:clock-1')}`,
      ),
    ).toMatch(/<td>started<\/td><td>[^<]* · \d+ms<\/td>/);
    expect(await page('/approvals')).toMatch(/<td>coordinator-approval<\/td><td>\d+ms<\/td>/);
  });
});
