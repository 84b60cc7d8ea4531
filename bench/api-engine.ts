/**
 * Our engine as users run it: `autosave local` in its own process, driven through the Step Functions API
 * by `@aws-sdk/client-sfn` — StartExecution, then DescribeExecution polled until the run closes. Also the
 * engine process's own RSS (from /proc: the driver is not counted), the RSS with 10,000 runs paused on
 * task tokens, and a restart after SIGKILL with runs caught in flight.
 */
import {
  CreateStateMachineCommand, DescribeExecutionCommand, ListExecutionsCommand, ListStateMachinesCommand, SFNClient, StartExecutionCommand, StartSyncExecutionCommand,
} from '@aws-sdk/client-sfn';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn } from 'node:child_process';
import { build } from 'esbuild';
import { AUTOSAVE_BIN, spawnEngine, type EngineProcess } from '../packages/local/src/cli/demo/engine-process';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '@autosave/workflow/config';
import {
  IN_FLIGHT, KILLED_IN_FLIGHT_RUNS, measureWorkload, PAUSED_RUNS, pausedDefinition, peakRssBytes, runWithConcurrency, secondsSince,
  sevenStepDefinition, type WorkloadFigures,
} from './workload';

const FUNCTIONS_SOURCE = fileURLToPath(new URL('./bench-functions.ts', import.meta.url));

/**
 * The bench's functions as the JavaScript module a user would hand `--functions` (esbuild, as the CLI's own
 * handlers are bundled): a TypeScript module would load tsx into the engine process, which is not the
 * engine's cost.
 */
async function javascriptFunctionsModule(dir: string): Promise<string> {
  const outfile = join(dir, 'bench-functions.mjs');
  await build({ entryPoints: [FUNCTIONS_SOURCE], bundle: true, format: 'esm', platform: 'node', packages: 'external', outfile, logLevel: 'error' });
  return outfile;
}
const ROLE = 'arn:aws:iam::123456789012:role/bench';
const fnArn = (name: string) => `arn:aws:lambda:us-east-1:123456789012:function:${name}`;
/** Between two DescribeExecution polls of one run. */
export const POLL_INTERVAL_MILLIS = 1;

/** Resident set size of another process, bytes: `VmRSS` now, `VmHWM` its peak. */
function processRss(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitForLines(file: string, count: number): Promise<void> {
  while (!existsSync(file) || readFileSync(file, 'utf8').split('\n').length - 1 < count) await sleep(20);
}

export async function measureApi(): Promise<WorkloadFigures> {
  const dir = await mkdtemp(join(tmpdir(), 'autosave-bench-api-'));
  const signalFile = join(dir, 'signals.txt');
  let engine: EngineProcess | undefined;
  try {
    const FUNCTIONS_MODULE = await javascriptFunctionsModule(dir);
    engine = await spawnEngine({
      dataDir: join(dir, 'data'),
      functionsModule: FUNCTIONS_MODULE,
      env: { BENCH_SIGNAL_FILE: signalFile, BENCH_SLOW_STEP_MILLIS: '30000' },
    });
    // disableHostPrefix: the SDK sends StartSyncExecution to `sync-<host>` otherwise.
    const sfn = new SFNClient({ endpoint: engine.url, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, disableHostPrefix: true });
    const create = async (name: string, definition: object, type: 'STANDARD' | 'EXPRESS' = 'STANDARD') =>
      (await sfn.send(new CreateStateMachineCommand({ name, definition: JSON.stringify(definition), roleArn: ROLE, type }))).stateMachineArn!;
    const seven = await create('bench-seven', sevenStepDefinition(fnArn('bench-step')));
    const slow = await create('bench-seven-slow', sevenStepDefinition(fnArn('bench-slow-step')));
    const paused = await create('bench-paused', pausedDefinition());

    const runToEnd = async (r: number) => {
      const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn: seven, name: `run-${r}`, input: JSON.stringify({ runId: `run-${r}` }) }));
      for (;;) {
        const { status } = await sfn.send(new DescribeExecutionCommand({ executionArn }));
        if (status === 'SUCCEEDED') return;
        if (status !== 'RUNNING') throw new Error(`a benchmark run ended ${status}`);
        await sleep(POLL_INTERVAL_MILLIS);
      }
    };
    const figures = await measureWorkload(runToEnd);
    const underLoad = processRss(engine.pid).peak;

    const express = await create('bench-seven-express', sevenStepDefinition(fnArn('bench-step')), 'EXPRESS');
    const expressSync = await measureWorkload(async (r) => {
      const { status } = await sfn.send(new StartSyncExecutionCommand({ stateMachineArn: express, name: `x-${r}`, input: JSON.stringify({ runId: `x-${r}` }) }));
      if (status !== 'SUCCEEDED') throw new Error(`an express benchmark run ended ${status}`);
    });

    await runWithConcurrency(PAUSED_RUNS, IN_FLIGHT, (r) => sfn.send(new StartExecutionCommand({ stateMachineArn: paused, name: `p-${r}`, input: '{}' })));
    await waitForLines(signalFile, PAUSED_RUNS);
    await sleep(500); // let the last commits land and the heap settle
    const pausedRss = processRss(engine.pid);

    // Runs caught in flight: every one held at step 4 when the engine is killed.
    await rm(signalFile, { force: true });
    await runWithConcurrency(KILLED_IN_FLIGHT_RUNS, KILLED_IN_FLIGHT_RUNS, (r) =>
      sfn.send(new StartExecutionCommand({ stateMachineArn: slow, name: `k-${r}`, input: JSON.stringify({ runId: `k-${r}` }) })));
    await waitForLines(signalFile, KILLED_IN_FLIGHT_RUNS);
    const port = engine.port;
    process.kill(engine.pid, 'SIGKILL');
    await engine.exited;
    engine = undefined;

    const t = performance.now();
    const child = spawn(process.execPath, [AUTOSAVE_BIN, 'local', '--port', String(port), '--data', join(dir, 'data'), '--functions', FUNCTIONS_MODULE], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, BENCH_SLOW_STEP_MILLIS: '0' },
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const restartClient = new SFNClient({ endpoint: `http://127.0.0.1:${port}`, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, maxAttempts: 1 });
    for (;;) {
      try {
        await restartClient.send(new ListStateMachinesCommand({ maxResults: 1 }));
        break;
      } catch {
        await sleep(2); // refused (not listening yet) or 503 (starting)
      }
    }
    const apiSeconds = secondsSince(t);
    for (;;) {
      const open = await restartClient.send(new ListExecutionsCommand({ stateMachineArn: slow, statusFilter: 'RUNNING', maxResults: 1 }));
      if ((open.executions ?? []).length === 0) break;
      await sleep(2);
    }
    const doneSeconds = secondsSince(t);
    const done = await restartClient.send(new ListExecutionsCommand({ stateMachineArn: slow, statusFilter: 'SUCCEEDED', maxResults: 1000 }));
    if ((done.executions ?? []).length !== KILLED_IN_FLIGHT_RUNS) throw new Error(`after the restart ${done.executions?.length} of ${KILLED_IN_FLIGHT_RUNS} runs succeeded`);
    child.kill('SIGTERM');
    await exited;
    return {
      ...figures,
      expressSync,
      peakRssBytes: underLoad,
      paused: { runs: PAUSED_RUNS, rssBytes: pausedRss.rss, restartSeconds: apiSeconds, resumeAllSeconds: doneSeconds },
      notes: ['engine started as `autosave local --functions <bench functions as JavaScript>`', `driver process peak RSS ${(peakRssBytes() / 2 ** 20).toFixed(0)} MiB (not counted)`],
    };
  } finally {
    if (engine) await engine.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
