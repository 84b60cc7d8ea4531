/**
 * The corpus tier: every public state machine definition in test/fixtures/corpus (manifest.json names each
 * one's repository, path, commit and license) is created on the engine unchanged but for its template
 * placeholders (`${Name}` filled with an ARN or name of the kind its name says), and run with a functions
 * module that answers every Lambda with its payload. Counts acceptance, runs and engine errors; fails on
 * any 5xx (an error that is not a service error) or a wedged run (RUNNING after a year of virtual time
 * without a callback to wait for).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineHarness, type TestFunction } from '../../packages/engine/test/support/engine-harness';

interface Entry {
  readonly file: string;
  readonly repository: string;
  readonly path: string;
  readonly license: string;
}
const root = new URL('../fixtures/corpus/', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('manifest.json', root), 'utf8')) as { definitions: Entry[] };

const ACCOUNT = '123456789012';
const REGION = 'us-east-1';
/** A template placeholder's value, by what its name says it is. */
function placeholder(name: string): string {
  if (/^AWS::Region$/.test(name)) return REGION;
  if (/^AWS::AccountId$/.test(name)) return ACCOUNT;
  if (/partition/i.test(name)) return 'aws';
  const id = name.replace(/[^A-Za-z0-9_-]/g, '');
  if (/function|lambda/i.test(name)) return `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${id}`;
  if (/statemachine/i.test(name)) return `arn:aws:states:${REGION}:${ACCOUNT}:stateMachine:${id}`;
  if (/activity/i.test(name)) return `arn:aws:states:${REGION}:${ACCOUNT}:activity:${id}`;
  if (/url/i.test(name)) return `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/${id}`;
  if (/topic/i.test(name)) return `arn:aws:sns:${REGION}:${ACCOUNT}:${id}`;
  return id;
}
/** A placeholder that is a Task's whole `Resource` stands for a function (the samples' DefinitionSubstitutions). */
const substitute = (text: string) =>
  text
    .replace(/("Resource"\s*:\s*)"\$\{([^}]+)\}"/g, (_m, key: string, name: string) => `${key}"arn:aws:lambda:${REGION}:${ACCOUNT}:function:${name.replace(/[^A-Za-z0-9_-]/g, '')}"`)
    .replace(/\$\{([^}]+)\}/g, (_m, name: string) => placeholder(name));

/** Every Lambda answers with its payload (a stand-in for the samples' own functions). */
const echo: TestFunction = (payload) => payload ?? {};
const functions = new Proxy({} as Record<string, TestFunction>, { get: () => echo });

interface Tally {
  created: number;
  refused: { file: string; message: string }[];
  serverErrors: { file: string; message: string }[];
  runs: Record<string, number>;
  /** The errors the FAILED runs ended with, by name (most are Tasks the engine does not serve, or paths the echo Lambda's answer lacks). */
  failures: Record<string, number>;
  wedged: string[];
}
const tally: Tally = { created: 0, refused: [], serverErrors: [], runs: {}, failures: {}, wedged: [] };

describe('public definitions (test/fixtures/corpus)', () => {
  const h = new EngineHarness(functions);
  beforeAll(async () => {
    await h.start();
  });
  afterAll(async () => {
    await h.close();
    const total = manifest.definitions.length;
    console.log(
      `corpus: ${total} definitions, ${tally.created} accepted (${((100 * tally.created) / total).toFixed(1)}%), ` +
        `runs ${JSON.stringify(tally.runs)}, wedged ${tally.wedged.length}, 5xx ${tally.serverErrors.length}`,
    );
    console.log(`  failed runs by error: ${JSON.stringify(Object.fromEntries(Object.entries(tally.failures).sort((a, b) => b[1] - a[1])))}`);
    for (const r of tally.refused) console.log(`  refused ${r.file}: ${r.message.slice(0, 240)}`);
  });

  it.each(manifest.definitions.map((d) => [d.file, d] as const))('%s', async (_file, entry) => {
    const definition = substitute(readFileSync(new URL(entry.file, root), 'utf8'));
    let arn: string;
    try {
      arn = (await h.call('CreateStateMachine', { name: `c${tally.created + tally.refused.length}`, definition, roleArn: `arn:aws:iam::${ACCOUNT}:role/corpus` })).stateMachineArn;
    } catch (err) {
      // A service error carries its 4xx status (as the wire answers it); anything else would be a 5xx.
      const status = (err as { httpStatus?: number }).httpStatus;
      if (status !== undefined && status < 500) tally.refused.push({ file: entry.file, message: (err as Error).message });
      else tally.serverErrors.push({ file: entry.file, message: String(err) });
      expect(status).toBeLessThan(500);
      return;
    }
    tally.created++;
    const exec = await h.run(arn, {});
    let status = (await h.describe(exec)).status as string;

    for (let i = 0; i < 12 && status === 'RUNNING'; i++) {
      await h.clock.advance(30 * 24 * 3_600_000);
      await h.idle();
      status = (await h.describe(exec)).status;
    }
    if (status === 'RUNNING') {
      const waiting = (await h.history(exec)).some((e: { taskScheduledEventDetails?: { resource?: string }; type: string }) => e.type === 'ActivityScheduled' || /waitForTaskToken/.test(e.taskScheduledEventDetails?.resource ?? ''));
      if (!waiting) tally.wedged.push(entry.file);
      status = waiting ? 'WAITING_FOR_CALLBACK' : 'WEDGED';
      await h.call('StopExecution', { executionArn: exec });
    }
    if (status === 'FAILED') {
      const error = String((await h.describe(exec)).error ?? '(none)');
      tally.failures[error] = (tally.failures[error] ?? 0) + 1;
    }
    tally.runs[status] = (tally.runs[status] ?? 0) + 1;
    expect(status).not.toBe('WEDGED');
  });
});
