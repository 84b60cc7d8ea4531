/**
 * A state's data flow in JSONata: `Arguments`, `Output`, `Assign`, Choice `Condition`s, Map `Items` and
 * `ItemSelector`, and the JSONata forms of Wait, Task timeout and Fail fields.
 */
import type { ChoiceDecision, EvaluationScope, StateDataFlow } from '../types';
import { NoChoiceMatchedError, QueryEvaluationError } from '../errors';
import { bindingsOf, evaluateJsonata, evaluateTemplate, isJsonataExpression } from './expressions';
import {
  mapItemValue,
  mapLimitsFrom,
  parseTimestamp,
  requireInteger,
  requireString,
  RESULT_PRODUCING_TYPES,
  type ErrorFactory,
} from '../shared/values';
import { integerValue, itemBatcherSpec, itemReaderSpec, objectField, resultWriterSpec } from '../shared/map-sources';

const queryError: ErrorFactory = (message) => new QueryEvaluationError(message);

/** Evaluates `owner[field]` when present (else undefined), naming `label` in messages. */
async function field(
  owner: Readonly<Record<string, unknown>>,
  name: string,
  scope: EvaluationScope,
  label = name,
): Promise<unknown> {
  if (!(name in owner)) return undefined;
  return evaluateTemplate(owner[name], bindingsOf(scope), label);
}

/** Evaluates an `Assign` block to the variables it sets. */
async function assignments(
  owner: Readonly<Record<string, unknown>>,
  scope: EvaluationScope,
  label = 'Assign',
): Promise<Record<string, unknown>> {
  if (owner.Assign === undefined) return {};
  if (isJsonataExpression(owner.Assign)) {
    const value = await evaluateJsonata(owner.Assign, bindingsOf(scope), label);
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw queryError(`The field '${label}' must evaluate to an object.`);
    return value as Record<string, unknown>;
  }
  return (await evaluateTemplate(owner.Assign, bindingsOf(scope), label)) as Record<string, unknown>;
}

type ChoiceRule = Readonly<Record<string, unknown>> & { readonly Next: string; readonly Condition?: unknown };

/** The JSONata query language's {@link StateDataFlow}. */
export const jsonataDataFlow: StateDataFlow = {
  async effectiveInput(state, scope) {
    return 'Arguments' in state ? field(state, 'Arguments', scope) : scope.input;
  },

  async output(state, scope) {
    if ('Output' in state) return field(state, 'Output', scope);
    return RESULT_PRODUCING_TYPES.has(state.Type) ? scope.result : scope.input;
  },

  assign(state, scope) {
    return assignments(state, scope);
  },

  async catchOutput(catcher, scope) {
    const [output, assign] = await Promise.all([
      'Output' in catcher ? field(catcher, 'Output', scope, 'Catch/Output') : scope.errorOutput,
      assignments(catcher, scope, 'Catch/Assign'),
    ]);
    return { output, assign };
  },

  async choose(state, scope): Promise<ChoiceDecision> {
    const rules = (state.Choices ?? []) as readonly ChoiceRule[];
    for (let i = 0; i < rules.length; i++) {
      const rule = rules[i];
      const label = `Choices[${i}]/Condition`;
      const verdict = isJsonataExpression(rule.Condition)
        ? await evaluateJsonata(rule.Condition, bindingsOf(scope), label)
        : rule.Condition;
      if (typeof verdict !== 'boolean')
        throw queryError(`The field '${label}' must evaluate to a boolean, got ${JSON.stringify(verdict)}.`);
      if (!verdict) continue;
      // The state-level Assign applies whichever rule matched; the rule's own Assign wins on conflicts.
      const [stateAssign, ruleAssign, output] = await Promise.all([
        assignments(state, scope),
        assignments(rule, scope, `Choices[${i}]/Assign`),
        'Output' in rule ? field(rule, 'Output', scope, `Choices[${i}]/Output`) : this.output(state, scope),
      ]);
      return { next: rule.Next, assign: { ...stateAssign, ...ruleAssign }, output };
    }
    if (typeof state.Default !== 'string')
      throw new NoChoiceMatchedError('No Choice rule matched and no Default is set.');
    const [assign, output] = await Promise.all([assignments(state, scope), this.output(state, scope)]);
    return { next: state.Default, assign, output };
  },

  async waitUntil(state, scope, nowMillis) {
    if ('Seconds' in state)
      return nowMillis + requireInteger(await field(state, 'Seconds', scope), 'Seconds', 0, queryError) * 1000;
    if ('Timestamp' in state) {
      const timestamp = await field(state, 'Timestamp', scope);
      const millis = parseTimestamp(timestamp);
      if (millis === undefined) {
        const shown = typeof timestamp === 'string' ? timestamp : JSON.stringify(timestamp);
        throw new QueryEvaluationError(
          `The Timestamp field cannot be parsed as an ISO-8601 extended offset date-time format string: ${shown}`,
          { location: 'Timestamp' },
        );
      }
      return millis;
    }
    throw queryError('A Wait state needs Seconds or Timestamp.');
  },

  async mapItems(state, scope) {
    if (!('Items' in state)) {
      if (!Array.isArray(scope.input))
        throw queryError(`Map state input must be an array but was: ${JSON.stringify(scope.input)}`);
      return scope.input;
    }
    const items = await field(state, 'Items', scope);
    if (Array.isArray(items)) return items;
    const kind = items === null ? 'null' : typeof items;
    const written = isJsonataExpression(state.Items) ? state.Items.slice(2, -2).trim() : JSON.stringify(state.Items);
    throw new QueryEvaluationError(
      `The JSONata expression '${written}' specified for the field 'Items' returned an unexpected result type. Expected 'array', but was '${kind}' for value: ${JSON.stringify(items)}`,
      { location: 'Items' },
    );
  },

  async mapItemInput(state, scope) {
    return 'ItemSelector' in state ? field(state, 'ItemSelector', scope) : mapItemValue(scope.context);
  },

  async mapLimits(state, scope) {
    const [maxConcurrency, toleratedFailureCount, toleratedFailurePercentage] = await Promise.all([
      field(state, 'MaxConcurrency', scope),
      field(state, 'ToleratedFailureCount', scope),
      field(state, 'ToleratedFailurePercentage', scope),
    ]);
    return mapLimitsFrom({ maxConcurrency, toleratedFailureCount, toleratedFailurePercentage }, queryError);
  },

  async mapItemReader(state, scope) {
    const reader = objectField(state, 'ItemReader');
    if (!reader) return undefined;
    const [args, maxItems] = await Promise.all([
      field(reader, 'Arguments', scope, 'ItemReader.Arguments'),
      field(objectField(reader, 'ReaderConfig') ?? {}, 'MaxItems', scope, 'ItemReader.ReaderConfig.MaxItems'),
    ]);
    return itemReaderSpec(reader, args, integerValue(maxItems, 'MaxItems', queryError));
  },

  async mapItemBatcher(state, scope) {
    const batcher = objectField(state, 'ItemBatcher');
    if (!batcher) return undefined;
    const [maxItems, maxBytes, batchInput] = await Promise.all([
      field(batcher, 'MaxItemsPerBatch', scope, 'ItemBatcher.MaxItemsPerBatch'),
      field(batcher, 'MaxInputBytesPerBatch', scope, 'ItemBatcher.MaxInputBytesPerBatch'),
      field(batcher, 'BatchInput', scope, 'ItemBatcher.BatchInput'),
    ]);
    return itemBatcherSpec(
      integerValue(maxItems, 'MaxItemsPerBatch', queryError),
      integerValue(maxBytes, 'MaxInputBytesPerBatch', queryError),
      batchInput,
    );
  },

  async mapResultWriter(state, scope) {
    const writer = objectField(state, 'ResultWriter');
    if (!writer) return undefined;
    return resultWriterSpec(writer, await field(writer, 'Arguments', scope, 'ResultWriter.Arguments'));
  },

  async taskTimeouts(state, scope) {
    const [timeout, heartbeat] = await Promise.all([
      field(state, 'TimeoutSeconds', scope),
      field(state, 'HeartbeatSeconds', scope),
    ]);
    return {
      ...(timeout !== undefined && { timeoutSeconds: requireInteger(timeout, 'TimeoutSeconds', 1, queryError) }),
      ...(heartbeat !== undefined && {
        heartbeatSeconds: requireInteger(heartbeat, 'HeartbeatSeconds', 1, queryError),
      }),
    };
  },

  async failure(state, scope) {
    const [error, cause] = await Promise.all([field(state, 'Error', scope), field(state, 'Cause', scope)]);
    return {
      ...(error !== undefined && { error: requireString(error, 'Error', queryError) }),
      ...(cause !== undefined && { cause: requireString(cause, 'Cause', queryError) }),
    };
  },
};

/** Every field of a JSONata state or Catch clause that may hold `{% %}` expressions (validation compiles them all). */
export const JSONATA_FIELDS: readonly string[] = [
  'Arguments',
  'Output',
  'Assign',
  'Items',
  'ItemSelector',
  'Seconds',
  'Timestamp',
  'TimeoutSeconds',
  'HeartbeatSeconds',
  'Error',
  'Cause',
  'MaxConcurrency',
  'ToleratedFailureCount',
  'ToleratedFailurePercentage',
];
