import { definitionHash, type EngineStore } from '../store';
import { type PreparedDefinition, prepareDefinition } from './prepared-definition';

/** Most prepared definitions kept in memory at once. */
export const MAX_CACHED_DEFINITIONS = 256;

/**
 * The prepared definitions the engine runs, by the hash their text is stored under. A definition is
 * validated and prepared at CreateStateMachine/UpdateStateMachine and remembered here; after a restart
 * (or once evicted) it is prepared again from its stored text, which was validated when it was stored.
 */
export class DefinitionCache {
  private readonly byHash = new Map<string, PreparedDefinition>();

  constructor(private readonly store: EngineStore) {}

  /** Remembers the prepared form of a definition text that was just validated; returns its hash. */
  remember(text: string, prepared: PreparedDefinition): string {
    const hash = definitionHash(text);
    this.put(hash, prepared);
    return hash;
  }

  /** The prepared definition stored under `hash`. */
  get(hash: string): PreparedDefinition {
    let prepared = this.byHash.get(hash);
    if (!prepared) {
      prepared = prepareDefinition(JSON.parse(this.store.getDefinition(hash)) as Record<string, unknown>);
      this.put(hash, prepared);
    }
    return prepared;
  }

  private put(hash: string, prepared: PreparedDefinition): void {
    this.byHash.delete(hash);
    if (this.byHash.size >= MAX_CACHED_DEFINITIONS) this.byHash.delete(this.byHash.keys().next().value as string);
    this.byHash.set(hash, prepared);
  }
}
