import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeExecutionCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { LOCAL_REGION, LOCAL_CREDENTIALS } from '@autosave/workflow/config';
import { CRASH_POINT_ENV, CrashPoint } from '@autosave/runtime/crash-points';
import { MetricName } from '@autosave/runtime/metrics';
import { OutboxEmailProvider } from '@autosave/runtime/tools';
import type { Workflow } from '@autosave/workflow';
import {
  submitApprovalDecision,
  analyzeHistory,
  pendingApprovals,
  type RunAnalysis,
  getFullHistory,
  liveAliasArn,
} from '../../packages/local/src/operations';
import { spawnEngine, type EngineProcess } from '../engine-process';

/** The example app's workflow the demo runs (from the project's config). */
export const DEMO_WORKFLOW = 'clinical-trial-onboarding';
/** The seed scenario's site. */
export const DEMO_SITE_ID = 'site-4412';
/** The key of the side effect that must happen once: the welcome email. */
export const DEMO_WELCOME_KEY = `${DEMO_SITE_ID}:welcome`;
/** The crash point the first engine runs with: SIGKILL after the welcome email is sent, before it is recorded. */
export const DEMO_CRASH_POINT = `${CrashPoint.AfterActBeforeComplete}@${DEMO_WELCOME_KEY}`;
/** How long the whole scenario may take before it is called failed. @default 6 minutes */
export const DEFAULT_DEMO_TIMEOUT_MILLIS = 6 * 60_000;
/** How often the demo looks at the run. @default 200 ms */
const POLL_MILLIS = 200;

/** Options of {@link runCrashDemo}. */
export interface CrashDemoOptions {
  /** The onboarding workflow ({@link DEMO_WORKFLOW}), as the project's config declares it. */
  readonly workflow: Workflow;
  /** The config file the demo's engines load. */
  readonly configFile: string;
  /** Receives the narration, one line at a time. */
  readonly say: (line: string) => void;
  /** Keep the throw-away data directory (its path is in the proof). @default false */
  readonly keepData?: boolean;
  /** Receives the engines' own output lines. @default dropped */
  readonly onEngineOutput?: (line: string) => void;
  /** @default {@link DEFAULT_DEMO_TIMEOUT_MILLIS} */
  readonly timeoutMillis?: number;
}

/** What the demo proved (every check, and whether all held). */
export interface CrashDemoProof {
  readonly holds: boolean;
  readonly checks: readonly { readonly claim: string; readonly holds: boolean; readonly evidence: string }[];
  readonly executionArn: string;
  readonly status: string;
  readonly dataDir: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/** The value of `metric` in an embedded-metric-format log line, 0 when the line is not one or lacks it. */
function emfValue(line: string, metric: string): number {
  if (!line.startsWith('{') || !line.includes(metric)) return 0;
  try {
    const value = (JSON.parse(line) as Record<string, unknown>)[metric];
    return typeof value === 'number' ? value : 0;
  } catch {
    return 0;
  }
}

/** `promise`, or an error once `deadline` (epoch ms) passes; the timer never outlives the race. */
async function withDeadline<T>(promise: Promise<T>, deadline: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>(
        (_, reject) => (timer = setTimeout(() => reject(new Error(message)), Math.max(0, deadline - Date.now()))),
      ),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The crash demo: a throw-away engine (a child process) runs the onboarding of site 4412; the approval
 * is given through its signed link; the engine dies by SIGKILL right after the welcome email is sent and
 * before its result is recorded (the runtime's crash-point seam, for that one key); a new engine on the
 * same data resumes the run. The proof comes from the run's history and the outbox.
 *
 * After the restart, the re-invoked attempt finds the killed attempt's claim on `site-4412:welcome`. The
 * local engine ends the leases of attempts that died with the previous process when it boots
 * (local/services/orphaned-leases.ts), so the retry takes the key over at once, asks the email provider
 * whether it already sent (it did) and records that instead of sending again.
 */
export async function runCrashDemo(options: CrashDemoOptions): Promise<CrashDemoProof> {
  const { say, workflow } = options;
  const deadline = Date.now() + (options.timeoutMillis ?? DEFAULT_DEMO_TIMEOUT_MILLIS);
  const dataDir = await mkdtemp(join(tmpdir(), 'autosave-demo-'));
  const engines: EngineProcess[] = [];
  const checkDeadline = (what: string) => {
    if (Date.now() > deadline) throw new Error(`the demo timed out ${what}`);
  };
  try {
    say(`data directory (thrown away at the end): ${dataDir}`);
    say(`1. starting the engine with the crash point ${CRASH_POINT_ENV}=${DEMO_CRASH_POINT}`);
    const first = await spawnEngine({
      dataDir,
      configFile: options.configFile,
      env: { [CRASH_POINT_ENV]: DEMO_CRASH_POINT },
      onOutput: options.onEngineOutput,
    });
    engines.push(first);
    say(`   engine pid ${first.pid} listening on ${first.url}`);
    const sfn = new SFNClient({
      endpoint: first.url,
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
      maxAttempts: 1,
    });

    const machineArn = `arn:aws:states:${LOCAL_REGION}:123456789012:stateMachine:${workflow.name}`;
    const input = { ...workflow.exampleInput, siteId: DEMO_SITE_ID };
    const started = await sfn.send(
      new StartExecutionCommand({
        stateMachineArn: liveAliasArn(machineArn),
        name: `onboarding-${DEMO_SITE_ID}`,
        input: JSON.stringify(input),
      }),
    );
    const executionArn = started.executionArn!;
    say(`2. started run onboarding-${DEMO_SITE_ID} (${workflow.name}, through its live alias)`);

    let approvalUrl: string | undefined;
    while (!approvalUrl) {
      checkDeadline('waiting for the approval');
      approvalUrl = pendingApprovals(analyzeHistory(await getFullHistory(sfn, executionArn)))[0]?.url;
      if (!approvalUrl) await sleep(POLL_MILLIS);
    }
    say(`3. steps 1-3 done; the run waits on the coordinator: ${approvalUrl.replace(/sig=[^&]+/, 'sig=…')}`);
    try {
      const response = await submitApprovalDecision(approvalUrl, {
        approve: true,
        by: 'coordinator@site-4412 (demo)',
        comment: 'approved by the crash demo',
      });
      say(`4. approved through the signed link (the page answered: ${response.message})`);
    } catch (err) {
      // The engine may die while answering: the decision was recorded before the run moved on.
      say(`4. approved through the signed link (the engine died while answering: ${(err as Error).message})`);
    }

    const killed = await withDeadline(first.exited, deadline, 'the engine was not killed at the crash point');
    const outbox = new OutboxEmailProvider(join(dataDir, 'outbox'));
    const sentBeforeRestart = (await outbox.list()).filter((e) => e.idempotencyKey === DEMO_WELCOME_KEY).length;
    say(
      `5. the engine died (signal ${killed.signal ?? 'none'}, exit code ${killed.code ?? 'none'}) with ${sentBeforeRestart} welcome email in the outbox and its result not saved`,
    );

    say('6. restarting the engine on the same data directory');
    let endedLeases: string | undefined;
    // The runtime's metrics (EMF lines on the engine's output) say how the retry got its result.
    const metrics = { reconciled: 0, duplicates: 0 };
    const second = await spawnEngine({
      dataDir,
      configFile: options.configFile,
      port: first.port,
      onOutput: (line) => {
        if (/idempotency lease/.test(line)) endedLeases = line.trim();
        metrics.reconciled += emfValue(line, MetricName.Reconciled);
        metrics.duplicates += emfValue(line, MetricName.DuplicateSuppressed);
        options.onEngineOutput?.(line);
      },
    });
    engines.push(second);
    say(`   engine pid ${second.pid} listening on ${second.url}; it re-invokes the step that was cut off`);
    let status = 'RUNNING';
    while (status === 'RUNNING') {
      checkDeadline('waiting for the run to finish');
      await sleep(POLL_MILLIS);
      status = (await sfn.send(new DescribeExecutionCommand({ executionArn }))).status ?? 'UNKNOWN';
    }
    // Said once the step's first DynamoDB call opened the local DynamoDB: the leases end before it gets through.
    if (endedLeases) say(`   the engine says: ${endedLeases}`);
    say(`7. the run ended: ${status}`);
    if (metrics.reconciled > 0)
      say(
        `   the retry asked the email provider before acting (metric ${MetricName.Reconciled}=${metrics.reconciled}) and found the email already sent`,
      );
    if (metrics.duplicates > 0)
      say(
        `   results taken from the ledger instead of acting again: ${MetricName.DuplicateSuppressed}=${metrics.duplicates}`,
      );

    const analysis = analyzeHistory(await getFullHistory(sfn, executionArn));
    const emails = await outbox.list();
    const proof = proveCrashDemo(
      workflow,
      analysis,
      status,
      emails.map((e) => e.idempotencyKey),
    );
    return { ...proof, executionArn, status, dataDir };
  } finally {
    for (const engine of engines) await engine.stop();
    if (!options.keepData) await rm(dataDir, { recursive: true, force: true });
  }
}

/** The checks of the proof, from the run's history and the outbox's idempotency keys. */
export function proveCrashDemo(
  workflow: Workflow,
  analysis: RunAnalysis,
  status: string,
  outboxKeys: readonly string[],
): Pick<CrashDemoProof, 'holds' | 'checks'> {
  const names = workflow.steps.map((s) => s.name);
  const before = names.slice(0, 5);
  const welcomeStep = names[5];
  const entriesOf = (name: string) => analysis.entries.filter((e) => e.name === name);
  const checks = [
    ...before.map((name, i) => {
      const entries = entriesOf(name);
      const attempts = entries.reduce((n, e) => n + e.attempts, 0);
      return {
        claim: `step ${i + 1} ${name} ran once, not again after the restart`,
        holds: entries.length === 1 && attempts === 1 && entries[0].reinvocations === 0,
        evidence: `${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}, ${attempts} invocation(s)`,
      };
    }),
    (() => {
      const entries = entriesOf(welcomeStep);
      const attempts = entries.reduce((n, e) => n + e.attempts, 0);
      const keys = [...new Set(entries.map((e) => e.idempotencyKey))];
      const restarted = entries.some((e) => e.reinvocations > 0);
      return {
        claim: `step 6 ${welcomeStep} was retried after the restart with key ${DEMO_WELCOME_KEY}`,
        holds: restarted && attempts >= 2 && keys.length === 1 && keys[0] === DEMO_WELCOME_KEY,
        evidence: `${attempts} invocations, ${entries.reduce((n, e) => n + e.reinvocations, 0)} of them after the restart${
          entries.some((e) => e.attemptErrors.length)
            ? `, failed attempts: ${entries.flatMap((e) => e.attemptErrors).join(', ')}`
            : ''
        }; key ${keys.join(', ')}`,
      };
    })(),
    (() => {
      const welcome = outboxKeys.filter((k) => k === DEMO_WELCOME_KEY).length;
      return {
        claim: `one welcome email in the outbox (key ${DEMO_WELCOME_KEY})`,
        holds: welcome === 1,
        evidence: `${welcome} welcome email(s); outbox keys: ${outboxKeys.join(', ')}`,
      };
    })(),
    { claim: 'the run SUCCEEDED', holds: status === 'SUCCEEDED', evidence: `status ${status}` },
  ];
  return { holds: checks.every((c) => c.holds), checks };
}
