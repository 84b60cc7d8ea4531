/**
 * The loop of issue 31 with a second local engine standing for AWS (it speaks the same API): a run of each
 * example workflow fails there at a tool step with a planted defect; `autosave pull` takes it onto the
 * "laptop" engine, whose code has no defect; `autosave redrive` resumes it there. Each ends SUCCEEDED with
 * the output a run without the defect gives, no earlier step runs again on the laptop (its invocations and
 * its history say so) and no model turn is asked twice across both engines. The EXPRESS workflow's run
 * cannot be pulled, and the pull says so in plain words.
 */
import { DescribeExecutionCommand, StartExecutionCommand, type HistoryEvent } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../packages/local/src/cli/main';
import { captureTerminal } from '../../../packages/local/src/cli/output';
import { getFullHistory } from '../../../packages/local/src/operations';
import { clinicalTrialOnboarding, contractRenewal, researchAgent, supportTriage } from '../../../statemachines';
import { eventually } from '../../fixtures/wait';
import { approvalUrlIn, postDecision } from '../workflows/support/workflow-engine';
import { startCountedEngine, type CountedEngine, type StepEvent } from './two-engines';

/** Where each workflow's defect is planted: a tool step that runs after at least one other step. */
const CASES = [
  {
    workflow: clinicalTrialOnboarding,
    state: 'provision-edc-access',
    input: { ...clinicalTrialOnboarding.exampleInput, siteId: 'site-7001' },
  },
  { workflow: contractRenewal, state: 'send-renewal-email', input: contractRenewal.exampleInput },
  { workflow: researchAgent, state: 'research-tools', input: researchAgent.exampleInput },
] as const;

/** A run named `broken-*` meets the defect at the AWS side; the tool step of the planted state fails before acting. */
const plantedAt = (event: StepEvent, fn: string) =>
  fn === 'tool-step' &&
  String(event.executionArn ?? '').includes(':broken-') &&
  CASES.some((c) => c.workflow.name === String(event.executionArn).split(':')[6] && toolStateOf(c.state, event));
/** research-tools' tool-step event names the agent step (`research`) with its calls; the others name their own state. */
const toolStateOf = (state: string, event: StepEvent) =>
  state === 'research-tools' ? event.step === 'research' : event.step === state;

let aws: CountedEngine;
let laptop: CountedEngine;
/** A third engine, without the defect: the same run there gives the output to expect. */
let reference: CountedEngine;
beforeAll(async () => {
  [aws, laptop, reference] = await Promise.all([
    startCountedEngine(plantedAt),
    startCountedEngine(),
    startCountedEngine(),
  ]);
});
afterAll(async () => {
  await Promise.all([aws?.close(), laptop?.close(), reference?.close()]);
});

let previous: Promise<unknown> = Promise.resolve();
/** `autosave <args>` in-process, one at a time (the capture is process-wide). */
function autosave(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const run = async () => {
    const out = captureTerminal();
    try {
      return { code: await main(args), stdout: out.stdout, stderr: out.stderr };
    } finally {
      out.release();
    }
  };
  const result = previous.then(run, run);
  previous = result.catch(() => undefined);
  return result;
}

/** Drives a run to its end on an engine: approves what it waits on, moves time through retries. */
async function runToEnd(side: CountedEngine, executionArn: string): Promise<string> {
  const decided = new Set<string>();
  return eventually(`${executionArn} to close`, async () => {
    const described = await side.sfn.send(new DescribeExecutionCommand({ executionArn }));
    if (described.status !== 'RUNNING') return described.status as string;
    const url = approvalUrlIn(await getFullHistory(side.sfn, executionArn));
    if (url && !decided.has(url)) {
      decided.add(url);
      // A second link to the same request (approval-request asked again) answers 409: decided already, by us.
      expect([200, 409]).toContain((await postDecision(url, 'approve', 'coordinator@example.org')).status);
    }
    await side.advance(60);
    return undefined;
  });
}

async function start(side: CountedEngine, workflow: string, name: string, input: unknown): Promise<string> {
  const alias = side.local.deployments.find((d) => d.workflow === workflow)?.aliasArn as string;
  const out = await side.sfn.send(
    new StartExecutionCommand({ stateMachineArn: alias, name, input: JSON.stringify(input) }),
  );
  return out.executionArn as string;
}

/** The event ids after which the laptop ran the run (its first ExecutionRedriven). */
const afterRedrive = (events: readonly HistoryEvent[]) =>
  events.slice(events.findIndex((e) => e.type === 'ExecutionRedriven'));

describe.each(CASES)(
  '$workflow.name: fails on "AWS" at $state, is pulled, fixed and redriven on the laptop',
  ({ workflow, state, input }) => {
    it('ends SUCCEEDED with the output of a run without the defect; no earlier step runs again and no model turn is asked twice', async () => {
      // The reference: the same run (name and input) on an engine without the defect.
      const clean = await start(reference, workflow.name, `broken-${workflow.name}`, input);
      expect(await runToEnd(reference, clean)).toBe('SUCCEEDED');
      const cleanOutput = (await reference.sfn.send(new DescribeExecutionCommand({ executionArn: clean })))
        .output as string;

      const awsBefore = new Map(aws.invocations);
      const broken = await start(aws, workflow.name, `broken-${workflow.name}`, input);
      expect(await runToEnd(aws, broken)).toBe('FAILED');
      const failedThere = await aws.sfn.send(new DescribeExecutionCommand({ executionArn: broken }));
      expect(failedThere.error).toBe('PlantedDefect');
      const awsHistory = await getFullHistory(aws.sfn, broken);
      const awsInvocations = new Map(
        [...aws.invocations].map(([k, n]) => [k, n - (awsBefore.get(k) ?? 0)] as const).filter(([, n]) => n > 0),
      );

      const pulled = await autosave(
        'pull',
        broken,
        '--from-endpoint',
        aws.local.url,
        '--from-s3-endpoint',
        aws.local.endpoints.s3,
        '--endpoint',
        laptop.local.url,
      );
      expect(pulled.stderr).toBe('');
      expect(pulled.code).toBe(0);
      expect(pulled.stdout).toContain(`FAILED at ${state}: PlantedDefect`);
      expect(pulled.stdout).toContain(`npx autosave redrive broken-${workflow.name}`);
      // The research agent's conversation is offloaded to S3: the pull copies it, or the laptop's next model turn could not read it.
      if (JSON.stringify(awsHistory).includes('s3://'))
        expect(pulled.stdout).toMatch(/\d+ payload\(s\) it names by s3:\/\/ reference copied to the local S3/);
      const here = await laptop.sfn.send(new DescribeExecutionCommand({ executionArn: broken }));
      expect(here).toMatchObject({
        status: 'FAILED',
        error: 'PlantedDefect',
        cause: failedThere.cause,
        input: failedThere.input,
      });
      expect(await getFullHistory(laptop.sfn, broken)).toEqual(awsHistory);

      const laptopBefore = new Map(laptop.invocations);
      const redriven = await autosave('redrive', `broken-${workflow.name}`, '--endpoint', laptop.local.url);
      expect(redriven.stderr).toBe('');
      expect(redriven.code).toBe(0);
      expect(await runToEnd(laptop, broken)).toBe('SUCCEEDED');
      const done = await laptop.sfn.send(new DescribeExecutionCommand({ executionArn: broken }));
      expect(done.redriveCount).toBe(1);
      expect(JSON.parse(done.output as string)).toEqual(JSON.parse(cleanOutput));

      // What the laptop ran: the failed state's tool call again, then what came after it. Every other
      // invocation at AWS (model turns included) ran there only: as many times in all as on the AWS side.
      const laptopInvocations = new Map(
        [...laptop.invocations].map(([k, n]) => [k, n - (laptopBefore.get(k) ?? 0)] as const).filter(([, n]) => n > 0),
      );
      const ranOnBoth = [...laptopInvocations.keys()].filter((key) => awsInvocations.has(key));
      expect(ranOnBoth).toHaveLength(1);
      expect(ranOnBoth[0]).toMatch(/^tool-step:/);
      expect(laptopInvocations.get(ranOnBoth[0])).toBe(1);
      for (const [key, n] of laptopInvocations)
        if (key.startsWith('model-step:')) expect(n, `${key} asked more than once`).toBe(1);
      // The history agrees: the AWS events first, as they were, then nothing scheduled again before the failed state.
      const history = await getFullHistory(laptop.sfn, broken);
      expect(history.slice(0, awsHistory.length)).toEqual(awsHistory);
      expect(afterRedrive(history)[1].stateEnteredEventDetails?.name).toBe(state);
    });
  },
);

describe('pull --state-machine --status FAILED --since', () => {
  it('pulls every failed run of the machine and prints them grouped by state and error', async () => {
    const broken = await start(aws, contractRenewal.name, 'broken-bulk-1', contractRenewal.exampleInput);
    expect(await runToEnd(aws, broken)).toBe('FAILED');
    const machineArn = (await aws.sfn.send(new DescribeExecutionCommand({ executionArn: broken })))
      .stateMachineArn as string;
    // The engines' virtual clocks stand at 1 Jan 2026; --since counts back from the wall clock.
    const out = await autosave(
      'pull',
      '--state-machine',
      machineArn,
      '--status',
      'FAILED',
      '--since',
      '400d',
      '--from-endpoint',
      aws.local.url,
      '--endpoint',
      laptop.local.url,
      '--json',
    );
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const answer = JSON.parse(out.stdout) as {
      pulled: { executionArn: string }[];
      groups: { state: string; error: string; runs: number }[];
      resumable: number;
    };
    expect(answer.pulled.map((p) => p.executionArn)).toContain(broken);
    expect(answer.groups).toContainEqual(
      expect.objectContaining({ state: 'send-renewal-email', error: 'PlantedDefect' }),
    );
    expect(answer.resumable).toBeGreaterThanOrEqual(1);
    expect((await laptop.sfn.send(new DescribeExecutionCommand({ executionArn: broken }))).status).toBe('FAILED');
  });
});

describe('an EXPRESS run', () => {
  it('is refused in plain words: the service keeps no history of it', async () => {
    const alias = aws.local.deployments.find((d) => d.workflow === supportTriage.name)?.aliasArn as string;
    const started = await aws.sfn.send(
      new StartExecutionCommand({ stateMachineArn: alias, input: JSON.stringify(supportTriage.exampleInput) }),
    );
    const pulled = await autosave(
      'pull',
      started.executionArn as string,
      '--from-endpoint',
      aws.local.url,
      '--endpoint',
      laptop.local.url,
    );
    expect(pulled.code).toBe(1);
    expect(pulled.stderr).toMatch(/is an EXPRESS run: the service keeps no history of it/);
  });
});
