import type { QueryLanguage, StateDefinition } from '../dataflow';
import type { Catcher, Retrier } from '../executor/retry-policy';
import { resolveTaskTarget, type TaskTarget } from '../executor/task-integrations';

/**
 * Where a state list lives: pairs of (state name, branch index) for Parallel branches and
 * (state name, `'items'`) for Map item processors, from the top level down; `[]` is the top level.
 * A frame's position keeps the path of the list it runs in.
 */
export type StateListPath = readonly (string | number)[];

/** The marker of a Map's item processor in a {@link StateListPath}. */
export const MAP_ITEMS = 'items';

/** The state types of the Amazon States Language. */
export type StateType = 'Pass' | 'Task' | 'Choice' | 'Wait' | 'Succeed' | 'Fail' | 'Parallel' | 'Map';

/** Every ASL state type, in the order the spec lists them. */
export const STATE_TYPES: readonly StateType[] = [
  'Pass',
  'Task',
  'Choice',
  'Wait',
  'Succeed',
  'Fail',
  'Parallel',
  'Map',
];

/** A list of states with its start: the top level, one Parallel branch or one Map item processor. */
export interface PreparedStateList {
  readonly path: StateListPath;
  readonly startAt: string;
  readonly stateNames: readonly string[];
}

/** One state of a validated definition, with what the executor needs of it resolved once. */
export interface PreparedState {
  readonly name: string;
  readonly type: StateType;
  /** The state's ASL, as written. */
  readonly definition: StateDefinition;
  /** The state's own `QueryLanguage`, else the top level's. */
  readonly queryLanguage: QueryLanguage;
  /** The list the state belongs to. */
  readonly list: PreparedStateList;
  /** The next state, unless the state ends its list (`End`, Succeed, Fail) or chooses (Choice). */
  readonly next?: string;
  /** Retriers and catchers (Task, Parallel and Map; empty for the others). */
  readonly retry: readonly Retrier[];
  readonly catch: readonly Catcher[];
  /** A Task state's `Resource`, resolved. */
  readonly task?: TaskTarget;
  /** A Parallel state's branches, in order. */
  readonly branches?: readonly PreparedStateList[];
  /** A Map state's item processor (`ItemProcessor`, or the older `Iterator`). */
  readonly itemProcessor?: PreparedStateList;
  /** A Map in distributed mode (`ProcessorConfig.Mode` DISTRIBUTED): AWS runs its iterations as child executions. */
  readonly distributed?: boolean;
}

/** A definition that passed validation: the one model of it the engine runs. */
export interface PreparedDefinition {
  /** The parsed definition, as written. */
  readonly definition: Readonly<Record<string, unknown>>;
  /** The top-level query language (default JSONPath). */
  readonly queryLanguage: QueryLanguage;
  /** The top-level `TimeoutSeconds`, when set. */
  readonly timeoutSeconds?: number;
  /** The top-level state list. */
  readonly root: PreparedStateList;
  /**
   * Every state, including those in Parallel branches and Map item processors, by name (ASL requires
   * state names to be unique across the whole machine, and validation checks it).
   */
  readonly states: ReadonlyMap<string, PreparedState>;
  /**
   * The Task states whose integration AWS knows but the engine does not serve, in document order: they are
   * accepted, and fail at run time with `Local.IntegrationNotServed` (the console and `autosave local` warn of them).
   */
  readonly unservedTasks: readonly UnservedTask[];
}

/** A Task state whose integration AWS knows but the engine does not serve. */
export interface UnservedTask {
  readonly state: string;
  readonly resource: string;
  /** The JSON pointer of its `Resource` (`/States/Publish/Resource`). */
  readonly location: string;
}

const pointerPart = (key: string | number) => String(key).replace(/~/g, '~0').replace(/\//g, '~1');

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
const RECOVERABLE: ReadonlySet<StateType> = new Set(['Task', 'Parallel', 'Map']);

/**
 * Builds the prepared model of a definition that is already known to be valid (validation runs once, at
 * CreateStateMachine/UpdateStateMachine; a stored definition is prepared again after a restart by this
 * same pure function of its text, which is why only the text is stored).
 */
export function prepareDefinition(definition: Json): PreparedDefinition {
  const queryLanguage = (definition.QueryLanguage as QueryLanguage | undefined) ?? 'JSONPath';
  const states = new Map<string, PreparedState>();
  const unservedTasks: UnservedTask[] = [];
  const list = (owner: Json, path: StateListPath, pointer: string): PreparedStateList => {
    const raw = isObject(owner.States) ? owner.States : {};
    const stateList: PreparedStateList = { path, startAt: String(owner.StartAt), stateNames: Object.keys(raw) };
    for (const [name, value] of Object.entries(raw)) {
      const state = value as StateDefinition;
      const type = state.Type as StateType;
      const recoverable = RECOVERABLE.has(type);
      const processor = (state.ItemProcessor ?? state.Iterator) as Json | undefined;
      // A state comes before the states of its branches / item processor (document order).
      const prepared = { name } as PreparedState;
      const at = `${pointer}/States/${pointerPart(name)}`;
      states.set(name, prepared);
      Object.assign(prepared, {
        name,
        type,
        definition: state,
        queryLanguage: (state.QueryLanguage as QueryLanguage | undefined) ?? queryLanguage,
        list: stateList,
        ...(typeof state.Next === 'string' && state.End !== true ? { next: state.Next } : {}),
        retry: recoverable && Array.isArray(state.Retry) ? (state.Retry as Retrier[]) : [],
        catch: recoverable && Array.isArray(state.Catch) ? (state.Catch as Catcher[]) : [],
        ...(type === 'Task' ? { task: resolveTaskTarget(state.Resource as string) } : {}),
        ...(type === 'Parallel'
          ? { branches: (state.Branches as Json[]).map((b, i) => list(b, [...path, name, i], `${at}/Branches/${i}`)) }
          : {}),
        ...(type === 'Map' && processor
          ? {
              itemProcessor: list(
                processor,
                [...path, name, MAP_ITEMS],
                `${at}/${state.ItemProcessor ? 'ItemProcessor' : 'Iterator'}`,
              ),
            }
          : {}),
        ...(type === 'Map' && (processor?.ProcessorConfig as Json | undefined)?.Mode === 'DISTRIBUTED'
          ? { distributed: true }
          : {}),
      });
      if (prepared.task?.service === 'unserved')
        unservedTasks.push({ state: name, resource: prepared.task.resourceArn, location: `${at}/Resource` });
    }
    return stateList;
  };
  const root = list(definition, [], '');
  const timeout = definition.TimeoutSeconds;
  return {
    definition,
    queryLanguage,
    root,
    states,
    unservedTasks,
    ...(typeof timeout === 'number' ? { timeoutSeconds: timeout } : {}),
  };
}
