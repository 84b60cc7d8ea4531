/**
 * `npm run bench:profile`: where a sequential run's time goes in our engine, in process. Runs the
 * seven-step workload one run at a time under the V8 CPU profiler and prints the functions with the
 * most self time, then what runs per transition besides the commit: SQL statements, JSON
 * parses/stringifies (and their bytes) and fsync'd commits, and the pages each kind of transition writes
 * (bench/page-breakdown.ts). Counts are exact; times are the profiler's.
 */
import Database from 'better-sqlite3';
import { Session } from 'node:inspector/promises';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine, type ExecutionStatusChangeEvent } from '@autosave/engine';
import { InProcessLambdaRunner } from '../packages/local/src/services/lambda/lambda-runner';
import { pageBreakdown } from './page-breakdown';
import {
  IN_FLIGHT,
  PAGE_SAMPLE_RUNS,
  SEQUENTIAL_RUNS,
  STEP_FUNCTION_NAME,
  STEPS,
  sevenStepDefinition,
  stepFunction,
} from './workload';

/** Transitions of one run of the workload: the start, then each Task's outcome. */
const TRANSITIONS_PER_RUN = STEPS + 1;

interface Counts {
  sql: number;
  parse: number;
  parseBytes: number;
  stringify: number;
  stringifyBytes: number;
}

function instrument(): { counts: Counts; reset(): void } {
  const counts: Counts = { sql: 0, parse: 0, parseBytes: 0, stringify: 0, stringifyBytes: 0 };
  const statement = Object.getPrototypeOf(new Database(':memory:').prepare('SELECT 1')) as Record<
    string,
    (...a: unknown[]) => unknown
  >;
  for (const method of ['run', 'get', 'all', 'iterate']) {
    const original = statement[method];
    statement[method] = function counted(this: unknown, ...args: unknown[]) {
      counts.sql += 1;
      return original.apply(this, args);
    };
  }
  const { parse, stringify } = JSON;
  JSON.parse = ((text: string, reviver?: never) => {
    counts.parse += 1;
    counts.parseBytes += text?.length ?? 0;
    return parse(text, reviver);
  }) as typeof JSON.parse;
  JSON.stringify = ((value: unknown, replacer?: never, space?: never) => {
    const out = stringify(value, replacer, space);
    counts.stringify += 1;
    counts.stringifyBytes += out?.length ?? 0;
    return out;
  }) as typeof JSON.stringify;
  return {
    counts,
    reset: () => Object.assign(counts, { sql: 0, parse: 0, parseBytes: 0, stringify: 0, stringifyBytes: 0 }),
  };
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
}

/** Self time per function (by name and file:line), largest first. */
function topFunctions(
  profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] },
  count: number,
): { name: string; share: number }[] {
  const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const node = byNode.get(id)!;
    const dt = profile.timeDeltas[i] ?? 0;
    const f = node.callFrame;
    const file = f.url.replace(/^.*\/(node_modules\/|local\/|bench\/|lib\/)/, '$1');
    const key = `${f.functionName || '(anonymous)'} ${file ? `${file}:${f.lineNumber + 1}` : ''}`.trim();
    self.set(key, (self.get(key) ?? 0) + dt);
    total += dt;
  });
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, t]) => ({ name, share: t / total }));
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'autosave-bench-profile-'));
  const { counts, reset } = instrument();
  const waiting = new Map<string, () => void>();
  const lambdas = new InProcessLambdaRunner({
    functions: [{ name: STEP_FUNCTION_NAME, load: () => stepFunction, timeoutSeconds: 30 }],
  });
  const engine = new Engine({
    dataDir: dir,
    invokeLambda: lambdas.invoke,
    closedStatuses: ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED'],
    onExecutionClosed: async (e: ExecutionStatusChangeEvent) => waiting.get(e.detail.executionArn)?.(),
  });
  await engine.start();
  const { stateMachineArn } = (await engine.handle('CreateStateMachine', {
    name: 'seven',
    definition: JSON.stringify(sevenStepDefinition()),
    roleArn: 'arn:aws:iam::123456789012:role/bench',
  })) as { stateMachineArn: string };
  const run = async (name: string) => {
    const arn = `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;
    const closed = new Promise<void>((resolve) => waiting.set(arn, resolve));
    await engine.handle('StartExecution', { stateMachineArn, name, input: JSON.stringify({ runId: name }) });
    await closed;
  };
  for (let r = 0; r < 100; r += 1) await run(`warm-${r}`);
  const pages = await pageBreakdown(engine, run, PAGE_SAMPLE_RUNS, 300, IN_FLIGHT);

  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  const commitsBefore = engine.commitStats.commits;
  reset();
  await session.post('Profiler.start');
  const t = performance.now();
  for (let r = 0; r < SEQUENTIAL_RUNS; r += 1) await run(`run-${r}`);
  const ms = performance.now() - t;
  const { profile } = await session.post('Profiler.stop');
  const snapshot = { ...counts };
  const commits = engine.commitStats.commits - commitsBefore;
  await engine.stop();
  if (process.env.BENCH_PROFILE_FILE) await writeFile(process.env.BENCH_PROFILE_FILE, JSON.stringify(profile));
  await rm(dir, { recursive: true, force: true });

  const transitions = SEQUENTIAL_RUNS * TRANSITIONS_PER_RUN;
  const per = (n: number) => (n / transitions).toFixed(1);
  console.log(
    `${SEQUENTIAL_RUNS} sequential runs in ${ms.toFixed(0)} ms: ${(ms / (SEQUENTIAL_RUNS * STEPS)).toFixed(3)} ms per step (profiler on).`,
  );
  console.log(
    `Per transition (${TRANSITIONS_PER_RUN} per run): ${per(snapshot.sql)} SQL statements, ${per(snapshot.parse)} JSON.parse (${per(snapshot.parseBytes)} chars), ` +
      `${per(snapshot.stringify)} JSON.stringify (${per(snapshot.stringifyBytes)} chars), ${per(commits)} fsync'd commits.`,
  );
  for (const l of pages) console.log(l);
  console.log('Top self time (CPU profile of the sequential path):');
  for (const f of topFunctions(profile as never, 25))
    console.log(`  ${(f.share * 100).toFixed(1).padStart(5)}%  ${f.name}`);
}

await main();
