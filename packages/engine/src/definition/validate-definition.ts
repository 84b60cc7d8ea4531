import { MAX_STATE_NAME_LENGTH } from '@autosave/workflow/config';
/**
 * Validation at CreateStateMachine: a definition the engine cannot run is refused up front, with every
 * problem named by state and field, rather than failing halfway through a run. Our own checks run
 * first (clear messages for what the engine needs: transitions, query-language fields, every JSONata
 * expression and intrinsic compiled, Retry/Catch, supported resources, the item sources a distributed Map reads); then
 * asl-validator checks the rest of the ASL schema.
 */
import { createHash } from 'node:crypto';
import { aslValidator } from './asl-schema-check';
import type { QueryLanguage, StateDefinition } from '../dataflow';
import { StatesError } from '@autosave/workflow/errors';
import {
  compileJsonata,
  forEachString,
  isJsonataExpression,
  isMalformedJsonataExpression,
  JSONATA_FIELDS,
  compileIntrinsic,
  isIntrinsicCall,
  definiteSteps,
  forEachDynamic,
  CHOICE_OPERATORS,
  operatorOf,
  parseTimestamp,
  jsonPathProblem,
} from '../dataflow';
import { resolveTaskTarget, UnsupportedResourceError, type TaskTarget } from '../executor/task-integrations';
import { isItemReaderResource, ITEM_READER_INPUT_TYPES, MAX_ITEM_READER_ITEMS } from '../executor/map-item-reader';
import { InvalidDefinitionError, type DefinitionProblem } from './invalid-definition-error';
import {
  MAP_ITEMS,
  prepareDefinition,
  type PreparedDefinition,
  type PreparedStateList,
  type StateListPath,
} from './prepared-definition';

/** The state types, in the order AWS lists them when it refuses another. */
const STATE_TYPES = new Set(['Task', 'Wait', 'Pass', 'Succeed', 'Fail', 'Choice', 'Parallel', 'Map']);
const QUERY_LANGUAGES = new Set<string>(['JSONata', 'JSONPath']);

/** Fields only JSONPath states have (a JSONata state using one is refused). */
export const JSONPATH_ONLY_FIELDS: readonly string[] = [
  'InputPath',
  'OutputPath',
  'Parameters',
  'ResultSelector',
  'ResultPath',
  'Result',
  'ItemsPath',
  'SecondsPath',
  'TimestampPath',
  'TimeoutSecondsPath',
  'HeartbeatSecondsPath',
  'ErrorPath',
  'CausePath',
  'MaxConcurrencyPath',
  'ToleratedFailureCountPath',
  'ToleratedFailurePercentagePath',
];
/** Fields only JSONata states have. */
export const JSONATA_ONLY_FIELDS: readonly string[] = ['Arguments', 'Output', 'Items'];
/** Map fields of distributed mode only (ItemProcessor.ProcessorConfig.Mode DISTRIBUTED). */
/** Fields of other states a Fail state does not take (the schema does not refuse them). */
const FAIL_STATE_EXCLUDED_FIELDS: readonly string[] = ['Output', 'Assign'];
export const DISTRIBUTED_MAP_FIELDS: readonly string[] = ['ItemReader', 'ResultWriter', 'ItemBatcher'];
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** The longest Distributed Map `Label` AWS takes. */
const MAX_MAP_LABEL_LENGTH = 40;
/** Characters AWS refuses in a Map `Label`: whitespace, ? *, brackets, : ; , \ | ^ ~ $ # % & ` " and control characters. */
// eslint-disable-next-line no-control-regex -- AWS refuses control characters in a name; this is the check
const INVALID_LABEL_CHARACTER = /[\s?*<>{}[\]:;,\\|^~$#%&`"\u0000-\u001f\u007f-\u009f]/;
const RESERVED_VARIABLES = new Set(['states']);

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
const pointerPart = (key: string | number) => String(key).replace(/~/g, '~0').replace(/\//g, '~1');

/** Whether a value is written as a JSONPath Step Functions takes (`$...`, `$$...`, `$variable`; Jayway's syntax). */
const isPathText = (value: unknown): value is string =>
  typeof value === 'string' && jsonPathProblem(value) === undefined;

/** What is wrong with a `.$` value: the intrinsic call's compile error, `'not a path'`, or undefined when it is fine. */
function dynamicProblem(value: unknown): string | undefined {
  if (typeof value === 'string' && isIntrinsicCall(value)) {
    try {
      compileIntrinsic(value);
      return undefined;
    } catch (err) {
      return (err as Error).message;
    }
  }
  // Jayway trims a path before compiling it ('$$.Execution.Name ' is the path '$$.Execution.Name').
  return isPathText(typeof value === 'string' ? value.trim() : value) ? undefined : 'not a path';
}

/** Walks a definition and collects problems (the model the engine runs is built by `prepareDefinition`). */
class DefinitionChecker {
  readonly problems: DefinitionProblem[] = [];
  private readonly seen = new Set<string>();
  /** How many distributed Maps with `ExecutionType: EXPRESS` enclose the states being checked: their children are Express runs. */
  private expressChildren = 0;

  constructor(
    private readonly topLanguage: QueryLanguage,
    private readonly type: StateMachineType,
  ) {}

  problem(code: string, message: string, location: string): void {
    this.problems.push({ code, message, location });
  }

  /** Checks a StartAt/States list at `pointer` (`''` for the top level). */
  list(owner: Json, path: StateListPath, pointer: string): PreparedStateList {
    const states = isObject(owner.States) ? owner.States : {};
    const stateNames = Object.keys(states);
    const startAt = typeof owner.StartAt === 'string' ? owner.StartAt : '';
    const list: PreparedStateList = { path, startAt, stateNames };
    // AWS names every missing field in one problem at the list ('/' at the top), and checks StartAt's target only with States given.
    const missing = ['States', 'StartAt'].filter((field) => !(field in owner));
    if (missing.length > 0)
      this.problem('SCHEMA_VALIDATION_FAILED', `These fields are required: [${missing.join(', ')}]`, pointer || '/');
    if ('States' in owner && (!isObject(owner.States) || stateNames.length === 0))
      this.problem('SCHEMA_VALIDATION_FAILED', 'States must be an object with at least one state', `${pointer}/States`);
    if ('StartAt' in owner && typeof owner.StartAt !== 'string')
      this.problem('SCHEMA_VALIDATION_FAILED', 'StartAt must be the name of a state', `${pointer}/StartAt`);
    else if (typeof owner.StartAt === 'string' && isObject(owner.States) && !(startAt in states)) {
      this.problem(
        'MISSING_TRANSITION_TARGET',
        `StartAt names the state '${startAt}', which is not in this list of states`,
        `${pointer}/StartAt`,
      );
    }
    for (const name of stateNames) this.state(name, states[name], list, `${pointer}/States/${pointerPart(name)}`);
    return list;
  }

  private state(name: string, raw: unknown, list: PreparedStateList, at: string): void {
    if (!isObject(raw)) return this.problem('SCHEMA_VALIDATION_FAILED', `State '${name}' must be an object`, at);
    if (!('Type' in raw)) return this.problem('SCHEMA_VALIDATION_FAILED', 'These fields are required: [Type]', at);
    if (typeof raw.Type !== 'string' || !STATE_TYPES.has(raw.Type)) {
      return this.problem(
        'SCHEMA_VALIDATION_FAILED',
        `The field 'Type' should have one of these values: [${[...STATE_TYPES].join(', ')}]`,
        `${at}/Type`,
      );
    }
    const state = raw as StateDefinition;
    if (this.seen.has(name))
      this.problem(
        'DUPLICATE_STATE_NAMES',
        `The state name '${name}' is used more than once (names must be unique across the whole state machine)`,
        at,
      );
    if (name.length > MAX_STATE_NAME_LENGTH)
      this.problem(
        'SCHEMA_VALIDATION_FAILED',
        `State name '${name.slice(0, 20)}...' is longer than ${MAX_STATE_NAME_LENGTH} characters`,
        at,
      );

    const language = this.language(name, state, at);
    this.seen.add(name);

    this.transitions(name, state, list, at);
    // A Fail state allows only Type and Comment of the common fields, and Error/Cause (developer guide, Fail
    // workflow state): no Output and no Assign, whichever the query language (the schema lets them through).
    if (state.Type === 'Fail') {
      for (const field of FAIL_STATE_EXCLUDED_FIELDS) {
        if (field in state)
          this.problem(
            'SCHEMA_VALIDATION_FAILED',
            `The field '${field}' is not supported by the Fail state '${name}' (it takes Type, Comment, Error and Cause)`,
            `${at}/${field}`,
          );
      }
    }
    if (language === 'JSONata') this.jsonataFields(name, state, at);
    else this.jsonPathFields(name, state, at);
    if (state.Type === 'Task' || state.Type === 'Parallel' || state.Type === 'Map') {
      this.errorMatchers(name, state, 'Retry', at);
      this.errorMatchers(name, state, 'Catch', at);
    }
    if (state.Type === 'Wait' && 'Timestamp' in state) this.timestamp(state.Timestamp, language, `${at}/Timestamp`);
    if (state.Type === 'Task') {
      this.resource(name, state, at);
      this.credentials(state, at);
    }
    if (state.Type === 'Parallel') {
      const branches = Array.isArray(state.Branches) ? state.Branches : [];
      if (!('Branches' in state)) this.problem('SCHEMA_VALIDATION_FAILED', 'These fields are required: [Branches]', at);
      else if (!Array.isArray(state.Branches))
        this.problem(
          'SCHEMA_VALIDATION_FAILED',
          `Parallel state '${name}' field Branches must be an array of state lists`,
          `${at}/Branches`,
        );
      else if (branches.length === 0)
        this.problem('SCHEMA_VALIDATION_FAILED', 'Value cannot be empty', `${at}/Branches`);
      branches.forEach((branch, i) =>
        this.list(isObject(branch) ? branch : {}, [...list.path, name, i], `${at}/Branches/${i}`),
      );
    }
    if (state.Type === 'Map') this.map(name, state, list, at);
  }

  private language(name: string, state: StateDefinition, at: string): QueryLanguage {
    const own = state.QueryLanguage;
    if (own === undefined) return this.topLanguage;
    if (typeof own !== 'string' || !QUERY_LANGUAGES.has(own)) {
      this.problem(
        'SCHEMA_VALIDATION_FAILED',
        `State '${name}' has QueryLanguage ${JSON.stringify(own)}; use JSONata or JSONPath`,
        `${at}/QueryLanguage`,
      );
      return this.topLanguage;
    }
    if (own === 'JSONPath' && this.topLanguage === 'JSONata') {
      this.problem(
        'SCHEMA_VALIDATION_FAILED',
        "'QueryLanguage' can not be 'JSONPath' if set to 'JSONata' for whole state machine",
        at,
      );
    }
    return own as QueryLanguage;
  }

  private transitions(name: string, state: StateDefinition, list: PreparedStateList, at: string): void {
    const target = (next: unknown, field: string) => {
      if (typeof next === 'string' && !list.stateNames.includes(next)) {
        this.problem(
          'MISSING_TRANSITION_TARGET',
          `State '${name}' field ${field} names '${next}', which is not a state of the same list of states`,
          `${at}/${field.replace(/[[\]/]+/g, '/')}`,
        );
      }
    };
    target(state.Next, 'Next');
    target(state.Default, 'Default');
    if (Array.isArray(state.Choices))
      state.Choices.forEach((rule, i) => isObject(rule) && target(rule.Next, `Choices[${i}]/Next`));
    if (Array.isArray(state.Catch))
      state.Catch.forEach((catcher, i) => isObject(catcher) && target(catcher.Next, `Catch[${i}]/Next`));
  }

  // ---- JSONata states ----

  private jsonataFields(name: string, state: StateDefinition, at: string): void {
    for (const field of JSONPATH_ONLY_FIELDS) {
      if (field in state)
        this.problem(
          'SCHEMA_VALIDATION_FAILED',
          `State '${name}' uses JSONata, which has no field '${field}' (use Arguments, Output and Assign)`,
          `${at}/${field}`,
        );
    }
    for (const field of JSONATA_FIELDS)
      if (field in state) this.expressions(name, state[field], field, `${at}/${field}`);
    this.jsonataAssign(name, state.Assign, 'Assign', `${at}/Assign`);
    if (Array.isArray(state.Catch)) {
      state.Catch.forEach((catcher, i) => {
        if (!isObject(catcher)) return;
        if ('ResultPath' in catcher)
          this.problem(
            'SCHEMA_VALIDATION_FAILED',
            `State '${name}' uses JSONata, which has no field 'Catch[${i}]/ResultPath' (use Output)`,
            `${at}/Catch/${i}/ResultPath`,
          );
        if ('Output' in catcher)
          this.expressions(name, catcher.Output, `Catch[${i}]/Output`, `${at}/Catch/${i}/Output`);
        this.jsonataAssign(name, catcher.Assign, `Catch[${i}]/Assign`, `${at}/Catch/${i}/Assign`);
      });
    }
    if (state.Type === 'Choice' && Array.isArray(state.Choices)) {
      state.Choices.forEach((rule, i) => {
        if (!isObject(rule)) return;
        const ruleAt = `${at}/Choices/${i}`;
        if (!('Condition' in rule))
          this.problem(
            'SCHEMA_VALIDATION_FAILED',
            `State '${name}' uses JSONata: Choices[${i}] needs a Condition`,
            `${ruleAt}/Condition`,
          );
        else if (typeof rule.Condition !== 'boolean' && !isJsonataExpression(rule.Condition)) {
          this.problem(
            'SCHEMA_VALIDATION_FAILED',
            `State '${name}' field Choices[${i}]/Condition must be a {% %} expression or a boolean`,
            `${ruleAt}/Condition`,
          );
        } else this.expressions(name, rule.Condition, `Choices[${i}]/Condition`, `${ruleAt}/Condition`);
        for (const key of Object.keys(rule)) {
          if (key === 'Variable' || CHOICE_OPERATORS.includes(key) || key === 'And' || key === 'Or' || key === 'Not') {
            this.problem(
              'SCHEMA_VALIDATION_FAILED',
              `State '${name}' uses JSONata, which has no Choice rule field '${key}' (use Condition)`,
              `${ruleAt}/${key}`,
            );
          }
        }
        if ('Output' in rule) this.expressions(name, rule.Output, `Choices[${i}]/Output`, `${ruleAt}/Output`);
        this.jsonataAssign(name, rule.Assign, `Choices[${i}]/Assign`, `${ruleAt}/Assign`);
      });
    }
  }

  /** Compiles every `{% %}` string in a field; refuses strings that open `{%` without closing `%}`. */
  private expressions(name: string, value: unknown, field: string, at: string): void {
    forEachString(value, field, (text, position) => {
      if (isMalformedJsonataExpression(text)) {
        this.problem(
          'SCHEMA_VALIDATION_FAILED',
          `State '${name}' field ${position} has a malformed JSONata expression ${JSON.stringify(text)} (it must be the whole string, '{% ... %}')`,
          at,
        );
      } else if (isJsonataExpression(text)) {
        try {
          compileJsonata(text, position);
        } catch (err) {
          this.problem('SCHEMA_VALIDATION_FAILED', `State '${name}': ${(err as Error).message}`, at);
        }
      }
    });
  }

  private jsonataAssign(name: string, assign: unknown, field: string, at: string): void {
    if (assign === undefined) return;
    if (!isObject(assign)) {
      this.problem(
        'SCHEMA_VALIDATION_FAILED',
        `State '${name}' field ${field} must be an object of variable names to values`,
        at,
      );
      return;
    }
    for (const key of Object.keys(assign)) this.variableName(name, key, field, at);
    this.expressions(name, assign, field, at);
  }

  private variableName(name: string, variable: string, field: string, at: string): void {
    if (!VARIABLE_NAME.test(variable) || variable.length > MAX_STATE_NAME_LENGTH || RESERVED_VARIABLES.has(variable)) {
      this.problem(
        'SCHEMA_VALIDATION_FAILED',
        `State '${name}' field ${field} assigns the invalid variable name '${variable}'`,
        `${at}/${pointerPart(variable)}`,
      );
    }
  }

  // ---- JSONPath states ----

  private jsonPathFields(name: string, state: StateDefinition, at: string): void {
    for (const field of JSONATA_ONLY_FIELDS) {
      if (field in state)
        this.problem(
          'SCHEMA_VALIDATION_FAILED',
          `State '${name}' uses JSONPath, which has no field '${field}' (set "QueryLanguage": "JSONata" to use it)`,
          `${at}/${field}`,
        );
    }
    for (const field of ['InputPath', 'OutputPath'])
      if (field in state && state[field] !== null) this.path(name, state[field], field, `${at}/${field}`);
    for (const field of [
      'ItemsPath',
      'SecondsPath',
      'TimestampPath',
      'TimeoutSecondsPath',
      'HeartbeatSecondsPath',
      'MaxConcurrencyPath',
      'ToleratedFailureCountPath',
      'ToleratedFailurePercentagePath',
    ]) {
      if (field in state) this.path(name, state[field], field, `${at}/${field}`);
    }
    for (const field of ['ErrorPath', 'CausePath'])
      if (field in state) this.dynamic(name, state[field], field, `${at}/${field}`);
    if ('ResultPath' in state) this.resultPath(name, state.ResultPath, 'ResultPath', `${at}/ResultPath`);
    for (const field of ['Parameters', 'ResultSelector', 'ItemSelector']) {
      if (field in state)
        forEachDynamic(state[field], field, (value, position) => this.templateValue(value, position, `${at}/${field}`));
    }
    this.jsonPathAssign(name, state.Assign, 'Assign', `${at}/Assign`);
    if (Array.isArray(state.Catch)) {
      state.Catch.forEach((catcher, i) => {
        if (!isObject(catcher)) return;
        if ('ResultPath' in catcher)
          this.resultPath(name, catcher.ResultPath, `Catch[${i}]/ResultPath`, `${at}/Catch/${i}/ResultPath`);
        if ('Output' in catcher)
          this.problem(
            'SCHEMA_VALIDATION_FAILED',
            `State '${name}' uses JSONPath, which has no field 'Catch[${i}]/Output' (use ResultPath)`,
            `${at}/Catch/${i}/Output`,
          );
        this.jsonPathAssign(name, catcher.Assign, `Catch[${i}]/Assign`, `${at}/Catch/${i}/Assign`);
      });
    }
    if (state.Type === 'Choice' && Array.isArray(state.Choices)) {
      state.Choices.forEach((rule, i) => {
        this.choiceRule(name, rule, `Choices[${i}]`, `${at}/Choices/${i}`);
        if (isObject(rule)) this.jsonPathAssign(name, rule.Assign, `Choices[${i}]/Assign`, `${at}/Choices/${i}/Assign`);
      });
    }
  }

  private path(name: string, value: unknown, field: string, at: string): void {
    const problem = typeof value === 'string' ? jsonPathProblem(value) : 'it must be a string';
    if (problem)
      this.problem(
        'SCHEMA_VALIDATION_FAILED',
        `State '${name}' field ${field} must be a JSONPath (${problem}), got ${JSON.stringify(value)}`,
        at,
      );
  }

  private resultPath(name: string, value: unknown, field: string, at: string): void {
    if (value === null) return;
    if (typeof value !== 'string' || value.startsWith('$$') || /^\$[A-Za-z_]/.test(value) || !definiteSteps(value)) {
      this.problem(
        'SCHEMA_VALIDATION_FAILED',
        `State '${name}' field ${field} must be null or a reference path ('$', '$.a.b', "$['a']", '$.a[0]'), got ${JSON.stringify(value)}`,
        at,
      );
    }
  }

  /** A `.$` value: an intrinsic function call (compiled now) or a path. */
  private dynamic(name: string, value: unknown, field: string, at: string): void {
    const problem = dynamicProblem(value);
    if (problem === 'not a path') this.path(name, value, field, at);
    else if (problem) this.problem('SCHEMA_VALIDATION_FAILED', `State '${name}' field ${field}: ${problem}`, at);
  }

  /** A `.$` value of a payload template: a path or a call that compiles, else AWS's words naming the key. */
  private templateValue(value: unknown, position: string, at: string): void {
    if (dynamicProblem(value) === undefined) return;
    const key = position.slice(position.lastIndexOf('/') + 1);
    this.problem(
      'SCHEMA_VALIDATION_FAILED',
      `The value for the field '${key}' must be a valid JSONPath or a valid intrinsic function call`,
      at,
    );
  }

  private jsonPathAssign(name: string, assign: unknown, field: string, at: string): void {
    if (assign === undefined) return;
    if (!isObject(assign)) {
      this.problem(
        'SCHEMA_VALIDATION_FAILED',
        `State '${name}' field ${field} must be an object of variable names to values`,
        at,
      );
      return;
    }
    for (const key of Object.keys(assign))
      this.variableName(name, key.endsWith('.$') ? key.slice(0, -2) : key, field, at);
    forEachDynamic(assign, field, (value, position) => this.dynamic(name, value, position, at));
  }

  private choiceRule(name: string, rule: unknown, field: string, at: string): void {
    const fail = (message: string, where = at) =>
      this.problem('SCHEMA_VALIDATION_FAILED', `State '${name}' ${field}: ${message}`, where);
    if (!isObject(rule)) return fail('a Choice rule must be an object');
    if ('Condition' in rule)
      return fail(
        'JSONPath Choice rules have no Condition (set "QueryLanguage": "JSONata" to use it)',
        `${at}/Condition`,
      );
    for (const combinator of ['And', 'Or'] as const) {
      if (combinator in rule) {
        const inner = rule[combinator];
        if (!Array.isArray(inner) || inner.length === 0)
          return fail(`${combinator} must be a non-empty array of rules`, `${at}/${combinator}`);
        inner.forEach((sub, i) =>
          this.choiceRule(name, sub, `${field}/${combinator}[${i}]`, `${at}/${combinator}/${i}`),
        );
        return;
      }
    }
    if ('Not' in rule) return this.choiceRule(name, rule.Not, `${field}/Not`, `${at}/Not`);
    const operators = Object.keys(rule).filter((key) => !['Variable', 'Next', 'Assign', 'Comment'].includes(key));
    if (operators.length !== 1 || !CHOICE_OPERATORS.includes(operators[0])) {
      return fail(`needs exactly one comparison operator (${operators.join(', ') || 'none'} given)`);
    }
    const operator = operatorOf(rule) as string;
    const operand = rule[operator];
    this.path(name, rule.Variable, `${field}/Variable`, `${at}/Variable`);
    const expect = (ok: boolean, what: string) =>
      ok || fail(`${operator} needs ${what}, got ${JSON.stringify(operand)}`, `${at}/${operator}`);
    if (operator.endsWith('Path')) this.path(name, operand, `${field}/${operator}`, `${at}/${operator}`);
    else if (operator.startsWith('Is')) expect(typeof operand === 'boolean', 'a boolean');
    else if (operator.startsWith('String')) expect(typeof operand === 'string', 'a string');
    else if (operator.startsWith('Numeric')) expect(typeof operand === 'number', 'a number');
    else if (operator.startsWith('Boolean')) expect(typeof operand === 'boolean', 'a boolean');
    else if (operator.startsWith('Timestamp')) expect(parseTimestamp(operand) !== undefined, 'an RFC 3339 timestamp');
  }

  // ---- Retry, Catch, resources, Map ----

  private errorMatchers(name: string, state: StateDefinition, field: 'Retry' | 'Catch', at: string): void {
    const matchers = state[field];
    if (matchers === undefined) return;
    if (!Array.isArray(matchers))
      return this.problem(
        'SCHEMA_VALIDATION_FAILED',
        `State '${name}' field ${field} must be an array`,
        `${at}/${field}`,
      );
    matchers.forEach((matcher, i) => {
      const errors = isObject(matcher) ? matcher.ErrorEquals : undefined;
      const where = `${at}/${field}/${i}/ErrorEquals`;
      if (!Array.isArray(errors) || errors.length === 0 || !errors.every((e) => typeof e === 'string')) {
        this.problem(
          'SCHEMA_VALIDATION_FAILED',
          `State '${name}' field ${field}[${i}]/ErrorEquals must be a non-empty array of error names`,
          where,
        );
      } else if (errors.includes(StatesError.ALL) && (errors.length > 1 || i !== matchers.length - 1)) {
        this.problem(
          'SCHEMA_VALIDATION_FAILED',
          `State '${name}' field ${field}[${i}]/ErrorEquals: ${StatesError.ALL} must appear alone, in the last ${field === 'Retry' ? 'retrier' : 'catcher'}`,
          where,
        );
      }
    });
  }

  private resource(name: string, state: StateDefinition, at: string): void {
    const resource = state.Resource;
    if (typeof resource !== 'string')
      return this.problem('SCHEMA_VALIDATION_FAILED', `Task state '${name}' needs a Resource`, `${at}/Resource`);
    let target: TaskTarget;
    try {
      target = resolveTaskTarget(resource);
    } catch (err) {
      // Only a resource AWS does not know is the definition's fault; anything else (the engine's catalog not
      // read) is the engine's, and must not read as the user's.
      if (!(err instanceof UnsupportedResourceError)) throw err;
      return this.problem(
        'SCHEMA_VALIDATION_FAILED',
        `The resource provided ${resource} is not recognized. The value is not a valid resource ARN, or the resource is not available in this region.`,
        `${at}/Resource`,
      );
    }
    // An express run lasts five minutes at most and keeps no history to wait in: no activity, job or callback,
    // whichever the service (AWS's words; its '.waitForTaskToken' message ends in a space).
    if (this.type === 'EXPRESS' || this.expressChildren > 0) {
      if (target.resourceType === 'activity')
        return this.problem(
          'SCHEMA_VALIDATION_FAILED',
          'Express state machine does not support Activity ARN',
          `${at}/Resource`,
        );
      if (target.pattern !== 'request') {
        return this.problem(
          'SCHEMA_VALIDATION_FAILED',
          `Express state machine does not support '.${target.pattern}' service integration${target.pattern === 'waitForTaskToken' ? ' ' : ''}`,
          `${at}/Resource`,
        );
      }
    }
  }

  /** A Task's `Credentials` names the role to assume (AWS refuses the block without one). */
  private credentials(state: StateDefinition, at: string): void {
    if (!('Credentials' in state)) return;
    const credentials = state.Credentials;
    if (!isObject(credentials) || !('RoleArn' in credentials || 'RoleArn.$' in credentials)) {
      this.problem('SCHEMA_VALIDATION_FAILED', "The field 'RoleArn' is required but was missing", `${at}/Credentials`);
    }
  }

  /** A Wait's `Timestamp` written in the definition (not a JSONata expression) must be an RFC 3339 timestamp. */
  private timestamp(value: unknown, language: QueryLanguage, at: string): void {
    if (language === 'JSONata' && isJsonataExpression(value)) return;
    if (parseTimestamp(value) === undefined)
      this.problem('SCHEMA_VALIDATION_FAILED', 'String does not match RFC3339 timestamp', at);
  }

  /** A Map `Label` (part of its Map Run ARNs): 1 to 40 characters, none of the ones AWS refuses. */
  private label(name: string, state: StateDefinition, at: string): void {
    if (!('Label' in state)) return;
    const label = state.Label;
    if (
      typeof label !== 'string' ||
      label.length === 0 ||
      label.length > MAX_MAP_LABEL_LENGTH ||
      INVALID_LABEL_CHARACTER.test(label)
    ) {
      this.problem(
        'SCHEMA_VALIDATION_FAILED',
        `Map state '${name}' field Label must be 1 to ${MAX_MAP_LABEL_LENGTH} characters, without whitespace, control characters or any of ? * < > { } [ ] : ; , \\ | ^ ~ $ # % & \` "`,
        `${at}/Label`,
      );
    }
  }

  private map(
    name: string,
    state: StateDefinition,
    list: PreparedStateList,
    at: string,
  ): PreparedStateList | undefined {
    this.label(name, state, at);
    const processorField = 'ItemProcessor' in state ? 'ItemProcessor' : 'Iterator';
    const processor = state[processorField];
    if (!isObject(processor)) {
      this.problem('SCHEMA_VALIDATION_FAILED', `Map state '${name}' needs an ItemProcessor`, `${at}/ItemProcessor`);
      return undefined;
    }
    const mode = isObject(processor.ProcessorConfig) ? processor.ProcessorConfig.Mode : undefined;
    if (mode !== undefined && mode !== 'INLINE' && mode !== 'DISTRIBUTED') {
      this.problem(
        'SCHEMA_VALIDATION_FAILED',
        `Map state '${name}' field ItemProcessor.ProcessorConfig.Mode must be INLINE or DISTRIBUTED, got ${JSON.stringify(mode)}`,
        `${at}/${processorField}/ProcessorConfig/Mode`,
      );
    }
    for (const field of DISTRIBUTED_MAP_FIELDS) {
      if (field in state && mode !== 'DISTRIBUTED')
        this.problem(
          'SCHEMA_VALIDATION_FAILED',
          `Map state '${name}' field ${field} is only supported in DISTRIBUTED mode (ItemProcessor.ProcessorConfig.Mode)`,
          `${at}/${field}`,
        );
    }
    this.mapItemSources(name, state, at);
    // A distributed Map's EXPRESS child workflows are Express runs: what an EXPRESS machine may not do, they may not either.
    const expressChildren =
      mode === 'DISTRIBUTED' &&
      isObject(processor.ProcessorConfig) &&
      processor.ProcessorConfig.ExecutionType === 'EXPRESS';
    if (expressChildren) this.expressChildren += 1;
    try {
      return this.list(processor, [...list.path, name, MAP_ITEMS], `${at}/${processorField}`);
    } finally {
      if (expressChildren) this.expressChildren -= 1;
    }
  }

  /** A distributed Map's ItemReader and ResultWriter name what the engine reads and writes. */
  private mapItemSources(name: string, state: StateDefinition, at: string): void {
    const reader = state.ItemReader;
    if (isObject(reader)) {
      const resource = typeof reader.Resource === 'string' ? reader.Resource : '';
      if (!isItemReaderResource(resource))
        this.problem(
          'SCHEMA_VALIDATION_FAILED',
          `Map state '${name}' ItemReader.Resource must be arn:aws:states:::s3:getObject or arn:aws:states:::s3:listObjectsV2 on the local engine, got ${JSON.stringify(reader.Resource)}`,
          `${at}/ItemReader/Resource`,
        );
      const maxItems = isObject(reader.ReaderConfig) ? reader.ReaderConfig.MaxItems : undefined;
      if (
        typeof maxItems === 'number' &&
        !(Number.isInteger(maxItems) && maxItems >= 0 && maxItems <= MAX_ITEM_READER_ITEMS)
      ) {
        this.problem(
          'SCHEMA_VALIDATION_FAILED',
          `Map state '${name}' ItemReader.ReaderConfig.MaxItems must be an integer from 0 to ${MAX_ITEM_READER_ITEMS}, got ${maxItems}`,
          `${at}/ItemReader/ReaderConfig/MaxItems`,
        );
      }
      const inputType = isObject(reader.ReaderConfig) ? reader.ReaderConfig.InputType : undefined;
      if (/:s3:getObject$/.test(resource) && !ITEM_READER_INPUT_TYPES.includes(String(inputType))) {
        this.problem(
          'SCHEMA_VALIDATION_FAILED',
          `Map state '${name}' ItemReader.ReaderConfig.InputType must be one of ${ITEM_READER_INPUT_TYPES.join(', ')}, got ${JSON.stringify(inputType)}`,
          `${at}/ItemReader/ReaderConfig/InputType`,
        );
      }
    }
    const writer = state.ResultWriter;
    if (isObject(writer) && writer.Resource === undefined && !isObject(writer.WriterConfig)) {
      this.problem(
        'SCHEMA_VALIDATION_FAILED',
        `Map state '${name}' ResultWriter needs a Resource and Parameters, a WriterConfig, or both`,
        `${at}/ResultWriter`,
      );
    }
    if (
      isObject(writer) &&
      writer.Resource !== undefined &&
      (typeof writer.Resource !== 'string' || !/^arn:aws[a-z-]*:states:::s3:putObject$/.test(writer.Resource))
    ) {
      this.problem(
        'SCHEMA_VALIDATION_FAILED',
        `Map state '${name}' ResultWriter.Resource must be arn:aws:states:::s3:putObject, got ${JSON.stringify(writer.Resource)}`,
        `${at}/ResultWriter/Resource`,
      );
    }
  }
}

/** A state machine's type, which decides what its Tasks may do (no `.sync` or `.waitForTaskToken` in EXPRESS). */
export type StateMachineType = 'STANDARD' | 'EXPRESS';

/** Options of {@link validateDefinition}. */
export interface ValidationOptions {
  /**
   * The type of the state machine the definition is for.
   * @default 'STANDARD'
   */
  readonly type?: StateMachineType;
}

/** Most definitions remembered as schema-valid (asl-validator builds its whole schema set on every call: 0.1-1 s). */
export const SCHEMA_VALID_CACHE_SIZE = 256;
const schemaValid = new Set<string>();

/**
 * The definition as asl-validator should see it. Its schema is stricter than the service, which accepts
 * `Output` as any JSON value (also on a JSONata Choice and its rules), `Assign` values of any JSON shape
 * and a constant `Condition`; our own checks have already covered those fields (every expression
 * compiled, every variable name checked), so the copy leaves them out (Output, Assign) or makes them
 * an expression (Condition) and the schema checks the rest. The copy is asl-validator's to mutate.
 */
function forSchema(definition: Json, names: Map<string, string>): Json {
  const copy = structuredClone(definition);
  const relax = (owner: unknown): void => {
    if (!isObject(owner)) return;
    delete owner.Output;
    delete owner.Assign;
    if (typeof owner.Condition === 'boolean') owner.Condition = `{% ${owner.Condition} %}`;
    // The service takes a fractional percentage (ToleratedFailurePercentage 0.5); the schema only integers.
    if (typeof owner.ToleratedFailurePercentage === 'number')
      owner.ToleratedFailurePercentage = Math.round(owner.ToleratedFailurePercentage);
    // The service takes ReaderConfig.MaxItems 0 (every item: test_map_item_reader_csv_max_items[0]); the schema from 1. Checked in mapItemSources.
    const readerConfig = isObject(owner.ItemReader) ? owner.ItemReader.ReaderConfig : undefined;
    if (isObject(readerConfig) && readerConfig.MaxItems === 0) delete readerConfig.MaxItems;
    // The service takes a ResultWriter with only a WriterConfig (AWS ResultWriter docs); the schema wants a Resource. Checked in mapItemSources.
    if (isObject(owner.ResultWriter) && owner.ResultWriter.Resource === undefined) delete owner.ResultWriter;
  };
  // asl-validator finds state lists by the key `States` and walks `Branches`/`Iterator` by name, so a state named
  // States, Branches or Iterator breaks it (a TypeError, not a finding): the copy's states get neutral names,
  // which `names` maps back for its findings.
  const rename = (target: unknown) => (typeof target === 'string' ? (renamed.get(target) ?? target) : target);
  const renamed = new Map<string, string>();
  const renameList = (list: Json): void => {
    const states = list.States as Json;
    for (const name of Object.keys(states)) {
      const neutral = `state${names.size}`;
      names.set(neutral, name);
      renamed.set(name, neutral);
    }
    list.States = Object.fromEntries(
      Object.entries(states).map(([name, state]) => [renamed.get(name) as string, state]),
    );
    list.StartAt = rename(list.StartAt);
    for (const state of Object.values(list.States as Json)) {
      if (!isObject(state)) continue;
      state.Next = rename(state.Next);
      if (state.Next === undefined) delete state.Next;
      if ('Default' in state) state.Default = rename(state.Default);
      for (const nested of ['Choices', 'Catch'] as const)
        if (Array.isArray(state[nested]))
          for (const rule of state[nested] as unknown[])
            if (isObject(rule) && 'Next' in rule) rule.Next = rename(rule.Next);
    }
  };
  // The schema wants `{% ` and ` %}` spaced and no line break in any string; the service takes `{%expr%}`, expressions
  // over several lines and plain multi-line strings (a system prompt). Every expression was compiled by our own checks.
  const spaced = (value: unknown): unknown => {
    if (typeof value === 'string') {
      const flat = value.replace(/[\r\n]/g, ' ');
      return isJsonataExpression(flat) ? `{% ${flat.slice(2, -2).trim() || 'null'} %}` : flat;
    }
    if (Array.isArray(value)) return value.map(spaced);
    return isObject(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, spaced(v)])) : value;
  };
  const visitList = (list: unknown): void => {
    if (!isObject(list) || !isObject(list.States)) return;
    renameList(list);
    for (const state of Object.values(list.States)) {
      if (!isObject(state)) continue;
      relax(state);
      for (const nested of ['Choices', 'Catch'] as const)
        if (Array.isArray(state[nested])) (state[nested] as unknown[]).forEach(relax);
      if (Array.isArray(state.Branches)) state.Branches.forEach(visitList);
      visitList(state.ItemProcessor ?? state.Iterator);
    }
  };
  visitList(copy);
  return spaced(copy) as Json;
}

/** asl-validator's findings as problems (see {@link forSchema}). Valid texts are remembered by hash. */
function schemaProblems(definition: Json, text: string): DefinitionProblem[] {
  const key = createHash('sha256').update(text).digest('hex');
  if (schemaValid.has(key)) return [];
  const names = new Map<string, string>();
  // Paths and resources are this module's own checks (Jayway's syntax, the integrations AWS knows).
  const result = aslValidator()(forSchema(definition, names), { checkPaths: false, checkArn: false });
  if (result.isValid) {
    if (schemaValid.size >= SCHEMA_VALID_CACHE_SIZE) schemaValid.delete(schemaValid.values().next().value as string);
    schemaValid.add(key);
    return [];
  }
  const original = (text: string) => text.replace(/\bstate\d+\b/g, (neutral) => names.get(neutral) ?? neutral);
  return result.errors.map((error) => ({
    code: error['Error code'],
    message: original(error.Message),
    location: original(error.schemaError?.instancePath ?? ''),
  }));
}

/** AWS's words for a definition that is blank or not a JSON object. */
const NOT_AN_OBJECT = 'Definition must be a valid JSON object';

/**
 * Parses and validates a state machine definition; returns it prepared for the engine (every state,
 * nested ones included, with its effective query language). Throws {@link InvalidDefinitionError}
 * listing every problem, each naming the state and the field.
 */
export function validateDefinition(definitionJson: string, options: ValidationOptions = {}): PreparedDefinition {
  let definition: unknown;
  if (definitionJson.trim() === '')
    throw new InvalidDefinitionError([{ code: 'SCHEMA_VALIDATION_FAILED', message: NOT_AN_OBJECT, location: '' }]);
  try {
    definition = JSON.parse(definitionJson);
  } catch (err) {
    throw new InvalidDefinitionError([
      {
        code: 'INVALID_JSON_DESCRIPTION',
        message: `the definition is not valid JSON: ${(err as Error).message}`,
        location: '',
      },
    ]);
  }
  if (!isObject(definition))
    throw new InvalidDefinitionError([{ code: 'SCHEMA_VALIDATION_FAILED', message: NOT_AN_OBJECT, location: '' }]);

  const top = definition.QueryLanguage;
  if (top !== undefined && (typeof top !== 'string' || !QUERY_LANGUAGES.has(top))) {
    throw new InvalidDefinitionError([
      {
        code: 'SCHEMA_VALIDATION_FAILED',
        message: `QueryLanguage must be JSONata or JSONPath, got ${JSON.stringify(top)}`,
        location: '/QueryLanguage',
      },
    ]);
  }
  const queryLanguage = (top ?? 'JSONPath') as QueryLanguage;
  const checker = new DefinitionChecker(queryLanguage, options.type ?? 'STANDARD');
  checker.list(definition, [], '');
  if (checker.problems.length > 0) throw new InvalidDefinitionError(checker.problems);

  const schema = schemaProblems(definition, definitionJson);
  if (schema.length > 0) throw new InvalidDefinitionError(schema);

  return prepareDefinition(definition);
}
