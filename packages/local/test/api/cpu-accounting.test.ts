/**
 * The benchmark's CPU accounting of the API path (AUTOSAVE_CPU_ACCOUNTING=1): a request is charged to its
 * operation only when it was alone in flight from arrival to answer, so the per-operation figures never
 * include another request's work; every request is counted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startLocalApiServer, type LocalApiServer } from '../../src/api/server';
import { CPU_ACCOUNTING_ROUTE, type CpuAccountingReport, withCpuAccounting } from '../../src/api/cpu-accounting';
import { eventually } from '../../../../test/fixtures/wait';

/** Burns `ms` of this process's CPU (by its CPU clock, not the wall's: a loaded machine deschedules us). */
const burn = (ms: number) => {
  const cpu = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  const until = cpu() + ms;
  while (cpu() < until);
};

describe('CPU accounting of the local API', () => {
  let api: LocalApiServer | undefined;
  afterEach(async () => api?.close());

  const call = (operation: string) =>
    fetch(api!.url, {
      method: 'POST',
      headers: { 'x-amz-target': `AWSStepFunctions.${operation}`, 'content-type': 'application/x-amz-json-1.0' },
      body: '{}',
    }).then((r) => r.text());

  it('charges an operation with the CPU of its calls alone in flight, and counts the overlapped ones', async () => {
    let slowRelease: (() => void) | undefined;
    api = await startLocalApiServer(
      withCpuAccounting(
        async (req, res) => {
          req.resume();
          if (req.headers['x-amz-target'] === 'AWSStepFunctions.Slow')
            await new Promise<void>((resolve) => (slowRelease = resolve));
          else burn(20);
          res.end('{}');
        },
        () => ({ commits: 3, flushMillis: 1.5 }),
      ),
      0,
    );
    await call('Busy');
    await call('Busy');
    // A Busy call while a Slow one is in flight: both overlapped, neither charged.
    const slow = call('Slow');
    while (!slowRelease) await new Promise((resolve) => setTimeout(resolve, 5));
    await call('Busy');
    slowRelease();
    await slow;
    const report = (await (await fetch(`${api.url}${CPU_ACCOUNTING_ROUTE}`)).json()) as CpuAccountingReport;
    expect(report.operations.Busy).toMatchObject({ calls: 3, aloneCalls: 2 });
    expect(report.operations.Busy.cpuMicros / 2).toBeGreaterThanOrEqual(20_000);
    expect(report.operations.Slow).toMatchObject({ calls: 1, aloneCalls: 0, cpuMicros: 0 });
    expect(report.commits).toEqual({ commits: 3, flushMillis: 1.5 });
    expect(report.processCpuMicros).toBeGreaterThan(report.operations.Busy.cpuMicros);
  });

  it("reports the collector's pauses of the engine's thread by kind", async () => {
    api = await startLocalApiServer(
      withCpuAccounting(async (req, res) => {
        req.resume();
        res.end('{}');
      }),
      0,
    );
    // Garbage that escapes (so the compiler cannot drop it), enough for scavenges: V8's young generation is a
    // few MB at most here.
    let held: { i: number; text: string }[] = [];
    for (let i = 0; i < 400_000; i += 1) {
      held.push({ i, text: `garbage ${i}` });
      if (held.length === 1_000) held = [];
    }
    // gc entries are delivered after the collection, a turn or more later.
    const report = await eventually('a scavenge in the report', async () => {
      const r = (await (await fetch(`${api!.url}${CPU_ACCOUNTING_ROUTE}`)).json()) as CpuAccountingReport;
      return (r.gc?.minor.count ?? 0) > 0 ? r : undefined;
    });
    expect(Object.keys(report.gc ?? {}).sort()).toEqual(['incremental', 'major', 'minor', 'weakcb']);
    expect(report.gc!.minor.millis).toBeGreaterThan(0);
  });
});
