import { InvalidDefinition } from './service-errors';

/**
 * Refuses, with `InvalidDefinition`, a definition the engine cannot run: at CreateStateMachine, never
 * halfway through a run.
 */
export function checkDefinition(text: string): void {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new InvalidDefinition(`Invalid State Machine Definition: 'INVALID_JSON_DESCRIPTION: ${(err as Error).message}'`);
  }
  const root = json as { StartAt?: unknown; States?: Record<string, unknown> };
  if (typeof root !== 'object' || root === null || typeof root.StartAt !== 'string' || typeof root.States !== 'object' || root.States === null) {
    throw new InvalidDefinition("Invalid State Machine Definition: 'SCHEMA_VALIDATION_FAILED: StartAt and States are required'");
  }
  if (!(root.StartAt in root.States)) {
    throw new InvalidDefinition(`Invalid State Machine Definition: 'MISSING_TRANSITION_TARGET: Missing 'Next' target: ${root.StartAt} at /StartAt'`);
  }
}
