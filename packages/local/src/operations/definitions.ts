import { DescribeStateMachineCommand, type DescribeExecutionCommandOutput, type SFNClient } from '@aws-sdk/client-sfn';

/** The parts of an ASL definition the CLI and the console read (transitions only). */
export interface AslGraphDefinition {
  readonly StartAt: string;
  readonly States: Readonly<
    Record<
      string,
      {
        readonly Type?: string;
        readonly Next?: string;
        readonly End?: boolean;
        readonly Default?: string;
        /** A Choice's rules: JSONata `Condition`, or JSONPath `Variable` and a comparison (or `And`/`Or`/`Not`). */
        readonly Choices?: readonly ChoiceRule[];
        readonly Catch?: readonly { readonly Next?: string }[];
      }
    >
  >;
}

/** One rule of a Choice state, as the definition holds it (only `Next` is read for transitions). */
export interface ChoiceRule {
  readonly Next?: string;
  readonly [field: string]: unknown;
}

/** The definition a run executes: its pinned version's when it started through a version or alias. */
export async function definitionOfRun(
  sfn: SFNClient,
  execution: DescribeExecutionCommandOutput,
): Promise<AslGraphDefinition> {
  const arn = execution.stateMachineVersionArn ?? execution.stateMachineArn!;
  const machine = await sfn.send(new DescribeStateMachineCommand({ stateMachineArn: arn }));
  return JSON.parse(machine.definition ?? '{"StartAt":"","States":{}}') as AslGraphDefinition;
}

/** States a state can go to next (Next, Choices, Default; Catch targets too unless `withCatch` is false). */
export function successorsOf(definition: AslGraphDefinition, state: string, withCatch = true): string[] {
  const s = definition.States[state];
  if (!s) return [];
  return [
    s.Next,
    ...(s.Choices ?? []).map((c) => c.Next),
    s.Default,
    ...(withCatch ? (s.Catch ?? []).map((c) => c.Next) : []),
  ].filter((n): n is string => typeof n === 'string' && n in definition.States);
}

/** State types that do no work of their own (routing and ends): progress counts the other states, the steps. */
const ROUTING_TYPES: ReadonlySet<string | undefined> = new Set(['Pass', 'Choice', 'Succeed', 'Fail']);

/** Whether a state is a step of the run (a Task, Wait, Parallel, Map...) rather than routing or an end. */
export function isStepState(definition: AslGraphDefinition, state: string): boolean {
  const s = definition.States[state];
  return s !== undefined && !ROUTING_TYPES.has(s.Type);
}

/**
 * How a run's progress is measured against its definition, fixed before the run is read so the total
 * never shrinks or jumps: `steps` when the machine has no loop (the total is the steps on its longest
 * path to an end, error paths aside); `loop` when it has one (an agent loop has no honest total, so
 * progress is the turn: how many times the loop's busiest state was entered).
 */
export type ProgressPlan =
  | { readonly kind: 'steps'; readonly totalSteps: number }
  | { readonly kind: 'loop'; /** States on a cycle. */ readonly loopStates: ReadonlySet<string> };

/** The {@link ProgressPlan} of a definition. */
export function progressPlanOf(definition: AslGraphDefinition): ProgressPlan {
  const loopStates = statesOnCycles(definition);
  if (loopStates.size > 0) return { kind: 'loop', loopStates };
  // Acyclic (from StartAt, error paths aside): the most steps on any path to an end, memoized.
  const most = new Map<string, number>();
  const stepsFrom = (state: string): number => {
    const known = most.get(state);
    if (known !== undefined) return known;
    const next = successorsOf(definition, state, false).map(stepsFrom);
    const value = (isStepState(definition, state) ? 1 : 0) + Math.max(0, ...next);
    most.set(state, value);
    return value;
  };
  return { kind: 'steps', totalSteps: definition.States[definition.StartAt] ? stepsFrom(definition.StartAt) : 0 };
}

/** States reachable from StartAt (error paths aside) that lie on a cycle. */
function statesOnCycles(definition: AslGraphDefinition): Set<string> {
  const reachable = new Set<string>();
  const stack = definition.States[definition.StartAt] ? [definition.StartAt] : [];
  while (stack.length > 0) {
    const state = stack.pop()!;
    if (reachable.has(state)) continue;
    reachable.add(state);
    stack.push(...successorsOf(definition, state, false));
  }
  // A state is on a cycle when it can reach itself.
  const onCycle = new Set<string>();
  for (const state of reachable) {
    const seen = new Set<string>();
    const queue = successorsOf(definition, state, false);
    while (queue.length > 0) {
      const next = queue.pop()!;
      if (next === state) {
        onCycle.add(state);
        break;
      }
      if (seen.has(next)) continue;
      seen.add(next);
      queue.push(...successorsOf(definition, next, false));
    }
  }
  return onCycle;
}

/** Where a run stands against its {@link ProgressPlan}. */
export type RunProgress =
  | { readonly kind: 'steps'; readonly done: number; readonly total: number }
  | { readonly kind: 'loop'; readonly turn: number };

/**
 * A run's progress from the names of the states it entered (`entered`, one per entry, in order) and of
 * the steps it finished: distinct steps done (never more than the total, a branch off the longest path
 * included), or the loop's turn.
 */
export function runProgress(
  definition: AslGraphDefinition,
  plan: ProgressPlan,
  entered: readonly string[],
  finished: readonly string[],
): RunProgress {
  if (plan.kind === 'loop') {
    const entries = new Map<string, number>();
    for (const name of entered) if (plan.loopStates.has(name)) entries.set(name, (entries.get(name) ?? 0) + 1);
    return { kind: 'loop', turn: Math.max(0, ...entries.values()) };
  }
  const done = new Set(finished.filter((name) => isStepState(definition, name))).size;
  return { kind: 'steps', done: Math.min(done, plan.totalSteps), total: plan.totalSteps };
}
