/**
 * fast-check arbitraries of hostile HTTP requests to the local engine's port: every Step Functions and
 * SQS operation (and names that are not operations), the SQS query protocol, raw `POST /` bodies, the
 * console's pages and forms, the approval routes and the clock routes.
 *
 * What they never generate, so that the runs in flight keep a defined outcome: a valid clock advance, a
 * mutating call on the real runs or the dead-letter queue, a correctly signed approval link, and
 * ReceiveMessage long polls (`WaitTimeSeconds` 1–20) that would only make the tier slow.
 */
import fc from 'fast-check';

/** Which answer shape a request must get. */
export type Surface = 'sfn' | 'sqs-json' | 'sqs-query' | 'raw-api' | 'console' | 'approval' | 'clock';

/** One generated request. */
export interface HostileRequest {
  readonly surface: Surface;
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Real resources the requests aim at (with read-only ones the fuzz may look at but never change). */
export interface FuzzTargets {
  readonly stateMachineArns: readonly string[];
  readonly executionArns: readonly string[];
  readonly readOnlyExecutionArns: readonly string[];
  readonly queueUrls: readonly string[];
  readonly readOnlyQueueUrls: readonly string[];
  readonly approvalIds: readonly string[];
  /** The real signatures, only ever sent mutated. */
  readonly approvalSignatures: readonly string[];
  /** `127.0.0.1:<port>` */
  readonly host: string;
}

/** Every operation the engine serves (Step Functions API). */
export const STEP_FUNCTIONS_OPERATIONS = [
  'CreateStateMachine',
  'UpdateStateMachine',
  'DescribeStateMachine',
  'ListStateMachines',
  'ValidateStateMachineDefinition',
  'DeleteStateMachine',
  'PublishStateMachineVersion',
  'ListStateMachineVersions',
  'DeleteStateMachineVersion',
  'CreateStateMachineAlias',
  'UpdateStateMachineAlias',
  'DescribeStateMachineAlias',
  'ListStateMachineAliases',
  'DeleteStateMachineAlias',
  'StartExecution',
  'DescribeExecution',
  'DescribeStateMachineForExecution',
  'ListExecutions',
  'GetExecutionHistory',
  'StopExecution',
  'RedriveExecution',
  'SendTaskSuccess',
  'SendTaskFailure',
  'SendTaskHeartbeat',
  // Not GetActivityTask: a long poll that finds no task would hold each request for 60 s.
  'CreateActivity',
  'DescribeActivity',
  'ListActivities',
  'DeleteActivity',
] as const;
/** Operations that change nothing: the only ones aimed at the real runs. */
const READ_OPERATIONS = new Set([
  'DescribeExecution',
  'DescribeStateMachineForExecution',
  'GetExecutionHistory',
  'ListExecutions',
]);

/** Every operation the local SQS serves. */
export const SQS_OPERATIONS = [
  'CreateQueue',
  'GetQueueUrl',
  'ListQueues',
  'DeleteQueue',
  'GetQueueAttributes',
  'SetQueueAttributes',
  'SendMessage',
  'SendMessageBatch',
  'ReceiveMessage',
  'DeleteMessage',
  'DeleteMessageBatch',
  'ChangeMessageVisibility',
  'PurgeQueue',
] as const;
const SQS_READ_OPERATIONS = new Set(['GetQueueUrl', 'ListQueues', 'GetQueueAttributes']);

/** Names that are no operation, the prototype chain's first. */
const NOT_OPERATIONS = [
  'constructor',
  'toString',
  '__proto__',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__defineGetter__',
  '',
  'createStateMachine',
  'StartExecution ',
  'Start%Execution',
];

const SFN_FIELDS = [
  'name',
  'definition',
  'roleArn',
  'type',
  'stateMachineArn',
  'executionArn',
  'input',
  'output',
  'taskToken',
  'error',
  'cause',
  'maxResults',
  'nextToken',
  'statusFilter',
  'reverseOrder',
  'includeExecutionData',
  'publish',
  'versionDescription',
  'description',
  'routingConfiguration',
  'stateMachineAliasArn',
  'stateMachineVersionArn',
  'loggingConfiguration',
  'tracingConfiguration',
  'tags',
  'clientToken',
  'redriveFilter',
  'mapRunArn',
  'revisionId',
  'includedData',
  'traceHeader',
  'activityArn',
  'encryptionConfiguration',
  '__proto__',
  'constructor',
];
const SQS_FIELDS = [
  'QueueName',
  'QueueUrl',
  'Attributes',
  'AttributeNames',
  'MessageAttributeNames',
  'MessageSystemAttributeNames',
  'MessageBody',
  'MessageAttributes',
  'MessageSystemAttributes',
  'DelaySeconds',
  'Entries',
  'ReceiptHandle',
  'VisibilityTimeout',
  'MaxNumberOfMessages',
  'WaitTimeSeconds',
  'MaxResults',
  'NextToken',
  'QueueNamePrefix',
  'ReceiveRequestAttemptId',
  'MessageGroupId',
  '__proto__',
];

const LONE_SURROGATES = ['\ud800', '\udbff', '\udc00', '\udfff'];
/** Characters that have broken parsers, URLs, SQL and HTML before. */
const SPECIAL_UNITS = [
  ...LONE_SURROGATES,
  '\u0000',
  '\u0085',
  '\u00a0',
  '\u2028',
  '\ufeff',
  '\ufffe',
  '\uffff',
  '%',
  '\\',
  '"',
  "'",
  '<',
  '&',
  ':',
  '/',
  '?',
  '#',
  '\n',
  ' ',
  '😀',
];

const hostileUnit = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.constantFrom(...SPECIAL_UNITS) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
);

/** Short strings full of the characters that break things. */
export const hostileString = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: hostileUnit, maxLength: 24 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      'a'.repeat(81),
      'a'.repeat(80),
      'constructor',
      '__proto__',
      'null',
      '{}',
      '[]',
      '1e300',
      'NaN',
      '-0',
    ),
  },
  {
    weight: 1,
    arbitrary: fc
      .oneof(
        { weight: 20, arbitrary: fc.integer({ min: 1, max: 2_000 }) },
        { weight: 1, arbitrary: fc.integer({ min: 2_000, max: 20_000 }) },
      )
      .map((n) => 'x'.repeat(n)),
  },
);

const nested = (depth: number, open = '[', close = ']') => `${open.repeat(depth)}${close.repeat(depth)}`;
const nestedObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

/** JSON texts (for `input`, `output`, `definition`): valid, invalid, too deep, too large. */
// Weighted so that the tier stays fast: the texts over the payload and definition limits are rare (their
// refusals are specified one by one in the unit tests; here they only have to mix with the rest).
const jsonText = (targets: FuzzTargets) =>
  fc.oneof(
    { weight: 40, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
    {
      weight: 10,
      arbitrary: fc.constantFrom(
        '{',
        '{"a":}',
        '\ud800',
        '"\\ud800"',
        '{"a":"\\ud800"}',
        'null',
        '[]',
        '1e999',
        '{"__proto__":{"x":1}}',
        '{"constructor":{"prototype":{}}}',
      ),
    },
    { weight: 8, arbitrary: fc.integer({ min: 900, max: 6000 }).map((d) => (d % 2 ? nested(d) : nestedObject(d))) },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 255 * 1024, max: 1100 * 1024 }).map((n) => JSON.stringify({ pad: 'x'.repeat(n) })),
    },
    { weight: 20, arbitrary: definitionText(targets) },
  );

/**
 * Valid definitions with hostile state names. A fixed few: the schema check (asl-validator) costs ≈0.4 s
 * per new valid text on this machine and remembers the valid ones, so the tier repeats these.
 */
const VALID_DEFINITIONS = [
  '\ud800',
  '__proto__',
  'constructor',
  '😀'.repeat(80),
  '<script>',
  'a%2Fb',
  ' ',
  'toString',
].map((name) => JSON.stringify({ StartAt: name, States: { [name]: { Type: 'Pass', Result: { name }, End: true } } }));

/** State machine definitions: plausible ones with hostile parts, broken in some way more often than not. */
const definitionText = (_targets: FuzzTargets) =>
  fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom(...VALID_DEFINITIONS) },
    {
      weight: 6,
      arbitrary: fc
        .record({
          language: fc.constantFrom(undefined, 'JSONata', 'JSONPath', 'jsonata', 1),
          stateName: hostileString,
          startAt: fc.option(hostileString, { freq: 2 }),
          type: fc.constantFrom(
            'Pass',
            'Wait',
            'Succeed',
            'Fail',
            'Choice',
            'Map',
            'Parallel',
            'Task',
            'Bogus',
            undefined,
          ),
          extra: fc.dictionary(
            fc.constantFrom(
              'Result',
              'Seconds',
              'Output',
              'Arguments',
              'Next',
              'End',
              'Resource',
              'ItemProcessor',
              'Branches',
              'Choices',
              'Parameters',
              'InputPath',
              'Comment',
            ),
            fc.jsonValue({ maxDepth: 2 }),
            { minKeys: 1 },
          ),
          deepResult: fc.option(fc.integer({ min: 900, max: 5000 })),
        })
        .map(({ language, stateName, startAt, type, extra, deepResult }) => {
          const state = JSON.stringify({ Type: type, ...extra }).slice(0, -1);
          const result = deepResult ? `,"Result":${nested(deepResult)}` : '';
          const head = language === undefined ? '' : `"QueryLanguage":${JSON.stringify(language)},`;
          return `{${head}"StartAt":${JSON.stringify(startAt ?? stateName)},"States":{${JSON.stringify(stateName)}:${state}${result}}}}`;
        }),
    },
  );

const arnLike = fc.oneof(
  fc
    .tuple(
      fc.constantFrom('stateMachine', 'execution', 'express', 'mapRun', 'activity', 'function'),
      hostileString,
      fc.option(hostileString),
    )
    .map(
      ([kind, name, qualifier]) =>
        `arn:aws:states:us-east-1:123456789012:${kind}:${name}${qualifier === null ? '' : `:${qualifier}`}`,
    ),
  fc.constantFrom(
    'arn:aws:states:eu-west-1:000000000000:stateMachine:x',
    'arn:aws:states:::',
    'arn:',
    'arn:aws:states:us-east-1:123456789012:stateMachine:',
    'arn:aws:states:us-east-1:123456789012:stateMachine:a:0',
    'arn:aws:states:us-east-1:123456789012:stateMachine:a:-1',
    'arn:aws:states:us-east-1:123456789012:stateMachine:a:1e300',
  ),
);

const pageToken = fc.oneof(
  hostileString,
  fc.jsonValue({ maxDepth: 2 }).map((v) => Buffer.from(JSON.stringify(v)).toString('base64url')),
  fc
    .oneof(fc.double(), fc.integer(), fc.constant(1e300))
    .map((o) => Buffer.from(JSON.stringify({ o })).toString('base64url')),
);

/** A value of any JSON type, biased to the hostile ones. */
const anyValue = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  { weight: 2, arbitrary: fc.oneof(fc.integer(), fc.double(), fc.constantFrom(1e300, -1, 0, 2 ** 53, -0, 1000, 1001)) },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

/** A value for a Step Functions field, aimed at the field's meaning half the time. */
function sfnValue(targets: FuzzTargets, op: string, field: string): fc.Arbitrary<unknown> {
  const arns = READ_OPERATIONS.has(op)
    ? [...targets.stateMachineArns, ...targets.executionArns, ...targets.readOnlyExecutionArns]
    : [...targets.stateMachineArns, ...targets.executionArns];
  const meant: Record<string, fc.Arbitrary<unknown>> = {
    name: hostileString,
    definition: fc.oneof(definitionText(targets), jsonText(targets)),
    input: jsonText(targets),
    output: jsonText(targets),
    stateMachineArn: fc.oneof(fc.constantFrom(...arns), arnLike),
    executionArn: fc.oneof(fc.constantFrom(...arns), arnLike),
    activityArn: arnLike,
    stateMachineAliasArn: fc.oneof(fc.constantFrom(...targets.stateMachineArns), arnLike),
    stateMachineVersionArn: fc.oneof(fc.constantFrom(...targets.stateMachineArns), arnLike),
    nextToken: pageToken,
    maxResults: fc.oneof(fc.integer({ min: -5, max: 1005 }), fc.constantFrom(1e300, 0.5, '10')),
    taskToken: fc.oneof(hostileString, fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 3000 })),
    routingConfiguration: fc.array(
      fc.record(
        {
          stateMachineVersionArn: fc.oneof(fc.constantFrom(...targets.stateMachineArns), arnLike, anyValue),
          weight: anyValue,
        },
        { requiredKeys: [] },
      ),
      { maxLength: 3 },
    ),
  };
  return fc.oneof(Object.hasOwn(meant, field) ? meant[field] : anyValue, anyValue);
}

function sqsValue(targets: FuzzTargets, op: string, field: string): fc.Arbitrary<unknown> {
  const urls = SQS_READ_OPERATIONS.has(op) ? [...targets.queueUrls, ...targets.readOnlyQueueUrls] : targets.queueUrls;
  const meant: Record<string, fc.Arbitrary<unknown>> = {
    QueueUrl: fc.oneof(
      fc.constantFrom(...urls),
      hostileString,
      fc.constantFrom('http://127.0.0.1/123456789012/', 'http://x/123456789012/nope', '/'),
    ),
    QueueName: fc.oneof(fc.constantFrom('fuzz-queue', 'fuzz-other'), hostileString),
    // Never a long poll: 1-20 would only make the tier slow.
    WaitTimeSeconds: fc.constantFrom(0, -1, 21, 1e300, '5', null, 0.5),
    Entries: fc.oneof(
      fc.array(
        fc.dictionary(
          fc.constantFrom('Id', 'MessageBody', 'ReceiptHandle', 'DelaySeconds', 'VisibilityTimeout'),
          anyValue,
        ),
        { maxLength: 12 },
      ),
      anyValue,
    ),
    Attributes: fc.oneof(
      fc.dictionary(
        fc.constantFrom(
          'VisibilityTimeout',
          'DelaySeconds',
          'RedrivePolicy',
          'Policy',
          'MaximumMessageSize',
          'Bogus',
          '__proto__',
        ),
        anyValue,
      ),
      anyValue,
    ),
    AttributeNames: fc.oneof(
      fc.array(fc.constantFrom('All', 'QueueArn', 'ApproximateNumberOfMessages', 'Bogus', 'constructor'), {
        maxLength: 4,
      }),
      anyValue,
    ),
    MessageAttributes: fc.oneof(
      fc.dictionary(
        hostileString,
        fc.oneof(
          fc.record(
            {
              DataType: fc.constantFrom('String', 'Number', 'Binary', 'Bogus', 'String.x'),
              StringValue: anyValue,
              BinaryValue: anyValue,
            },
            { requiredKeys: [] },
          ),
          anyValue,
        ),
        { maxKeys: 3 },
      ),
      anyValue,
    ),
    ReceiptHandle: fc.oneof(hostileString, fc.constant(`1.${'A'.repeat(32)}`)),
  };
  return fc.oneof(Object.hasOwn(meant, field) ? meant[field] : anyValue, anyValue);
}

const body = <T>(fields: readonly string[], value: (field: string) => fc.Arbitrary<T>) =>
  fc
    .uniqueArray(fc.constantFrom(...fields), { maxLength: 6 })
    .chain((keys) =>
      keys.length === 0
        ? fc.constant({})
        : fc
            .tuple(...keys.map((k) => value(k)))
            .map((values) => Object.fromEntries(keys.map((k, i) => [k, values[i]]))),
    );

/** A body that is not what the protocol wants: not JSON, not an object, nested past any limit. */
const rawBody = fc.oneof(
  fc.constantFrom(
    '',
    '{',
    'null',
    '[]',
    '"x"',
    '1',
    '{"a":1}{',
    '\ud800',
    '{"__proto__":null}',
    `${'['.repeat(20_000)}`,
  ),
  fc.integer({ min: 1000, max: 20_000 }).map((d) => `{"input":${nested(d)}}`),
  hostileString,
);

const jsonHeaders = (target: string) => ({ 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': target });

function sfnRequest(targets: FuzzTargets): fc.Arbitrary<HostileRequest> {
  return fc
    .oneof(
      {
        weight: 8,
        arbitrary: fc
          .constantFrom(...STEP_FUNCTIONS_OPERATIONS)
          .chain((op) => body(SFN_FIELDS, (f) => sfnValue(targets, op, f)).map((b) => ({ op, b }))),
      },
      {
        weight: 1,
        arbitrary: fc
          .constantFrom(...NOT_OPERATIONS)
          .chain((op) => body(SFN_FIELDS, (f) => sfnValue(targets, 'StartExecution', f)).map((b) => ({ op, b }))),
      },
    )
    .map(({ op, b }) => ({
      surface: 'sfn' as const,
      method: 'POST',
      path: '/',
      headers: jsonHeaders(`AWSStepFunctions.${op}`),
      body: JSON.stringify(b),
    }));
}

function sqsJsonRequest(targets: FuzzTargets): fc.Arbitrary<HostileRequest> {
  return fc
    .oneof(
      { weight: 8, arbitrary: fc.constantFrom<string>(...SQS_OPERATIONS) },
      { weight: 1, arbitrary: fc.constantFrom(...NOT_OPERATIONS, 'ListDeadLetterSourceQueues', 'TagQueue') },
    )
    .chain((op) => body(SQS_FIELDS, (f) => sqsValue(targets, op, f)).map((b) => ({ op, b })))
    .map(({ op, b }) => ({
      surface: 'sqs-json' as const,
      method: 'POST',
      path: '/',
      headers: jsonHeaders(`AmazonSQS.${op}`),
      body: JSON.stringify(b),
    }));
}

/** The query protocol's flattening of a JSON-protocol input (`Attribute.1.Name=...`), with garbage mixed in. */
function sqsQueryRequest(targets: FuzzTargets): fc.Arbitrary<HostileRequest> {
  const param = fc.tuple(
    fc.oneof(
      fc.constantFrom(
        ...SQS_FIELDS,
        'Attribute.1.Name',
        'Attribute.1.Value',
        'AttributeName.1',
        'MessageAttribute.1.Name',
        'MessageAttribute.1.Value.DataType',
        'MessageAttribute.1.Value.StringValue',
        'SendMessageBatchRequestEntry.1.Id',
        'SendMessageBatchRequestEntry.1.MessageBody',
        'DeleteMessageBatchRequestEntry.1.ReceiptHandle',
        'Version',
        'Action',
      ),
      hostileString,
    ),
    fc.oneof(hostileString, fc.constantFrom(...targets.queueUrls, '0', '-1', '21', 'fuzz-queue', 'All')),
  );
  return fc
    .tuple(
      fc.oneof(
        { weight: 8, arbitrary: fc.constantFrom<string>(...SQS_OPERATIONS) },
        { weight: 1, arbitrary: fc.constantFrom(...NOT_OPERATIONS) },
      ),
      fc.array(param, { maxLength: 8 }),
      fc.constantFrom('/', `/123456789012/fuzz-queue`, '/123456789012/autosave-dlq'),
    )
    .map(([action, params, path]) => {
      const form = new URLSearchParams();
      form.set('Action', action);
      form.set('Version', '2012-11-05');
      // A real run's dead-letter queue is only ever read.
      for (const [k, v] of params)
        if (k !== 'Action' && !(k === 'WaitTimeSeconds' && /^\s*(1\d?|20|[2-9])\s*$/.test(v)))
          form.append(k, v.replace(/autosave-dlq/g, 'x'));
      const safePath = SQS_READ_OPERATIONS.has(action) ? path : path.replace('autosave-dlq', 'fuzz-queue');
      return {
        surface: 'sqs-query' as const,
        method: 'POST',
        path: safePath,
        headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
        body: form.toString(),
      };
    });
}

function rawApiRequest(): fc.Arbitrary<HostileRequest> {
  const target = fc.oneof(
    fc.constantFrom(
      'AWSStepFunctions',
      'AmazonSQS',
      'AWSStepFunctions.',
      '.StartExecution',
      'AWSStepFunctions..x',
      'X.Y',
      '__proto__.constructor',
      'constructor.StartExecution',
      'AmazonSQS.__proto__',
    ),
    // Printable and short: a header over Node's 16 KB limit is refused by the HTTP parser, before any code of ours.
    hostileString.filter((s) => s.length < 200 && /^[\x21-\x7e]*$/.test(s)),
  );
  return fc.oneof(
    fc
      .tuple(target, rawBody)
      .map(([t, b]) => ({ surface: 'raw-api' as const, method: 'POST', path: '/', headers: jsonHeaders(t), body: b })),
    fc
      .tuple(
        fc.constantFrom(
          'AWSStepFunctions.StartExecution',
          'AmazonSQS.SendMessage',
          'AWSStepFunctions.ListStateMachines',
        ),
        rawBody,
      )
      .map(([t, b]) => ({
        surface: 'raw-api' as const,
        method: 'POST',
        path: '/',
        headers: jsonHeaders(t),
        body: b,
      })),
    // No X-Amz-Target at all: a JSON error, never the console's HTML.
    fc
      .tuple(rawBody, fc.constantFrom('application/x-amz-json-1.0', 'application/json', 'text/plain'))
      .map(([b, ct]) => ({
        surface: 'raw-api' as const,
        method: 'POST',
        path: '/',
        headers: { 'content-type': ct },
        body: b,
      })),
  );
}

/** Path segments that break decoders: bad escapes, encoded lone surrogates, encoded slashes, traversal. */
const pathSegment = fc.oneof(
  fc.constantFrom(
    '%',
    '%ZZ',
    '%E0%A4%A',
    '%ED%A0%80',
    '%C0%AF',
    '%2F',
    '..',
    '%00',
    '%25',
    'arn%3Aaws%3Astates',
    '%F0%9F%98%80',
    '%uD800',
  ),
  hostileString.map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, 'x'))),
);

function consoleRequest(targets: FuzzTargets): fc.Arbitrary<HostileRequest> {
  const runArn = fc
    .constantFrom(...targets.readOnlyExecutionArns, ...targets.executionArns)
    .map((a) => encodeURIComponent(a));
  const query = fc
    .array(fc.tuple(fc.constantFrom('status', 'workflow', 'notice', 'since', 'q', 'limit', 'page', 'x'), pathSegment), {
      maxLength: 3,
    })
    .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`));
  const get = fc
    .tuple(
      fc.constantFrom('GET', 'GET', 'GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'PATCH'),
      fc.oneof(
        fc.constantFrom('/', '/runs', '/approvals', '/dlq', '/outbox', '/static/x.css', '/favicon.ico', '/runs/'),
        fc.oneof(runArn, pathSegment).map((s) => `/runs/${s}`),
        pathSegment.map((s) => `/${s}`),
      ),
      query,
    )
    .map(([method, path, q]) => ({ surface: 'console' as const, method, path: `${path}${q}`, headers: {}, body: '' }));
  const origin = fc.constantFrom<string | undefined>(
    undefined,
    'garbage',
    'null',
    '%',
    'http://',
    'http://evil.example',
    `http://${targets.host}`,
    'http://[::1',
    'file://',
  );
  const site = fc.constantFrom<string | undefined>(undefined, 'same-origin', 'cross-site', 'none', 'same-site', '');
  const form = fc.oneof(
    fc.constantFrom('', 'messageId=nope', 'messageId=%', 'messageId=%ED%A0%80', 'all=0', '%%%'),
    fc
      .oneof(fc.integer({ min: 10_000, max: 20_000 }), fc.constant(100 * 1024))
      .map((n) => `messageId=${'x'.repeat(n)}`),
  );
  const redrive = fc
    .tuple(origin, site, form, fc.constantFrom('/dlq/redrive', '/dlq/redrive/', '/dlq'))
    .map(([o, s, f, path]) => ({
      surface: 'console' as const,
      method: 'POST',
      path,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(o === undefined ? {} : { origin: o }),
        ...(s === undefined ? {} : { 'sec-fetch-site': s }),
      },
      body: f,
    }));
  return fc.oneof({ weight: 3, arbitrary: get }, { weight: 1, arbitrary: redrive });
}

/** A signature that is not the real one: the real one with one character changed, or garbage. */
function forgedSignature(targets: FuzzTargets): fc.Arbitrary<string> {
  const mutated = fc
    .tuple(fc.constantFrom(...targets.approvalSignatures), fc.nat(), fc.constantFrom('A', 'B', '_', '-', '0'))
    .map(([sig, at, c]) => {
      const i = sig.length === 0 ? 0 : at % sig.length;
      const replacement = sig[i] === c ? (c === 'A' ? 'B' : 'A') : c;
      return `${sig.slice(0, i)}${replacement}${sig.slice(i + 1)}`;
    });
  return fc.oneof(
    mutated,
    hostileString.map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, 'x'))),
    pathSegment,
  );
}

function approvalRequest(targets: FuzzTargets): fc.Arbitrary<HostileRequest> {
  const id = fc.oneof(
    fc.constantFrom(...targets.approvalIds),
    pathSegment,
    fc.constantFrom('', 'x'.repeat(65), '-K', '__proto__', 'constructor'),
  );
  const decisionForm = fc.record(
    {
      decision: fc.constantFrom('approve', 'reject', 'maybe', '', '__proto__'),
      by: hostileString,
      comment: fc.oneof(
        { weight: 10, arbitrary: hostileString },
        { weight: 1, arbitrary: fc.integer({ min: 1000, max: 200_000 }).map((n) => 'c'.repeat(n)) },
      ),
    },
    { requiredKeys: [] },
  );
  return fc
    .tuple(
      fc.constantFrom('GET', 'POST', 'POST', 'HEAD', 'PUT', 'DELETE'),
      id,
      fc.option(forgedSignature(targets)),
      fc.option(fc.constantFrom('exp=0', 'exp=1e300', 'exp=-1', 'exp=%', 'exp=00001')),
      decisionForm,
      fc.constantFrom(
        'application/x-www-form-urlencoded',
        'application/json',
        'text/plain',
        'multipart/form-data; boundary=x',
      ),
    )
    .map(([method, approvalId, sig, extra, form, contentType]) => {
      const query = [sig === null ? undefined : `sig=${sig}`, extra ?? undefined].filter(Boolean).join('&');
      const text =
        contentType === 'application/json'
          ? JSON.stringify(form)
          : new URLSearchParams(
              Object.entries(form).map(([k, v]): [string, string] => [k, String(v).replace(/[\ud800-\udfff]/g, 'x')]),
            ).toString();
      return {
        surface: 'approval' as const,
        method,
        path: `/approvals/${approvalId}${query ? `?${query}` : ''}`,
        headers: { 'content-type': contentType },
        body: method === 'POST' || method === 'PUT' ? text : '',
      };
    });
}

function clockRequest(): fc.Arbitrary<HostileRequest> {
  // Never a valid advance: the runs in flight must not time out.
  const invalid = fc.constantFrom(
    '',
    '{',
    '{"seconds":-1}',
    '{"seconds":"5"}',
    '{"seconds":1e300}',
    '{"seconds":null}',
    '[]',
    '{"seconds":1e400}',
    '{"seconds":9007199254740993}',
  );
  return fc.oneof(
    fc.constant({ surface: 'clock' as const, method: 'GET', path: '/_autosave/clock', headers: {}, body: '' }),
    invalid.map((b) => ({
      surface: 'clock' as const,
      method: 'POST',
      path: '/_autosave/clock/advance',
      headers: { 'content-type': 'application/json' },
      body: b,
    })),
    fc
      .constantFrom('PUT', 'DELETE')
      .map((m) => ({ surface: 'clock' as const, method: m, path: '/_autosave/clock/x', headers: {}, body: '' })),
  );
}

/** One hostile request to any surface of the port, weighted toward the two APIs. */
export function hostileRequests(targets: FuzzTargets): fc.Arbitrary<HostileRequest> {
  return fc.oneof(
    { weight: 8, arbitrary: sfnRequest(targets) },
    { weight: 4, arbitrary: sqsJsonRequest(targets) },
    { weight: 3, arbitrary: sqsQueryRequest(targets) },
    { weight: 2, arbitrary: rawApiRequest() },
    { weight: 3, arbitrary: consoleRequest(targets) },
    { weight: 2, arbitrary: approvalRequest(targets) },
    { weight: 1, arbitrary: clockRequest() },
  );
}
