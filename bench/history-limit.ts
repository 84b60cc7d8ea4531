/**
 * A run at AWS's history limit (25,000 events) carrying `--kb` KB of state (default 100) in every state's
 * input and output: it fails at the limit as AWS fails it, closes (its history packed in bounded
 * segments), pages through GetExecutionHistory, and the engine's memory stays bounded meanwhile.
 * Prints the figures: events, seconds, the engine process's peak RSS and heap, the file's size, and (run
 * with --expose-gc) the heap still held after a full GC as the history grows: bounded memory means that
 * figure stays flat from 5,000 to 25,000 events (peak heap alone measures how late V8 collects garbage).
 *
 *   node --expose-gc --import tsx bench/history-limit.ts [--kb 100] [--page 100] [--reverse]
 *   node --expose-gc --max-old-space-size=128 --import tsx bench/history-limit.ts   (proves the bound)
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '@autosave/engine';
import { ENGINE_DB_FILE } from '@autosave/engine/store';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const kb = arg('kb', 100);
const dataDir = await mkdtemp(join(tmpdir(), 'autosave-history-limit-'));
const engine = new Engine({ dataDir, invokeLambda: async () => ({ payload: null, executedVersion: '$LATEST' }) });
await engine.start();

let peakRss = 0;
let peakHeap = 0;
const sample = () => {
  const m = process.memoryUsage();
  peakRss = Math.max(peakRss, m.rss);
  peakHeap = Math.max(peakHeap, m.heapUsed);
};
const sampler = setInterval(sample, 50);

// Heap held after a full GC, by how many events the history holds (only with --expose-gc).
const gc = (globalThis as { gc?: () => void }).gc;
const retained: { events: number; heap: number }[] = [];
// eslint-disable-next-line prefer-const -- the sampler above reads it before the run starts
let executionArn: string | undefined;
const retainedSampler = setInterval(async () => {
  if (!gc || !executionArn) return;
  const [latest] = (
    (await engine.handle('GetExecutionHistory', { executionArn, reverseOrder: true, maxResults: 1 })) as {
      events: { id: number }[];
    }
  ).events;
  gc();
  retained.push({ events: latest?.id ?? 0, heap: process.memoryUsage().heapUsed });
}, 2_000);

// Four events a turn (Pass and Choice, entered and exited), each carrying the state; the loop never ends
// by itself, so the run reaches the limit.
const definition = {
  StartAt: 'Turn',
  States: {
    Turn: { Type: 'Pass', Parameters: { 'i.$': 'States.MathAdd($.i, 1)', 'blob.$': '$.blob' }, Next: 'More' },
    More: {
      Type: 'Choice',
      Choices: [{ Variable: '$.i', NumericGreaterThanEquals: 0, Next: 'Turn' }],
      Default: 'Done',
    },
    Done: { Type: 'Succeed' },
  },
};
const started = Date.now();
const { stateMachineArn } = (await engine.handle('CreateStateMachine', {
  name: 'history-limit',
  definition: JSON.stringify(definition),
  roleArn: 'arn:aws:iam::123456789012:role/x',
})) as { stateMachineArn: string };
executionArn = (
  (await engine.handle('StartExecution', {
    stateMachineArn,
    input: JSON.stringify({ i: 0, blob: 'x'.repeat(kb * 1000) }),
  })) as { executionArn: string }
).executionArn;
let described: { status: string; error?: string; cause?: string };
do {
  await engine.whenIdle();
  described = (await engine.handle('DescribeExecution', { executionArn })) as typeof described;
} while (described.status === 'RUNNING');
clearInterval(retainedSampler);
const closedSeconds = (Date.now() - started) / 1000;
const runPeak = { rss: peakRss, heap: peakHeap };
peakRss = 0;
peakHeap = 0;
const pageSize = arg('page', 100);
const reverseOrder = process.argv.includes('--reverse');

let events = 0;
let nextToken: string | undefined;
const pagingStarted = Date.now();
do {
  const page = (await engine.handle('GetExecutionHistory', {
    executionArn,
    maxResults: pageSize,
    reverseOrder,
    ...(nextToken ? { nextToken } : {}),
  })) as { events: unknown[]; nextToken?: string };
  events += page.events.length;
  nextToken = page.nextToken;
  sample();
} while (nextToken);
const pagingSeconds = (Date.now() - pagingStarted) / 1000;
clearInterval(sampler);
sample();
const fileBytes = (await stat(join(dataDir, 'engine', ENGINE_DB_FILE)).catch(() => stat(join(dataDir, ENGINE_DB_FILE))))
  .size;
await engine.stop();
await rm(dataDir, { recursive: true, force: true });

const mb = (n: number) => `${Math.round(n / 1e6)} MB`;
console.log(`state ${kb} KB; status ${described.status} (${described.error ?? ''}: ${described.cause ?? ''})`);
console.log(
  `events paged: ${events}; to close: ${closedSeconds.toFixed(1)} s; paging all: ${pagingSeconds.toFixed(1)} s`,
);
console.log(
  `running to the limit: peak RSS ${mb(runPeak.rss)}, peak heap ${mb(runPeak.heap)}; paging ${pageSize} at a time${reverseOrder ? ' (reverse order)' : ''}: peak RSS ${mb(peakRss)}, peak heap ${mb(peakHeap)}; file ${mb(fileBytes)}`,
);
if (retained.length > 0) {
  const marks = [5_000, 10_000, 15_000, 20_000, 24_000]
    .map((n) => retained.find((r) => r.events >= n))
    .filter((r) => r !== undefined);
  console.log(
    `heap retained after a full GC, by history length: ${marks.map((r) => `${r.events} events ${mb(r.heap)}`).join(', ')}`,
  );
} else if (!gc) {
  console.log('(run with node --expose-gc for the heap retained as the history grows)');
}
