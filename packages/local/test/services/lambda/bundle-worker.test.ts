import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BundleWorker, SANDBOX_YOUNG_GENERATION_MB } from '../../../src/services/lambda/bundle-worker';
import { InProcessLambdaRunner, type LambdaContext } from '../../../src/services/lambda/lambda-runner';

const dir = mkdtempSync(join(tmpdir(), 'autosave-bundle-worker-'));
// A bundle whose slow invocation acts (writes a file) after its timeout, and which counts its invocations
// per sandbox: a fresh sandbox starts again at 1.
writeFileSync(
  join(dir, 'index.mjs'),
  `import { writeFileSync } from 'node:fs';
let invocations = 0;
export const handler = async (event) => {
  invocations++;
  if (event.slowMillis) {
    await new Promise((resolve) => setTimeout(resolve, event.slowMillis));
    writeFileSync(event.marker, 'acted');
  }
  return { invocations };
};
`,
);

// A bundle that answers with the V8 heap limits its sandbox runs under.
writeFileSync(
  join(dir, 'limits.mjs'),
  `import { resourceLimits } from 'node:worker_threads';\nexport const handler = async () => resourceLimits;\n`,
);

const worker = new BundleWorker({ codeDirectory: dir, handler: 'index.handler', environment: {} });
const runner = new InProcessLambdaRunner({
  functions: [
    { name: 'bundle', load: () => worker.handler, init: worker.init, timeoutSeconds: 0.3 },
    // The same sandbox under a function that may run longer.
    { name: 'bundle-long', load: () => worker.handler, init: worker.init, timeoutSeconds: 30 },
  ],
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

afterAll(async () => {
  await worker.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('BundleWorker', () => {
  it("keeps each sandbox's young generation small and its old generation at the function's memory size", async () => {
    const limited = new BundleWorker({ codeDirectory: dir, handler: 'limits.handler', environment: {}, memoryMb: 256 });
    try {
      const limits = (await limited.handler(
        {},
        { getRemainingTimeInMillis: () => 10_000 } as unknown as LambdaContext,
        () => undefined,
      )) as Record<string, number>;
      expect(limits.maxYoungGenerationSizeMb).toBeLessThanOrEqual(SANDBOX_YOUNG_GENERATION_MB);
      expect(limits.maxOldGenerationSizeMb).toBe(256);
    } finally {
      await limited.stop();
    }
  });

  it('stops a sandbox left idle, as Lambda shuts down unused execution environments: the next invocation is a cold start', async () => {
    const idle = new BundleWorker({
      codeDirectory: dir,
      handler: 'index.handler',
      environment: {},
      idleStopMillis: 300,
    });
    const context = { getRemainingTimeInMillis: () => 10_000 } as unknown as LambdaContext;
    try {
      expect(await idle.handler({}, context, () => undefined)).toEqual({ invocations: 1 });
      expect(await idle.handler({}, context, () => undefined)).toEqual({ invocations: 2 });
      await sleep(1_000);
      expect(await idle.handler({}, context, () => undefined)).toEqual({ invocations: 1 });
    } finally {
      await idle.stop();
    }
  });

  it('runs invocations in one warm sandbox', async () => {
    expect((await runner.invoke({ functionName: 'bundle', payload: {} })).payload).toEqual({ invocations: 1 });
    expect((await runner.invoke({ functionName: 'bundle', payload: {} })).payload).toEqual({ invocations: 2 });
  });

  it('stops a sandbox whose invocation outlived its timeout, as Lambda does: nothing it was doing runs on', async () => {
    const marker = join(dir, 'slow');
    const timedOut = await runner.invoke({ functionName: 'bundle', payload: { slowMillis: 1_000, marker } });
    expect(timedOut.payload).toMatchObject({ errorType: 'Sandbox.Timedout' });
    // The next invocation is a cold start in a fresh sandbox.
    expect((await runner.invoke({ functionName: 'bundle', payload: {} })).payload).toEqual({ invocations: 1 });
    await sleep(1_500);
    expect(existsSync(marker)).toBe(false);
  });

  it('never hands a new invocation to a sandbox whose invocation is past its deadline, even before its timer fired', async () => {
    const marker = join(dir, 'slow-3');
    const late = { getRemainingTimeInMillis: () => 50 } as unknown as LambdaContext;
    const slow = worker.handler({ slowMillis: 1_000, marker }, late, () => undefined) as Promise<unknown>;
    slow.catch(() => undefined);
    // The event loop is held past the deadline, so no timer could run: as when the runner's timeout wins the tie.
    const until = Date.now() + 100;
    while (Date.now() < until);
    const next = worker.handler(
      {},
      { getRemainingTimeInMillis: () => 5_000 } as unknown as LambdaContext,
      () => undefined,
    );
    expect(await next).toEqual({ invocations: 1 });
    await sleep(1_300);
    expect(existsSync(marker)).toBe(false);
  });

  it('lets the other invocations of a timed-out sandbox finish before stopping it', async () => {
    const slowMarker = join(dir, 'slow-2');
    const siblingMarker = join(dir, 'sibling');
    const slow = runner.invoke({ functionName: 'bundle', payload: { slowMillis: 2_000, marker: slowMarker } });
    await sleep(100);
    // Still running when the slow one times out, and well within its own timeout.
    const sibling = runner.invoke({
      functionName: 'bundle-long',
      payload: { slowMillis: 1_000, marker: siblingMarker },
    });
    expect((await slow).payload).toMatchObject({ errorType: 'Sandbox.Timedout' });
    expect((await sibling).functionError).toBeUndefined();
    expect(existsSync(siblingMarker)).toBe(true);
    await sleep(1_500);
    expect(existsSync(slowMarker)).toBe(false);
  });
});
