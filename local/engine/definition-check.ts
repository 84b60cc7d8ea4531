import { validateDefinition } from './definition';

/**
 * Refuses, with `InvalidDefinition` (an `InvalidDefinitionError` naming the state and field), a
 * definition the engine cannot run: at CreateStateMachine/UpdateStateMachine, never halfway through a run.
 */
export function checkDefinition(text: string): void {
  validateDefinition(text);
}
