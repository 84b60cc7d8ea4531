/**
 * A mocked Task result checked against the integration's API output shape, as TestState's
 * `fieldValidationMode` asks. The shapes are the AWS SDK's own service models: every `@aws-sdk/client-*`
 * package embeds its Smithy schemas and exports them as `<Shape>$` / `<Operation>$` values, which this
 * module walks; for a service whose client the engine does not carry (SNS), botocore-schemas.ts gives the same
 * schemas from botocore's copy of the model. Nothing here is a hand-written table of shapes.
 *
 * A Smithy static schema is an array: `[0, ns, name, traits, ref]` (a named simple shape),
 * `[1, ns, name, traits, member]` (list), `[2, ns, name, traits, key, value]` (map),
 * `[3 | 4, ns, name, traits, memberNames, memberRefs, requiredCount]` (structure / union: the first
 * `requiredCount` members are required), `[9, ns, name, traits, input, output]` (operation); a member ref
 * is a shape or `[shape, memberTraits]`; refs may be thunks; numbers are simple types (`0` string, `1`
 * number, `2` boolean, `4`-`7` timestamps, `15` document, `21`/`42` blobs, `64|t` list of `t`, `128|t`
 * map of `t`). The JS SDK keeps no length, range, enum or pattern traits in them: those come from
 * `api-output-constraints.json`, generated from botocore's copy of the same models by
 * `scripts/api-output-constraints.mjs`, keyed by structure and member name.
 */
import type { RE2JS } from 're2js';
import { ValidationException } from '../service-errors';
import { lazyRequire } from '../lazy-require';
import { re2js } from '../re2';
import { botocoreSchemaModule } from './botocore-schemas';
import type { FieldValidationMode } from './request';

type Module = Readonly<Record<string, unknown>>;
type SchemaRef = unknown;

/** A member's traits from the service model: bounds (a length, a count or a value, by `type`) and enum values. */
interface Constraints {
  readonly type: string;
  readonly min?: number;
  readonly max?: number;
  readonly enum?: readonly string[];
  /** The model's regular expression, written for RE2, that the whole value must match. */
  readonly pattern?: string;
  /** What the value must not start with: the model pattern's leading negative lookahead, which RE2 lacks. */
  readonly forbiddenPrefix?: string;
  /** The constraints of a list's items. */
  readonly items?: Constraints;
  /** The constraints of a map's values. */
  readonly values?: Constraints;
}

/** Structure name -> member name -> constraints, for one service. */
type ServiceConstraints = Readonly<Record<string, Readonly<Record<string, Constraints>>>>;

/** api-output-constraints.json (written by scripts/api-output-constraints.mjs), read with the first mock checked. */
const constraints = lazyRequire<{ services: Readonly<Record<string, ServiceConstraints>> }>(
  './test-state/api-output-constraints.json',
);

/** Where a service's schemas come from (a client the engine depends on, or botocore's table), and the key of its service in the constraints table. */
interface Service {
  readonly load: () => Promise<Module>;
  readonly constraints: string;
}

const lambda: Service = { load: () => import('@aws-sdk/client-lambda'), constraints: 'lambda' };
const sfn: Service = { load: () => import('@aws-sdk/client-sfn'), constraints: 'sfn' };
const eventbridge: Service = { load: () => import('@aws-sdk/client-eventbridge'), constraints: 'events' };

/** The clients by the service name a Task resource uses (optimized and `aws-sdk:` forms). */
const CLIENTS: Readonly<Record<string, Service>> = {
  lambda,
  states: sfn,
  sfn,
  dynamodb: { load: () => import('@aws-sdk/client-dynamodb'), constraints: 'dynamodb' },
  sqs: { load: () => import('@aws-sdk/client-sqs'), constraints: 'sqs' },
  s3: { load: () => import('@aws-sdk/client-s3'), constraints: 's3' },
  events: eventbridge,
  eventbridge,
  kms: { load: () => import('@aws-sdk/client-kms'), constraints: 'kms' },
  // No client in the engine: its schemas come from botocore's model, in the form a client gives them.
  sns: { load: async () => botocoreSchemaModule('sns'), constraints: 'sns' },
};

/**
 * The API operation whose output a Task's result has, or undefined when the result is not an API
 * output (a function ARN's payload, a callback's answer) or its service's client is not installed.
 * `.sync` on `states:startExecution` ends with the child's DescribeExecution.
 */
function operationOf(resource: string): { service: string; operation: string } | undefined {
  const m =
    /^arn:aws[a-z-]*:states:::(aws-sdk:)?([a-z0-9-]+):([A-Za-z0-9]+)(?:\.(waitForTaskToken|sync(?::2)?))?$/.exec(
      resource,
    );
  if (!m) return undefined;
  const [, , service, action, suffix] = m;
  if (suffix === 'waitForTaskToken') return undefined;
  const operation =
    service === 'states' && suffix?.startsWith('sync')
      ? 'DescribeExecution'
      : action.charAt(0).toUpperCase() + action.slice(1);
  return CLIENTS[service] ? { service, operation } : undefined;
}

const resolve = (ref: SchemaRef): SchemaRef => (typeof ref === 'function' ? (ref as () => SchemaRef)() : ref);

/** A member ref without its member traits, resolved; plus whether it is the HTTP payload (bit 4 of the traits). */
function memberOf(ref: SchemaRef): { schema: SchemaRef; httpPayload: boolean } {
  if (Array.isArray(ref) && ref.length === 2) {
    const traits = ref[1];
    const httpPayload =
      typeof traits === 'number'
        ? (traits & 0b1_0000) !== 0
        : typeof traits === 'object' && traits !== null && 'httpPayload' in traits;
    return { schema: resolve(ref[0]), httpPayload };
  }
  return { schema: resolve(ref), httpPayload: false };
}

/** A named simple shape's target, unwrapped. */
function target(schema: SchemaRef): SchemaRef {
  let s = schema;
  while (Array.isArray(s) && s[0] === 0 && s.length >= 5) s = resolve(s[4]);
  return s;
}

/** Step Functions names API fields in PascalCase, whatever the protocol's own casing (sfn's is camelCase). */
const pascal = (name: string): string => name.charAt(0).toUpperCase() + name.slice(1);

const fail = (message: string): ValidationException =>
  new ValidationException(`Mock result schema validation error: ${message}`);

/** How long a value is for its length bounds: a blob travels as base64 text and is bounded in bytes. */
function lengthOf(type: string, value: unknown): number | undefined {
  if (type === 'blob' && typeof value === 'string') return Buffer.from(value, 'base64').length;
  if (typeof value === 'string' || Array.isArray(value)) return value.length;
  if (type === 'map' && typeof value === 'object' && value !== null) return Object.keys(value).length;
  return undefined;
}

const NUMERIC = new Set(['integer', 'long', 'float', 'double', 'bigInteger', 'bigDecimal']);

/** The models' patterns compiled once each (a few dozen in all): RE2 matches in time linear in the mocked value. */
const PATTERNS = new Map<string, RE2JS>();

function compiled(pattern: string): RE2JS {
  let re = PATTERNS.get(pattern);
  if (!re) PATTERNS.set(pattern, (re = re2js().compile(pattern)));
  return re;
}

/**
 * Whether a string matches its member's pattern as AWS services apply one: the whole value (Lambda refuses a
 * function name with a space under `...([a-zA-Z0-9-_]+)...`, which part of the name would match), and not
 * starting with what the pattern's leading lookahead forbids.
 */
function matchesPattern(c: Constraints, value: string): boolean {
  if (c.forbiddenPrefix !== undefined && compiled(c.forbiddenPrefix).matcher(value).lookingAt()) return false;
  return c.pattern === undefined || compiled(c.pattern).matches(value);
}

/**
 * Checks a value of the right type against its model constraints. The recorded messages are AWS's
 * ("is smaller than the minimum length", "is less than the minimum value", "exceeds the maximum value",
 * "is not an expected value"); no recording shows a too-long value or one off its pattern, whose messages
 * follow the same form.
 */
function checkConstraints(name: string, c: Constraints, value: unknown): void {
  if (value === null || value === undefined) return;
  if (c.enum && typeof value === 'string' && !c.enum.includes(value))
    throw fail(`Field '${name}' is not an expected value`);
  if (NUMERIC.has(c.type)) {
    if (typeof value !== 'number') return;
    if (c.min !== undefined && value < c.min) throw fail(`Field '${name}' is less than the minimum value`);
    if (c.max !== undefined && value > c.max) throw fail(`Field '${name}' exceeds the maximum value`);
  } else {
    const length = lengthOf(c.type, value);
    if (length !== undefined && c.min !== undefined && length < c.min)
      throw fail(`Field '${name}' is smaller than the minimum length`);
    if (length !== undefined && c.max !== undefined && length > c.max)
      throw fail(`Field '${name}' exceeds the maximum length`);
    if (typeof value === 'string' && !matchesPattern(c, value))
      throw fail(`Field '${name}' does not match the expected pattern`);
  }
  if (c.items && Array.isArray(value)) for (const item of value) checkConstraints(name, c.items, item);
  if (c.values && typeof value === 'object' && !Array.isArray(value))
    for (const item of Object.values(value)) checkConstraints(name, c.values, item);
}

class ShapeChecker {
  constructor(
    private readonly constraints: ServiceConstraints,
    private readonly strict: boolean,
  ) {}

  value(name: string, schema: SchemaRef, value: unknown): void {
    const s = target(schema);
    if (typeof s === 'number') return this.simple(name, s, value);
    if (!Array.isArray(s)) return; // 'unit' and unknown forms: nothing to check
    switch (s[0]) {
      case 1:
        return this.list(name, resolve(s[4]), value);
      case 2:
        return this.map(name, resolve(s[5]), value);
      case 3:
      case 4:
        return this.structure(name, s, value);
    }
  }

  private simple(name: string, type: number, value: unknown): void {
    if (type >= 64 && type < 128) return this.list(name, type & 0b11_1111, value);
    if (type >= 128 && type < 256) return this.map(name, type & 0b111_1111, value);
    if (value === null) return;
    switch (type) {
      case 0:
        if (typeof value !== 'string') throw fail(`Field '${name}' must be a string`);
        return;
      case 1:
      case 17:
      case 19:
        if (typeof value !== 'number') throw fail(`Field '${name}' must be a number`);
        return;
      case 2:
        if (typeof value !== 'boolean') throw fail(`Field '${name}' must be a boolean`);
        return;
      case 4:
      case 5:
      case 6:
      case 7:
      case 21:
      case 42:
        // Timestamps and blobs travel as strings in a state's data (recorded: `true` and 1764103483 both refused).
        if (typeof value !== 'string') throw fail(`Field '${name}' must be a string`);
        return;
    }
  }

  private list(name: string, member: SchemaRef, value: unknown): void {
    if (value === null) return;
    if (!Array.isArray(value)) throw fail(`Field '${name}' must be an array`);
    const { schema } = memberOf(member);
    // Element by element: the second element can be the one that fails (recorded).
    for (const item of value) this.value(name, schema, item);
  }

  private map(name: string, member: SchemaRef, value: unknown): void {
    if (value === null) return;
    if (typeof value !== 'object' || Array.isArray(value)) throw fail(`Field '${name}' must be an object`);
    const { schema } = memberOf(member);
    for (const item of Object.values(value)) this.value(name, schema, item);
  }

  structure(name: string, schema: readonly unknown[], value: unknown): void {
    if (value === null) return;
    if (typeof value !== 'object' || Array.isArray(value)) throw fail(`Field '${name}' must be an object`);
    const names = schema[4] as readonly string[];
    const refs = schema[5] as readonly SchemaRef[];
    const required = typeof schema[6] === 'number' ? schema[6] : 0;
    const constraints = this.constraints[schema[2] as string] ?? {};
    const object = value as Record<string, unknown>;
    names.forEach((memberName, i) => {
      const field = pascal(memberName);
      // Members not in the shape are ignored; names match case-sensitively (`executionArn` is not `ExecutionArn`).
      if (!(field in object)) {
        if (this.strict && i < required) throw fail(`Required field '${field}' is missing`);
        return;
      }
      const { schema: member, httpPayload } = memberOf(refs[i]);
      // The HTTP payload (lambda:invoke's Payload, s3 GetObject's Body) is the service's data as JSON, any value.
      if (httpPayload) return;
      this.value(field, member, object[field]);
      const bounds = constraints[memberName];
      if (bounds) checkConstraints(field, bounds, object[field]);
    });
  }
}

/**
 * Checks a mocked Task result against the output shape of the API its `Resource` calls. `STRICT`
 * requires the required members and checks the types (and bounds, enum values and patterns) of the present ones, `PRESENT`
 * only checks present members, `NONE` nothing. Throws `ValidationException` in AWS's words.
 */
export async function checkMockedResult(resource: string, result: unknown, mode: FieldValidationMode): Promise<void> {
  if (mode === 'NONE') return;
  const found = operationOf(resource);
  if (!found) return;
  const service = CLIENTS[found.service];
  const client = await service.load();
  const operation = client[`${found.operation}$`];
  if (!Array.isArray(operation) || operation[0] !== 9) return;
  const output = target(resolve(operation[5]));
  if (!Array.isArray(output) || (output[0] !== 3 && output[0] !== 4)) return;
  new ShapeChecker(constraints().services[service.constraints] ?? {}, mode === 'STRICT').structure(
    'result',
    output,
    result,
  );
}
