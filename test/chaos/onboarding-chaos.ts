/**
 * The chaos run: onboarding runs started against an engine process, each approved through its link as it
 * reaches the wait, while the engine is SIGKILLed at random moments (many of them mid-POST) and restarted
 * at once on the same port, as a supervisor would. Counted from outside at the end: runs lost, runs not
 * SUCCEEDED, side effects duplicated (emails per coordinator in the outbox), decisions lost (approval
 * records against the branch each run took).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeExecutionCommand, ListExecutionsCommand, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { clinicalTrialOnboarding } from '../../statemachines';
import { approvalUrlIn, enteredStates, historyOf } from '../integration/workflows/support/workflow-engine';
import {
  EngineSupervisor,
  freePort,
  outboxOf,
  restartProofSfn,
  sleep,
  spread,
  storedApprovals,
  throughRestarts,
} from './support';

/** Options of {@link runOnboardingChaos}. */
export interface OnboardingChaosOptions {
  /** Onboarding runs to start. */
  readonly runs: number;
  /** SIGKILLs of the engine, each followed by a restart at once. */
  readonly kills: number;
  /** Runs started at a time. @default 25 */
  readonly startConcurrency?: number;
  /** Where progress goes. @default nowhere */
  readonly log?: (line: string) => void;
}

/** What the chaos run measured. */
export interface OnboardingChaosFigures {
  readonly runs: number;
  readonly kills: number;
  /** Kills that happened while at least one approval POST was in flight. */
  readonly killsMidPost: number;
  readonly postsSent: number;
  /** POSTs whose connection the kill cut (sent again later through the same link). */
  readonly postsCut: number;
  readonly runsLost: number;
  readonly runsNotSucceeded: number;
  readonly duplicatedSideEffects: number;
  readonly decisionsLost: number;
  readonly restartDelayMaxMillis: number;
  readonly bootMillis: { readonly median: number; readonly max: number };
  readonly seconds: number;
}

const LIVE_ALIAS = `arn:aws:states:us-east-1:123456789012:stateMachine:${clinicalTrialOnboarding.name}:live`;
const MACHINE = `arn:aws:states:us-east-1:123456789012:stateMachine:${clinicalTrialOnboarding.name}`;
const APPROVER = 'chaos-approver';

/** Runs the chaos scenario on a fresh data directory and returns its figures (asserting nothing itself). */
export async function runOnboardingChaos(options: OnboardingChaosOptions): Promise<OnboardingChaosFigures> {
  const log = options.log ?? (() => undefined);
  const began = Date.now();
  const dataDir = await mkdtemp(join(tmpdir(), 'autosave-chaos-'));
  const supervisor = new EngineSupervisor({ dataDir, port: await freePort() });
  await supervisor.start();
  const sfn = restartProofSfn(supervisor.url);
  const names = Array.from({ length: options.runs }, (_, i) => `site-${10_000 + i}`);
  const approved = new Set<string>();
  let postsInFlight = 0;
  let postsSent = 0;
  let postsCut = 0;
  let killsMidPost = 0;

  try {
    const arnOf = (name: string) =>
      `arn:aws:states:us-east-1:123456789012:execution:${clinicalTrialOnboarding.name}:${name}`;

    /** Starts a run (idempotent by name), waits for its link, approves through it until the run has the decision. */
    const drive = async (name: string) => {
      const input = JSON.stringify({
        ...clinicalTrialOnboarding.exampleInput,
        siteId: name,
        coordinatorEmail: `coordinator@${name}.example.org`,
      });
      await throughRestarts(async () => {
        try {
          await sfn.send(new StartExecutionCommand({ stateMachineArn: LIVE_ALIAS, name, input }));
        } catch (err) {
          if ((err as Error).name !== 'ExecutionAlreadyExists') throw err;
        }
      });
      for (;;) {
        const history = await throughRestarts(() => historyOf(sfn, arnOf(name)));
        if (enteredStates(history).includes('provision-edc-access')) break; // the decision has reached the run
        const link = approvalUrlIn(history);
        if (!link) {
          await sleep(50);
          continue;
        }
        postsInFlight += 1;
        postsSent += 1;
        try {
          const res = await fetch(link, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ decision: 'approve', by: APPROVER }).toString(),
          });
          await res.body?.cancel();
          if (res.status === 410 || res.status === 403) throw new Error(`the link of ${name} answered ${res.status}`);
        } catch (err) {
          if ((err as Error).message.startsWith('the link')) throw err;
          postsCut += 1;
        } finally {
          postsInFlight -= 1;
        }
        await sleep(50);
      }
      approved.add(name);
    };

    const queue = [...names];
    const workers = Array.from({ length: options.startConcurrency ?? 25 }, async () => {
      for (let name = queue.shift(); name; name = queue.shift()) await drive(name);
    });

    // Kill points follow the work, not the clock (a restart's length depends on the machine): each kill
    // comes a random number of approval POSTs into an incarnation's life (spreading the kills over the
    // runs), cutting a POST in flight 2–30 ms in when one is.
    const postsPerKill = Math.max(2, Math.floor(options.runs / options.kills));
    const killer = (async () => {
      for (let k = 0; k < options.kills; k++) {
        await supervisor.ready();
        const sentBefore = postsSent;
        const target = 1 + Math.floor(Math.random() * postsPerKill * 1.5);
        for (
          let waited = 0;
          postsSent - sentBefore < target && waited < 60_000 && approved.size < options.runs;
          waited += 10
        )
          await sleep(10);
        for (let waited = 0; postsInFlight === 0 && waited < 1_000; waited += 5) await sleep(5);
        if (postsInFlight > 0) await sleep(2 + Math.random() * 28);
        if (postsInFlight > 0) killsMidPost += 1;
        await supervisor.killAndRestart();
        log(`  kill ${k + 1}/${options.kills}: ${approved.size}/${options.runs} runs approved`);
      }
    })();

    await killer;
    await Promise.all(workers);
    await supervisor.ready();

    // Every run to its end.
    for (const deadline = Date.now() + 300_000; ; await sleep(200)) {
      const running = await throughRestarts(() =>
        sfn.send(new ListExecutionsCommand({ stateMachineArn: MACHINE, statusFilter: 'RUNNING', maxResults: 1 })),
      );
      if ((running.executions ?? []).length === 0) break;
      if (Date.now() > deadline) throw new Error('runs still RUNNING 5 minutes after the last kill');
    }

    let runsLost = 0;
    let runsNotSucceeded = 0;
    let decisionsLost = 0;
    const records = new Map((await throughRestarts(() => storedApprovals(dataDir))).map((a) => [a.executionArn, a]));
    for (const name of names) {
      const run = await throughRestarts(() =>
        sfn.send(new DescribeExecutionCommand({ executionArn: arnOf(name) })),
      ).catch(() => undefined);
      if (!run) {
        runsLost += 1;
        continue;
      }
      if (run.status !== 'SUCCEEDED') runsNotSucceeded += 1;
      const record = records.get(arnOf(name));
      const decision = run.output
        ? (JSON.parse(run.output) as { steps?: Record<string, { approved?: boolean; by?: string }> }).steps?.[
            'coordinator-approval'
          ]
        : undefined;
      if (record?.status !== 'APPROVED' || decision?.approved !== true || decision.by !== APPROVER) decisionsLost += 1;
    }

    // From outside: each coordinator got exactly one approval request and one welcome pack.
    const perCoordinator = new Map<string, number>();
    for (const email of await outboxOf(dataDir))
      for (const to of email.to) perCoordinator.set(to, (perCoordinator.get(to) ?? 0) + 1);
    let duplicatedSideEffects = 0;
    for (const name of names)
      duplicatedSideEffects += Math.max(0, (perCoordinator.get(`coordinator@${name}.example.org`) ?? 0) - 2);

    return {
      runs: options.runs,
      kills: supervisor.killCount,
      killsMidPost,
      postsSent,
      postsCut,
      runsLost,
      runsNotSucceeded,
      duplicatedSideEffects,
      decisionsLost,
      restartDelayMaxMillis: spread(supervisor.restartDelayMillis).max,
      bootMillis: spread(supervisor.bootMillis),
      seconds: (Date.now() - began) / 1000,
    };
  } finally {
    sfn.destroy();
    await supervisor.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** The figures as the chaos run prints them. */
export function formatChaosFigures(f: OnboardingChaosFigures): string {
  return [
    `runs                      ${f.runs}`,
    `SIGKILLs                  ${f.kills} (${f.killsMidPost} with an approval POST in flight), each restarted within ${f.restartDelayMaxMillis} ms`,
    `approval POSTs            ${f.postsSent} sent, ${f.postsCut} cut by a kill (sent again through the same link)`,
    `boot to first answer      median ${f.bootMillis.median} ms, max ${f.bootMillis.max} ms`,
    `runs lost                 ${f.runsLost}`,
    `runs not SUCCEEDED        ${f.runsNotSucceeded}`,
    `duplicated side effects   ${f.duplicatedSideEffects} (emails per coordinator in the outbox beyond approval request + welcome pack)`,
    `decisions lost            ${f.decisionsLost}`,
    `wall time                 ${f.seconds.toFixed(1)} s`,
  ].join('\n');
}
