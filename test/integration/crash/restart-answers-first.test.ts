/**
 * After `kill -9`, `autosave local` answers the Step Functions API from its store before it loads what
 * only runs need (docs/scale.md, "Restart"): the project's TypeScript config (tsx), dynalite, s3rver, the AWS
 * SDK clients, Powertools and the console load after the API answers, and the runs caught in flight still
 * finish. Which modules are loaded is pinned, not how long it takes: a module loaded before the answer is
 * paid by every restart.
 */
import {
  CreateStateMachineCommand,
  DescribeExecutionCommand,
  ListStateMachinesCommand,
  SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '@autosave/workflow/config';
import { startEngineProcess, type EngineProcess } from './support/engine-process';
import { STEP_FUNCTIONS_ANSWERING } from '../../../packages/local/src/server';
import { eventually } from '../../fixtures/wait';
import { freePort } from '../../chaos/support';

const TRACE_HOOK = fileURLToPath(new URL('./fixtures/module-trace.mjs', import.meta.url));
const HELD_STEP_MODULE = fileURLToPath(new URL('./fixtures/held-step.ts', import.meta.url));
const RUNS_IN_FLIGHT = 5;

/** Modules a restart must not load before the Step Functions API answers, by what they are. */
const NOT_BEFORE_THE_ANSWER: readonly (readonly [string, RegExp])[] = [
  ['tsx (the TypeScript config)', /\/node_modules\/tsx\//],
  ['the project config', /autosave\.config\.ts/],
  ['dynalite', /\/node_modules\/dynalite\//],
  ['s3rver', /\/node_modules\/s3rver\//],
  ['an AWS SDK client', /\/node_modules\/@aws-sdk\/client-/],
  ['Powertools', /\/node_modules\/@aws-lambda-powertools\//],
  ['the console', /\/console-[A-Z0-9]+\.m?js$|\/local\/src\/console\//],
  ['the approval handlers', /approval-(endpoint|request)/],
  // What only an HTTP Task to an https: URL, or SQS's query protocol (older AWS CLIs), needs.
  ['TLS (node:https)', /^(node:)?(https|tls)$/],
  ["the query protocol's XML builder", /\/node_modules\/@aws-sdk\/xml-builder\//],
  // What only an expression, a regex or a JSONPath beyond a member chain needs (engine/src/lazy-require.ts).
  ['JSONata', /\/node_modules\/jsonata\//],
  ['re2js', /\/node_modules\/re2js\//],
  ['jsonpath-plus', /\/node_modules\/jsonpath-plus\//],
];

/**
 * The most JavaScript a restart may read before it answers, in bytes: every byte is parsed at every start
 * (about 45 ms a megabyte here). 1.75 MB when the SDK catalog and the mock-shape tables (520 KB of JSON)
 * were compiled into the engine's code and JSONata, re2js and jsonpath-plus loaded with it.
 */
const MOST_CODE_BEFORE_THE_ANSWER = 1_000_000;

/** The bytes of the JavaScript files among `modules` (each counted once; built-ins and native addons are not). */
function javascriptBytes(modules: readonly string[]): number {
  return [...new Set(modules)]
    .map((m) => (m.startsWith('file://') ? fileURLToPath(m) : m))
    .filter((file) => /\.[cm]?js$/.test(file) && existsSync(file))
    .reduce((sum, file) => sum + statSync(file).size, 0);
}

describe('restart after kill -9: the Step Functions API answers first', () => {
  const dirs: string[] = [];
  // Every engine a case started, ended after them all (SIGKILL: one may hold a call that never returns).
  const engines: EngineProcess[] = [];
  const track = (e: EngineProcess) => (engines.push(e), e);
  afterAll(async () => {
    for (const e of engines) await e.kill();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it(
    'loads no config, dynalite, s3rver, SDK client, Powertools or console before it answers; the runs caught in flight finish',
    { timeout: 240_000 },
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'autosave-answers-first-'));
      dirs.push(dir);
      const dataDir = join(dir, 'data');
      const first = await startEngineProcess({ dataDir, startTimeoutMillis: 150_000 });
      track(first);
      const sfn = new SFNClient({ endpoint: first.url, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
      const definition = {
        StartAt: 'Hold',
        States: { Hold: { Type: 'Wait', Seconds: 2, Next: 'Done' }, Done: { Type: 'Pass', End: true } },
      };
      const { stateMachineArn } = await sfn.send(
        new CreateStateMachineCommand({
          name: 'held',
          definition: JSON.stringify(definition),
          roleArn: 'arn:aws:iam::123456789012:role/test',
        }),
      );
      const runs = await Promise.all(
        Array.from({ length: RUNS_IN_FLIGHT }, (_, i) =>
          sfn.send(new StartExecutionCommand({ stateMachineArn, name: `held-${i}` })),
        ),
      );
      sfn.destroy();
      await first.kill();

      const trace = join(dir, 'modules.txt');
      const port = await freePort();
      // Meanwhile the console and the SQS API are asked for, as a browser left open would: 503 while the
      // services come up (a Step Functions call is answered), never a crash.
      // An SQS call (a function's dead letter) waits for SQS instead: answered, never refused with a 503.
      const otherAnswers = new Set<number>();
      const sqsAnswers = new Set<number>();
      let restarted = false;
      const poll = (async () => {
        while (!restarted) {
          const status = await fetch(`http://127.0.0.1:${port}/runs`).then(
            (r) => r.status,
            () => 0,
          );
          if (status) otherAnswers.add(status);
          const sqs = await fetch(`http://127.0.0.1:${port}/`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.ListQueues' },
            body: '{}',
          }).then(
            (r) => r.status,
            () => 0,
          );
          if (sqs) sqsAnswers.add(sqs);
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
      })();
      const engine = track(
        await startEngineProcess({
          dataDir,
          port,
          startTimeoutMillis: 150_000,
          env: { NODE_OPTIONS: `--import=${TRACE_HOOK}`, MODULE_TRACE_FILE: trace },
        }),
      );
      restarted = true;
      await poll;
      expect(
        [...otherAnswers].filter((s) => s !== 503 && s !== 200),
        'what the console answered during the restart',
      ).toEqual([]);
      expect([...sqsAnswers], 'what SQS answered during the restart').toEqual([200]);
      const again = new SFNClient({ endpoint: engine.url, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
      expect((await again.send(new ListStateMachinesCommand({}))).stateMachines?.map((m) => m.name)).toContain('held');
      for (const { executionArn } of runs) {
        await eventually(`${executionArn} finished after the restart`, async () => {
          const { status } = await again.send(new DescribeExecutionCommand({ executionArn }));
          expect(status === 'RUNNING' || status === 'SUCCEEDED').toBe(true);
          return status === 'SUCCEEDED' || undefined;
        });
      }
      again.destroy();

      // The list is not vacuous: the config, dynalite and the SDK clients do load once the API answers. Dynalite
      // loads last, behind its port, and may come after the runs' end: the trace is read again until it shows them.
      const loadedAtAll = NOT_BEFORE_THE_ANSWER.filter(([w]) => /tsx|config|dynalite|SDK/.test(w));
      const traced = async () => {
        const lines = (await readFile(trace, 'utf8')).split('\n');
        const answering = lines.findIndex((l) => l.startsWith(`line ${STEP_FUNCTIONS_ANSWERING}`));
        const loads = (from: number, to?: number) =>
          lines
            .slice(from, to)
            .filter((l) => l.startsWith('load '))
            .map((l) => l.slice('load '.length));
        return { answering, before: loads(0, answering), after: loads(answering) };
      };
      const { answering, before, after } = await eventually(
        'the config, dynalite and an SDK client loaded after the answer',
        async () => {
          const t = await traced();
          return t.answering > 0 && loadedAtAll.every(([, pattern]) => t.after.some((m) => pattern.test(m)))
            ? t
            : undefined;
        },
      ).catch(() => traced());
      expect(answering, 'the restart says when the API answers').toBeGreaterThan(0);
      const codeBefore = javascriptBytes(before);
      console.log(
        `restart: ${new Set(before).size} modules (${(codeBefore / 1e6).toFixed(2)} MB of JavaScript) loaded before the API answered, ${new Set(after).size} after`,
      );
      expect(codeBefore, 'bytes of JavaScript read before the API answered').toBeLessThan(MOST_CODE_BEFORE_THE_ANSWER);
      for (const [what, pattern] of NOT_BEFORE_THE_ANSWER) {
        expect(
          before.filter((m) => pattern.test(m)),
          `${what} loaded before the API answered`,
        ).toEqual([]);
      }
      for (const [what, pattern] of loadedAtAll)
        expect(
          after.some((m) => pattern.test(m)),
          `${what} loaded at all`,
        ).toBe(true);
    },
  );
  // On AWS a Lambda function does not wait for DynamoDB to be up. Here a function that calls DynamoDB gets
  // its answer once the local one is up and the leases of attempts cut off by the kill are ended (the
  // door, services/dynamodb-door.ts); one that does not call it runs at once.
  /**
   * Starts {@link RUNS_IN_FLIGHT} runs of a one-Task workflow held in `held-step`, kills the engine, restarts it
   * with the module trace (and `env`) and waits for every run to finish: the trace's file.
   */
  async function heldRunsResumed(cwd?: string, env: Record<string, string> = {}): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'autosave-answers-first-'));
    dirs.push(dir);
    const dataDir = join(dir, 'data');
    const signal = join(dir, 'held.txt');
    const engineIn = cwd === undefined ? {} : { cwd };
    const first = await startEngineProcess({
      dataDir,
      functionsModule: HELD_STEP_MODULE,
      startTimeoutMillis: 150_000,
      env: { HELD_STEP_HOLD: '1', HELD_STEP_SIGNAL: signal },
      ...engineIn,
    });
    track(first);
    const sfn = new SFNClient({ endpoint: first.url, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
    const definition = {
      StartAt: 'Held',
      States: {
        Held: { Type: 'Task', Resource: 'arn:aws:lambda:us-east-1:123456789012:function:held-step', End: true },
      },
    };
    const { stateMachineArn } = await sfn.send(
      new CreateStateMachineCommand({
        name: 'held-task',
        definition: JSON.stringify(definition),
        roleArn: 'arn:aws:iam::123456789012:role/test',
      }),
    );
    const runs = await Promise.all(
      Array.from({ length: RUNS_IN_FLIGHT }, (_, i) =>
        sfn.send(
          new StartExecutionCommand({
            stateMachineArn,
            name: `held-${i}`,
            input: JSON.stringify({ runId: `held-${i}` }),
          }),
        ),
      ),
    );
    sfn.destroy();
    await eventually(
      'every run is in its Task',
      () =>
        (existsSync(signal) && readFileSync(signal, 'utf8').split('\n').filter(Boolean).length === RUNS_IN_FLIGHT) ||
        undefined,
    );
    await first.kill();

    const trace = join(dir, 'modules.txt');
    const engine = track(
      await startEngineProcess({
        dataDir,
        functionsModule: HELD_STEP_MODULE,
        startTimeoutMillis: 150_000,
        env: { NODE_OPTIONS: `--import=${TRACE_HOOK}`, MODULE_TRACE_FILE: trace, ...env },
        ...engineIn,
      }),
    );
    const again = new SFNClient({ endpoint: engine.url, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
    for (const { executionArn } of runs) {
      await eventually(`${executionArn} finished after the restart`, async () => {
        const { status, output } = await again.send(new DescribeExecutionCommand({ executionArn }));
        expect(status === 'RUNNING' || status === 'SUCCEEDED').toBe(true);
        if (status !== 'SUCCEEDED') return undefined;
        expect(JSON.parse(output ?? '{}')).toEqual({ done: expect.stringMatching(/^held-/) });
        return true;
      });
    }
    again.destroy();

    return trace;
  }

  const traceLines = async (trace: string) => (await readFile(trace, 'utf8')).split('\n');

  /** The modules loaded before the first call of the held step after the restart. */
  async function loadedBeforeHeldRunsResume(cwd?: string): Promise<string[]> {
    const lines = await traceLines(await heldRunsResumed(cwd));
    const firstCall = lines.findIndex((l) => l.startsWith('line held-step called'));
    expect(firstCall, 'the held step is called again after the restart').toBeGreaterThan(0);
    return lines
      .slice(0, firstCall)
      .filter((l) => l.startsWith('load '))
      .map((l) => l.slice('load '.length));
  }

  // On AWS a Lambda function does not wait for DynamoDB to be up. Here a function that calls DynamoDB gets
  // its answer once the local one is up and the leases of attempts cut off by the kill are ended (the
  // door, services/dynamodb-door.ts); one that does not call it runs at once.
  it('runs caught in flight call their functions before dynalite loads', { timeout: 240_000 }, async () => {
    const loadedBeforeTheCall = await loadedBeforeHeldRunsResume();
    // (The example app's config, loaded first, brings the DynamoDB client itself: only dynalite is pinned.)
    expect(
      loadedBeforeTheCall.filter((m) => /\/node_modules\/dynalite\//.test(m)),
      'dynalite loaded before the first call',
    ).toEqual([]);
  });

  // Dynalite's load is about a tenth of a second of the engine's thread: the runs caught in flight that do not
  // call DynamoDB finish first (each answers 300 ms after its call here, so that a load started with the
  // restart's services would fall within their calls).
  it('loads dynalite only once the runs caught in flight are done', { timeout: 240_000 }, async () => {
    const trace = await heldRunsResumed(undefined, { HELD_STEP_ANSWER_AFTER_MS: '300' });
    const isDynalite = (l: string) => /^load .*\/node_modules\/dynalite\//.test(l);
    const lines = await eventually('dynalite loaded at all', async () => {
      const read = await traceLines(trace);
      return read.some(isDynalite) ? read : undefined;
    });
    const lastAnswer = lines.findLastIndex((l) => l.startsWith('line held-step answering'));
    const dynalite = lines.findIndex(isDynalite);
    expect(lastAnswer, 'the held steps answered after the restart').toBeGreaterThan(0);
    expect(dynalite, 'where dynalite loaded, against the last held step answering').toBeGreaterThan(lastAnswer);
  });

  // The runtime's tools bring the SES client and Powertools (about a sixth of a second here): a project whose
  // workflows name no tool, and a service that has sent no email, never needs them.
  it(
    'without workflows that name a tool, runs caught in flight resume before the SES client or Powertools load',
    {
      timeout: 240_000,
    },
    async () => {
      const noConfig = await mkdtemp(join(tmpdir(), 'autosave-no-config-'));
      dirs.push(noConfig);
      const loadedBeforeTheCall = await loadedBeforeHeldRunsResume(noConfig);
      expect(
        loadedBeforeTheCall.filter((m) => /\/node_modules\/(@aws-sdk\/client-sesv2|@aws-lambda-powertools)\//.test(m)),
        'the SES client or Powertools loaded before the first call',
      ).toEqual([]);
    },
  );
});
