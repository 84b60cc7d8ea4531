/**
 * research-agent, whole, on the local engine with the scripted model: it runs to a final answer; a model
 * step whose sandbox dies after the turn was recorded is retried and replays the recording (the model is
 * never called twice for a turn); and a variant built here with `continueAsNewEvery: 2` continues as new
 * through its `live` alias as `<root>-g1`, `<root>-g2`, each generation SUCCEEDED, the last holding the answer.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeExecutionCommand, RedriveExecutionCommand } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAYLOAD_INLINE_LIMIT_BYTES } from '@autosave/workflow/config';
import { exampleProject } from '../../fixtures/example-app';
import type { ModelScript, ScriptedResponse } from '@autosave/runtime/models';
import { researchTools } from '../../../tools';
import { agentLoop, defineWorkflow } from '@autosave/workflow';
import { researchAgent } from '../../../statemachines';
import { faultLog, setFaultPlan } from './fixtures/fault-functions';
import {
  enteredStates,
  eventually,
  historyOf,
  startWorkflowEngine,
  untilClosed,
  type WorkflowEngine,
} from './support/workflow-engine';

const FAULT_FUNCTIONS = new URL('./fixtures/fault-functions.ts', import.meta.url).pathname;
const LOOP = 'research';

/** The research agent with a continue-as-new interval of two turns (built with the builder, as a user would). */
const generations = defineWorkflow({
  name: 'research-agent-generations',
  version: '1.0.0',
  steps: [agentLoop(LOOP, { task: '{question}', tools: researchTools(), maxTurns: 12, continueAsNewEvery: 2 })],
});

const FINAL_ANSWER = 'Final answer: five turns over three generations, each turn recorded once.';
/** Five turns: tool calls on turns 0-3, the answer on turn 4 (generations: turns 0-1, 2-3, 4). */
const generationScript: ScriptedResponse[] = [
  ...[0, 1, 2, 3].map((turn) => ({
    workflow: generations.name,
    turn,
    text: `Turn ${turn}: looking further.`,
    toolCalls: [
      { id: `call-search-${turn}`, name: 'search-web', input: { query: `durable agents part ${turn}` } },
      { id: `call-calc-${turn}`, name: 'calculator', input: { expression: `${turn} * 12 + 1` } },
    ],
  })),
  { workflow: generations.name, turn: 4, text: FINAL_ANSWER },
];

/** A variant whose documents are larger than the inline limit: the tool results must travel by reference. */
const largeDocuments = defineWorkflow({
  name: 'research-agent-large-documents',
  version: '1.0.0',
  steps: [agentLoop(LOOP, { task: '{question}', tools: researchTools(), maxTurns: 4 })],
});
const LARGE_DOCUMENT_BYTES = 300 * 1024;
const largeDocumentScript: ScriptedResponse[] = [
  {
    workflow: largeDocuments.name,
    turn: 0,
    text: 'Reading two long reports.',
    toolCalls: [
      {
        id: 'call-read-a',
        name: 'read-document',
        input: { url: 'https://example.org/report-a', bytes: LARGE_DOCUMENT_BYTES },
      },
      {
        id: 'call-read-b',
        name: 'read-document',
        input: { url: 'https://example.org/report-b', bytes: LARGE_DOCUMENT_BYTES / 2 },
      },
    ],
  },
  { workflow: largeDocuments.name, turn: 1, text: 'Final answer: both reports agree.' },
];

let dir: string;
let engine: WorkflowEngine;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'autosave-research-'));
  const base = JSON.parse(
    await readFile((await exampleProject()).environment.AUTOSAVE_MODEL_SCRIPT!, 'utf8'),
  ) as ModelScript;
  const script = join(dir, 'model-script.json');
  await writeFile(
    script,
    JSON.stringify({ responses: [...base.responses, ...generationScript, ...largeDocumentScript] }),
  );
  engine = await startWorkflowEngine({ functionsModule: FAULT_FUNCTIONS, modelScript: script });
  await engine.deploy(generations);
  await engine.deploy(largeDocuments);
});
afterAll(async () => {
  setFaultPlan({});
  await engine?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Model provider calls and model-step invocations of one execution, by turn. */
function modelCountsOf(executionArn: string): { calls: Map<number, number>; invocations: Map<number, number> } {
  const byTurn = (m: Map<string, number>) =>
    new Map(
      [...m]
        .filter(([site]) => site.startsWith(`${executionArn}#${LOOP}#`))
        .map(([site, n]) => [Number(site.split('#').at(-1)), n]),
    );
  return { calls: byTurn(faultLog().modelCalls), invocations: byTurn(faultLog().modelInvocations) };
}

describe('research-agent on the local engine', () => {
  it('reaches the final answer; a retried turn replays its recording instead of calling the model again', async () => {
    setFaultPlan({ dieAfterModelTurn: (e) => e.workflow === researchAgent.name && e.turn === 1 });
    const executionArn = await engine.start(researchAgent.name, 'research-1', researchAgent.exampleInput);
    // The retry of turn 1 waits out its backoff on the virtual clock.
    const done = await eventually('the run to close', async () => {
      await engine.advance({ seconds: 60 });
      const run = await engine.sfn.send(new DescribeExecutionCommand({ executionArn }));
      return run.status === 'RUNNING' ? undefined : run;
    });
    expect(done.status).toBe('SUCCEEDED');
    const output = JSON.parse(done.output!) as {
      steps: Record<string, { text: string; final: boolean; turn: number }>;
    };
    expect(output.steps[LOOP]).toMatchObject({ final: true, turn: 2 });
    expect(output.steps[LOOP].text).toMatch(/^Final answer: /);

    const events = await historyOf(engine.sfn, executionArn);
    expect(events.filter((e) => e.type === 'TaskFailed').map((e) => e.taskFailedEventDetails?.error)).toEqual([
      'Runtime.ExitError',
    ]);

    const { calls, invocations } = modelCountsOf(executionArn);
    expect(Object.fromEntries(calls)).toEqual({ 0: 1, 1: 1, 2: 1 }); // the model: once per turn
    expect(Object.fromEntries(invocations)).toEqual({ 0: 1, 1: 2, 2: 1 }); // the step: turn 1 ran twice
  });

  it('continues as new every 2 turns through its alias: <root>-g1, <root>-g2, each SUCCEEDED, the last with the answer', async () => {
    // A forced retry in the middle generation too: still one model call per turn.
    setFaultPlan({ dieAfterModelTurn: (e) => e.workflow === generations.name && e.turn === 2 });
    const root = 'deep-research';
    const aliasArn = engine.aliasArn(generations.name);
    const rootArn = await engine.start(generations.name, root, { question: 'How do durable agents survive restarts?' });
    const arnOf = (name: string) => rootArn.replace(/:[^:]+$/, `:${name}`);

    const names = [root, `${root}-g1`, `${root}-g2`];
    const runs = [];
    for (const name of names) {
      const executionArn = arnOf(name);
      runs.push(
        await eventually(`${name} to close`, async () => {
          await engine.advance({ seconds: 60 });
          const run = await engine.sfn.send(new DescribeExecutionCommand({ executionArn })).catch((e: Error) => {
            if (e.name === 'ExecutionDoesNotExist') return undefined; // not started yet
            throw e;
          });
          return run && run.status !== 'RUNNING' ? run : undefined;
        }),
      );
    }
    expect(runs.map((r) => r.status)).toEqual(['SUCCEEDED', 'SUCCEEDED', 'SUCCEEDED']);
    // Every generation was started through the alias (the root by the test, the others by the machine).
    expect(runs.map((r) => r.stateMachineAliasArn)).toEqual([aliasArn, aliasArn, aliasArn]);
    // No fourth generation.
    await expect(
      engine.sfn.send(new DescribeExecutionCommand({ executionArn: arnOf(`${root}-g3`) })),
    ).rejects.toMatchObject({ name: 'ExecutionDoesNotExist' });

    // The first two hand over; the last answers.
    for (const run of runs.slice(0, 2)) {
      const entered = enteredStates(await historyOf(engine.sfn, run.executionArn!));
      expect(entered.slice(-2)).toEqual([`${LOOP}-continue-as-new`, `${LOOP}-continued`]);
    }
    const last = JSON.parse(runs[2].output!) as {
      steps: Record<string, { text: string; final: boolean; turn: number; generation: number }>;
    };
    expect(last.steps[LOOP]).toMatchObject({ text: FINAL_ANSWER, final: true, turn: 4, generation: 2 });
    expect(enteredStates(await historyOf(engine.sfn, runs[2].executionArn!))).not.toContain(`${LOOP}-continue-as-new`);

    // Turns 0-1, 2-3 and 4 ran in generations 0, 1 and 2; the model answered each turn exactly once,
    // though turn 2's step ran twice.
    const perGeneration = runs.map((r) => modelCountsOf(r.executionArn!));
    expect(perGeneration.map((g) => Object.fromEntries(g.calls))).toEqual([{ 0: 1, 1: 1 }, { 2: 1, 3: 1 }, { 4: 1 }]);
    expect(Object.fromEntries(perGeneration[1].invocations)).toEqual({ 2: 2, 3: 1 });
  });

  it('reads documents over the inline limit: tool results and the conversation travel by reference, no event carries them', async () => {
    setFaultPlan({});
    const executionArn = await engine.start(largeDocuments.name, 'long-reports', {
      question: 'Do the two reports agree?',
    });
    const done = await untilClosed(engine.sfn, executionArn);
    expect(done.status).toBe('SUCCEEDED');
    const output = JSON.parse(done.output!) as { steps: Record<string, { text: string; final: boolean }> };
    expect(output.steps[LOOP]).toMatchObject({ text: 'Final answer: both reports agree.', final: true });

    const events = await historyOf(engine.sfn, executionArn);
    const largest = Math.max(...events.map((e) => JSON.stringify(e).length));
    expect(largest).toBeLessThan(PAYLOAD_INLINE_LIMIT_BYTES);
    const batch = events.find(
      (e) => e.type === 'TaskSucceeded' && e.taskSucceededEventDetails?.output?.includes('call-read-a'),
    );
    expect(batch?.taskSucceededEventDetails?.output).toContain('"$ref":"s3://');
  });

  it('a turn whose tools fail for good is redriven at its tools step: earlier turns are neither re-asked nor re-run', async () => {
    let fixed = false;
    setFaultPlan({
      providerDown: (e) => Boolean(e.executionArn?.endsWith(':research-redrive')) && e.turn === 1 && !fixed,
    });
    const executionArn = await engine.start(researchAgent.name, 'research-redrive', researchAgent.exampleInput);
    const failed = await eventually('the run to fail', async () => {
      await engine.advance({ seconds: 60 });
      const run = await engine.sfn.send(new DescribeExecutionCommand({ executionArn }));
      return run.status === 'RUNNING' ? undefined : run;
    });
    expect(failed).toMatchObject({ status: 'FAILED', error: 'ProviderDown' });

    fixed = true;
    await engine.sfn.send(new RedriveExecutionCommand({ executionArn, clientToken: 'research-redrive-1' }));
    const done = await untilClosed(engine.sfn, executionArn);
    expect(done).toMatchObject({ status: 'SUCCEEDED', redriveCount: 1 });
    expect((JSON.parse(done.output!) as { steps: Record<string, { text: string }> }).steps[LOOP].text).toMatch(
      /^Final answer: /,
    );

    // The redrive resumed at the failed tools Task: no model turn was asked twice or re-run.
    const { calls, invocations } = modelCountsOf(executionArn);
    expect(Object.fromEntries(calls)).toEqual({ 0: 1, 1: 1, 2: 1 });
    expect(Object.fromEntries(invocations)).toEqual({ 0: 1, 1: 1, 2: 1 });
    const events = await historyOf(engine.sfn, executionArn);
    const redriveAt = events.findIndex((e) => e.type === 'ExecutionRedriven');
    expect(redriveAt).toBeGreaterThan(0);
    expect(enteredStates(events.slice(redriveAt))[0]).toBe(`${LOOP}-tools`);
  });
});
