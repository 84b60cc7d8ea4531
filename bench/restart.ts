/**
 * A restart after `kill -9`, measured from outside as a supervisor sees it: `autosave local` on a store,
 * {@link KILLED_IN_FLIGHT_RUNS} runs of the seven-step workload held at step 4 when it is SIGKILLed, then a
 * new process on the same port and data directory. Two figures, from the spawn: until the Step Functions
 * API answers (ListStateMachines), and until every run caught in flight is SUCCEEDED. Also the modules the
 * new process loaded before the API answered (`node --import` of the module-trace hook the restart test uses).
 * `npm run bench:restart -- --data <dir>` runs it alone on a store (a copy of it: the store is not changed).
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  CreateStateMachineCommand,
  ListExecutionsCommand,
  ListStateMachinesCommand,
  SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { build } from 'esbuild';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '@autosave/workflow/config';
import { spawnEngine } from '../scripts/engine-process';
import { ENGINE_BIN } from './engine-bin';
import { STOP_WITH_PARENT_ENV } from '../packages/local/src/cli/parent-watch';
import { STEP_FUNCTIONS_ANSWERING } from '@autosave/local';
import { KILLED_IN_FLIGHT_RUNS, median, runWithConcurrency, secondsSince, sevenStepDefinition } from './workload';

const FUNCTIONS_SOURCE = fileURLToPath(new URL('./bench-functions.ts', import.meta.url));
const TRACE_HOOK = fileURLToPath(new URL('../test/integration/crash/fixtures/module-trace.mjs', import.meta.url));
const ROLE = 'arn:aws:iam::123456789012:role/bench';
const fnArn = (name: string) => `arn:aws:lambda:us-east-1:123456789012:function:${name}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The bench's functions as the JavaScript module a user would hand `--functions` (esbuild, as the CLI's own
 * handlers are bundled): a TypeScript module would load tsx into the engine process, which is not the
 * engine's cost.
 */
export async function javascriptFunctionsModule(dir: string): Promise<string> {
  const outfile = join(dir, 'bench-functions.mjs');
  await build({
    entryPoints: [FUNCTIONS_SOURCE],
    bundle: true,
    format: 'esm',
    platform: 'node',
    packages: 'external',
    outfile,
    logLevel: 'error',
  });
  return outfile;
}

/** What one restart measured. */
export interface RestartTimings {
  /** Spawn to the first answered ListStateMachines. */
  readonly apiSeconds: number;
  /** Spawn to every run caught in flight SUCCEEDED. */
  readonly doneSeconds: number;
  readonly runsCaught: number;
}

/** The restart figures the bench reports: timings, and what the start loads and costs before our code. */
export interface RestartFigures extends RestartTimings {
  /** Modules the new process loaded before its Step Functions API answered. */
  readonly modulesBeforeAnswer: number;
  /** Each restart's figures, when the figures above are the medians of several. */
  readonly samples?: readonly { apiSeconds: number; doneSeconds: number }[];
  /** Node's own start in the restart's environment ({@link nodeStartSeconds}): the part of {@link apiSeconds} before any of ours. */
  readonly nodeStart: NodeStart;
}

/** Node's own start here: `node -e 0` from spawn to exit, the median of {@link NODE_START_SAMPLES}. */
export interface NodeStart {
  /** In the environment the restarted engine gets. */
  readonly seconds: number;
  /**
   * The same without `NODE_EXTRA_CA_CERTS`, when the environment sets it (undefined when it does not): Node 20
   * reads and parses the file at every start, before any script, and some machines (this one) set it for all.
   */
  readonly withoutExtraCaCertsSeconds?: number;
}

const NODE_START_SAMPLES = 5;

/** Seconds from spawn to exit of `node -e 0` in `env`, the median of {@link NODE_START_SAMPLES}. */
async function emptyNodeSeconds(env: NodeJS.ProcessEnv): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < NODE_START_SAMPLES; i += 1) {
    const t = performance.now();
    const child = spawn(process.execPath, ['-e', '0'], { env, stdio: 'ignore' });
    await new Promise((resolve) => child.once('exit', resolve));
    samples.push(secondsSince(t));
  }
  return median(samples);
}

/** What Node's own start costs in the restart's environment (see {@link NodeStart}). */
export async function nodeStartSeconds(): Promise<NodeStart> {
  const { NODE_EXTRA_CA_CERTS: extraCaCerts, ...withoutExtraCaCerts } = process.env;
  return {
    seconds: await emptyNodeSeconds(process.env),
    ...(extraCaCerts ? { withoutExtraCaCertsSeconds: await emptyNodeSeconds(withoutExtraCaCerts) } : {}),
  };
}

/** Resolves once `file` has `count` lines (what the bench's functions signal). */
export async function waitForLines(file: string, count: number): Promise<void> {
  while (!existsSync(file) || readFileSync(file, 'utf8').split('\n').length - 1 < count) await sleep(20);
}

/** Modules loaded before the answering line, from the module-trace file. */
function modulesBefore(trace: string): number {
  const lines = existsSync(trace) ? readFileSync(trace, 'utf8').split('\n') : [];
  const answering = lines.findIndex((l) => l.startsWith(`line ${STEP_FUNCTIONS_ANSWERING}`));
  return new Set(lines.slice(0, answering < 0 ? lines.length : answering).filter((l) => l.startsWith('load '))).size;
}

/**
 * Starts `autosave local` on `dataDir` (its `engine/` store may hold closed runs already), starts
 * {@link KILLED_IN_FLIGHT_RUNS} runs held at step 4, SIGKILLs it and measures the restart. The engine runs in
 * `cwd` (a directory without autosave.config.ts: the bench's functions only).
 */
export async function measureRestart(options: {
  dataDir: string;
  functionsModule: string;
  cwd: string;
  /** Which restart on this store (its runs go to a state machine of their own). @default 0 */
  repeat?: number;
  /** The `autosave` executable, both before the kill and after it. @default {@link ENGINE_BIN} */
  bin?: string;
}): Promise<RestartTimings> {
  const bin = options.bin ?? ENGINE_BIN;
  const signalFile = join(options.cwd, 'restart-signals.txt');
  const engine = await spawnEngine({
    bin,
    dataDir: options.dataDir,
    functionsModule: options.functionsModule,
    cwd: options.cwd,
    env: { BENCH_SIGNAL_FILE: signalFile, BENCH_SLOW_STEP_MILLIS: '60000' },
  });
  const sfn = new SFNClient({ endpoint: engine.url, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  const { stateMachineArn } = await sfn.send(
    new CreateStateMachineCommand({
      name: `bench-restart${options.repeat ? `-${options.repeat}` : ''}`,
      definition: JSON.stringify(sevenStepDefinition(fnArn('bench-slow-step'))),
      roleArn: ROLE,
    }),
  );
  await runWithConcurrency(KILLED_IN_FLIGHT_RUNS, KILLED_IN_FLIGHT_RUNS, (r) =>
    sfn.send(
      new StartExecutionCommand({ stateMachineArn, name: `k-${r}`, input: JSON.stringify({ runId: `k-${r}` }) }),
    ),
  );
  await waitForLines(signalFile, KILLED_IN_FLIGHT_RUNS);
  sfn.destroy();
  const port = engine.port;
  process.kill(engine.pid, 'SIGKILL');
  await engine.exited;

  const t = performance.now();
  const child = spawn(
    process.execPath,
    [bin, 'local', '--port', String(port), '--data', options.dataDir, '--functions', options.functionsModule],
    {
      cwd: options.cwd,
      stdio: ['ignore', 'ignore', 'inherit'],
      // BENCH_ENGINE_NODE_OPTIONS reaches the restarted process only (e.g. a CPU profile's --import hook).
      env: {
        ...process.env,
        BENCH_SLOW_STEP_MILLIS: '0',
        [STOP_WITH_PARENT_ENV]: '1',
        ...(process.env.BENCH_ENGINE_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_ENGINE_NODE_OPTIONS } : {}),
      },
    },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const client = new SFNClient({
    endpoint: `http://127.0.0.1:${port}`,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    maxAttempts: 1,
  });
  try {
    for (;;) {
      try {
        await client.send(new ListStateMachinesCommand({ maxResults: 1 }));
        break;
      } catch {
        await sleep(2); // refused (not listening yet) or 503 (starting)
      }
    }
    const apiSeconds = secondsSince(t);
    for (;;) {
      const open = await client.send(
        new ListExecutionsCommand({ stateMachineArn, statusFilter: 'RUNNING', maxResults: 1 }),
      );
      if ((open.executions ?? []).length === 0) break;
      await sleep(2);
    }
    const doneSeconds = secondsSince(t);
    const done = await client.send(
      new ListExecutionsCommand({ stateMachineArn, statusFilter: 'SUCCEEDED', maxResults: 1000 }),
    );
    if ((done.executions ?? []).length !== KILLED_IN_FLIGHT_RUNS)
      throw new Error(`after the restart ${done.executions?.length} of ${KILLED_IN_FLIGHT_RUNS} runs succeeded`);
    client.destroy();
    child.kill('SIGTERM');
    await exited;
    return {
      apiSeconds,
      doneSeconds,
      runsCaught: KILLED_IN_FLIGHT_RUNS,
    };
  } finally {
    client.destroy();
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  }
}

/** What a restart's figures say of its start beside the timings (once per store: neither depends on the restart). */
export async function whatTheStartLoads(options: {
  dataDir: string;
  functionsModule: string;
  cwd: string;
}): Promise<Pick<RestartFigures, 'modulesBeforeAnswer' | 'nodeStart'>> {
  return { modulesBeforeAnswer: await modulesLoadedBeforeAnswer(options), nodeStart: await nodeStartSeconds() };
}

/**
 * One more (untimed) restart on the same store with the module-trace hook (`node --import`, which slows
 * every module load, so not in the timed one): the modules loaded before the Step Functions API answered.
 */
async function modulesLoadedBeforeAnswer(options: {
  dataDir: string;
  functionsModule: string;
  cwd: string;
}): Promise<number> {
  const trace = join(options.cwd, 'restart-modules.txt');
  const engine = await spawnEngine({
    bin: ENGINE_BIN,
    dataDir: options.dataDir,
    functionsModule: options.functionsModule,
    cwd: options.cwd,
    env: { NODE_OPTIONS: `--import=${TRACE_HOOK}`, MODULE_TRACE_FILE: trace },
  });
  await engine.stop();
  return modulesBefore(trace);
}

/** Node's own start, as the bench prints it. */
export function describeNodeStart(start: NodeStart): string {
  return (
    `Node's own start here ${start.seconds.toFixed(3)} s (\`node -e 0\`, spawn to exit, same environment)` +
    (start.withoutExtraCaCertsSeconds === undefined
      ? ''
      : `, ${start.withoutExtraCaCertsSeconds.toFixed(3)} s without the NODE_EXTRA_CA_CERTS this environment sets (Node 20 parses that file at every start)`)
  );
}

/** `npm run bench:restart -- --data <dir> [--repeats 3]`: the restart figures on a copy of a data directory. */
async function main(): Promise<void> {
  const { values } = parseArgs({ options: { data: { type: 'string' }, repeats: { type: 'string', default: '3' } } });
  for (let i = 0; i < Number(values.repeats); i += 1) {
    const dir = await mkdtemp(join(tmpdir(), 'autosave-bench-restart-'));
    try {
      const dataDir = join(dir, 'data');
      if (values.data) await cp(values.data, dataDir, { recursive: true });
      const options = { dataDir, functionsModule: await javascriptFunctionsModule(dir), cwd: dir };
      const f = { ...(await measureRestart(options)), ...(await whatTheStartLoads(options)) };
      console.log(
        `restart ${i + 1}: API answers ${f.apiSeconds.toFixed(3)} s, ${f.runsCaught} runs caught in flight done ${f.doneSeconds.toFixed(3)} s, ${f.modulesBeforeAnswer} modules loaded before the answer; ${describeNodeStart(f.nodeStart)}`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
