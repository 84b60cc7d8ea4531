import type { AslDefinition, AslState } from '@autosave/workflow';
import { historyEventsOf } from '@autosave/workflow';
import { evaluateField } from './asl-test-helpers';

/**
 * A test-only walk through a compiled definition: evaluates its JSONata fields with the `jsonata`
 * package and follows transitions, so the data flow of emitted states can be checked without an
 * engine. It covers what the compiler emits (Pass, Task, Choice, Wait, Succeed; Catch on a thrown
 * error name), not ASL in general, and ignores Retry. The engine's own tests run the real thing.
 */

/** A Task failure to simulate: the error name that Catch matches. */
export class SimulatedTaskError extends Error {
  constructor(readonly error: string) {
    super(error);
  }
}

/** Answers one Task: receives the evaluated Arguments, returns `$states.result` or throws. */
export type TaskHandler = (state: string, resource: string, args: any) => unknown | Promise<unknown>;

export interface WalkResult {
  /** States entered, in order. */
  readonly visited: string[];
  /** The state data when the run ended. */
  readonly output: any;
  /** The terminal state. */
  readonly end: string;
  /** History events of the walk (lifecycle excluded), counted as history-budget.ts counts them. */
  readonly events: number;
}

async function evaluateTemplate(value: unknown, states: object): Promise<unknown> {
  if (typeof value === 'string' && value.startsWith('{%')) {
    const result = await evaluateField(value, states as never);
    // As on AWS: a field whose expression yields nothing is a States.QueryEvaluationError.
    if (result === undefined) throw new Error(`States.QueryEvaluationError: ${value} returned nothing`);
    return result;
  }
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return Promise.all(value.map((v) => evaluateTemplate(v, states)));
  if (value !== null && typeof value === 'object') {
    const entries = await Promise.all(
      Object.entries(value).map(async ([k, v]) => [k, await evaluateTemplate(v, states)] as const),
    );
    return Object.fromEntries(entries);
  }
  return value;
}

const nextOf = (s: AslState): string | undefined => ('Next' in s ? (s.Next as string) : undefined);

/** Walks `definition` from StartAt with `input` as the execution input. */
export async function walkDefinition(
  definition: AslDefinition,
  input: unknown,
  onTask: TaskHandler,
  execution: { Id: string; Name: string } = {
    Id: 'arn:aws:states:us-east-1:123456789012:execution:wf:exec-1',
    Name: 'exec-1',
  },
  maxStates = 10_000,
): Promise<WalkResult> {
  const visited: string[] = [];
  let events = 0;
  let name = definition.StartAt;
  let data: any = input;
  for (;;) {
    if (visited.length >= maxStates) throw new Error(`walk exceeded ${maxStates} states`);
    const state = definition.States[name];
    visited.push(name);
    events += historyEventsOf(state);
    const context = {
      Execution: { ...execution, Input: input },
      Task: { Token: `token-${visited.length}` },
      State: { Name: name, EnteredTime: new Date(0).toISOString() },
    };
    if (state.Type === 'Succeed') return { visited, output: data, end: name, events };
    if (state.Type === 'Pass') {
      data = state.Output === undefined ? data : await evaluateTemplate(state.Output, { input: data, context });
    } else if (state.Type === 'Wait') {
      // time passes
    } else if (state.Type === 'Choice') {
      let target = state.Default;
      for (const rule of state.Choices) {
        if ((await evaluateField(rule.Condition, { input: data, context })) === true) {
          target = rule.Next;
          break;
        }
      }
      if (target === undefined) throw new Error(`States.NoChoiceMatched at ${name}`);
      name = target;
      continue;
    } else if (state.Type === 'Task') {
      const args = await evaluateTemplate(state.Arguments, { input: data, context });
      try {
        const result = await onTask(name, state.Resource, args);
        data = await evaluateTemplate(state.Output, { input: data, result, context });
      } catch (err) {
        if (!(err instanceof SimulatedTaskError)) throw err;
        const catcher = state.Catch?.find(
          (c) => c.ErrorEquals.includes(err.error) || c.ErrorEquals.includes('States.ALL'),
        );
        if (!catcher) return { visited, output: { error: err.error, failedState: name }, end: name, events };
        data = catcher.Output === undefined ? data : await evaluateTemplate(catcher.Output, { input: data, context });
        name = catcher.Next;
        continue;
      }
    }
    const next = nextOf(state);
    if (next === undefined) return { visited, output: data, end: name, events };
    name = next;
  }
}
