/**
 * A state's data flow in JSONPath: InputPath -> Parameters -> (work) -> ResultSelector -> ResultPath ->
 * OutputPath, Pass `Result`, Choice rules, Wait `*Path` fields, Map ItemsPath/ItemSelector, `Assign`
 * with `.$` paths and intrinsics.
 */
import type { ChoiceDecision, EvaluationScope, StateDataFlow, StateDefinition } from '../types';
import { MapToleranceError, NoChoiceMatchedError, StatesRuntimeError } from '../errors';
import {
  mapItemValue,
  mapLimitsFrom,
  parseTimestamp,
  requireInteger,
  requireString,
  requireTimestamp,
  RESULT_PRODUCING_TYPES,
  type ErrorFactory,
} from '../shared/values';
import { lookupPath, readPath, setReferencePath, type PathRoots } from './paths';
import { applyPayloadTemplate, evaluateDynamic } from './payload-template';
import { ruleMatches, type ChoiceRule } from './choice-rules';
import { integerValue, itemBatcherSpec, itemReaderSpec, objectField, resultWriterSpec } from '../shared/map-sources';

const runtimeError: ErrorFactory = (message) => new StatesRuntimeError(message);
/** A string that holds an integer. */
const INTEGER_TEXT = /^-?\d+$/;
/** A decimal number written as text. */
const DECIMAL_TEXT = /^-?\d+(\.\d+)?$/;

/** A tolerated-failure value out of range: the service reports it after MapStateStarted (see {@link MapToleranceError}). */
const toleranceError: ErrorFactory = (message) => new MapToleranceError(message);

/**
 * The roots of a path; the context object is read from the scope only by a `$$` path (see `Step.scope`).
 * A class, not an object literal with a `context` getter, which V8 makes a map of its own for each time.
 */
class ScopeRoots implements PathRoots {
  readonly variables: Readonly<Record<string, unknown>>;

  constructor(
    readonly data: unknown,
    private readonly scope: EvaluationScope,
  ) {
    this.variables = scope.variables;
  }

  get context(): Readonly<Record<string, unknown>> {
    return this.scope.context;
  }
}

const roots = (data: unknown, scope: EvaluationScope): PathRoots => new ScopeRoots(data, scope);

/** `InputPath`/`OutputPath`: `null` gives `{}`, absent gives the whole value. */
function selectPath(
  owner: Readonly<Record<string, unknown>>,
  field: 'InputPath' | 'OutputPath',
  data: unknown,
  scope: EvaluationScope,
): unknown {
  if (!(field in owner)) return data;
  const path = owner[field];
  if (path === null) return {};
  return readPath(path as string, roots(data, scope), field);
}

/** The state input after `InputPath`. */
const selectedInput = (state: StateDefinition, scope: EvaluationScope) =>
  selectPath(state, 'InputPath', scope.input, scope);

/** `ResultPath`: `null` keeps the input, absent replaces it with the result. */
function placeResult(owner: Readonly<Record<string, unknown>>, input: unknown, result: unknown): unknown {
  if (!('ResultPath' in owner)) return result;
  if (owner.ResultPath === null) return input;
  return setReferencePath(input, owner.ResultPath as string, result);
}

/** A literal number field or its `...Path` twin (read from the state input after InputPath). */
function numberField(state: StateDefinition, name: string, scope: EvaluationScope): unknown {
  if (name in state) return state[name];
  const pathField = `${name}Path`;
  if (pathField in state)
    return readPath(state[pathField] as string, roots(selectedInput(state, scope), scope), pathField);
  return undefined;
}

/**
 * An integer field of `owner` or its `...Path` twin; a path's string holding an integer counts as that
 * integer, as AWS reads `MaxItemsPath` to a variable holding "2".
 */
function integerField(
  owner: Readonly<Record<string, unknown>>,
  name: string,
  pathRoots: PathRoots,
): number | undefined {
  const pathField = `${name}Path`;
  if (!(pathField in owner)) return integerValue(owner[name], name, runtimeError);
  const path = owner[pathField] as string;
  const read = readPath(path, pathRoots, pathField);
  return integerValue(
    typeof read === 'string' && INTEGER_TEXT.test(read) ? Number(read) : read,
    pathField,
    runtimeError,
    path,
  );
}

/** `Error`/`Cause` of a Fail state, or `ErrorPath`/`CausePath` (a path or an intrinsic function). */
function failField(state: StateDefinition, name: 'Error' | 'Cause', scope: EvaluationScope): string | undefined {
  if (name in state) return requireString(state[name], name, runtimeError);
  const pathField = `${name}Path`;
  if (!(pathField in state)) return undefined;
  return requireString(
    evaluateDynamic(state[pathField], roots(scope.input, scope), pathField),
    pathField,
    runtimeError,
  );
}

/** Evaluates an `Assign` block with `$` bound to `data`. */
function assignments(
  owner: Readonly<Record<string, unknown>>,
  data: unknown,
  scope: EvaluationScope,
  field = 'Assign',
): Record<string, unknown> {
  if (owner.Assign === undefined) return {};
  return applyPayloadTemplate(owner.Assign, roots(data, scope), field) as Record<string, unknown>;
}

/** The state's result after `ResultSelector` (Task, Map, Parallel); for Pass, `Result`/`Parameters`. */
async function selectedResult(state: StateDefinition, scope: EvaluationScope): Promise<unknown> {
  if (state.Type === 'Pass')
    return scope.result !== undefined ? scope.result : jsonPathDataFlow.effectiveInput(state, scope);
  if (state.ResultSelector !== undefined)
    return applyPayloadTemplate(state.ResultSelector, roots(scope.result, scope), 'ResultSelector');
  return scope.result;
}

/** The JSONPath query language's {@link StateDataFlow}. */
export const jsonPathDataFlow: StateDataFlow = {
  async effectiveInput(state, scope) {
    const input = selectedInput(state, scope);
    // In a Map state, Parameters is the older name of ItemSelector (applied per item).
    const withParameters =
      state.Parameters !== undefined && state.Type !== 'Map'
        ? applyPayloadTemplate(state.Parameters, roots(input, scope), 'Parameters')
        : input;
    if (state.Type === 'Pass' && 'Result' in state) return state.Result;
    return withParameters;
  },

  async output(state, scope) {
    if (!RESULT_PRODUCING_TYPES.has(state.Type) && state.Type !== 'Pass')
      return selectPath(state, 'OutputPath', selectedInput(state, scope), scope);
    const combined = placeResult(state, scope.input, await selectedResult(state, scope));
    return selectPath(state, 'OutputPath', combined, scope);
  },

  async assign(state, scope) {
    if (state.Assign === undefined) return {};
    const data =
      RESULT_PRODUCING_TYPES.has(state.Type) || state.Type === 'Pass'
        ? await selectedResult(state, scope)
        : selectedInput(state, scope);
    return assignments(state, data, scope);
  },

  async catchOutput(catcher, scope) {
    return {
      output: placeResult(catcher, scope.input, scope.errorOutput),
      assign: assignments(catcher, scope.errorOutput, scope, 'Catch/Assign'),
    };
  },

  async choose(state, scope): Promise<ChoiceDecision> {
    const input = selectedInput(state, scope);
    const pathRoots = roots(input, scope);
    const rules = (state.Choices ?? []) as readonly ChoiceRule[];
    const output = () => selectPath(state, 'OutputPath', input, scope);
    for (let i = 0; i < rules.length; i++) {
      if (!ruleMatches(rules[i], pathRoots, `Choices[${i}]`)) continue;
      const assign = {
        ...assignments(state, input, scope),
        ...assignments(rules[i], input, scope, `Choices[${i}]/Assign`),
      };
      return { next: rules[i].Next as string, assign, output: output() };
    }
    if (typeof state.Default !== 'string')
      throw new NoChoiceMatchedError('No Choice rule matched and no Default is set.');
    return { next: state.Default, assign: assignments(state, input, scope), output: output() };
  },

  async waitUntil(state, scope, nowMillis) {
    if ('Seconds' in state) return nowMillis + requireInteger(state.Seconds, 'Seconds', 0, runtimeError) * 1000;
    if ('Timestamp' in state) return requireTimestamp(state.Timestamp, 'Timestamp', runtimeError);
    const pathField = 'SecondsPath' in state ? 'SecondsPath' : 'TimestampPath' in state ? 'TimestampPath' : undefined;
    if (!pathField) throw runtimeError('A Wait state needs Seconds, SecondsPath, Timestamp or TimestampPath.');
    const path = state[pathField] as string;
    const { found, value } = lookupPath(path, roots(selectedInput(state, scope), scope));
    // The service's own words for each way the referenced value can be wrong.
    if (!found) throw runtimeError(`The ${pathField} parameter does not reference an input value: ${path}`);
    const shown = `${path} == ${typeof value === 'string' ? value : JSON.stringify(value)}`;
    if (pathField === 'SecondsPath') {
      if (!Number.isInteger(value))
        throw runtimeError(`The SecondsPath parameter cannot be parsed as a long value: ${shown}`);
      if ((value as number) < 0) throw runtimeError(`The SecondsPath parameter references a negative value: ${shown}`);
      return nowMillis + (value as number) * 1000;
    }
    const millis = parseTimestamp(value);
    if (millis === undefined)
      throw runtimeError(
        `The TimestampPath parameter does not reference a valid ISO-8601 extended offset date-time format string: ${shown}`,
      );
    return millis;
  },

  async mapItems(state, scope) {
    const input = selectedInput(state, scope);
    const itemsPath = (state.ItemsPath as string | undefined) ?? '$';
    const items = readPath(itemsPath, roots(input, scope), 'ItemsPath');
    // AWS's words name the path from its root, the context's `$$` shown as `$` (recorded: TestState
    // test_state_map_context_object, `$$` -> "$", `$$.Execution.Input` -> "$.Execution.Input").
    if (!Array.isArray(items))
      throw runtimeError(
        `Reference path "${itemsPath.startsWith('$$') ? itemsPath.slice(1) : itemsPath}" must point to array.`,
      );
    return items;
  },

  async mapItemInput(state, scope) {
    const template = state.ItemSelector ?? state.Parameters;
    if (template === undefined) return mapItemValue(scope.context);
    return applyPayloadTemplate(
      template,
      roots(selectedInput(state, scope), scope),
      state.ItemSelector !== undefined ? 'ItemSelector' : 'Parameters',
    );
  },

  async mapLimits(state, scope) {
    const input = selectedInput(state, scope);
    // A `*Path` value is checked in the service's words; literals were checked when the definition was made.
    const fromPath = (name: string, kind: 'integer' | 'float'): unknown => {
      const pathField = `${name}Path`;
      if (!(pathField in state)) return state[name];
      const path = state[pathField] as string;
      const read = readPath(path, roots(input, scope), pathField);
      // AWS takes a string that holds an integer as that integer (MaxConcurrencyPath to "1" runs one at a time).
      // and a string holding a number as that number for a float (ToleratedFailurePercentagePath to "1").
      const value =
        typeof read === 'string' && (kind === 'integer' ? INTEGER_TEXT : DECIMAL_TEXT).test(read) ? Number(read) : read;
      if (typeof value !== 'number' || (kind === 'integer' && !Number.isInteger(value))) {
        const shown = typeof value === 'string' ? value : JSON.stringify(value);
        // AWS fails a Map on its tolerated-failure values after MapStateStarted, on MaxConcurrency before it.
        const fail = name === 'MaxConcurrency' ? runtimeError : toleranceError;
        throw fail(`The ${pathField} field refers to value "${shown}" which is not a valid ${kind}: ${path}`);
      }
      return value;
    };
    const maxConcurrency = fromPath('MaxConcurrency', 'integer');
    const toleratedFailureCount = fromPath('ToleratedFailureCount', 'integer');
    const toleratedFailurePercentage = fromPath('ToleratedFailurePercentage', 'float');
    if (typeof toleratedFailureCount === 'number' && toleratedFailureCount < 0)
      throw toleranceError('ToleratedFailureCount cannot be negative.');
    if (
      typeof toleratedFailurePercentage === 'number' &&
      (toleratedFailurePercentage < 0 || toleratedFailurePercentage > 100)
    ) {
      throw toleranceError('ToleratedFailurePercentage must be between 0 and 100.');
    }
    return mapLimitsFrom({ maxConcurrency, toleratedFailureCount, toleratedFailurePercentage }, runtimeError);
  },

  async mapItemReader(state, scope) {
    const reader = objectField(state, 'ItemReader');
    if (!reader) return undefined;
    const pathRoots = roots(selectedInput(state, scope), scope);
    const args =
      reader.Parameters === undefined
        ? {}
        : applyPayloadTemplate(reader.Parameters, pathRoots, 'ItemReader.Parameters');
    return itemReaderSpec(reader, args, integerField(objectField(reader, 'ReaderConfig') ?? {}, 'MaxItems', pathRoots));
  },

  async mapItemBatcher(state, scope) {
    const batcher = objectField(state, 'ItemBatcher');
    if (!batcher) return undefined;
    const pathRoots = roots(selectedInput(state, scope), scope);
    const batchInput =
      batcher.BatchInput === undefined
        ? undefined
        : applyPayloadTemplate(batcher.BatchInput, pathRoots, 'ItemBatcher.BatchInput');
    return itemBatcherSpec(
      integerField(batcher, 'MaxItemsPerBatch', pathRoots),
      integerField(batcher, 'MaxInputBytesPerBatch', pathRoots),
      batchInput,
    );
  },

  async mapResultWriter(state, scope) {
    const writer = objectField(state, 'ResultWriter');
    if (!writer) return undefined;
    const args =
      writer.Parameters === undefined
        ? {}
        : applyPayloadTemplate(writer.Parameters, roots(selectedInput(state, scope), scope), 'ResultWriter.Parameters');
    return resultWriterSpec(writer, args);
  },

  async taskTimeouts(state, scope) {
    const timeout = numberField(state, 'TimeoutSeconds', scope);
    const heartbeat = numberField(state, 'HeartbeatSeconds', scope);
    return {
      ...(timeout !== undefined && { timeoutSeconds: requireInteger(timeout, 'TimeoutSeconds', 1, runtimeError) }),
      ...(heartbeat !== undefined && {
        heartbeatSeconds: requireInteger(heartbeat, 'HeartbeatSeconds', 1, runtimeError),
      }),
    };
  },

  async failure(state, scope) {
    const error = failField(state, 'Error', scope);
    const cause = failField(state, 'Cause', scope);
    return { ...(error !== undefined && { error }), ...(cause !== undefined && { cause }) };
  },
};
