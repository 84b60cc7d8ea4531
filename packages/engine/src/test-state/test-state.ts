/**
 * TestState: one state run in isolation, as AWS answers `AWSStepFunctions.TestState` — the state's data
 * flow step by step (inspectionData), its status (SUCCEEDED, FAILED, RETRIABLE with the backoff the
 * matching retrier would wait, CAUGHT_ERROR with the catcher's next state), a mocked result or error in
 * place of a Task's, Map's or Parallel's work, and an un-mocked Task's real call on the local services.
 *
 * It runs beside the executor, not through it: a TestState run has no history, no durability and no
 * next state to enter; it reuses what decides a state's behaviour — the prepared definition, the data
 * flow of both query languages, the Retry/Catch rules and the Task integrations.
 */
import { StatesError } from '@autosave/workflow/errors';
import { MAX_JSON_NESTING_DEPTH, STATES_PAYLOAD_LIMIT_BYTES, type Clock } from '@autosave/workflow/config';
import { parseExecutionInput } from '../api/executions';
import { nestsDeeperThan } from '../api/wire';
import type { ArnScope } from '../arns';
import {
  dataFlowFor,
  type EvaluationScope,
  type ExpressionLimits,
  type StateDataFlow,
  type StateDefinition,
} from '../dataflow';
import { type PreparedState, validateDefinition } from '../definition';
import { errorMatches, findRetrier, retrierAllows, retryDelayMillis } from '../executor/retry-policy';
import { type IntegrationServices, resolveTaskTarget, runTaskIntegration } from '../executor/task-integrations';
import type { TaskOutcome } from '../executor/task-outcome';
import { mockedOutcome } from '../mocks';
import { newTaskToken } from '../executor/task-token';
import { toFailure } from '../executor/transition';
import { InvalidDefinition, ValidationException } from '../service-errors';
import { givenContext, SYNTHESIZED_STATE_NAME, synthesizedContext } from './context';
import { checkMockedResult } from './mock-shape';
import { readTestStateRequest, type TestStateMock, type TestStateRequest } from './request';

/** What TestState needs of the engine. */
export interface TestStateServices {
  readonly scope: ArnScope;
  readonly clock: Clock;
  /** Where an un-mocked Task's call goes: the engine's own integrations. */
  readonly integrations: IntegrationServices;
  /** The budget of each JSONata evaluation. @default DEFAULT_EXPRESSION_LIMITS */
  readonly expressionLimits?: ExpressionLimits;
}

/** `status` of a TestState answer. */
export type TestStateStatus = 'SUCCEEDED' | 'FAILED' | 'RETRIABLE' | 'CAUGHT_ERROR';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** States that take a mock, and the ones that cannot run without one. */
const MOCKABLE: ReadonlySet<string> = new Set(['Task', 'Map', 'Parallel']);
const NEEDS_MOCK: ReadonlySet<string> = new Set(['Map', 'Parallel']);

/**
 * The JSON text of the values a run passes along: a value taken over untouched keeps the caller's text
 * byte for byte (AWS echoed `[1, 1, 1]` with Python's spacing), any other is written anew.
 */
class Texts {
  private readonly known = new Map<unknown, string>();

  remember(value: unknown, text: string): unknown {
    if (value !== null && typeof value === 'object') this.known.set(value, text);
    return value;
  }

  of(value: unknown): string {
    return this.known.get(value) ?? JSON.stringify(value ?? null);
  }
}

/** The steps of the data flow an answer shows, in the order AWS lists them. */
class Inspection {
  readonly data: Json = {};
  constructor(private readonly texts: Texts) {}

  json(key: string, value: unknown): void {
    this.data[key] = this.texts.of(value);
  }

  number(key: string, value: number | undefined): void {
    if (value !== undefined) this.data[key] = value;
  }
}

/** The state to run: picked by `stateName` from a whole machine, or the one state `definition` is. */
function stateUnderTest(req: TestStateRequest): PreparedState {
  if (req.stateName !== undefined) {
    const prepared = validateDefinition(req.definition);
    const state = prepared.states.get(req.stateName);
    if (!state) throw new ValidationException('State not found in definition');
    return state;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(req.definition);
  } catch {
    parsed = undefined;
  }
  // Not a JSON object: validation refuses it in the service's words (INVALID_JSON_DESCRIPTION, SCHEMA_VALIDATION_FAILED).
  if (!isObject(parsed)) return validateDefinition(req.definition) as never;
  // One state is run as the only state of a machine, named as AWS names it (its schema errors say
  // /States/StateName/...); the states it may go to stand in as Succeed states.
  const states: Json = {};
  for (const target of transitionTargets(parsed)) states[target] = { Type: 'Succeed' };
  states[SYNTHESIZED_STATE_NAME] =
    req.mock && NEEDS_MOCK.has(String(parsed.Type)) ? withInnerResourcesUnchecked(parsed) : parsed;
  const prepared = validateDefinition(JSON.stringify({ StartAt: SYNTHESIZED_STATE_NAME, States: states }));
  return prepared.states.get(SYNTHESIZED_STATE_NAME) as PreparedState;
}

/** What an inner Task's Resource stands in as while a mocked Map or Parallel is validated. */
const STAND_IN_RESOURCE = 'arn:aws:states:::lambda:invoke';

/**
 * A mocked Map's or Parallel's inner states are not run, and AWS does not check their Resources (recorded:
 * `arn:aws:lambda:your-region:your-account-id:function:yourHelloWorldFunction` in an ItemProcessor answered
 * SUCCEEDED): an inner Task whose Resource the engine does not recognise stands in as a known one, so the
 * rest of the definition is still validated.
 */
function withInnerResourcesUnchecked(state: Json): Json {
  const copy = structuredClone(state);
  const recognised = (resource: string): boolean => {
    try {
      resolveTaskTarget(resource);
      return true;
    } catch {
      return false;
    }
  };
  const visitOwner = (owner: Json): void => {
    const lists = [owner.ItemProcessor, owner.Iterator, ...(Array.isArray(owner.Branches) ? owner.Branches : [])];
    for (const list of lists) {
      if (!isObject(list) || !isObject(list.States)) continue;
      for (const inner of Object.values(list.States)) {
        if (!isObject(inner)) continue;
        if (inner.Type === 'Task' && typeof inner.Resource === 'string' && !recognised(inner.Resource))
          inner.Resource = STAND_IN_RESOURCE;
        visitOwner(inner);
      }
    }
  };
  visitOwner(copy);
  return copy;
}

/** The states a state can move to: `Next`, a Choice's rules' `Next` and `Default`, each catcher's `Next`. */
function transitionTargets(state: Json): string[] {
  const targets = [state.Next, state.Default];
  for (const list of [state.Choices, state.Catch])
    if (Array.isArray(list)) for (const item of list) if (isObject(item)) targets.push(item.Next);
  return targets.filter((t): t is string => typeof t === 'string' && t !== SYNTHESIZED_STATE_NAME);
}

/** The rules on a request that need its state: mocks by state type, roles, configuration. */
function checkRequestAgainstState(req: TestStateRequest, state: PreparedState): void {
  const { mock, stateConfiguration: config } = req;
  if (mock && !MOCKABLE.has(state.type))
    throw new ValidationException(`State type '${state.type}' is not supported when a mock is specified`);
  // Recorded on a Map without a mock: this refusal comes before the Map's own.
  if (config.mapIterationFailureCount !== undefined && !mock) {
    throw new ValidationException('TestState does not support MapIterationFailureCount when a mock is not specified.');
  }
  if (!mock && NEEDS_MOCK.has(state.type)) {
    throw new InvalidDefinition(
      'TestState API does not support Map or Parallel states. Supported state types include: [Task, Wait, Pass, Succeed, Fail, Choice]',
    );
  }
  if (state.type === 'Task' && !mock) {
    if (req.roleArn === undefined) throw new ValidationException('RoleArn must be specified when testing a Task state');
    // An activity task waits for a worker, which a test has none of: AWS documents Activity as needing a mock.
    if (state.task?.service === 'activity')
      throw new ValidationException('TestState does not support Activity tasks when a mock is not specified.');
    const pattern = state.task?.pattern;
    // The service waits for neither a callback nor a job in a test; AWS documents these as needing a mock.
    if (pattern === 'waitForTaskToken' || pattern === 'sync') {
      throw new ValidationException(
        `TestState does not support the '.${state.task?.resource.split('.').slice(1).join('.')}' integration pattern when a mock is not specified.`,
      );
    }
  }
  if (req.context !== undefined && !mock) {
    // AWS documents `context` as allowed only together with a mock (API_TestState).
    throw new ValidationException('TestState does not support a Context object when a mock is not specified.');
  }
  // errorCausedByState names the state inside the Map or Parallel where a mocked error originated.
  const causedBy = config.errorCausedByState;
  if (causedBy !== undefined && !nestedStateNames(state.definition).has(causedBy)) {
    throw new ValidationException(
      `The errorCausedByState '${causedBy}' names no state inside the tested ${state.type} state.`,
    );
  }
}

/** The names of the states inside a Parallel's branches or a Map's item processor, at any depth. */
function nestedStateNames(definition: Readonly<Record<string, unknown>>): Set<string> {
  const names = new Set<string>();
  const lists = [
    ...(Array.isArray(definition.Branches) ? definition.Branches : []),
    definition.ItemProcessor ?? definition.Iterator,
  ];
  for (const list of lists) {
    if (!isObject(list) || !isObject(list.States)) continue;
    for (const [name, nested] of Object.entries(list.States)) {
      names.add(name);
      if (isObject(nested)) for (const inner of nestedStateNames(nested)) names.add(inner);
    }
  }
  return names;
}

/** A mocked Map's or Parallel's result must have the shape of the state's own result. */
function checkMockedAggregate(state: PreparedState, result: unknown, req: TestStateRequest): void {
  if (state.type === 'Parallel') {
    if (!Array.isArray(result)) throw new ValidationException('Mocked result must be an array.');
    if (result.length !== (state.branches ?? []).length) {
      throw new ValidationException(
        'Mocked result must contain the same number of items as number of Parallel branches.',
      );
    }
  }
  if (state.type === 'Map') {
    if (state.definition.ResultWriter !== undefined) {
      if (!isObject(result)) throw new ValidationException('Mocked result must be a JSON object.');
    } else if (!Array.isArray(result)) {
      throw new ValidationException('Mocked result must be an array.');
    }
    const failures = req.stateConfiguration.mapIterationFailureCount;
    if (failures !== undefined && Array.isArray(result) && failures > result.length) {
      throw new ValidationException(
        'Map iteration failure count must be less than or equal to the number of Map iterations',
      );
    }
  }
}

/** A copy of a state without some fields: the data flow run over it gives one step of the state's flow. */
function without(state: StateDefinition, ...fields: string[]): StateDefinition {
  const copy: Json = { ...state };
  for (const field of fields) delete copy[field];
  return copy as StateDefinition;
}

/** The failure a state's work or data flow ended with. */
interface Failure {
  readonly error: string;
  readonly cause: string;
}

/** What a state's evaluation threw, as an ASL error (unknown ones are `States.Runtime`). */
function failureOf(err: unknown): Failure {
  const { error, cause } = toFailure(err);
  return { error: error ?? StatesError.Runtime, cause: cause ?? '' };
}

/** One TestState run: the state, its scope, what the answer collects. */
class TestRun {
  readonly inspection: Inspection;
  readonly flow: StateDataFlow;
  readonly jsonPath: boolean;
  private readonly definition: StateDefinition;

  constructor(
    private readonly services: TestStateServices,
    private readonly req: TestStateRequest,
    private readonly state: PreparedState,
    private readonly scope: EvaluationScope,
    private readonly texts: Texts,
    /** The mock as the outcome of the state's work (Task, Map, Parallel). */
    private readonly mocked?: TaskOutcome,
  ) {
    this.inspection = new Inspection(texts);
    this.flow = dataFlowFor(state.queryLanguage);
    this.jsonPath = state.queryLanguage === 'JSONPath';
    this.definition = state.definition;
  }

  async run(): Promise<Json> {
    this.inspection.json('input', this.scope.input);
    if (Object.keys(this.scope.variables).length > 0) this.inspection.json('variables', this.scope.variables);
    try {
      switch (this.state.type) {
        case 'Task':
          return await this.task();
        case 'Map':
          return await this.map();
        case 'Parallel':
          return await this.parallel();
        case 'Pass':
          return await this.pass();
        case 'Choice':
          return await this.choice();
        case 'Fail':
          return await this.fail();
        case 'Wait':
        case 'Succeed':
          return await this.plain();
      }
    } catch (err) {
      return this.recover(failureOf(err));
    }
  }

  /** JSONPath's `InputPath` step. */
  private async afterInputPath(): Promise<unknown> {
    const value = await this.flow.effectiveInput(
      without(this.definition, 'Parameters', 'Result', 'Arguments'),
      this.scope,
    );
    this.inspection.json('afterInputPath', value);
    return value;
  }

  /** The effective input: JSONPath `InputPath` + `Parameters`, JSONata `Arguments`. */
  private async effectiveInput(): Promise<unknown> {
    if (this.jsonPath) {
      await this.afterInputPath();
      const value = await this.flow.effectiveInput(without(this.definition, 'Result'), this.scope);
      this.inspection.json('afterParameters', value);
      return value;
    }
    const value = await this.flow.effectiveInput(this.definition, this.scope);
    this.inspection.json('afterArguments', value);
    return value;
  }

  /** A result's way out: ResultSelector, ResultPath, OutputPath (JSONPath) or Output (JSONata), and Assign. */
  private async succeedWith(
    result: unknown,
    options: { showResult: boolean; showSteps: boolean } = { showResult: true, showSteps: true },
  ): Promise<Json> {
    const scope = { ...this.scope, result };
    if (options.showResult) this.inspection.json('result', result);
    if (this.jsonPath && options.showSteps) {
      this.inspection.json(
        'afterResultSelector',
        await this.flow.output(
          {
            Type: this.definition.Type,
            ...('ResultSelector' in this.definition ? { ResultSelector: this.definition.ResultSelector } : {}),
          } as StateDefinition,
          scope,
        ),
      );
      this.inspection.json('afterResultPath', await this.flow.output(without(this.definition, 'OutputPath'), scope));
    }
    const output = await this.flow.output(this.definition, scope);
    await this.flow.assign(this.definition, scope);
    return this.answer('SUCCEEDED', { output, nextState: this.state.next });
  }

  private async task(): Promise<Json> {
    const args = await this.effectiveInput();
    const outcome = this.mocked ?? (await runTaskIntegration(this.services.integrations, this.state.task!, args));
    if (!outcome.ok) return this.recover({ error: outcome.error, cause: outcome.cause });
    if (this.jsonPath) return this.succeedWith(outcome.value);
    return this.succeedWith(outcome.value, { showResult: true, showSteps: false });
  }

  private async map(): Promise<Json> {
    const outcome = this.mocked as TaskOutcome;
    if (this.jsonPath) {
      await this.afterInputPath();
      if (this.definition.ItemReader === undefined)
        this.inspection.json('afterItemsPath', await this.flow.mapItems(this.definition, this.scope));
    }
    const limits = await this.flow.mapLimits(this.definition, this.scope);
    this.inspection.number('maxConcurrency', limits.maxConcurrency);
    this.inspection.number('toleratedFailureCount', limits.toleratedFailureCount);
    this.inspection.number('toleratedFailurePercentage', limits.toleratedFailurePercentage);
    if (!outcome.ok) return this.recover({ error: outcome.error, cause: outcome.cause });
    const failed = this.req.stateConfiguration.mapIterationFailureCount ?? 0;
    const total = Array.isArray(outcome.value) ? outcome.value.length : 0;
    // With no tolerance configured, failed iterations did not fail the Map (recorded: BASE_MAP_STATE, count 2).
    const exceeded =
      (limits.toleratedFailureCount !== undefined && failed > limits.toleratedFailureCount) ||
      (limits.toleratedFailurePercentage !== undefined &&
        total > 0 &&
        (failed / total) * 100 > limits.toleratedFailurePercentage);
    if (exceeded)
      return this.recover({
        error: StatesError.ExceedToleratedFailureThreshold,
        cause: 'The specified tolerated failure threshold was exceeded',
      });
    return this.succeedWith(outcome.value, { showResult: false, showSteps: true });
  }

  private async parallel(): Promise<Json> {
    const outcome = this.mocked as TaskOutcome;
    if (!outcome.ok) return this.recover({ error: outcome.error, cause: outcome.cause });
    return this.succeedWith(outcome.value, { showResult: false, showSteps: true });
  }

  private async pass(): Promise<Json> {
    if (!this.jsonPath) return this.succeedWith(this.scope.input, { showResult: false, showSteps: false });
    if ('Result' in this.definition) {
      // A Pass with Result shows it as its result and skips the input steps (recorded).
      return this.succeedWith(this.definition.Result);
    }
    await this.afterInputPath();
    const value = await this.flow.effectiveInput(this.definition, this.scope);
    this.inspection.json('afterParameters', value);
    return this.succeedWith(value, { showResult: false, showSteps: true });
  }

  private async choice(): Promise<Json> {
    if (this.jsonPath) await this.afterInputPath();
    const decision = await this.flow.choose(this.definition, this.scope);
    return this.answer('SUCCEEDED', { output: decision.output, nextState: decision.next });
  }

  private async fail(): Promise<Json> {
    if (this.jsonPath) await this.afterInputPath();
    const { error, cause } = await this.flow.failure(this.definition, this.scope);
    return this.answer('FAILED', { error, cause });
  }

  /** Wait and Succeed: their output; a Wait's time is evaluated (so a bad one fails) but not waited. */
  private async plain(): Promise<Json> {
    if (this.jsonPath) await this.afterInputPath();
    if (this.state.type === 'Wait') await this.flow.waitUntil(this.definition, this.scope, this.services.clock.now());
    const output = await this.flow.output(this.definition, this.scope);
    return this.answer('SUCCEEDED', { output, nextState: this.state.next });
  }

  /**
   * An error of the state: a retrier with attempts left (after `retrierRetryCount` retries) makes it
   * RETRIABLE with the backoff it would wait; else a catcher makes it CAUGHT_ERROR with the catcher's
   * output and next state; else it FAILED. Retry comes first, as in a run (recorded: Map with both).
   */
  private async recover(failure: Failure): Promise<Json> {
    const { state } = this;
    const retryIndex = findRetrier(state.retry, failure.error);
    if (retryIndex >= 0) {
      const retrier = state.retry[retryIndex];
      const used = this.req.stateConfiguration.retrierRetryCount ?? 0;
      if (retrierAllows(retrier, used)) {
        // The delay before the next attempt, without jitter (a FULL jitter picks at most this).
        const backoff = retryDelayMillis(retrier, used, () => 1) / 1000;
        this.inspection.data.errorDetails = { retryIndex, retryBackoffIntervalSeconds: backoff };
        return this.answer('RETRIABLE', failure);
      }
    }
    const catchIndex = state.catch.findIndex((c) => errorMatches(c.ErrorEquals, failure.error));
    if (catchIndex >= 0) {
      const catcher = state.catch[catchIndex];
      this.inspection.data.errorDetails = { catchIndex };
      try {
        const { output } = await this.flow.catchOutput(catcher, {
          ...this.scope,
          errorOutput: { Error: failure.error, Cause: failure.cause },
        });
        return this.answer('CAUGHT_ERROR', { ...failure, output, nextState: catcher.Next });
      } catch (err) {
        return this.answer('FAILED', failureOf(err));
      }
    }
    if (retryIndex >= 0) this.inspection.data.errorDetails = { retryIndex };
    return this.answer('FAILED', failure);
  }

  private answer(
    status: TestStateStatus,
    parts: { output?: unknown; nextState?: string; error?: string; cause?: string },
  ): Json {
    const failed = status === 'FAILED' || status === 'RETRIABLE';
    const output = !failed && 'output' in parts ? this.texts.of(parts.output) : undefined;
    // The payload limit a run holds the same state's output to (step.ts exit): over it, the state fails.
    if (output !== undefined && Buffer.byteLength(output) > STATES_PAYLOAD_LIMIT_BYTES) {
      const cause = `The state/task '${this.state.name}' returned a result with a size exceeding the maximum number of bytes service limit.`;
      return this.answer('FAILED', { error: StatesError.DataLimitExceeded, cause });
    }
    return {
      status,
      ...(output !== undefined ? { output } : {}),
      ...(parts.error !== undefined ? { error: parts.error } : {}),
      ...(parts.cause !== undefined ? { cause: parts.cause } : {}),
      ...(!failed && parts.nextState !== undefined ? { nextState: parts.nextState } : {}),
      ...(this.req.inspectionLevel === 'INFO' ? {} : { inspectionData: this.inspection.data }),
    };
  }
}

/** The mock as the outcome of the state's work, its result checked first (shape, aggregate form). */
async function mockOutcome(
  mock: TestStateMock,
  state: PreparedState,
  req: TestStateRequest,
  texts: Texts,
): Promise<TaskOutcome> {
  // The same place a mock config's Throw/Return becomes an outcome, so what follows is the real data flow.
  if (mock.kind === 'error') return mockedOutcome({ Throw: { Error: mock.error, Cause: mock.cause } });
  const result = texts.remember(JSON.parse(mock.text), mock.text);
  if (state.type === 'Task') await checkMockedResult(state.task?.resourceArn ?? '', result, mock.fieldValidationMode);
  else checkMockedAggregate(state, result, req);
  return mockedOutcome({ Return: result });
}

/** Serves `TestState`: the request checked, the state run, the answer in the API's wire shape. */
export async function testState(services: TestStateServices, input: Json): Promise<Json> {
  const req = readTestStateRequest(input);
  const state = stateUnderTest(req);
  checkRequestAgainstState(req, state);
  const tokenTask =
    state.type === 'Task' && (state.task?.pattern === 'waitForTaskToken' || state.task?.pattern === 'sync');
  const context = req.context !== undefined ? givenContext(req.context, { tokenTask }) : undefined;
  const value = parseExecutionInput(req.input);
  const variables = req.variables === undefined ? {} : parseVariables(req.variables);
  const nowMillis = services.clock.now();
  const scope: EvaluationScope = {
    input: value,
    variables,
    context:
      context ??
      // Task, Map and Parallel are the states with Retry fields (and the ones a mock is for).
      synthesizedContext({
        scope: services.scope,
        input: value,
        roleArn: req.roleArn,
        nowMillis,
        recoverable: MOCKABLE.has(state.type),
        ...(tokenTask ? { token: newTaskToken() } : {}),
      }),
    nowMillis,
    expressionLimits: services.expressionLimits,
  };
  const texts = new Texts();
  texts.remember(value, req.input);
  const mocked = req.mock ? await mockOutcome(req.mock, state, req, texts) : undefined;
  return new TestRun(services, req, state, scope, texts, mocked).run();
}

/** `variables`: a JSON object of variable values. */
function parseVariables(text: string): Json {
  if (nestsDeeperThan(text, MAX_JSON_NESTING_DEPTH))
    throw new ValidationException(
      `Variables must be a valid JSON object nested no deeper than ${MAX_JSON_NESTING_DEPTH} levels`,
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ValidationException('Variables must be a valid JSON object');
  }
  if (!isObject(parsed)) throw new ValidationException('Variables must be a valid JSON object');
  return parsed;
}
