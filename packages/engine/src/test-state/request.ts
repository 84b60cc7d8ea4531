/**
 * The TestState request, read and checked against the API model's constraints (botocore
 * `stepfunctions/2016-11-23/service-2.json`: TestStateInput, MockInput, MockErrorOutput,
 * TestStateConfiguration) before anything runs.
 */
import { MAX_JSON_NESTING_DEPTH } from '@autosave/workflow/config';
import { refuseDeepDefinition } from '../api/state-machines';
import { constraint, nestsDeeperThan, oneOf } from '../api/wire';
import { InvalidArn, ValidationException } from '../service-errors';

/** How much of the data flow the answer shows (`INFO`: none). */
export type InspectionLevel = 'INFO' | 'DEBUG' | 'TRACE';

/** How strictly a mocked result is checked against the integration's API output shape. */
export type FieldValidationMode = 'STRICT' | 'PRESENT' | 'NONE';

/** The `mock` field: a result standing in for the state's work, or the error it raised. */
export type TestStateMock =
  | { readonly kind: 'result'; readonly text: string; readonly fieldValidationMode: FieldValidationMode }
  | {
      readonly kind: 'error';
      readonly error: string;
      readonly cause: string;
      readonly fieldValidationMode: FieldValidationMode;
    };

/** The `stateConfiguration` field. */
export interface TestStateConfiguration {
  readonly retrierRetryCount?: number;
  readonly errorCausedByState?: string;
  readonly mapIterationFailureCount?: number;
  /** JSON text: the items an ItemReader would have read. */
  readonly mapItemReaderData?: string;
}

/** A TestState request whose fields have the model's types and sizes. */
export interface TestStateRequest {
  readonly definition: string;
  readonly roleArn?: string;
  /** The state input as JSON text (`{}` when not given). */
  readonly input: string;
  readonly inspectionLevel: InspectionLevel;
  readonly revealSecrets: boolean;
  /** JSON text of an object: variable name to value. */
  readonly variables?: string;
  readonly stateName?: string;
  readonly mock?: TestStateMock;
  /** JSON text of the context object to use as `$$`. */
  readonly context?: string;
  readonly stateConfiguration: TestStateConfiguration;
}

/** Largest `definition` the model allows (characters). */
export const MAX_DEFINITION_LENGTH = 1_048_576;
/** Largest `input`, `variables`, `context`, `mock.result` and `mapItemReaderData` the model allows (characters). */
export const MAX_DATA_LENGTH = 262_144;
/** The default `input`, as the API documents it. */
export const DEFAULT_TEST_STATE_INPUT = '{}';

const INSPECTION_LEVELS: readonly InspectionLevel[] = ['INFO', 'DEBUG', 'TRACE'];
const FIELD_VALIDATION_MODES: readonly FieldValidationMode[] = ['STRICT', 'PRESENT', 'NONE'];

type Fields = Readonly<Record<string, unknown>>;

function stringField(
  owner: Fields,
  name: string,
  path: string,
  limits: { min?: number; max: number; required?: boolean },
): string | undefined {
  const value = owner[name];
  if (value === undefined || value === null) {
    if (limits.required) throw constraint(path, value, 'Member must not be null');
    return undefined;
  }
  if (typeof value !== 'string') throw new ValidationException(`Value at '${path}' must be a string`);
  if (value.length < (limits.min ?? 0))
    throw constraint(path, value, `Member must have length greater than or equal to ${limits.min}`);
  if (value.length > limits.max)
    throw constraint(path, '…', `Member must have length less than or equal to ${limits.max}`);
  return value;
}

function countField(owner: Fields, name: string, path: string): number | undefined {
  const value = owner[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value))
    throw new ValidationException(`Value at '${path}' must be an integer`);
  if (value < 0) throw constraint(path, value, 'Member must have value greater than or equal to 0');
  return value;
}

function enumField<T extends string>(owner: Fields, name: string, path: string, allowed: readonly T[], fallback: T): T {
  const value = owner[name];
  return value === undefined || value === null ? fallback : oneOf(path, value, allowed);
}

function objectField(owner: Fields, name: string): Fields | undefined {
  const value = owner[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value))
    throw new ValidationException(`Value at '${name}' must be an object`);
  return value as Fields;
}

/** The mock's rules that need no definition: one of result/errorOutput, valid JSON, no RevealSecrets. */
function readMock(input: Fields, revealSecrets: boolean): TestStateMock | undefined {
  const mock = objectField(input, 'mock');
  if (!mock) return undefined;
  const fieldValidationMode = enumField(
    mock,
    'fieldValidationMode',
    'mock.fieldValidationMode',
    FIELD_VALIDATION_MODES,
    'STRICT',
  );
  const result = stringField(mock, 'result', 'mock.result', { max: MAX_DATA_LENGTH });
  const errorOutput = objectField(mock, 'errorOutput');
  if (result !== undefined && errorOutput !== undefined) {
    throw new ValidationException('A test mock should have only one of the following fields: [result, errorOutput].');
  }
  if (revealSecrets)
    throw new ValidationException('TestState does not support RevealSecrets when a mock is specified.');
  if (errorOutput) {
    const error = stringField(errorOutput, 'error', 'mock.errorOutput.error', { max: 256 });
    const cause = stringField(errorOutput, 'cause', 'mock.errorOutput.cause', { max: 32_768 });
    // An error output that says nothing raises nothing a Retry or Catch could match.
    if (error === undefined && cause === undefined)
      throw new ValidationException(
        'A test mock errorOutput should have at least one of the following fields: [error, cause].',
      );
    return { kind: 'error', error: error ?? '', cause: cause ?? '', fieldValidationMode };
  }
  if (result === undefined) return undefined;
  if (nestsDeeperThan(result, MAX_JSON_NESTING_DEPTH))
    throw new ValidationException(
      `Mocked result must be valid JSON nested no deeper than ${MAX_JSON_NESTING_DEPTH} levels`,
    );
  try {
    JSON.parse(result);
  } catch {
    // Even with fieldValidationMode NONE (recorded: test_base_lambda_service_task_mock_is_not_json_string).
    throw new ValidationException('Mocked result must be valid JSON');
  }
  return { kind: 'result', text: result, fieldValidationMode };
}

/** An IAM role ARN's shape (`arn:<partition>:iam::<account>:role/<path and name>`). */
const ROLE_ARN = /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]+$/;

/** `roleArn`: at most 256 characters, and a role's ARN (`InvalidArn` otherwise, as CreateStateMachine words it). */
function roleArnField(input: Fields): string | undefined {
  const roleArn = stringField(input, 'roleArn', 'roleArn', { min: 1, max: 256 });
  if (roleArn !== undefined && !ROLE_ARN.test(roleArn)) throw new InvalidArn(`Invalid Role Arn: '${roleArn}'`);
  return roleArn;
}

/** Reads a TestState request, refusing what the API model refuses with `ValidationException`. */
export function readTestStateRequest(input: Fields): TestStateRequest {
  const definition = stringField(input, 'definition', 'definition', {
    min: 1,
    max: MAX_DEFINITION_LENGTH,
    required: true,
  }) as string;
  // As CreateStateMachine refuses it: 10,000 levels answered 500 (Maximum call stack size exceeded).
  refuseDeepDefinition(definition);
  const revealSecrets = input.revealSecrets === true;
  if (input.revealSecrets !== undefined && input.revealSecrets !== null && typeof input.revealSecrets !== 'boolean') {
    throw new ValidationException("Value at 'revealSecrets' must be a boolean");
  }
  const configuration = objectField(input, 'stateConfiguration') ?? {};
  const stateConfiguration: TestStateConfiguration = {
    retrierRetryCount: countField(configuration, 'retrierRetryCount', 'stateConfiguration.retrierRetryCount'),
    errorCausedByState: stringField(configuration, 'errorCausedByState', 'stateConfiguration.errorCausedByState', {
      min: 1,
      max: 80,
    }),
    mapIterationFailureCount: countField(
      configuration,
      'mapIterationFailureCount',
      'stateConfiguration.mapIterationFailureCount',
    ),
    mapItemReaderData: stringField(configuration, 'mapItemReaderData', 'stateConfiguration.mapItemReaderData', {
      max: MAX_DATA_LENGTH,
    }),
  };
  return {
    definition,
    roleArn: roleArnField(input),
    input: stringField(input, 'input', 'input', { max: MAX_DATA_LENGTH }) ?? DEFAULT_TEST_STATE_INPUT,
    inspectionLevel: enumField(input, 'inspectionLevel', 'inspectionLevel', INSPECTION_LEVELS, 'INFO'),
    revealSecrets,
    variables: stringField(input, 'variables', 'variables', { max: MAX_DATA_LENGTH }),
    stateName: stringField(input, 'stateName', 'stateName', { min: 1, max: 80 }),
    mock: readMock(input, revealSecrets),
    context: stringField(input, 'context', 'context', { max: MAX_DATA_LENGTH }),
    stateConfiguration,
  };
}
