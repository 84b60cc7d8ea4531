import { HISTORY_EVENT_BUDGET } from './config';
import type { AslChoiceState, AslDefinition, AslPassState, AslState, AslStates, AslTransition } from './asl-types';
import { EXECUTION_LIFECYCLE_EVENTS, historyEventsOf, historyEventsOfAll } from './history-budget';
import { retryOptionsProblem, type RetryOptions } from './retry-policy';
import { jsonata } from './state-data';
import { AgentLoopStep, CONTINUATION_KEY } from './steps/agent-loop-step';
import type { CompiledStep, StepCompileContext } from './steps/step';
import { TemplateSyntaxError } from './template';
import { WorkflowType, type Step, type Workflow } from './workflow';
import { WorkflowDefinitionError } from './workflow-definition-error';

/** The first state: a Pass that builds the state data `{input, steps}`. */
export const START_STATE = 'Start';
/** With an agent loop: a Choice after Start that sends a continued execution back into its loop. */
export const RESUME_STATE = 'Resume';
/** The shared Succeed state that Choice-routed paths end in. */
export const DONE_STATE = 'Done';

const RESERVED_STATE_NAMES = [START_STATE, RESUME_STATE, DONE_STATE];
/** Step names: they become state names and JSONata field names, so keep them plain. */
const STEP_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,62}$/;
/** State machine names (Step Functions rules, restricted to the portable subset). */
const WORKFLOW_NAME = /^[A-Za-z0-9_-]{1,80}$/;

/** History events an execution of the workflow plans to write, and how they were counted. */
export interface HistoryPlan {
  /** Events of one agent turn, per agent-loop step (12 for the states the compiler emits). */
  readonly eventsPerTurn: Readonly<Record<string, number>>;
  /** Execution start/end, every other state once, and each loop's turns up to its continue-as-new interval. */
  readonly plannedEvents: number;
  /** HISTORY_EVENT_BUDGET. */
  readonly budget: number;
}

interface Compilation {
  readonly definition: AslDefinition;
  readonly plan: HistoryPlan;
}

type Fail = (step: string | undefined, reason: string) => never;

function checkNames(workflow: Workflow, fail: Fail): void {
  if (!WORKFLOW_NAME.test(workflow.name)) fail(undefined, 'the name must be 1-80 letters, digits, - or _');
  if (!workflow.version) fail(undefined, 'a workflow needs a code version string');
  if (workflow.steps.length === 0) fail(undefined, 'a workflow needs at least one step');
  const seen = new Set<string>();
  const stateOwners = new Map<string, string>(RESERVED_STATE_NAMES.map((n) => [n, 'the compiler']));
  for (const step of workflow.steps) {
    if (!STEP_NAME.test(step.name))
      fail(step.name, 'a step name must start with a letter and hold only letters, digits, - or _ (at most 63)');
    if (seen.has(step.name)) fail(step.name, 'duplicate step name');
    seen.add(step.name);
    for (const state of step.stateNames()) {
      const owner = stateOwners.get(state);
      if (owner !== undefined)
        fail(
          step.name,
          `state name '${state}' is already used by ${owner === 'the compiler' ? owner : `step '${owner}'`}`,
        );
      stateOwners.set(state, step.name);
    }
  }
}

function checkStep(workflow: Workflow, index: number, fail: Fail): void {
  const step = workflow.steps[index];
  const names = workflow.steps.map((s) => s.name);
  const failHere = (reason: string): never => fail(step.name, reason);

  if (workflow.type === WorkflowType.EXPRESS) {
    const why = step.expressRestriction();
    if (why !== undefined)
      failHere(`an EXPRESS workflow cannot hold ${/^[aeiou]/i.test(step.kind) ? 'an' : 'a'} ${step.kind} step: ${why}`);
  }
  try {
    step.validate(failHere);
    const opts = step.options as { next?: string; end?: boolean; retry?: RetryOptions };
    const retryProblem = opts.retry === undefined ? undefined : retryOptionsProblem(opts.retry);
    if (retryProblem !== undefined) failHere(retryProblem);
    if (opts.next !== undefined && opts.end) failHere("a step cannot have both 'next' and 'end'");
    for (const target of [...(opts.next === undefined ? [] : [opts.next]), ...step.targets()]) {
      if (!names.includes(target)) failHere(`unknown step '${target}'`);
    }
    for (const ref of step.references()) {
      if (ref.step !== undefined && !names.includes(ref.step))
        failHere(`{${ref.text}} reads unknown step '${ref.step}'`);
    }
  } catch (err) {
    if (err instanceof TemplateSyntaxError) failHere(err.message);
    throw err;
  }
}

function startState(hasLoops: boolean, next: string): AslPassState {
  const fresh = '{"input": $states.input, "steps": {}}';
  const output = hasLoops
    ? `$exists($states.input.\`${CONTINUATION_KEY}\`) ? {"input": $states.input.input, "steps": $states.input.steps} : ${fresh}`
    : fresh;
  return { Type: 'Pass', Comment: 'state data: {input, steps}', Output: jsonata(output), Next: next };
}

function resumeState(loops: readonly AgentLoopStep[], first: string): AslChoiceState {
  return {
    Type: 'Choice',
    Comment: 'a continued execution resumes inside its agent loop',
    Choices: loops.map((loop) => ({
      Condition: jsonata(`$states.context.Execution.Input.\`${CONTINUATION_KEY}\`.step = ${JSON.stringify(loop.name)}`),
      Next: loop.resumeState,
    })),
    Default: first,
  };
}

function transitionOf(workflow: Workflow, index: number): AslTransition {
  const step = workflow.steps[index];
  const opts = step.options as { next?: string; end?: boolean };
  if (opts.end) return { End: true };
  if (opts.next !== undefined) return { Next: opts.next };
  const following = workflow.steps[index + 1];
  return following === undefined ? { End: true } : { Next: following.name };
}

/** States a state can go to next. */
function successors(state: AslState): string[] {
  const out: string[] = [];
  if ('Next' in state && typeof state.Next === 'string') out.push(state.Next);
  if (state.Type === 'Choice') {
    out.push(...state.Choices.map((c) => c.Next));
    if (state.Default !== undefined) out.push(state.Default);
  }
  if (state.Type === 'Task') out.push(...(state.Catch ?? []).map((c) => c.Next));
  return out;
}

/** Step Functions rejects a definition with unreachable states; say which step nothing leads to. */
function checkReachable(states: AslStates, workflow: Workflow, fail: Fail): void {
  const reached = new Set<string>();
  const queue = [START_STATE];
  while (queue.length > 0) {
    const name = queue.pop() as string;
    if (reached.has(name)) continue;
    reached.add(name);
    queue.push(...successors(states[name]));
  }
  const unreached = workflow.steps.find((step) => !reached.has(step.name));
  if (unreached !== undefined) {
    fail(
      unreached.name,
      "no step leads to it (a step before it ends, and no 'next', choice branch or approval path names it)",
    );
  }
}

/**
 * For each state, the states every path from Start to it passes through (its dominators), by the
 * classic iterative data-flow: dom(Start) = {Start}, dom(n) = {n} + the intersection of dom(p) over
 * the predecessors p of n.
 */
function dominators(states: AslStates): Map<string, Set<string>> {
  const names = Object.keys(states);
  const preds = new Map<string, string[]>(names.map((n) => [n, []]));
  for (const n of names) for (const m of successors(states[n])) preds.get(m)?.push(n);
  const dom = new Map<string, Set<string>>(names.map((n) => [n, new Set(n === START_STATE ? [n] : names)]));
  for (let changed = true; changed;) {
    changed = false;
    for (const n of names) {
      if (n === START_STATE) continue;
      const ps = preds.get(n) as string[];
      const next = new Set(
        [...(ps.length > 0 ? (dom.get(ps[0]) as Set<string>) : [])].filter((d) => ps.every((p) => dom.get(p)?.has(d))),
      );
      next.add(n);
      if (next.size !== dom.get(n)?.size) {
        dom.set(n, next);
        changed = true;
      }
    }
  }
  return dom;
}

/**
 * A template may read only a step that has recorded its result on every path to the reader: the
 * step's entry state must dominate the reader's, and the step must be of a kind that records one.
 * Anything else would make Step Functions fail the field at run time (it yields nothing).
 */
function checkReferences(states: AslStates, workflow: Workflow, fail: Fail): void {
  const dom = dominators(states);
  const byName = new Map(workflow.steps.map((s) => [s.name, s]));
  for (const step of workflow.steps) {
    for (const ref of step.references()) {
      if (ref.step === undefined) continue;
      const read = byName.get(ref.step) as Step;
      if (read.kind === 'choice' || read.kind === 'wait')
        fail(step.name, `{${ref.text}} reads step '${ref.step}', a ${read.kind} step, which records no result`);
      if (read === step || !dom.get(step.name)?.has(read.name)) {
        fail(
          step.name,
          `{${ref.text}} reads step '${ref.step}', which does not run before this step on every path to it`,
        );
      }
    }
  }
}

function planOf(states: AslStates, compiled: ReadonlyMap<Step, CompiledStep>, fail: Fail): HistoryPlan {
  const inLoop = new Set<string>();
  const eventsPerTurn: Record<string, number> = {};
  let loopEvents = 0;
  for (const [step, c] of compiled) {
    if (!c.loop) continue;
    const perTurn = historyEventsOfAll(c.loop.states.map((n) => states[n]));
    eventsPerTurn[step.name] = perTurn;
    loopEvents += perTurn * c.loop.iterations;
    c.loop.states.forEach((n) => inLoop.add(n));
  }
  const onceEvents = Object.entries(states)
    .filter(([name]) => !inLoop.has(name))
    .reduce((sum, [, s]) => sum + historyEventsOf(s as AslState), EXECUTION_LIFECYCLE_EVENTS);
  const plannedEvents = onceEvents + loopEvents;
  if (plannedEvents > HISTORY_EVENT_BUDGET) {
    for (const [step, c] of compiled) {
      if (!c.loop) continue;
      const perTurn = eventsPerTurn[step.name];
      const room = HISTORY_EVENT_BUDGET - (plannedEvents - perTurn * c.loop.iterations);
      fail(
        step.name,
        `continuing as new every ${c.loop.iterations} turns plans ${plannedEvents} history events per execution ` +
          `(${perTurn} per turn), over the budget of ${HISTORY_EVENT_BUDGET}; use at most ${Math.max(0, Math.floor(room / perTurn))} turns`,
      );
    }
  }
  return { eventsPerTurn, plannedEvents, budget: HISTORY_EVENT_BUDGET };
}

function compile(workflow: Workflow): Compilation {
  const fail: Fail = (step, reason) => {
    throw new WorkflowDefinitionError(workflow.name, step, reason);
  };
  checkNames(workflow, fail);
  workflow.steps.forEach((_, i) => checkStep(workflow, i, fail));

  // By kind, not instanceof: a workflow declared with another copy of this package (an app's CommonJS build
  // beside the engine's ESM one) compiles the same.
  const loops = workflow.steps.filter((s): s is AgentLoopStep => s.kind === 'agentLoop');
  const first = workflow.steps[0].name;
  const states: Record<string, AslState> = {
    [START_STATE]: startState(loops.length > 0, loops.length > 0 ? RESUME_STATE : first),
  };
  if (loops.length > 0) states[RESUME_STATE] = resumeState(loops, first);

  let doneUsed = false;
  const compiled = new Map<Step, CompiledStep>();
  workflow.steps.forEach((step, i) => {
    const transition = transitionOf(workflow, i);
    const context: StepCompileContext = {
      workflow: workflow.name,
      transition,
      following: () => ('Next' in transition ? transition.Next : context.done()),
      target: (name) => name,
      done: () => {
        doneUsed = true;
        return DONE_STATE;
      },
    };
    try {
      const c = step.compile(context);
      compiled.set(step, c);
      Object.assign(states, c.states);
    } catch (err) {
      if (err instanceof TemplateSyntaxError) fail(step.name, err.message);
      throw err;
    }
  });
  if (doneUsed) states[DONE_STATE] = { Type: 'Succeed' };
  checkReachable(states, workflow, fail);
  checkReferences(states, workflow, fail);

  const description = workflow.description ? `: ${workflow.description}` : '';
  const definition: AslDefinition = {
    Comment: `${workflow.name}@${workflow.version}${description}`,
    QueryLanguage: 'JSONata',
    StartAt: START_STATE,
    States: states,
  };
  return { definition, plan: planOf(states, compiled, fail) };
}

/**
 * Compiles a workflow to an ASL definition in the JSONata query language, following
 * docs/architecture.md §1-§2: state data `{input, steps}`, Lambda Tasks on placeholder ARNs, the house
 * Retry on every Task and no Catch to a Fail state. Throws {@link WorkflowDefinitionError} when the
 * workflow is not valid. Deterministic: serialise with `toAslJson` for byte-identical output.
 */
export function compileWorkflow(workflow: Workflow): AslDefinition {
  return compile(workflow).definition;
}

/**
 * The history events one execution of the workflow plans to write (the check `compileWorkflow` makes
 * against HISTORY_EVENT_BUDGET), with the events per agent turn computed from the emitted states.
 */
export function planHistory(workflow: Workflow): HistoryPlan {
  return compile(workflow).plan;
}
