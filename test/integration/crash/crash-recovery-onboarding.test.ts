/**
 * The crash test on the real thing: 100 runs of the clinical-trial onboarding workflow (six tool steps
 * through the tool-step Lambda and its idempotency ledger in DynamoDB, and a coordinator approval through
 * the approval pages), the engine process SIGKILLed at random points while they are in flight and approvals
 * are being clicked. Every run must complete, every completed step must stay completed, and every side
 * effect (the fake providers' actions and the welcome emails in the outbox, one file per idempotency key)
 * must happen exactly once.
 */
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DescribeExecutionCommand,
  GetExecutionHistoryCommand,
  ListExecutionsCommand,
  SFNClient,
} from '@aws-sdk/client-sfn';
import { startEngineProcess, type EngineProcess } from './support/engine-process';
import { resendStartExecution, sfnClient } from '../local/sfn-helpers';
import { getFullHistory } from '../../../packages/local/src/operations';
import { eventually } from '../../fixtures/wait';
import { cleanupAfterAll } from '../../fixtures/cleanup';

const RUNS = 100;
const KILLS = 4;
const WORKFLOW = 'clinical-trial-onboarding';
const ALIAS = `arn:aws:states:us-east-1:123456789012:stateMachine:${WORKFLOW}:live`;
/** A bound, not a timing assertion: `autosave local` took 30 s to be ready at load 18 (5 incarnations here), and over 60 s once beside vitest. */
const ENGINE_START_BOUND_MILLIS = 150_000;
const ACTION_TOOLS = [
  'verify-site',
  'create-accounts',
  'request-irb-document',
  'provision-edc-access',
  'schedule-kickoff',
];

async function countFiles(dir: string): Promise<number> {
  try {
    return (await readdir(dir)).filter((n) => n.endsWith('.json')).length;
  } catch {
    return 0;
  }
}

/** The idempotency keys of every email in the outbox (one file per key). */
async function outboxKeys(dir: string): Promise<string[]> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.json'));
  return Promise.all(
    names.map(
      async (n) => (JSON.parse(await readFile(join(dir, n), 'utf8')) as { idempotencyKey: string }).idempotencyKey,
    ),
  );
}

const history = getFullHistory;

/** The link of the approval a run waits on: its newest event is the approval task's TaskSubmitted. */
async function pendingApprovalUrl(sfn: SFNClient, executionArn: string): Promise<string | undefined> {
  const { events } = await sfn.send(
    new GetExecutionHistoryCommand({ executionArn, reverseOrder: true, maxResults: 1 }),
  );
  const newest = events?.[0];
  return newest?.type === 'TaskSubmitted'
    ? (JSON.parse(newest.taskSubmittedEventDetails!.output!).Payload.url as string)
    : undefined;
}

describe('the onboarding workflow under SIGKILL', () => {
  const cleanup = cleanupAfterAll();

  // About 20 s alone on a quiet machine; the timeout leaves room for a machine busy with other test files (five engine starts of 30-60 s each at load 18-21).
  it('completes every run with every side effect exactly once', { timeout: 420_000 }, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'autosave-crash-onboarding-'));
    cleanup(() => rm(dataDir, { recursive: true, force: true }));
    const actionsDir = join(dataDir, 'actions');
    const outboxDir = join(dataDir, 'outbox');
    const progress = async () =>
      (await Promise.all([...ACTION_TOOLS.map((t) => countFiles(join(actionsDir, t))), countFiles(outboxDir)])).reduce(
        (a, b) => a + b,
        0,
      );

    let engine: EngineProcess = await startEngineProcess({ dataDir, startTimeoutMillis: ENGINE_START_BOUND_MILLIS });
    cleanup(() => engine.kill());
    let sfn = sfnClient(engine.url);
    let restarted: Promise<void> = Promise.resolve();
    /** Runs a call against the current engine, waiting out restarts (a call cut off by a kill is sent again). */
    const withEngine = async <T>(call: (sfn: SFNClient, url: string) => Promise<T>): Promise<T> =>
      (
        await eventually('the engine to answer', async () => {
          await restarted;
          try {
            return { value: await call(sfn, engine.url) };
          } catch (err) {
            const name = (err as Error).name;
            if (
              name !== 'TypeError' &&
              !/ECONNREFUSED|ECONNRESET|socket|fetch failed/i.test(
                `${(err as Error).message} ${(err as { code?: string }).code}`,
              )
            )
              throw err;
            return undefined;
          }
        })
      ).value;

    const sites = Array.from({ length: RUNS }, (_, i) => `site-${String(i).padStart(3, '0')}`);
    const starting = (async () => {
      for (let i = 0; i < RUNS; i += 10) {
        await Promise.all(
          sites.slice(i, i + 10).map((siteId) =>
            withEngine((c) =>
              resendStartExecution(c, {
                stateMachineArn: ALIAS,
                name: siteId,
                input: JSON.stringify({
                  siteId,
                  coordinatorEmail: `coordinator@${siteId}.example.org`,
                  siteName: `Site ${siteId}`,
                }),
              }),
            ),
          ),
        );
      }
    })();

    // The coordinator: approves every pending approval through its link (the page's form POST), again after
    // a restart if the click was lost. Links carry the port of the engine that issued them; ports change on
    // restart here (port 0), so the click goes to the current engine.
    let approving = true;
    let approvalsClicked = 0;
    const lastAnswer = new Map<string, string>();
    let lastError = '';
    let approverErrors = 0;
    const approver = (async () => {
      while (approving) {
        try {
          const running = await withEngine((c) =>
            c.send(
              new ListExecutionsCommand({
                stateMachineArn: ALIAS.replace(/:live$/, ''),
                statusFilter: 'RUNNING',
                maxResults: 1000,
              }),
            ),
          );
          for (const execution of running.executions ?? []) {
            await withEngine(async (c, url) => {
              const link = await pendingApprovalUrl(c, execution.executionArn!);
              if (!link) return;
              const target = new URL(link);
              const res = await fetch(`${url}${target.pathname}${target.search}`, {
                method: 'POST',
                headers: { 'content-type': 'application/x-www-form-urlencoded' },
                body: 'decision=approve&comment=looks+good',
              });
              lastAnswer.set(
                execution.executionArn!,
                `${res.status} ${(await res.text()).replace(/\s+/g, ' ').slice(0, 300)}`,
              );
              approvalsClicked += 1;
            });
          }
        } catch (err) {
          // A round cut off by a kill in an unexpected way: the next round looks again.
          approverErrors += 1;
          lastError = `${(err as Error).name}: ${(err as Error).message}`;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    })();

    // Kills at random amounts of new progress (side-effect files: 5 tools and 2 emails per run) into each
    // incarnation's life, spread over the tool steps and the approvals.
    const totalProgress = RUNS * (ACTION_TOOLS.length + 2);
    const killedAt: number[] = [];
    for (let k = 0; k < KILLS; k += 1) {
      const target = Math.min((await progress()) + 50 + Math.floor(Math.random() * 100), totalProgress - 20);
      await eventually(
        `${target} side effects`,
        async () => {
          if (engine.child.exitCode !== null) throw new Error(`engine exited:\n${engine.output()}`);
          return (await progress()) >= target ? true : undefined;
        },
        { intervalMillis: 10 },
      );
      killedAt.push(await progress());
      let ready!: () => void;
      restarted = new Promise((r) => (ready = r));
      await engine.kill();
      sfn.destroy();
      engine = await startEngineProcess({ dataDir, startTimeoutMillis: ENGINE_START_BOUND_MILLIS });
      sfn = sfnClient(engine.url);
      ready();
    }
    await starting;

    // Until every run has closed (a run still open after a minute is reported with its last events).
    const running = () =>
      withEngine((c) =>
        c.send(
          new ListExecutionsCommand({
            stateMachineArn: ALIAS.replace(/:live$/, ''),
            statusFilter: 'RUNNING',
            maxResults: 1000,
          }),
        ),
      );
    await eventually('every run to close', async () => ((await running()).executions?.length ? undefined : true), {
      timeoutMillis: 60_000,
      intervalMillis: 50,
    }).catch(async (error: Error) => {
      const open = (await running()).executions ?? [];
      const stuck = await Promise.all(
        open.slice(0, 3).map(async (e) => {
          const { events } = await sfn.send(
            new GetExecutionHistoryCommand({ executionArn: e.executionArn, reverseOrder: true, maxResults: 4 }),
          );
          return `${e.name}: ${events!.map((ev) => ev.type).join(' < ')}; last approval answer: ${lastAnswer.get(e.executionArn!) ?? 'none'}`;
        }),
      );
      throw new Error(
        `${error.message}: ${open.length} runs still RUNNING (approver errors: ${approverErrors}, last: ${lastError}):\n${stuck.join('\n')}`,
      );
    });
    approving = false;
    await approver;

    let reinvoked = 0;
    for (const siteId of sites) {
      const executionArn = `arn:aws:states:us-east-1:123456789012:execution:${WORKFLOW}:${siteId}`;
      const d = await sfn.send(new DescribeExecutionCommand({ executionArn }));
      expect(d.status, `${siteId}: ${d.error} ${d.cause}`).toBe('SUCCEEDED');
      const events = await history(sfn, executionArn);
      // Each Task state completed exactly once; attempts beyond the first are the ones kills caught in flight.
      const entered = events.filter((e) => e.type === 'TaskStateEntered').map((e) => e.stateEnteredEventDetails!.name!);
      expect(new Set(entered).size, `${siteId} entered a Task state twice`).toBe(entered.length);
      const succeeded = events.filter((e) => e.type === 'TaskSucceeded').length;
      expect(succeeded, siteId).toBe(entered.length);
      const started = new Map<string, number>();
      let state = '';
      for (const e of events) {
        if (e.type === 'TaskStateEntered') state = e.stateEnteredEventDetails!.name!;
        if (e.type === 'TaskStarted') started.set(state, (started.get(state) ?? 0) + 1);
      }
      // No retries are configured to fire here (nothing fails): extra attempts are re-invocations after
      // kills, at most one per kill.
      for (const [name, n] of started) expect(n, `${siteId} ${name} attempts`).toBeLessThanOrEqual(1 + KILLS);
      reinvoked += [...started.values()].reduce((a, n) => a + n - 1, 0);
    }

    // Every side effect exactly once: one action per tool per site, one welcome email per site.
    for (const tool of ACTION_TOOLS) expect(await countFiles(join(actionsDir, tool)), tool).toBe(RUNS);
    const emails = await outboxKeys(outboxDir);
    const welcome = emails.filter((k) => k.endsWith(':welcome'));
    expect(welcome.sort(), 'welcome emails').toEqual(sites.map((s) => `${s}:welcome`));
    const approvalEmails = emails.length - welcome.length;
    expect(approvalEmails, 'at least one approval email per run').toBeGreaterThanOrEqual(RUNS);
    const suppressed = (engine.output().match(/"DuplicateSuppressed"/g) ?? []).length;

    console.log(
      `onboarding crash test: ${RUNS} runs, ${KILLS} SIGKILLs at ${killedAt.join(', ')} side effects; ${approvalsClicked} approval clicks; ` +
        `${reinvoked} Task attempts re-invoked after a kill; ${ACTION_TOOLS.length * RUNS + RUNS} tool side effects, each exactly once; ` +
        `${approvalEmails} approval emails` +
        (suppressed ? `; ${suppressed} replays answered from the idempotency ledger in the last incarnation` : ''),
    );
    expect(await engine.stop()).toBe(0);
  });
});
