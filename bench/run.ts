/**
 * `npm run bench`: the seven-step workload on our engine (durable: synchronous=FULL), on the floor of any
 * durable checkpoint (a bare SQLite insert per step with fsync), and on aws-local-stepfunctions
 * (in memory). Each part runs in its own process so peak RSS is its own. Prints one table.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CONCURRENT_RUNS, IN_FLIGHT, PAUSED_RUNS, SEQUENTIAL_RUNS, STEPS, type WorkloadFigures } from './workload';

const PARTS = {
  autosave: async () => (await import('./autosave-engine')).measureAutosave(),
  floor: async () => (await import('./floor-sqlite')).measureFloor(),
  reference: async () => (await import('./reference-aws-local-stepfunctions')).measureReference(),
} as const;
type Part = keyof typeof PARTS;
const RESULT_PREFIX = 'BENCH_RESULT ';

/** Runs one part in a child process (with --expose-gc) and reads its figures. */
function runPart(part: Part): Promise<WorkloadFigures> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', fileURLToPath(import.meta.url), '--part', part], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith(RESULT_PREFIX));
      if (code !== 0 || !line) reject(new Error(`bench part ${part} failed (exit ${code}):\n${out}`));
      else resolve(JSON.parse(line.slice(RESULT_PREFIX.length)) as WorkloadFigures);
    });
  });
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
const runsPerSecond = (x: { runs: number; seconds: number }) => x.runs / x.seconds;
const msPerStep = (x: { runs: number; seconds: number }) => (x.seconds * 1000) / (x.runs * STEPS);

function table(rows: string[][]): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  return rows.map((r, i) => {
    const line = r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('   ');
    return i === 0 ? `${line}\n${widths.map((w) => '-'.repeat(w)).join('   ')}` : line;
  }).join('\n');
}

async function main(): Promise<void> {
  const partIndex = process.argv.indexOf('--part');
  if (partIndex > 0) {
    const part = process.argv[partIndex + 1] as Part;
    const figures = await PARTS[part]();
    process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(figures)}\n`);
    return;
  }
  console.log(`Workload: ${STEPS} sequential Tasks, each returning ~200 bytes; ${SEQUENTIAL_RUNS} runs one after another, ${CONCURRENT_RUNS} runs ${IN_FLIGHT} in flight.`);
  // The floor runs before and after our engine and keeps the faster figures: the disk is shared, and a
  // floor measured in a slow moment would flatter us.
  const floorBefore = await runPart('floor');
  const autosave = await runPart('autosave');
  const floorAfter = await runPart('floor');
  const reference = await runPart('reference');
  const faster = (a: { seconds: number }, b: { seconds: number }) => (a.seconds <= b.seconds ? a : b);
  const floor: WorkloadFigures = {
    sequential: faster(floorBefore.sequential, floorAfter.sequential) as WorkloadFigures['sequential'],
    concurrent: faster(floorBefore.concurrent, floorAfter.concurrent) as WorkloadFigures['concurrent'],
    peakRssBytes: Math.max(floorBefore.peakRssBytes, floorAfter.peakRssBytes),
  };

  const ratio = (ours: number, theirs: number) => `${(ours / theirs).toFixed(2)}x`;
  const rows = [
    ['', 'autosave (durable)', 'floor: SQLite fsync/step', 'aws-local-stepfunctions', 'ours / floor', 'ours / reference'],
    ...(['sequential', 'concurrent'] as const).flatMap((k) => {
      const label = k === 'sequential' ? `${SEQUENTIAL_RUNS} runs, 1 at a time` : `${CONCURRENT_RUNS} runs, ${IN_FLIGHT} in flight`;
      return [
        [`${label}: runs/s`, ...[autosave, floor, reference].map((f) => runsPerSecond(f[k]).toFixed(1)),
          ratio(runsPerSecond(autosave[k]), runsPerSecond(floor[k])), ratio(runsPerSecond(autosave[k]), runsPerSecond(reference[k]))],
        [`${label}: ms/step`, ...[autosave, floor, reference].map((f) => msPerStep(f[k]).toFixed(3)),
          ratio(msPerStep(autosave[k]), msPerStep(floor[k])), ratio(msPerStep(autosave[k]), msPerStep(reference[k]))],
      ];
    }),
    ['peak RSS', ...[autosave, floor, reference].map((f) => mib(f.peakRssBytes)), '', ''],
  ];
  console.log(`\n${table(rows)}\n`);
  const p = autosave.paused!;
  console.log(`Autosave with ${PAUSED_RUNS.toLocaleString('en')} runs paused on task tokens: RSS ${mib(p.rssBytes)} (after GC).`);
  console.log(`Restart on that data: engine started (all ${PAUSED_RUNS.toLocaleString('en')} resumed and waiting) in ${(p.restartSeconds * 1000).toFixed(0)} ms; ` +
    `all of them completed by SendTaskSuccess ${p.resumeAllSeconds.toFixed(1)} s after the restart.`);
  for (const note of [...(autosave.notes ?? []).map((n) => `autosave: ${n}`), ...(reference.notes ?? []).map((n) => `aws-local-stepfunctions: ${n}`)]) console.log(note);
  console.log('Durability: every autosave transition is committed (WAL, synchronous=FULL) before it takes effect; ratios > 1x in ms/step mean slower.');
}

await main();
