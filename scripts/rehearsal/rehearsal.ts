/**
 * The deploy rehearsal: "what happens to my runs in flight?" answered with the real artifacts before AWS.
 * The engine (`autosave local --app <assembly>`, a process of its own, as a user runs it) boots from the
 * app's assembly, runs wait on approvals, a second assembly — with a tool's code and a workflow's definition
 * changed — is deployed onto it as a CloudFormation update, and every run is approved. Each run is then
 * checked against the versions it started on. This process is the driver: it talks to the engine only as a
 * user's client does (the Step Functions API, the approval links, `deploy --local`, the outbox's files).
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DescribeExecutionCommand,
  GetExecutionHistoryCommand,
  ListStateMachineAliasesCommand,
  ListStateMachinesCommand,
  SFNClient,
  StartExecutionCommand,
  type DescribeExecutionCommandOutput,
  type HistoryEvent,
} from '@aws-sdk/client-sfn';
import { LIVE_ALIAS_NAME, LOCAL_CREDENTIALS, LOCAL_REGION } from '@autosave/workflow/config';
import { loadRunDetails, submitApprovalDecision } from '../../packages/local/src/operations';
import { OutboxEmailProvider } from '@autosave/runtime/tools';
import { IAM_SIMULATOR_PACKAGE } from '../../packages/local/src/cloud-assembly';
import { CLOCK_ROUTE, STACK_ROUTE } from '../../packages/local/src/api/server';
import { localOutboxDirectory } from '../../packages/local/src/services/local-environment';
import { dropOldVersionGrants, editedAssemblyCopy } from './assembly-edits';
import { spawnEngine, type EngineProcess } from '../engine-process';
import { deployToLocalEngine } from '../../packages/local/src/cli/local-deploy';
import { mallocArenaCap } from './malloc-arenas';
import { REPOSITORY_ROOT } from '../repository-root';
import { ASSEMBLY_SOURCES, synthesizeAssembly } from '../../packages/local/src/cli/stack-assembly';

/** The workflow the rehearsal starts. */
export const REHEARSAL_WORKFLOW = 'clinical-trial-onboarding';

/**
 * The two changes the second assembly carries, each a plain text edit of the sources (a missing original
 * fails the rehearsal, so it can never rehearse nothing): the send-email tool's code (every email it sends
 * gets a footer — a new tool-step bundle, hence a new Lambda version) and the onboarding workflow's
 * definition (the welcome email's subject — a new state machine version).
 */
export const REHEARSAL_EDITS = [
  {
    file: 'packages/runtime/src/tools/email/send-email-tool.ts',
    from: 'body: input.body,',
    to: 'body: `${input.body}\\n\\n-- sent by send-email v2`,',
  },
  {
    file: 'statemachines/clinical-trial-onboarding.ts',
    from: "subject: 'Welcome to the trial, {siteName}',",
    to: "subject: 'Welcome aboard, {siteName}',",
  },
] as const;

/** What tells a v2 email from a v1 one. */
export const V2_FOOTER = '-- sent by send-email v2';
export const V2_SUBJECT_PREFIX = 'Welcome aboard, ';
export const V1_SUBJECT_PREFIX = 'Welcome to the trial, ';

/** Options of {@link rehearse}. */
export interface RehearsalOptions {
  /** Runs started before the deploy (all wait on their approvals across it). @default 1000 */
  readonly runsBefore?: number;
  /** Runs started after the deploy. @default a tenth of {@link runsBefore}, at least 5 */
  readonly runsAfter?: number;
  /** Requests in flight at once (starts, approvals). @default 25 */
  readonly concurrency?: number;
  /** Runs started (and, later, approved) at a time, each wave reaching its approval (closing) before the next. @default 500 */
  readonly waveSize?: number;
  /** Progress lines. @default none */
  readonly log?: (line: string) => void;
  /** A scratch directory (removed afterwards). @default a new one in the OS temp dir */
  readonly workDir?: string;
  /**
   * Boot with `--enforce-iam`: every Task call is judged against its state machine role (the IAM policy
   * simulator, a devDependency, must be installed). @default false
   */
  readonly enforceIam?: boolean;
  /**
   * Deploy a v2 whose state machine roles may invoke only the Lambda versions v2 publishes (a role that
   * drops old versions; see {@link dropOldVersionGrants}). With {@link enforceIam}, the runs in flight
   * are then denied their next call after the deploy. @default false (the app's own grants)
   */
  readonly dropOldVersionGrants?: boolean;
  /**
   * Run the engine on a virtual clock that the rehearsal moves on (a minute at a time) only once every
   * approval is sent, so Task retries with backoff take no wall time (tests). @default the system clock
   */
  readonly virtualClock?: boolean;
}

/** What the rehearsal measured and found. */
export interface RehearsalReport {
  readonly runsInFlightAtDeploy: number;
  readonly deployMillis: number;
  readonly assemblies: { readonly before: string; readonly after: string };
  /** Whether IAM was enforced (with `enforceIam` and the simulator installed). */
  readonly iamEnforced: boolean;
  /** Whether v2's roles may invoke only the Lambda versions v2 publishes. */
  readonly oldVersionGrantsDropped: boolean;
  /** Runs that did not succeed, by the error of the first Task failure in their history (or the run's error). */
  readonly failedPerError: Readonly<Record<string, number>>;
  /** Runs that finished SUCCEEDED, by state machine version ARN. */
  readonly finishedPerStateMachineVersion: Readonly<Record<string, number>>;
  /** Lambda invocations of the finished runs, by `function:version`. */
  readonly invocationsPerLambdaVersion: Readonly<Record<string, number>>;
  /** Peak resident set size of each process, in MiB: the processes are measured apart. */
  readonly peakRssMiB: {
    /**
     * The engine process (`autosave local --app <assembly>`: the engine and its Lambda sandboxes, each a
     * worker thread), from Linux's VmHWM read just before it stops: what a user's engine weighs.
     * Undefined where /proc does not say (not Linux).
     */
    readonly engine: number | undefined;
    /** This process, the driver: it synthesizes the two assemblies, starts, approves and checks the runs. */
    readonly driver: number;
  };
  /** The engine process's pid (never this process's). */
  readonly enginePid: number;
  /** MALLOC_ARENA_MAX the engine process ran with (see {@link mallocArenaCap}), or undefined for glibc's default. */
  readonly engineMallocArenas: string | undefined;
  readonly totalMillis: number;
  /** Every run that did not finish as the rehearsal expects, with why. Empty: the deploy is safe for runs in flight. */
  readonly problems: readonly string[];
}

/** Runs `task` over `items`, `limit` at a time. */
async function pool<T, R>(items: readonly T[], limit: number, task: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await task(items[i], i);
      }
    }),
  );
  return out;
}

/** Copies the app's sources into `dir` (node_modules linked) and applies {@link REHEARSAL_EDITS}. */
export function changedAppCopy(dir: string): string {
  for (const source of [...ASSEMBLY_SOURCES, 'package.json']) {
    const from = join(REPOSITORY_ROOT, source);
    if (existsSync(from)) cpSync(from, join(dir, source), { recursive: true });
  }
  symlinkSync(join(REPOSITORY_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  for (const edit of REHEARSAL_EDITS) {
    const file = join(dir, edit.file);
    const text = readFileSync(file, 'utf8');
    if (!text.includes(edit.from))
      throw new Error(
        `rehearsal: ${edit.file} no longer contains ${JSON.stringify(edit.from)}; update REHEARSAL_EDITS`,
      );
    writeFileSync(file, text.replace(edit.from, edit.to));
  }
  return dir;
}

async function waitFor<T>(what: string, read: () => Promise<T | undefined>, timeoutMillis: number): Promise<T> {
  const until = Date.now() + timeoutMillis;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`rehearsal: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The engine's `live` alias of {@link REHEARSAL_WORKFLOW}, found as a client finds it: through the Step Functions API. */
async function liveAliasArn(sfn: SFNClient): Promise<string> {
  let machineArn: string | undefined;
  let nextToken: string | undefined;
  do {
    const page = await sfn.send(new ListStateMachinesCommand({ nextToken }));
    machineArn = page.stateMachines?.find((m) => m.name === REHEARSAL_WORKFLOW)?.stateMachineArn;
    nextToken = page.nextToken;
  } while (!machineArn && nextToken);
  if (!machineArn) throw new Error(`rehearsal: the stack has no ${REHEARSAL_WORKFLOW} state machine`);
  const aliases = await sfn.send(new ListStateMachineAliasesCommand({ stateMachineArn: machineArn }));
  const alias = aliases.stateMachineAliases?.find((a) =>
    a.stateMachineAliasArn?.endsWith(`:${LIVE_ALIAS_NAME}`),
  )?.stateMachineAliasArn;
  if (!alias) throw new Error(`rehearsal: the stack has no ${REHEARSAL_WORKFLOW} ${LIVE_ALIAS_NAME} alias`);
  return alias;
}

/** A JSON answer of one of the engine's own routes (`/_autosave/...`). */
async function engineRoute(url: string, init?: RequestInit): Promise<Record<string, unknown>> {
  const response = await fetch(url, init);
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok)
    throw new Error(`rehearsal: ${init?.method ?? 'GET'} ${url} answered ${response.status} ${JSON.stringify(body)}`);
  return body;
}

/** Output lines of the engine process kept for an error message. */
const ENGINE_LINES_KEPT = 40;

/** Plays the rehearsal and reports (it does not throw on a run that broke: that is in `problems`). */
export async function rehearse(options: RehearsalOptions = {}): Promise<RehearsalReport> {
  const started = Date.now();
  const log = options.log ?? (() => {});
  const work = options.workDir ?? mkdtempSync(join(tmpdir(), 'autosave-rehearsal-'));
  let engine: EngineProcess | undefined;
  let stopping = false;
  try {
    const v1 = await synthesizeAssembly({ projectRoot: REPOSITORY_ROOT });
    log(`assembly v1 ${v1.sourceHash} (${v1.cached ? 'cached' : `synthesized in ${v1.millis} ms`})`);
    const v2 = await synthesizeAssembly({
      projectRoot: changedAppCopy(mkdtempSync(join(work, 'app-v2-'))),
      cacheDir: join(REPOSITORY_ROOT, 'node_modules', '.cache', 'autosave-assemblies'),
    });
    log(
      `assembly v2 ${v2.sourceHash} (${v2.cached ? 'cached' : `synthesized in ${v2.millis} ms`}): ${REHEARSAL_EDITS.map((e) => e.file).join(', ')} changed`,
    );
    const dropGrants = options.dropOldVersionGrants ?? false;
    // The cached v2 is never edited: the role that drops old versions is a copy of it.
    const v2Directory = dropGrants
      ? editedAssemblyCopy(v2.directory, join(work, 'v2-current-versions-only'), dropOldVersionGrants)
      : v2.directory;
    if (dropGrants) log('assembly v2: state machine roles may invoke only the Lambda versions v2 publishes');

    // The engine as a user runs it (the project's config, with its model script, found from here), in a
    // process of its own: its peak RSS is the engine's and its sandboxes', none of the driver's.
    const dataDir = join(work, 'data');
    const lines: string[] = [];
    let iamEnforced = false;
    const cap = mallocArenaCap();
    engine = await spawnEngine({
      dataDir,
      virtualClock: options.virtualClock ?? false,
      stack: { assemblyDir: v1.directory, enforceIam: options.enforceIam ?? false },
      env: cap,
      startTimeoutMillis: 5 * 60_000,
      onOutput: (line) => {
        if (line.includes('IAM enforced:')) iamEnforced = true;
        lines.push(line);
        if (lines.length > ENGINE_LINES_KEPT) lines.shift();
      },
    });
    const running = engine;
    log(
      `engine: autosave local --app <v1> as process ${running.pid} (MALLOC_ARENA_MAX=${cap.MALLOC_ARENA_MAX ?? process.env.MALLOC_ARENA_MAX ?? 'unset'}) at ${running.url}`,
    );
    // An engine that dies mid-rehearsal fails it at once, with its last words, instead of every call timing out.
    const died = running.exited.then((exit) => {
      if (!stopping)
        throw new Error(
          `rehearsal: the engine process exited (code ${exit.code}, signal ${exit.signal}) with runs in flight:\n${lines.join('\n')}`,
        );
      return new Promise<never>(() => {});
    });
    const report = await Promise.race([drive(running, { ...options, iamEnforced, v2Directory, dataDir, log }), died]);
    const engineRss = running.peakRssBytes();
    return {
      ...report,
      iamEnforced,
      oldVersionGrantsDropped: dropGrants,
      peakRssMiB: {
        engine: engineRss === undefined ? undefined : Math.round(engineRss / 2 ** 20),
        driver: Math.round((process.resourceUsage().maxRSS * 1024) / 2 ** 20),
      },
      enginePid: running.pid,
      engineMallocArenas: cap.MALLOC_ARENA_MAX ?? process.env.MALLOC_ARENA_MAX,
      totalMillis: Date.now() - started,
    };
  } finally {
    stopping = true;
    await engine?.stop();
    if (!options.workDir) rmSync(work, { recursive: true, force: true });
  }
}

/** What {@link drive} finds; the rest of the report is the processes'. */
type DrivenReport = Omit<
  RehearsalReport,
  'iamEnforced' | 'oldVersionGrantsDropped' | 'peakRssMiB' | 'enginePid' | 'engineMallocArenas' | 'totalMillis'
>;

/** Starts, approves and checks the runs on a running engine, through its API only, with the deploy between. */
async function drive(
  engine: EngineProcess,
  options: RehearsalOptions & {
    readonly iamEnforced: boolean;
    readonly v2Directory: string;
    readonly dataDir: string;
    readonly log: (line: string) => void;
  },
): Promise<DrivenReport> {
  const { log } = options;
  const runsBefore = options.runsBefore ?? 1000;
  const runsAfter = options.runsAfter ?? Math.max(5, Math.round(runsBefore / 10));
  const concurrency = options.concurrency ?? 25;
  const waveSize = options.waveSize ?? 500;
  if (options.enforceIam && !options.iamEnforced)
    throw new Error(
      `rehearsal: --enforce-iam needs the IAM policy simulator (${IAM_SIMULATOR_PACKAGE}, a devDependency)`,
    );
  log(options.iamEnforced ? 'IAM enforced: every Task call judged against its state machine role' : 'IAM not enforced');
  const sfnClient = new SFNClient({
    endpoint: engine.url,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    maxAttempts: 5,
  });
  try {
    const aliasArn = await liveAliasArn(sfnClient);
    const startRuns = (prefix: string, n: number, from = 0) =>
      pool(
        Array.from({ length: n }, (_, i) => from + i),
        concurrency,
        async (i) => {
          const siteId = `${prefix}-${i}`;
          const input = { siteId, coordinatorEmail: `coordinator@${siteId}.example.org`, siteName: `Site ${siteId}` };
          const out = await sfnClient.send(
            new StartExecutionCommand({ stateMachineArn: aliasArn, name: siteId, input: JSON.stringify(input) }),
          );
          return { siteId, executionArn: out.executionArn! };
        },
      );
    const approvalLink = (executionArn: string) =>
      waitFor(
        `the approval of ${executionArn}`,
        async () => {
          const details = await loadRunDetails(sfnClient, executionArn);
          if (details.execution.status !== 'RUNNING')
            throw new Error(`rehearsal: ${executionArn} closed ${details.execution.status} before its approval`);
          return details.approvals[0]?.url;
        },
        10 * 60_000,
      );

    // Started a wave at a time, each wave waiting on its approvals before the next starts: what a queue in
    // front of StartExecution does on AWS (docs/scale.md), so the steps before the approval never run for
    // thousands of runs at once on one process (their Lambda timeouts are wall-clock), and every run is in
    // flight at the deploy all the same.
    const startInWaves = async (prefix: string, n: number) => {
      const runs: Awaited<ReturnType<typeof startRuns>> = [];
      const links: string[] = [];
      for (let wave = 0; wave < n; wave += waveSize) {
        const started = await startRuns(prefix, Math.min(waveSize, n - wave), wave);
        runs.push(...started);
        links.push(...(await pool(started, concurrency, (r) => approvalLink(r.executionArn))));
      }
      return { runs, links };
    };
    const { runs: before, links: beforeLinks } = await startInWaves('before', runsBefore);
    log(`${before.length} runs started on v1, all waiting on their approvals`);

    const assemblyBefore = String((await engineRoute(`${engine.url}${STACK_ROUTE}`)).assemblyId ?? '?');
    const deployStarted = Date.now();
    const deployed = await deployToLocalEngine(engine.url, options.v2Directory);
    const deployMillis = Date.now() - deployStarted;
    log(
      `deploy --local of v2: ${deployed.changes.filter((c) => c.change !== 'unchanged').length} changes in ${deployMillis} ms`,
    );

    const { runs: after, links: afterLinks } = await startInWaves('after', runsAfter);
    log(`${after.length} runs started on v2`);

    const perVersion: Record<string, number> = {};
    const perError: Record<string, number> = {};
    const perLambda: Record<string, number> = {};
    const problems: string[] = [];
    const firstVersion = new Map<string, string>();
    const outbox = new OutboxEmailProvider(localOutboxDirectory(options.dataDir));
    const historyOf = async (executionArn: string): Promise<HistoryEvent[]> => {
      const events: HistoryEvent[] = [];
      let nextToken: string | undefined;
      do {
        const page = await sfnClient.send(new GetExecutionHistoryCommand({ executionArn, nextToken }));
        events.push(...(page.events ?? []));
        nextToken = page.nextToken;
      } while (nextToken);
      return events;
    };
    type Run = { siteId: string; executionArn: string; era: 'before' | 'after' };
    // Each run is checked as it closes and only the counts above are kept: the driver holds no run's
    // description, history or email past its check (at 10,000 runs they weighed more than the engine).
    const check = async (run: Run, done: DescribeExecutionCommandOutput) => {
      const era = run.era;
      const events = await historyOf(run.executionArn);
      if (done.status !== 'SUCCEEDED') {
        // The first Task failure says why (a Catch may close the run under another name).
        const first = events.find((e) => e.type === 'TaskFailed')?.taskFailedEventDetails;
        const error = first?.error ?? done.error ?? done.status!;
        const cause = first?.cause ?? done.cause ?? '';
        perError[error] = (perError[error] ?? 0) + 1;
        problems.push(
          `${run.siteId} (started ${era} the deploy) ${done.status}: ${error} ${cause.slice(0, 400)}`.trim(),
        );
        return;
      }
      const version = done.stateMachineVersionArn ?? '(none)';
      perVersion[version] = (perVersion[version] ?? 0) + 1;
      const known = firstVersion.get(era);
      if (known === undefined) firstVersion.set(era, version);
      else if (known !== version)
        problems.push(`${run.siteId} ran on ${version}, other runs started ${era} the deploy on ${known}`);
      const scheduled = new Map<number, string>();
      for (const e of events) {
        if (e.type === 'TaskScheduled' && e.taskScheduledEventDetails?.resourceType === 'lambda') {
          scheduled.set(
            e.id!,
            String(
              (JSON.parse(e.taskScheduledEventDetails.parameters ?? '{}') as { FunctionName?: string }).FunctionName,
            ),
          );
        }
        if (e.type === 'TaskSucceeded' && e.taskSucceededEventDetails?.resourceType === 'lambda') {
          let id = e.previousEventId!;
          while (id > 0 && !scheduled.has(id)) id = events.find((x) => x.id === id)?.previousEventId ?? 0;
          // A callback task's output is what SendTaskSuccess sent: its version is the one the definition pins.
          const executed = (JSON.parse(e.taskSucceededEventDetails.output ?? '{}') as { ExecutedVersion?: string })
            .ExecutedVersion;
          const [name, qualifier] = (scheduled.get(id) ?? '?').split(':').slice(6);
          const key = `${name}:${executed ?? qualifier ?? '$LATEST'}`;
          perLambda[key] = (perLambda[key] ?? 0) + 1;
        }
      }
      // The outbox keeps one email per idempotency key: a welcome sent twice would be the same entry.
      const email = await outbox.read(`${run.siteId}:welcome`);
      if (!email) problems.push(`${run.siteId}: 0 welcome emails`);
      else {
        const v2 = email.body.includes(V2_FOOTER);
        const subjectV2 = email.subject.startsWith(V2_SUBJECT_PREFIX);
        if (era === 'before' && (v2 || subjectV2))
          problems.push(
            `${run.siteId} started before the deploy but sent the new email (${email.subject} / v2 code ${v2})`,
          );
        if (era === 'after' && !(v2 && subjectV2))
          problems.push(
            `${run.siteId} started after the deploy but sent the old email (${email.subject} / v2 code ${v2})`,
          );
      }
    };
    const closeAndCheck = async (run: Run) =>
      check(
        run,
        await waitFor(
          `${run.siteId} to finish`,
          async () => {
            const d = await sfnClient.send(new DescribeExecutionCommand({ executionArn: run.executionArn }));
            return d.status === 'RUNNING' ? undefined : d;
          },
          10 * 60_000,
        ),
      );

    // Approved a wave at a time, each wave's runs finishing (and checked) before the next is approved (as starts, above).
    const links = [...beforeLinks, ...afterLinks];
    const runs: Run[] = [
      ...before.map((r) => ({ ...r, era: 'before' as const })),
      ...after.map((r) => ({ ...r, era: 'after' as const })),
    ];
    for (let wave = 0; wave < links.length; wave += waveSize) {
      await pool(links.slice(wave, wave + waveSize), concurrency, (url) =>
        submitApprovalDecision(url, { approve: true, comment: 'rehearsal' }),
      );
      if (!options.virtualClock) await pool(runs.slice(wave, wave + waveSize), concurrency, closeAndCheck);
    }
    log(`${links.length} approvals sent`);

    // On a virtual clock, engine time moves on while the runs finish: retry backoff takes no wall time.
    if (options.virtualClock) {
      let finishing = true;
      const ticker = (async () => {
        while (finishing) {
          await engineRoute(`${engine.url}${CLOCK_ROUTE}/advance`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ seconds: 60 }),
          });
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      try {
        await pool(runs, concurrency, closeAndCheck);
      } finally {
        finishing = false;
        await ticker;
      }
    }
    log(`${runs.length} runs closed and checked`);
    if (firstVersion.get('before') !== undefined && firstVersion.get('before') === firstVersion.get('after')) {
      problems.push(
        `runs before and after the deploy ran on the same version ${firstVersion.get('before')}: the deploy published nothing`,
      );
    }
    return {
      runsInFlightAtDeploy: before.length,
      deployMillis,
      assemblies: { before: assemblyBefore, after: deployed.assemblyId },
      failedPerError: perError,
      finishedPerStateMachineVersion: perVersion,
      invocationsPerLambdaVersion: perLambda,
      problems,
    };
  } finally {
    sfnClient.destroy();
  }
}
