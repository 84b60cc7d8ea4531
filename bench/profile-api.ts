/**
 * `npm run bench:profile-api`: where the engine's CPU goes on the API path as users drive it (issue 34). Starts
 * `autosave local` in the example app's folder (as the user-driven bench part does) with `--perf-basic-prof`,
 * drives the seven-step workload through `@aws-sdk/client-sfn` (StartExecution, then DescribeExecution polled 1 ms
 * doubling to 20 ms), and samples the engine process with Linux `perf` (every thread, kernel included): runs one at a
 * time, then 50 in flight. Prints the engine's CPU per run (/proc) and how it splits by what the samples' stacks
 * were doing. Needs `perf`; without it, says so and stops. `-- --floor` profiles the durable API floor
 * (bench/api-floor.ts) the same way instead, for the same split of what no engine can skip.
 *
 * JIT frames are named from the map V8 writes; a function compiled late may reuse an address of one collected
 * earlier, so a rare stack is misnamed. The split is by shares of samples, which is what matters here.
 */
import { SFNClient } from '@aws-sdk/client-sfn';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '@autosave/workflow/config';
import { spawnEngine } from '../scripts/engine-process';
import { EXAMPLE_APP_DIR, processCpuSeconds, userDrivenRuns } from './api-engine';
import { API_FLOOR_SERVER } from './api-floor';
import { startFloorProcess } from './http-floor';
import { javascriptFunctionsModule } from './restart';
import { IN_FLIGHT, runWithConcurrency } from './workload';

const WARMUP_RUNS = 300;
const PHASES = [
  { name: 'one at a time', runs: 600, inFlight: 1 },
  { name: `${IN_FLIGHT} in flight`, runs: 3_000, inFlight: IN_FLIGHT },
] as const;
/** Samples per second per CPU. */
const PERF_FREQUENCY = 1999;

/** What a sample was doing: the first category whose pattern any frame of its stack matches. */
const CATEGORIES: readonly (readonly [string, RegExp])[] = [
  ['garbage collection', /Scavenge|MarkCompact|ConcurrentMarking|Sweeper|Heap::|MinorMC|IncrementalMarking/],
  ['commit: fsync (kernel)', /sys_fsync|ext4_sync_file|vfs_fsync/],
  ['commit: history encoding and deflate', /historySegments|encodeEvent|packEncoded|ZlibContext/],
  ['commit: SQLite statements and the rest', /flushQueued|flushWhole|flushOne|sqliteTransaction/],
  ['API: StartExecution', /JS:\S?(StartExecution|startExecution) /],
  ['API: DescribeExecution', /JS:\S?(DescribeExecution|describeExecution) /],
  ['API: body, routing, JSON', /serveAwsJson/],
  [
    'HTTP (Node: parser, streams, sockets)',
    /_http_|parserOn|llhttp|onStreamRead|stream_base_commons|streams\/|writev|tcp_|sys_read|sys_write|epoll/,
  ],
  ['Lambda invocations', /invokeHere|invokeLambda/],
  [
    'executor (states, transitions)',
    /JS:\S?(onTaskOutcome|scheduleAttempt|drive|process|exit|route|launch|afterCommit) file:/,
  ],
  ['JIT compilation', /compiler::|Compile|Deoptimiz|Maglev|baseline::/],
  ['other kernel', /\[kernel/],
];

/** Shares of samples by category, from `perf script` text. */
function splitSamples(script: string): { samples: number; shares: Map<string, number> } {
  const counts = new Map<string, number>();
  let samples = 0;
  for (const block of script.split(/\n\s*\n/)) {
    const frames = block.split('\n').slice(1).join('\n');
    if (!frames.trim()) continue;
    samples += 1;
    const category = CATEGORIES.find(([, pattern]) => pattern.test(frames))?.[0] ?? 'other';
    counts.set(category, (counts.get(category) ?? 0) + 1);
  }
  return { samples, shares: new Map([...counts].map(([k, v]) => [k, v / samples])) };
}

async function main(): Promise<void> {
  if (spawnSync('perf', ['--version']).status !== 0) {
    console.log('bench:profile-api needs Linux perf (`perf` on the PATH); it is not here.');
    return;
  }
  const { values } = parseArgs({ options: { floor: { type: 'boolean', default: false } } });
  const dir = await mkdtemp(join(tmpdir(), 'autosave-profile-api-'));
  const functionsModule = await javascriptFunctionsModule(dir);
  const profiled = values.floor
    ? await startFloorProcess(['--perf-basic-prof', API_FLOOR_SERVER, join(dir, 'floor.db'), functionsModule])
    : await spawnEngine({
        dataDir: join(dir, 'data'),
        functionsModule,
        cwd: EXAMPLE_APP_DIR,
        nodeFlags: ['--perf-basic-prof'],
      });
  console.log(
    values.floor ? 'the durable API floor (bench/api-floor.ts)' : "`autosave local` in the example app's folder",
  );
  const sfn = new SFNClient({ endpoint: profiled.url, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  try {
    const { driver } = await userDrivenRuns(sfn);
    let next = 0;
    await runWithConcurrency(WARMUP_RUNS, IN_FLIGHT, () => driver.runToEnd((next += 1)));
    for (const phase of PHASES) {
      const data = join(dir, `perf-${phase.inFlight}.data`);
      const perfArgs = ['record', '-F', String(PERF_FREQUENCY), '-g', '-p', String(profiled.pid), '-o', data];
      const perf = spawn('perf', perfArgs, { stdio: 'ignore' });
      await new Promise((resolve) => setTimeout(resolve, 500)); // perf attaches
      const [cpuFrom, pollsFrom] = [processCpuSeconds(profiled.pid), driver.polls];
      await runWithConcurrency(phase.runs, phase.inFlight, () => driver.runToEnd((next += 1)));
      const cpuMsPerRun = ((processCpuSeconds(profiled.pid) - cpuFrom) * 1000) / phase.runs;
      const pollsPerRun = (driver.polls - pollsFrom) / phase.runs;
      perf.kill('SIGINT');
      await once(perf, 'exit');
      const script = spawnSync('perf', ['script', '-i', data], { maxBuffer: 2 ** 30, encoding: 'utf8' }).stdout;
      const { samples, shares } = splitSamples(script);
      console.log(
        `\n${phase.name}: ${phase.runs} runs, process CPU ${cpuMsPerRun.toFixed(2)} ms per run (/proc), ` +
          `${pollsPerRun.toFixed(1)} DescribeExecution polls per run; ${samples} samples`,
      );
      for (const [category, share] of [...shares].sort((a, b) => b[1] - a[1]))
        console.log(
          `  ${category.padEnd(42)} ${(share * 100).toFixed(1).padStart(5)}%  ${(share * cpuMsPerRun).toFixed(3)} ms/run`,
        );
    }
  } finally {
    sfn.destroy();
    await profiled.stop();
    await rm(dir, { recursive: true, force: true });
    await rm(`/tmp/perf-${profiled.pid}.map`, { force: true });
  }
}

await main();
