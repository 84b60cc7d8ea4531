import type { QueryLanguage, StateDefinition } from '../dataflow';

/** A list of states with its start: the top level, a Parallel branch or a Map's item processor. */
export interface StateList {
  readonly StartAt: string;
  readonly States: Readonly<Record<string, StateDefinition>>;
  readonly QueryLanguage?: QueryLanguage;
}

/**
 * Where a frame's states live: pairs of (state name, branch index) for Parallel branches and
 * (state name, 'items') for Map item processors, from the top level down. `[]` is the top level.
 */
export type ScopePath = readonly (string | number)[];

/** The marker of a Map's item processor in a {@link ScopePath}. */
export const MAP_ITEMS = 'items';

/** A parsed definition, navigable by {@link ScopePath}. Immutable; shared by every execution pinned to it. */
export class DefinitionTree {
  readonly root: StateList & { readonly TimeoutSeconds?: number };
  private readonly lists = new Map<string, StateList>();

  constructor(readonly body: string) {
    this.root = JSON.parse(body) as StateList;
  }

  /** The query language of the top level (default JSONPath). */
  get queryLanguage(): QueryLanguage {
    return this.root.QueryLanguage ?? 'JSONPath';
  }

  /** The state list at `path`. */
  listAt(path: ScopePath): StateList {
    const key = JSON.stringify(path);
    let list = this.lists.get(key);
    if (!list) {
      list = this.root;
      for (let i = 0; i < path.length; i += 2) {
        const state = list.States[path[i] as string] as Record<string, unknown>;
        const which = path[i + 1];
        list = (which === MAP_ITEMS ? (state.ItemProcessor ?? state.Iterator) : (state.Branches as StateList[])[which as number]) as StateList;
      }
      this.lists.set(key, list);
    }
    return list;
  }

  /** The state `name` at `path`. */
  stateAt(path: ScopePath, name: string): StateDefinition {
    const state = this.listAt(path).States[name];
    if (!state) throw new Error(`state '${name}' not found in the definition`);
    return state;
  }

  /** A state's effective query language: its own, else the top level's. */
  languageOf(state: StateDefinition): QueryLanguage {
    return (state.QueryLanguage as QueryLanguage | undefined) ?? this.queryLanguage;
  }
}

const cache = new Map<string, DefinitionTree>();
/** Most definitions kept parsed at once. */
const MAX_CACHED_DEFINITIONS = 256;

/** The parsed tree of a stored definition (cached by hash). */
export function definitionTree(hash: string, load: () => string): DefinitionTree {
  let tree = cache.get(hash);
  if (!tree) {
    if (cache.size >= MAX_CACHED_DEFINITIONS) cache.delete(cache.keys().next().value as string);
    tree = new DefinitionTree(load());
    cache.set(hash, tree);
  }
  return tree;
}
