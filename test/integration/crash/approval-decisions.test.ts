/**
 * No approval decision is lost to a kill -9: 100 onboarding runs wait on their coordinator; their approve
 * or reject POSTs are fired in bursts, and the engine is SIGKILLed at a random moment of each burst
 * (mid-POST: some POSTs answered, some cut inside the endpoint, some refused) and restarted at once. Then the clock moves past the 5-day approval timeout. Every decision the approval
 * records hold is the branch its run took (never the timeout branch), every POST answered 200 is among them,
 * and the approver's page, read afterwards, says what happened.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeExecutionCommand, StartExecutionCommand, type SFNClient } from '@aws-sdk/client-sfn';
import { afterAll, describe, expect, it } from 'vitest';
import { clinicalTrialOnboarding } from '../../../statemachines';
import { approvalUrlIn, enteredStates, historyOf } from '../workflows/support/workflow-engine';
import {
  EngineSupervisor,
  freePort,
  outboxOf,
  restartProofSfn,
  sleep,
  spread,
  storedApprovals,
  throughRestarts,
} from '../../chaos/support';
import { eventually } from '../../fixtures/wait';

const RUNS = 100;
/** POSTs per burst: one SIGKILL per burst. */
const BURST = 20;
const LIVE_ALIAS = `arn:aws:states:us-east-1:123456789012:stateMachine:${clinicalTrialOnboarding.name}:live`;
const SIX_DAYS_SECONDS = 6 * 86_400;

/** A deterministic pseudo-random sequence (mulberry32), seeded per run so a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const approvalLink = (sfn: SFNClient, executionArn: string): Promise<string> =>
  eventually(
    `the approval link of ${executionArn}`,
    async () => approvalUrlIn(await throughRestarts(() => historyOf(sfn, executionArn))),
    { timeoutMillis: 120_000, intervalMillis: 50 },
  );

const closed = (sfn: SFNClient, executionArn: string): Promise<string> =>
  eventually(
    `${executionArn} to close`,
    async () => {
      const { status } = await throughRestarts(() => sfn.send(new DescribeExecutionCommand({ executionArn })));
      return status === 'RUNNING' ? undefined : status;
    },
    { timeoutMillis: 180_000, intervalMillis: 100 },
  );

describe('approval decisions across kill -9 mid-POST', () => {
  let dataDir: string | undefined;
  let supervisor: EngineSupervisor | undefined;
  afterAll(async () => {
    await supervisor?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it(`every recorded decision of ${RUNS} is the branch taken, and the page says so`, { timeout: 600_000 }, async () => {
    const seed = Number(process.env.AUTOSAVE_CHAOS_SEED ?? Date.now() % 1_000_000);
    const rnd = random(seed);
    console.log(`approval-decisions: seed ${seed} (AUTOSAVE_CHAOS_SEED=${seed} replays the choices)`);
    dataDir = await mkdtemp(join(tmpdir(), 'autosave-decisions-'));
    supervisor = new EngineSupervisor({ dataDir, port: await freePort(), virtualClock: true });
    await supervisor.start();
    const sfn = restartProofSfn(supervisor.url);

    const runs = await Promise.all(
      Array.from({ length: RUNS }, async (_, i) => {
        const siteId = `site-${7000 + i}`;
        const input = {
          ...clinicalTrialOnboarding.exampleInput,
          siteId,
          coordinatorEmail: `coordinator@${siteId}.example.org`,
        };
        const { executionArn } = await throughRestarts(() =>
          sfn.send(
            new StartExecutionCommand({ stateMachineArn: LIVE_ALIAS, name: siteId, input: JSON.stringify(input) }),
          ),
        );
        return {
          siteId,
          executionArn: executionArn!,
          link: '',
          decision: rnd() < 0.5 ? ('approve' as const) : ('reject' as const),
          answer: 'not sent' as string | number,
        };
      }),
    );
    for (const run of runs) run.link = await approvalLink(sfn, run.executionArn);

    // Bursts of POSTs sent over a window, each burst cut by a SIGKILL at a random moment of it: some POSTs
    // answered, some cut on their way through the endpoint, some refused. A cut POST is not sent again.
    // The window follows how long POSTs take here (the machine may be loaded), so kills land mid-POST.
    const latencies: number[] = [];
    const order = [...runs].sort(() => rnd() - 0.5);
    for (let i = 0; i < order.length; i += BURST) {
      await supervisor.ready();
      const window = Math.max(200, 3 * (spread(latencies).median || 300));
      const burst = order.slice(i, i + BURST);
      const posts = burst.map(async (run) => {
        await sleep(rnd() * window);
        const sentAt = Date.now();
        try {
          const res = await fetch(run.link, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ decision: run.decision, by: `approver-of-${run.siteId}` }).toString(),
          });
          await res.body?.cancel();
          run.answer = res.status;
          latencies.push(Date.now() - sentAt);
        } catch {
          run.answer = 'cut';
        }
      });
      await sleep(window * (0.3 + 0.7 * rnd()));
      await supervisor.killAndRestart();
      await Promise.all(posts);
    }
    await supervisor.ready();

    const recorded = await throughRestarts(() => storedApprovals(dataDir!));
    const undeliveredAtRestart = recorded.filter((a) => a.decision && !a.delivered).length;
    await throughRestarts(async () => {
      const res = await fetch(`${supervisor!.url}/_autosave/clock/advance`, {
        method: 'POST',
        body: JSON.stringify({ seconds: SIX_DAYS_SECONDS }),
      });
      if (res.status !== 200)
        throw Object.assign(new Error(`advance answered ${res.status}`), { $metadata: { httpStatusCode: res.status } });
    });

    const records = new Map((await throughRestarts(() => storedApprovals(dataDir!))).map((a) => [a.executionArn, a]));
    const lost: string[] = [];
    for (const run of runs) {
      expect(await closed(sfn, run.executionArn)).toBe('SUCCEEDED');
      const record = records.get(run.executionArn);
      expect(record, run.siteId).toBeDefined();
      const entered = enteredStates(await throughRestarts(() => historyOf(sfn, run.executionArn)));
      const branch = entered.includes('email-welcome-pack')
        ? 'approved'
        : entered.includes('notify-site-rejected')
          ? 'rejected'
          : 'timed out';
      const kept =
        record!.status === 'APPROVED' ? 'approved' : record!.status === 'REJECTED' ? 'rejected' : 'timed out';
      if (branch !== kept) lost.push(`${run.siteId}: recorded ${record!.status}, took the ${branch} branch`);
      // An approver told "recorded" (200) got that decision.
      if (run.answer === 200) expect(kept, run.siteId).toBe(run.decision === 'approve' ? 'approved' : 'rejected');
      if (kept !== 'timed out') expect(record!.decision!.by).toBe(`approver-of-${run.siteId}`);

      const page = await throughRestarts(() =>
        fetch(run.link).then(async (res) => ({ status: res.status, body: await res.text() })),
      );
      if (kept === 'timed out') expect(page.body, run.siteId).toContain('no longer waiting');
      else expect(page.body, run.siteId).toMatch(new RegExp(`${kept} by approver-of-${run.siteId}`, 'i'));
    }
    expect(lost).toEqual([]);
    expect([...records.values()].filter((r) => r.status === 'PENDING')).toEqual([]);

    // Each run asked its approver once and sent its one closing email.
    const outbox = await outboxOf(dataDir);
    expect(outbox.filter((e) => e.idempotencyKey.startsWith('approval:'))).toHaveLength(RUNS);
    const closing = outbox.filter((e) => /^site-7\d+:(welcome|rejected|approval-expired)$/.test(e.idempotencyKey));
    expect(closing).toHaveLength(RUNS);

    const count = (what: string) => runs.filter((r) => String(r.answer) === what).length;
    console.log(
      `approval-decisions: ${RUNS} runs, ${supervisor.killCount} SIGKILLs mid-POST; POSTs answered 200: ${count('200')}, ` +
        `cut: ${count('cut')}, other: ${RUNS - count('200') - count('cut')}; decisions recorded: ${recorded.filter((a) => a.decision).length}, ` +
        `of which not yet delivered when the engine came back: ${undeliveredAtRestart}; lost: ${lost.length}; ` +
        `boot to first answer: median ${spread(supervisor.bootMillis).median} ms, max ${spread(supervisor.bootMillis).max} ms`,
    );
  });
});
