/**
 * The states a redrive may still run: those reachable from the state it enters again (by Next, a Choice's
 * rules and Default, a Catch), with the states of every Parallel branch and Map item processor among them;
 * and the Lambda functions their Tasks name literally. A pull warns of what among them this engine cannot run.
 */
import type { PreparedDefinition, PreparedState, PreparedStateList } from '../definition';

/** What {@link statesLeftToRun} found. */
export interface StatesLeft {
  readonly states: ReadonlySet<string>;
  /** [state, function name] of each Task naming a Lambda function in a literal `FunctionName` or `Resource`. */
  readonly functions: readonly (readonly [string, string])[];
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The states a state can move to within its list. */
function successors(state: PreparedState): string[] {
  const d = state.definition as Record<string, unknown>;
  const out: string[] = [];
  if (state.next !== undefined) out.push(state.next);
  if (typeof d.Default === 'string') out.push(d.Default);
  if (Array.isArray(d.Choices))
    for (const c of d.Choices) if (isObject(c) && typeof c.Next === 'string') out.push(c.Next);
  for (const c of state.catch) if (typeof c.Next === 'string') out.push(c.Next);
  return out;
}

/** The function a Task names literally (`arn:...:function:<name>[:qualifier]`, or a bare name), if any. */
function functionOf(state: PreparedState): string | undefined {
  const d = state.definition as Record<string, unknown>;
  const args = (isObject(d.Arguments) ? d.Arguments : isObject(d.Parameters) ? d.Parameters : {}) as Record<
    string,
    unknown
  >;
  const resource = typeof d.Resource === 'string' ? d.Resource : '';
  const named = resource.startsWith('arn:aws:states:::lambda:invoke')
    ? args.FunctionName
    : resource.includes(':function:')
      ? resource
      : undefined;
  if (typeof named !== 'string' || named.startsWith('{%')) return undefined;
  const at = named.indexOf('function:');
  return (at >= 0 ? named.slice(at + 'function:'.length) : named).split(':')[0];
}

/** See the module comment. */
export function statesLeftToRun(definition: PreparedDefinition, from: string): StatesLeft {
  const states = new Set<string>();
  const functions: [string, string][] = [];
  const queue = [from];
  const enterList = (list: PreparedStateList) => queue.push(list.startAt);
  while (queue.length > 0) {
    const name = queue.pop() as string;
    if (states.has(name)) continue;
    const state = definition.states.get(name);
    if (!state) continue;
    states.add(name);
    const fn = state.type === 'Task' ? functionOf(state) : undefined;
    if (fn !== undefined) functions.push([name, fn]);
    state.branches?.forEach(enterList);
    if (state.itemProcessor) enterList(state.itemProcessor);
    queue.push(...successors(state));
  }
  return { states, functions };
}
