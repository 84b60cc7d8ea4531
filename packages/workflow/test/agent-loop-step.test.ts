import { describe, expect, it } from 'vitest';
import {
  HISTORY_EVENTS_PER_STATE,
  RESUME_STATE,
  START_STATE,
  agentLoop,
  compileWorkflow,
  defineWorkflow,
  planHistory,
  tool,
} from '@autosave/workflow';
import { stateOf, validateAsl } from './asl-test-helpers';
import { walkDefinition, type TaskHandler } from './walk-definition';

const loopWorkflow = (options: { continueAsNewEvery?: number; maxTurns?: number } = {}) =>
  defineWorkflow({
    name: 'agent',
    version: '1',
    steps: [
      agentLoop('research', {
        task: 'Answer {question}',
        tools: [{ name: 'calculator', description: 'Evaluates arithmetic.', inputSchema: { type: 'object' } }],
        ...options,
      }),
      tool('report', {
        tool: 'send-email',
        idempotencyKey: '{question}:report',
        input: { body: '{steps.research.text}' },
      }),
    ],
  });

/** A scripted model: tool calls until `finalAtTurn`, then a final answer; a tool step that echoes. */
function scripted(finalAtTurn: number) {
  const modelEvents: any[] = [];
  const batches: any[] = [];
  const starts: any[] = [];
  const handler: TaskHandler = (state, resource, args) => {
    if (resource.endsWith(':states:startExecution')) {
      starts.push(args);
      return { ExecutionArn: `arn:execution:${args.Name}`, StartDate: '2026-01-01' };
    }
    const payload = args.Payload;
    if (args.FunctionName === '${ModelStepFunctionArn}') {
      modelEvents.push(payload);
      const final = payload.turn >= finalAtTurn;
      return {
        Payload: {
          text: final ? 'the answer' : '',
          toolCalls: final
            ? []
            : [
                { id: `c${payload.turn}a`, name: 'calculator', input: { expression: '1+1' } },
                { id: `c${payload.turn}b`, name: 'calculator', input: { expression: '2+2' } },
              ],
          final,
          usage: { inputTokens: 1, outputTokens: 1 },
          conversation: { $ref: `s3://b/conv-${payload.turn}`, bytes: 10, sha256: 'ab' },
          replayed: false,
        },
      };
    }
    if (state === 'research-tools') {
      batches.push(payload);
      return {
        Payload: {
          results: payload.calls.map((c: any) => ({ id: c.id, name: c.tool, result: 2, source: 'executed' })),
        },
      };
    }
    return { Payload: { result: { sent: true }, source: 'executed' } };
  };
  return { handler, modelEvents, batches, starts };
}

describe('agentLoop', () => {
  it('compiles to a valid definition whose turn costs 12 history events', () => {
    const wf = loopWorkflow();
    expect(validateAsl(compileWorkflow(wf)).errorsText()).toBe('');
    expect(planHistory(wf).eventsPerTurn).toEqual({
      research: 2 * HISTORY_EVENTS_PER_STATE.Task + HISTORY_EVENTS_PER_STATE.Choice,
    });
    expect(planHistory(wf).eventsPerTurn.research).toBe(12);
  });

  it('runs model -> tools -> model until a final answer, one batch per turn with per-call keys', async () => {
    const { handler, modelEvents, batches } = scripted(3);
    const run = await walkDefinition(compileWorkflow(loopWorkflow()), { question: 'q1' }, handler);
    expect(run.visited.slice(0, 2)).toEqual([START_STATE, RESUME_STATE]);
    expect(run.visited.filter((s) => s === 'research')).toHaveLength(4);
    expect(run.visited.filter((s) => s === 'research-tools')).toHaveLength(3);
    expect(run.end).toBe('report');
    expect(run.output.steps.report).toEqual({ sent: true });
    expect(modelEvents.map((e) => e.turn)).toEqual([0, 1, 2, 3]);
    expect(modelEvents[0]).toMatchObject({
      workflow: 'agent',
      step: 'research',
      prompt: 'Answer q1',
      conversation: null,
      toolResults: [],
    });
    expect(modelEvents[1].conversation).toEqual({ $ref: 's3://b/conv-0', bytes: 10, sha256: 'ab' });
    // The batch entries pass through as they came (model-step reads `id` and `result`; `source` is for the history).
    expect(modelEvents[1].toolResults).toEqual([
      { id: 'c0a', name: 'calculator', result: 2, source: 'executed' },
      { id: 'c0b', name: 'calculator', result: 2, source: 'executed' },
    ]);
    expect(batches[1]).toMatchObject({
      workflow: 'agent',
      step: 'research',
      turn: 1,
      calls: [
        { id: 'c1a', tool: 'calculator', idempotencyKey: 'exec-1:research:1:c1a', input: { expression: '1+1' } },
        { id: 'c1b', tool: 'calculator', idempotencyKey: 'exec-1:research:1:c1b', input: { expression: '2+2' } },
      ],
    });
    expect(run.output.steps.research).toMatchObject({
      final: true,
      text: 'the answer',
      turn: 3,
      generation: 0,
      root: 'exec-1',
    });
    // Per turn: model Task + route Choice + tools Task; the final turn has no tools Task.
    const fixed = run.events - 3 * 12 - (5 + 2);
    expect(fixed).toBe(2 + 2 + 5); // Start, Resume, report
  });

  it('stops after maxTurns without a final answer and goes on with final: false', async () => {
    const { handler, modelEvents } = scripted(99);
    const run = await walkDefinition(compileWorkflow(loopWorkflow({ maxTurns: 3 })), { question: 'q' }, handler);
    expect(modelEvents).toHaveLength(3);
    expect(run.end).toBe('report');
    expect(run.output.steps.research).toMatchObject({ final: false, turn: 2 });
  });

  it('continues as new every N turns through the alias, and the next generation resumes at the tools', async () => {
    const asl = compileWorkflow(loopWorkflow({ continueAsNewEvery: 2 }));
    const can = stateOf(asl, 'research-continue-as-new', 'Task');
    expect(can.Resource).toBe('arn:aws:states:::states:startExecution');
    expect((can.Arguments as { StateMachineArn: string }).StateMachineArn).toBe('${WorkflowAliasArn}');
    expect(can).toMatchObject({ Next: 'research-continued' });
    expect(stateOf(asl, 'research-continued', 'Succeed').Type).toBe('Succeed');

    const first = scripted(5);
    const g0 = await walkDefinition(asl, { question: 'q' }, first.handler);
    expect(g0.end).toBe('research-continued');
    expect(first.modelEvents.map((e) => e.turn)).toEqual([0, 1]);
    expect(first.batches.map((b) => b.turn)).toEqual([0]);
    expect(first.starts).toHaveLength(1);
    const start = first.starts[0];
    expect(start.Name).toBe('exec-1-g1');
    expect(start.Input).toMatchObject({ input: { question: 'q' }, $continuation: { step: 'research' } });
    expect(start.Input.steps.research).toMatchObject({ turn: 1, generation: 1, root: 'exec-1' });
    expect(start.Input.steps.research.toolCalls).toHaveLength(2);
    expect(g0.output.steps.research.continuedAs).toBe('arn:execution:exec-1-g1');

    const second = scripted(5);
    const g1 = await walkDefinition(asl, start.Input, second.handler, { Id: 'arn:exec-1-g1', Name: 'exec-1-g1' });
    expect(g1.visited.slice(0, 3)).toEqual([START_STATE, RESUME_STATE, 'research-tools']);
    expect(second.batches[0].calls.map((c: any) => c.idempotencyKey)).toEqual([
      'exec-1:research:1:c1a',
      'exec-1:research:1:c1b',
    ]);
    expect(second.modelEvents.map((e) => e.turn)).toEqual([2, 3]);
    expect(second.starts[0].Name).toBe('exec-1-g2');

    const third = scripted(5);
    const g2 = await walkDefinition(asl, second.starts[0].Input, third.handler, {
      Id: 'arn:exec-1-g2',
      Name: 'exec-1-g2',
    });
    expect(third.modelEvents.map((e) => e.turn)).toEqual([4, 5]);
    expect(g2.end).toBe('report');
    expect(g2.output.steps.research).toMatchObject({ final: true, turn: 5, generation: 2, root: 'exec-1' });
  });

  it('treats "execution already exists" on continue-as-new as handed over, not as a failure', async () => {
    const asl = compileWorkflow(loopWorkflow({ continueAsNewEvery: 1 }));
    const can = stateOf(asl, 'research-continue-as-new', 'Task');
    expect(can.Catch).toEqual([
      expect.objectContaining({
        ErrorEquals: ['StepFunctions.ExecutionAlreadyExistsException'],
        Next: 'research-continued',
      }),
    ]);
    expect(can.Retry[0].ErrorEquals).toContain('StepFunctions.ExecutionAlreadyExistsException');
  });
});

describe('agentLoop with results offloaded whole', () => {
  it('fails at the model Task instead of ending the loop quietly when the result is a bare $ref', async () => {
    const asl = compileWorkflow(loopWorkflow());
    const handler: TaskHandler = () => ({ Payload: { $ref: 's3://b/k', bytes: 200_000, sha256: 'ab' } });
    await expect(walkDefinition(asl, { question: 'q' }, handler)).rejects.toThrow(
      "model-step result of 'research' has no inline 'final'",
    );
  });

  it('fails at the tools Task instead of dropping the tool results when the batch result is a bare $ref', async () => {
    const asl = compileWorkflow(loopWorkflow());
    const { handler } = scripted(3);
    const offloading: TaskHandler = (state, resource, args) =>
      state === 'research-tools'
        ? { Payload: { $ref: 's3://b/k', bytes: 200_000, sha256: 'ab' } }
        : handler(state, resource, args);
    await expect(walkDefinition(asl, { question: 'q' }, offloading)).rejects.toThrow(
      "tool-step batch result of 'research' has no inline 'results'",
    );
  });
});
