import { lambdaFunctionArn, qualifiedArn, splitQualifiedArn, type AwsEnvironment } from './arns';

/** One authorization request AWS makes for a service call: the action, the resource ARN and the context keys it sets. */
export interface IamRequest {
  readonly action: string;
  readonly resource: string;
  /** Request context keys (e.g. `states:StateMachineQualifier`). */
  readonly context?: Readonly<Record<string, string | string[]>>;
}

/** A Task state's service call as Step Functions authorizes it under the state machine's role. */
export interface TaskRequest extends IamRequest {
  /** The state's name (nested states as `Parent/Child`). */
  readonly state: string;
  /** The Task's `Resource`. */
  readonly integration: string;
}

/** A Task whose target is computed at run time (a JSONata or JSONPath expression): it cannot be evaluated offline. */
export interface DynamicTaskTarget {
  readonly state: string;
  readonly integration: string;
  readonly field: string;
}

/** What {@link taskRequestsOf} found. */
export interface DefinitionRequests {
  readonly requests: readonly TaskRequest[];
  readonly dynamic: readonly DynamicTaskTarget[];
}

type State = Record<string, unknown>;

/**
 * Every service call the Task states of a definition make, as AWS authorizes them (the Step Functions
 * service-integration IAM pages): `lambda:invoke` → `lambda:InvokeFunction` on the named (possibly
 * qualified) function; `states:startExecution` → `states:StartExecution` on the **unqualified** state
 * machine ARN with `states:StateMachineQualifier` set to the version or alias (plus, for `.sync`, the
 * execution reads and the managed EventBridge rule); `aws-sdk:<service>:<action>`, `dynamodb:*`,
 * `sqs:sendMessage`, `sns:publish`, `events:putEvents` → the API action on its resource. Walks
 * Parallel branches and Map item processors.
 */
export function taskRequestsOf(definition: Record<string, unknown>): DefinitionRequests {
  const requests: TaskRequest[] = [];
  const dynamic: DynamicTaskTarget[] = [];
  walkStates(definition, '', (name, state) => {
    if (state.Type !== 'Task') return;
    const integration = String(state.Resource);
    const args = ((state.Arguments ?? state.Parameters ?? {}) as Record<string, unknown>) ?? {};
    const field = (key: string): string | undefined => {
      const value = args[key];
      if (typeof value === 'string' && !isExpression(value)) return value;
      if (value !== undefined || `${key}.$` in args) dynamic.push({ state: name, integration, field: key });
      return undefined;
    };
    for (const request of requestsFor(integration, field)) requests.push({ state: name, integration, ...request });
  });
  return { requests, dynamic };
}

/**
 * The requests one Task call makes at run time, as AWS authorizes it: the same rules as
 * {@link taskRequestsOf}, on the call's evaluated arguments, with the short forms the services accept
 * made into the ARNs IAM sees in `env` — a function name or partial ARN (and `Qualifier`) into the
 * qualified function ARN, a table name into the table ARN, a queue URL on any host into the queue ARN.
 */
export function callRequestsOf(integration: string, args: unknown, env: AwsEnvironment): IamRequest[] {
  const a = (args && typeof args === 'object' ? args : {}) as Record<string, unknown>;
  const text = (key: string): string | undefined => (typeof a[key] === 'string' ? (a[key] as string) : undefined);
  const field = (key: string): string | undefined => {
    const value = text(key);
    if (value === undefined) return undefined;
    if (key === 'FunctionName') return functionArnOf(value, text('Qualifier'), env);
    if (key === 'TableName')
      return value.startsWith('arn:')
        ? value
        : `arn:${env.partition}:dynamodb:${env.region}:${env.account}:table/${value}`;
    if (key === 'QueueUrl') return awsQueueUrl(value, env);
    return value;
  };
  return requestsFor(integration, field).map(({ action, resource, context }) => ({
    action,
    resource,
    ...(context ? { context } : {}),
  }));
}

/** `name`, `name:qualifier`, `account:function:name[:qualifier]` or an ARN, with an optional `Qualifier`, as a qualified function ARN. */
function functionArnOf(value: string, qualifierArg: string | undefined, env: AwsEnvironment): string {
  const parts = value.split(':');
  let name: string;
  let qualifier: string | undefined;
  if (parts[0] === 'arn') [name, qualifier] = [parts[6], parts[7]];
  else if (parts[1] === 'function') [name, qualifier] = [parts[2], parts[3]];
  else [name, qualifier] = [parts[0], parts[1]];
  const unqualified = parts[0] === 'arn' ? parts.slice(0, 7).join(':') : lambdaFunctionArn(env, name);
  const q = qualifierArg ?? qualifier;
  return q === undefined ? unqualified : qualifiedArn(unqualified, q);
}

/** A queue URL on any host (a local endpoint too) as the AWS URL of the same queue in `env`'s region. */
function awsQueueUrl(url: string, env: AwsEnvironment): string {
  if (queueArn(url)) return url;
  const m = url.match(/^[a-z]+:\/\/[^/]+\/(\d{12})\/([^/?#]+)$/);
  return m ? `https://sqs.${env.region}.amazonaws.com/${m[1]}/${m[2]}` : url;
}

function isExpression(value: string): boolean {
  return value.startsWith('{%') && value.endsWith('%}');
}

function walkStates(
  definition: Record<string, unknown>,
  prefix: string,
  visit: (name: string, state: State) => void,
): void {
  for (const [name, raw] of Object.entries((definition.States ?? {}) as Record<string, State>)) {
    const path = prefix ? `${prefix}/${name}` : name;
    visit(path, raw);
    for (const branch of (raw.Branches ?? []) as Record<string, unknown>[]) walkStates(branch, path, visit);
    const processor = (raw.ItemProcessor ?? raw.Iterator) as Record<string, unknown> | undefined;
    if (processor) walkStates(processor, path, visit);
  }
}

const STATES_INTEGRATION = /^arn:([^:]+):states:::([^:]+):([A-Za-z]+)(?:\.(sync|waitForTaskToken))?(?::2)?$/;

function requestsFor(
  integration: string,
  field: (key: string) => string | undefined,
): Omit<TaskRequest, 'state' | 'integration'>[] {
  const direct = integration.match(/^arn:[^:]+:lambda:[^:]*:[^:]*:function:/);
  if (direct) return [{ action: 'lambda:InvokeFunction', resource: integration }];
  const sdk = integration.match(/^arn:[^:]+:states:::aws-sdk:([a-z0-9]+):([A-Za-z0-9]+)(?:\.waitForTaskToken)?$/);
  // The resource of an SDK integration depends on the API's parameters: evaluated on '*'.
  if (sdk) return [{ action: `${sdk[1]}:${sdk[2][0].toUpperCase()}${sdk[2].slice(1)}`, resource: '*' }];
  const m = integration.match(STATES_INTEGRATION);
  if (!m) return [];
  const [, partition, service, api, pattern] = m;
  if (service === 'lambda' && api === 'invoke') {
    const fn = field('FunctionName');
    return fn ? [{ action: 'lambda:InvokeFunction', resource: fn }] : [];
  }
  if (service === 'states' && api === 'startExecution') {
    const target = field('StateMachineArn');
    if (!target) return [];
    const { unqualified, qualifier } = splitQualifiedArn(target);
    const start = {
      action: 'states:StartExecution',
      resource: unqualified, // An array-valued key (AWS's service authorization reference): policies test it with ForAnyValue.
      context: qualifier ? { 'states:StateMachineQualifier': [qualifier] } : undefined,
    };
    if (pattern !== 'sync') return [start];
    const [, , , region, account] = unqualified.split(':');
    const executions = `${unqualified.replace(':stateMachine:', ':execution:')}:*`;
    const rule = `arn:${partition}:events:${region}:${account}:rule/StepFunctionsGetEventsForStepFunctionsExecutionRule`;
    return [
      start,
      { action: 'states:DescribeExecution', resource: executions },
      { action: 'states:StopExecution', resource: executions },
      ...['events:PutTargets', 'events:PutRule', 'events:DescribeRule'].map((action) => ({ action, resource: rule })),
    ];
  }
  const action = `${service}:${api[0].toUpperCase()}${api.slice(1)}`;
  const resource =
    service === 'dynamodb'
      ? tableArn(field('TableName'))
      : service === 'sns'
        ? field('TopicArn')
        : service === 'sqs'
          ? queueArn(field('QueueUrl'))
          : '*';
  return resource ? [{ action, resource }] : [];
}

function tableArn(name: string | undefined): string | undefined {
  return name?.startsWith('arn:') ? name : undefined;
}

/** `https://sqs.<region>.amazonaws.com/<account>/<name>` → the queue ARN. */
function queueArn(url: string | undefined): string | undefined {
  const m = url?.match(/^https:\/\/sqs\.([^.]+)\.amazonaws\.com(?:\.cn)?\/(\d+)\/(.+)$/);
  return m ? `arn:aws:sqs:${m[1]}:${m[2]}:${m[3]}` : undefined;
}
