/**
 * The context object (`$$`, `$states.context`) a tested state sees: the one TestState synthesises, or the
 * caller's, checked as AWS checks it (recorded: LocalStack test_state_context_object, AWS-validated).
 */
import { randomUUID } from 'node:crypto';
import { type ArnScope, stateMachineArn } from '../arns';
import { ValidationException } from '../service-errors';

type Json = Record<string, unknown>;

/** The name every synthesised context gives the tested state, even one picked with `stateName`. */
export const SYNTHESIZED_STATE_NAME = 'StateName';

/** What a synthesised context is made of. */
export interface ContextFacts {
  readonly scope: ArnScope;
  readonly input: unknown;
  readonly roleArn?: string;
  readonly nowMillis: number;
  /** Whether the tested state is a Task, Map or Parallel (only their synthesised context has `State.RetryCount`). */
  readonly recoverable: boolean;
  /** A `.waitForTaskToken` / `.sync` Task's token (`$$.Task.Token`). */
  readonly token?: string;
}

/**
 * The context AWS synthesises for a TestState call: an express execution of a made-up machine, started
 * now with the state input, and the state named "StateName". `State.RetryCount` is 0 for a Task, Map or
 * Parallel (recorded with and without Retry fields); a Pass's context showed only Name and EnteredTime.
 */
export function synthesizedContext(facts: ContextFacts): Json {
  const machineName = randomUUID();
  const executionName = randomUUID();
  const now = new Date(facts.nowMillis).toISOString();
  return {
    Execution: {
      // An express execution ARN without the run id a StartExecution'd express run has (recorded).
      Id: `arn:aws:states:${facts.scope.region}:${facts.scope.accountId}:express:${machineName}:${executionName}`,
      Input: facts.input,
      Name: executionName,
      RoleArn: facts.roleArn ?? null,
      StartTime: now,
    },
    StateMachine: { Id: stateMachineArn(facts.scope, machineName), Name: machineName },
    State: { Name: SYNTHESIZED_STATE_NAME, EnteredTime: now, ...(facts.recoverable ? { RetryCount: 0 } : {}) },
    ...(facts.token !== undefined ? { Task: { Token: facts.token } } : {}),
  };
}

type FieldType = 'string' | 'number' | 'any';

/** The fields a given context may have, and their types: the context object AWS documents, without `Map`. */
const CONTEXT_FIELDS: Readonly<Record<string, Readonly<Record<string, FieldType>>>> = {
  Execution: {
    Id: 'string',
    Input: 'any',
    Name: 'string',
    RoleArn: 'string',
    StartTime: 'string',
    RedriveCount: 'number',
    RedriveTime: 'string',
  },
  State: { EnteredTime: 'string', Name: 'string', RetryCount: 'number' },
  StateMachine: { Id: 'string', Name: 'string' },
  Task: { Token: 'string' },
};

const invalid = (reason: string): ValidationException =>
  new ValidationException(`Invalid Context object provided: ${reason}`);
const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Parses and checks the caller's context. `{}` and empty sections are taken as they are; `Task` only for a
 * Task whose pattern hands out a token (`.sync`, `.waitForTaskToken`); `Map` never.
 */
export function givenContext(text: string, options: { readonly tokenTask: boolean }): Json {
  let context: unknown;
  try {
    context = JSON.parse(text);
  } catch {
    throw invalid('the context must be a JSON object');
  }
  if (!isObject(context)) throw invalid('the context must be a JSON object');
  for (const [section, value] of Object.entries(context)) {
    if (section === 'Map') throw invalid("'Map' field is not supported when mocking a Context object");
    const fields = CONTEXT_FIELDS[section];
    if (!fields) throw invalid(`Field '${section}' is not allowed`);
    if (section === 'Task' && !options.tokenTask) {
      throw invalid(
        "Context object contains 'Task' when state is not a Task state with a '.sync' or '.waitForTaskToken' service integration pattern",
      );
    }
    if (!isObject(value)) throw invalid(`${section} must be an object`);
    for (const [field, fieldValue] of Object.entries(value)) {
      const type = fields[field];
      if (!type) throw invalid(`Field '${field}' is not allowed`);
      if (type !== 'any' && fieldValue !== null && typeof fieldValue !== type)
        throw invalid(`${section}.${field} must be a ${type}`);
    }
  }
  return context;
}
