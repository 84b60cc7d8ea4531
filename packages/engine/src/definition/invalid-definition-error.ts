import { InvalidDefinition } from '../service-errors';

/** One problem found in a definition. */
export interface DefinitionProblem {
  /** Step Functions' code for the kind of problem (`SCHEMA_VALIDATION_FAILED`, `MISSING_TRANSITION_TARGET`, ...). */
  readonly code: string;
  /** What is wrong, naming the state and the field. */
  readonly message: string;
  /** JSON pointer into the definition (`/States/Charge/Retry/0/ErrorEquals`). */
  readonly location: string;
}

/**
 * A definition the engine cannot run, refused at CreateStateMachine/UpdateStateMachine. `name` is the
 * Step Functions `__type` (`InvalidDefinition`); the message lists every problem as the service does:
 * `Invalid State Machine Definition: 'CODE: message at /pointer, ...'`.
 */
export class InvalidDefinitionError extends InvalidDefinition {
  readonly problems: readonly DefinitionProblem[];

  constructor(problems: readonly DefinitionProblem[]) {
    super(
      `Invalid State Machine Definition: '${problems.map((p) => `${p.code}: ${p.message}${p.location ? ` at ${p.location}` : ''}`).join(', ')}'`,
    );
    this.problems = problems;
  }
}
