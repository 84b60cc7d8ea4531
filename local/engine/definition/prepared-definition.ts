import type { QueryLanguage, StateDefinition } from '../dataflow';

/**
 * Where a state list lives: pairs of (state name, branch index) for Parallel branches and
 * (state name, `'items'`) for Map item processors, from the top level down; `[]` is the top level.
 * The same convention as the executor's `ScopePath`.
 */
export type StateListPath = readonly (string | number)[];

/** A list of states with its start: the top level, one Parallel branch or one Map item processor. */
export interface PreparedStateList {
  readonly path: StateListPath;
  readonly startAt: string;
  readonly stateNames: readonly string[];
}

/** One state of a validated definition. */
export interface PreparedState {
  readonly name: string;
  readonly definition: StateDefinition;
  /** The state's own `QueryLanguage`, else the top level's. */
  readonly queryLanguage: QueryLanguage;
  /** The list the state belongs to. */
  readonly list: PreparedStateList;
  /** A Parallel state's branches, in order. */
  readonly branches?: readonly PreparedStateList[];
  /** A Map state's item processor (`ItemProcessor`, or the older `Iterator`). */
  readonly itemProcessor?: PreparedStateList;
}

/** A definition that passed {@link validateDefinition}: everything the engine needs to look states up. */
export interface PreparedDefinition {
  /** The parsed definition, as written. */
  readonly definition: Readonly<Record<string, unknown>>;
  /** The top-level query language (default JSONPath). */
  readonly queryLanguage: QueryLanguage;
  /** The top-level state list. */
  readonly root: PreparedStateList;
  /**
   * Every state, including those in Parallel branches and Map item processors, by name (ASL requires
   * state names to be unique across the whole machine, and validation checks it).
   */
  readonly states: ReadonlyMap<string, PreparedState>;
}
