import {
  CreateTableCommand,
  DeleteTableCommand,
  ResourceInUseException,
  ResourceNotFoundException,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import { substitute, type FileAsset, type TemplateResolver } from '../cloud-assembly';
import type { StackResourceRow, StackStore } from '@autosave/engine/store';
import type { AppliedAttributes, LocalResolutionContext } from './local-resolution-context';
import { generateSecretString, type GenerateSecretStringOptions, type LocalSecrets } from './local-secrets';
import { ENGINE_URL_TOKEN, type StackFunctionConfig, type StackFunctions } from './stack-functions';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- CloudFormation properties of every resource type, read by name
type Props = Record<string, any>;

/** The Step Functions API of the engine (its `handle`). */
export interface StepFunctionsApi {
  handle(operation: string, input: object): Promise<object>;
}

/** The local SQS (its AWS JSON `handle`, URLs and ARNs). */
export interface LocalQueues {
  handle(operation: string, input: Record<string, unknown>): Promise<unknown> | unknown;
  queueUrl(name: string): string;
  queueArn(name: string): string;
}

/** A local service's API as the engine's Tasks call it (the local SNS and EventBridge). */
export interface LocalServiceApi {
  call(action: string, input: Record<string, unknown>): Promise<Record<string, unknown>>;
}

/** Everything the stack is applied to: the one engine and the one set of local services. */
export interface StackTarget {
  readonly sfn: StepFunctionsApi;
  readonly functions: StackFunctions;
  readonly store: StackStore;
  readonly dynamodb: DynamoDBClient;
  readonly s3: S3Client;
  readonly sqs: LocalQueues;
  readonly sns: LocalServiceApi;
  readonly eventbridge: LocalServiceApi;
  readonly secrets: LocalSecrets;
  readonly region: string;
  readonly account: string;
  /** The engine's URL now (replaces {@link ENGINE_URL_TOKEN} in definitions). */
  readonly engineUrl: () => string;
  /** Engine time (rollouts). */
  readonly nowMillis: () => number;
}

/** What a handler is given for one resource. */
export interface ApplyRequest {
  readonly logicalId: string;
  readonly type: string;
  readonly stackName: string;
  readonly assemblyId: string;
  readonly props: Props;
  readonly resolver: TemplateResolver;
  readonly context: LocalResolutionContext;
  /** The resource as the last deployment left it (an update), or undefined (a create or a replacement). */
  readonly previous?: StackResourceRow;
  readonly target: StackTarget;
  /** The file asset a resource's code comes from. */
  readonly assetOf: (logicalId: string) => FileAsset | undefined;
}

/** What applying a resource produced. */
export interface Applied {
  readonly physicalId: string;
  readonly attributes: AppliedAttributes;
}

/** How the stack mode creates, updates and deletes one resource type. */
export interface ResourceHandler {
  /** Properties whose change makes CloudFormation replace the resource (`*`: any property). */
  readonly replaceOn: readonly string[] | '*';
  /** Creates (no `previous`) or updates the resource; must be idempotent: a rerun after a crash calls it again. */
  apply(request: ApplyRequest): Promise<Applied>;
  /** Deletes the physical resource (no Retain policy kept it). @default nothing to delete */
  remove?(row: StackResourceRow, target: StackTarget): Promise<void>;
}

/** A resource type the engine does not emulate was needed by something that runs (a state machine's definition). */
export class StackResourceNotEmulatedError extends Error {
  override readonly name = 'StackResourceNotEmulatedError';
}

/** A property value the stack mode cannot apply. */
export class StackResourceInvalidError extends Error {
  override readonly name = 'StackResourceInvalidError';
}

const str = (value: unknown, what: string): string => {
  if (typeof value !== 'string' || value === '') throw new StackResourceInvalidError(`${what} must be a string`);
  return value;
};

const attrs = (ref: string, more: Record<string, string> = {}): AppliedAttributes => ({ Ref: ref, ...more });

const arn = (
  t: StackTarget,
  service: string,
  resource: string,
  scope: { region?: boolean; account?: boolean } = {},
): string =>
  `arn:aws:${service}:${scope.region === false ? '' : t.region}:${scope.account === false ? '' : t.account}:${resource}`;

/** A function's config from its template properties. */
function functionConfig(props: Props): StackFunctionConfig {
  const variables = (props.Environment?.Variables ?? {}) as Record<string, unknown>;
  const environment: Record<string, string> = {};
  for (const [k, v] of Object.entries(variables)) environment[k] = typeof v === 'string' ? v : JSON.stringify(v);
  return {
    handler: str(props.Handler, 'Handler'),
    runtime: str(props.Runtime, 'Runtime'),
    timeoutSeconds: Number(props.Timeout ?? 3),
    memoryMb: Number(props.MemorySize ?? 128),
    environment,
    ...(typeof props.Role === 'string' ? { roleArn: props.Role } : {}),
    ...(typeof props.Description === 'string' ? { description: props.Description } : {}),
  };
}

/** Applies an alias's routing, or the first step of its rollout (`DeploymentPreference`). */
export function aliasRouting(
  props: Props,
  previousRoutes: readonly { stateMachineVersionArn: string; weight: number }[] | undefined,
  elapsedMillis = 0,
): {
  routes: { stateMachineVersionArn: string; weight: number }[];
  rollout?: RolloutState;
} {
  if (Array.isArray(props.RoutingConfiguration)) {
    return {
      routes: props.RoutingConfiguration.map((r: Props) => ({
        stateMachineVersionArn: str(r.StateMachineVersionArn, 'StateMachineVersionArn'),
        weight: Number(r.Weight),
      })),
    };
  }
  const pref = props.DeploymentPreference as Props | undefined;
  if (!pref)
    throw new StackResourceInvalidError('A StateMachineAlias needs RoutingConfiguration or DeploymentPreference');
  const to = str(pref.StateMachineVersionArn, 'DeploymentPreference.StateMachineVersionArn');
  // The version the alias routed to before (the heaviest route): a rollout moves from it.
  const from = previousRoutes?.length
    ? [...previousRoutes].sort((a, b) => b.weight - a.weight)[0].stateMachineVersionArn
    : undefined;
  if (!from || from === to || pref.Type === 'ALL_AT_ONCE')
    return { routes: [{ stateMachineVersionArn: to, weight: 100 }] };
  const rollout: RolloutState = {
    from,
    to,
    type: pref.Type,
    percentage: Number(pref.Percentage),
    intervalMinutes: Number(pref.Interval),
    startedMillis: 0,
  };
  return { routes: rolloutRoutes(rollout, elapsedMillis), rollout };
}

/** A canary or linear shift of an alias from one version to another, as CloudFormation runs it. */
export interface RolloutState {
  readonly from: string;
  readonly to: string;
  readonly type: 'CANARY' | 'LINEAR';
  readonly percentage: number;
  readonly intervalMinutes: number;
  readonly startedMillis: number;
}

/** The alias routing `elapsedMillis` into a rollout: CANARY sends `percentage` until one interval passed, then all; LINEAR adds `percentage` per interval. */
export function rolloutRoutes(
  r: RolloutState,
  elapsedMillis: number,
): { stateMachineVersionArn: string; weight: number }[] {
  const intervals = Math.floor(elapsedMillis / (r.intervalMinutes * 60_000));
  const weight =
    r.type === 'CANARY' ? (intervals >= 1 ? 100 : r.percentage) : Math.min(100, r.percentage * (intervals + 1));
  return weight >= 100
    ? [{ stateMachineVersionArn: r.to, weight: 100 }]
    : [
        { stateMachineVersionArn: r.to, weight },
        { stateMachineVersionArn: r.from, weight: 100 - weight },
      ];
}

/** The resources a value references (`Ref`, `Fn::GetAtt`, `${...}` in `Fn::Sub`). */
export function referencedLogicalIds(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) referencedLogicalIds(v, out);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === 'Ref' && typeof v === 'string' && !v.startsWith('AWS::')) out.add(v);
      else if (k === 'Fn::GetAtt') out.add(Array.isArray(v) ? String(v[0]) : String(v).split('.')[0]);
      else if (k === 'Fn::Sub') {
        const text = Array.isArray(v) ? v[0] : v;
        if (typeof text === 'string')
          for (const m of text.matchAll(/\$\{([^!{}][^{}]*)\}/g))
            if (!m[1].startsWith('AWS::')) out.add(m[1].split('.')[0]);
        if (Array.isArray(v)) referencedLogicalIds(v[1], out);
      } else referencedLogicalIds(v, out);
    }
  }
  return out;
}

const table: ResourceHandler = {
  replaceOn: ['TableName', 'KeySchema'],
  async apply({ logicalId, props, resolver, context, target }) {
    const name = context.physicalName(logicalId, resolver);
    try {
      await target.dynamodb.send(
        new CreateTableCommand({
          TableName: name,
          KeySchema: props.KeySchema,
          AttributeDefinitions: props.AttributeDefinitions,
          BillingMode: 'PAY_PER_REQUEST',
          ...(props.GlobalSecondaryIndexes
            ? {
                GlobalSecondaryIndexes: props.GlobalSecondaryIndexes.map(
                  ({ ProvisionedThroughput: _provisioned, ...gsi }: Props) => gsi,
                ),
              }
            : {}),
        }),
      );
    } catch (err) {
      if (!(err instanceof ResourceInUseException)) throw err;
    }
    return { physicalId: name, attributes: attrs(name, { Arn: arn(target, 'dynamodb', `table/${name}`) }) };
  },
  async remove(row, target) {
    try {
      await target.dynamodb.send(new DeleteTableCommand({ TableName: row.physical_id }));
    } catch (err) {
      if (!(err instanceof ResourceNotFoundException)) throw err;
    }
  },
};

const bucket: ResourceHandler = {
  replaceOn: ['BucketName'],
  async apply({ logicalId, resolver, context, target }) {
    const name = context.physicalName(logicalId, resolver);
    try {
      await target.s3.send(new CreateBucketCommand({ Bucket: name }));
    } catch (err) {
      if (!/BucketAlreadyOwnedByYou|BucketAlreadyExists/.test((err as Error).name)) throw err;
    }
    return {
      physicalId: name,
      attributes: attrs(name, {
        Arn: arn(target, 's3', name, { region: false, account: false }),
        DomainName: `${name}.s3.amazonaws.com`,
        RegionalDomainName: `${name}.s3.${target.region}.amazonaws.com`,
      }),
    };
  },
};

/** Queue attributes the template sets that the local SQS keeps. */
const QUEUE_ATTRIBUTES = [
  'DelaySeconds',
  'MaximumMessageSize',
  'MessageRetentionPeriod',
  'ReceiveMessageWaitTimeSeconds',
  'VisibilityTimeout',
  'RedrivePolicy',
];

const queue: ResourceHandler = {
  replaceOn: ['QueueName', 'FifoQueue'],
  async apply({ logicalId, props, resolver, context, target }) {
    const name = context.physicalName(logicalId, resolver);
    const attributes: Record<string, string> = {};
    for (const key of QUEUE_ATTRIBUTES)
      if (props[key] !== undefined)
        attributes[key] = typeof props[key] === 'string' ? props[key] : JSON.stringify(props[key]);
    await target.sqs.handle('CreateQueue', { QueueName: name });
    if (Object.keys(attributes).length > 0)
      await target.sqs.handle('SetQueueAttributes', { QueueUrl: target.sqs.queueUrl(name), Attributes: attributes });
    // The URL names the engine's port, which may differ at the next boot: recorded with a token.
    const url = target.sqs.queueUrl(name).replace(/^http:\/\/[^/]+/, ENGINE_URL_TOKEN);
    return {
      physicalId: name,
      attributes: attrs(url, { Arn: target.sqs.queueArn(name), QueueName: name, QueueUrl: url }),
    };
  },
  async remove(row, target) {
    try {
      await target.sqs.handle('DeleteQueue', { QueueUrl: target.sqs.queueUrl(row.physical_id) });
    } catch {
      // Already gone.
    }
  },
};

const secret: ResourceHandler = {
  replaceOn: ['Name'],
  async apply({ logicalId, props, resolver, context, target }) {
    const name = context.physicalName(logicalId, resolver);
    target.secrets.ensure(name, () =>
      typeof props.SecretString === 'string'
        ? props.SecretString
        : generateSecretString(props.GenerateSecretString as GenerateSecretStringOptions | undefined),
    );
    const secretArn = String(context.getAtt(logicalId, 'Arn', resolver));
    return { physicalId: name, attributes: attrs(secretArn, { Arn: secretArn, Id: secretArn }) };
  },
};

const lambdaFunction: ResourceHandler = {
  replaceOn: ['FunctionName'],
  async apply({ logicalId, props, resolver, context, target, assemblyId, assetOf }) {
    const name = context.physicalName(logicalId, resolver);
    const asset = assetOf(logicalId);
    if (!asset)
      throw new StackResourceInvalidError(
        `${logicalId}: its Code names no file asset of the assembly (inline or S3 code is not run locally)`,
      );
    target.functions.keepCode(asset.hash, asset.path);
    target.store.putLambdaFunction(name, JSON.stringify(functionConfig(props)), asset.hash, assemblyId);
    const functionArn = arn(target, 'lambda', `function:${name}`);
    return { physicalId: name, attributes: attrs(name, { Arn: functionArn }) };
  },
  async remove(row, target) {
    // Lambda deletes every version with its function.
    target.store.deleteLambdaFunction(row.physical_id);
  },
};

const lambdaVersion: ResourceHandler = {
  replaceOn: '*',
  async apply({ props, target }) {
    const functionName =
      String(props.FunctionName).split(':').length >= 7
        ? String(props.FunctionName).split(':')[6]
        : String(props.FunctionName);
    const version = target.store.publishLambdaVersion(functionName, target.nowMillis());
    const versionArn = arn(target, 'lambda', `function:${functionName}:${version}`);
    return {
      physicalId: versionArn,
      attributes: attrs(versionArn, { Version: String(version), FunctionArn: versionArn }),
    };
  },
  async remove(row, target) {
    const parts = row.physical_id.split(':');
    target.store.deleteLambdaVersion(parts[6], Number(parts[7]));
  },
};

const functionUrl: ResourceHandler = {
  replaceOn: ['TargetFunctionArn', 'Qualifier'],
  async apply({ logicalId, props, target }) {
    const targetArn = str(props.TargetFunctionArn, 'TargetFunctionArn');
    const functionName = targetArn.startsWith('arn:') ? targetArn.split(':')[6] : targetArn;
    // Served on the engine's port: the Function URL is the engine's URL (with Lambda's trailing slash).
    return {
      physicalId: `url:${logicalId}`,
      attributes: attrs(`url:${logicalId}`, {
        FunctionUrl: `${ENGINE_URL_TOKEN}/`,
        FunctionArn: arn(target, 'lambda', `function:${functionName}`),
        FunctionName: functionName,
      }),
    };
  },
};

/** Template values SNS and EventBridge take as strings (a topic's `FifoTopic: true`). */
const attributeStrings = (values: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(values)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  );

/** Topic properties that are SNS topic attributes (the rest, such as `Subscription`, are handled apart). */
const TOPIC_ATTRIBUTES = [
  'DisplayName',
  'FifoTopic',
  'ContentBasedDeduplication',
  'KmsMasterKeyId',
  'SignatureVersion',
  'TracingConfig',
  'DeliveryStatusLogging',
  'ArchivePolicy',
  'FifoThroughputScope',
];

const topic: ResourceHandler = {
  replaceOn: ['TopicName', 'FifoTopic'],
  async apply({ logicalId, props, resolver, context, target, previous }) {
    const name = context.physicalName(logicalId, resolver);
    const attributes = attributeStrings(Object.fromEntries(TOPIC_ATTRIBUTES.map((k) => [k, props[k]])));
    const { TopicArn } = (await target.sns.call('CreateTopic', { Name: name, Attributes: attributes })) as {
      TopicArn: string;
    };
    // An update: CreateTopic of an existing name keeps the old attributes, so they are set one by one.
    if (previous) {
      for (const [AttributeName, AttributeValue] of Object.entries(attributes)) {
        if (AttributeName !== 'FifoTopic')
          await target.sns.call('SetTopicAttributes', { TopicArn, AttributeName, AttributeValue });
      }
    }
    // The inline subscriptions of the topic (`Subscription: [{ Protocol, Endpoint }]`).
    for (const sub of (props.Subscription ?? []) as Props[])
      await target.sns.call('Subscribe', { TopicArn, Protocol: sub.Protocol, Endpoint: sub.Endpoint });
    return { physicalId: TopicArn, attributes: attrs(TopicArn, { TopicArn, TopicName: name }) };
  },
  async remove(row, target) {
    await target.sns.call('DeleteTopic', { TopicArn: row.physical_id });
  },
};

/** Subscription properties that are SNS subscription attributes. */
const SUBSCRIPTION_ATTRIBUTES = [
  'FilterPolicy',
  'FilterPolicyScope',
  'RawMessageDelivery',
  'RedrivePolicy',
  'DeliveryPolicy',
  'SubscriptionRoleArn',
  'ReplayPolicy',
];

const subscription: ResourceHandler = {
  replaceOn: ['TopicArn', 'Protocol', 'Endpoint'],
  async apply({ props, target, previous }) {
    // Subscribe answers the existing subscription for the same topic, protocol and endpoint: an update
    // that changed attributes replaces it to apply them.
    if (previous)
      await target.sns.call('Unsubscribe', { SubscriptionArn: previous.physical_id }).catch(() => undefined);
    const attributes = attributeStrings(Object.fromEntries(SUBSCRIPTION_ATTRIBUTES.map((k) => [k, props[k]])));
    const { SubscriptionArn } = (await target.sns.call('Subscribe', {
      TopicArn: str(props.TopicArn, 'TopicArn'),
      Protocol: str(props.Protocol, 'Protocol'),
      Endpoint: str(props.Endpoint, 'Endpoint'),
      Attributes: attributes,
    })) as { SubscriptionArn: string };
    return { physicalId: SubscriptionArn, attributes: attrs(SubscriptionArn, { Arn: SubscriptionArn }) };
  },
  async remove(row, target) {
    await target.sns.call('Unsubscribe', { SubscriptionArn: row.physical_id }).catch(() => undefined);
  },
};

const eventBus: ResourceHandler = {
  replaceOn: ['Name'],
  async apply({ props, target }) {
    const name = str(props.Name, 'Name');
    try {
      await target.eventbridge.call('CreateEventBus', { Name: name });
    } catch (err) {
      // A rerun after a crash finds the bus it made.
      if ((err as Error).name !== 'ResourceAlreadyExistsException') throw err;
    }
    const busArn = arn(target, 'events', `event-bus/${name}`);
    return { physicalId: name, attributes: attrs(name, { Arn: busArn, Name: name }) };
  },
  async remove(row, target) {
    await target.eventbridge.call('DeleteEventBus', { Name: row.physical_id });
  },
};

/** A bus named by ARN or by name, as a rule's `EventBusName` may be. */
const busName = (value: unknown): string =>
  typeof value === 'string' && value.startsWith('arn:')
    ? value.slice(value.lastIndexOf('/') + 1)
    : typeof value === 'string' && value !== ''
      ? value
      : 'default';

/**
 * An event rule: put on the local EventBridge, which delivers the events workflows put to its targets.
 * Its properties are also what the stack runtime reads to deliver Step Functions' status-change events.
 */
const eventRule: ResourceHandler = {
  replaceOn: ['Name', 'EventBusName'],
  async apply({ logicalId, props, resolver, context, target, previous }) {
    const name = context.physicalName(logicalId, resolver);
    const bus = busName(props.EventBusName);
    const { RuleArn } = (await target.eventbridge.call('PutRule', {
      Name: name,
      EventBusName: bus,
      ...(props.EventPattern !== undefined
        ? {
            EventPattern:
              typeof props.EventPattern === 'string' ? props.EventPattern : JSON.stringify(props.EventPattern),
          }
        : {}),
      ...(props.ScheduleExpression !== undefined ? { ScheduleExpression: props.ScheduleExpression } : {}),
      ...(props.Description !== undefined ? { Description: props.Description } : {}),
      State: props.State === 'DISABLED' ? 'DISABLED' : 'ENABLED',
    })) as { RuleArn: string };
    const targets = (props.Targets ?? []) as Props[];
    const before = previous ? (((JSON.parse(previous.properties) as Props).Targets ?? []) as Props[]) : [];
    const gone = before.map((t) => String(t.Id)).filter((id) => !targets.some((t) => t.Id === id));
    if (gone.length > 0) await target.eventbridge.call('RemoveTargets', { Rule: name, EventBusName: bus, Ids: gone });
    if (targets.length > 0)
      await target.eventbridge.call('PutTargets', { Rule: name, EventBusName: bus, Targets: targets });
    return { physicalId: name, attributes: attrs(name, { Arn: RuleArn }) };
  },
  async remove(row, target) {
    const props = JSON.parse(row.properties) as Props;
    const bus = busName(props.EventBusName);
    try {
      const ids = ((props.Targets ?? []) as Props[]).map((t) => String(t.Id));
      if (ids.length > 0)
        await target.eventbridge.call('RemoveTargets', { Rule: row.physical_id, EventBusName: bus, Ids: ids });
      await target.eventbridge.call('DeleteRule', { Name: row.physical_id, EventBusName: bus });
    } catch (err) {
      // The bus went first (its rules with it), or the rule is gone already.
      if ((err as Error).name !== 'ResourceNotFoundException') throw err;
    }
  },
};

/** The state machine's definition with its `DefinitionSubstitutions` applied, as Step Functions' CloudFormation handler does. */
function definitionOf(props: Props): string {
  const text =
    typeof props.DefinitionString === 'string'
      ? props.DefinitionString
      : props.Definition !== undefined
        ? JSON.stringify(props.Definition)
        : undefined;
  if (text === undefined)
    throw new StackResourceInvalidError(
      'A StateMachine needs DefinitionString or Definition (DefinitionS3Location is not read locally)',
    );
  const substitutions = (props.DefinitionSubstitutions ?? {}) as Record<string, unknown>;
  return substitute(text, (key) => (key in substitutions ? String(substitutions[key]) : `\${${key}}`));
}

/** Refuses a state machine whose definition needs a resource of a type the engine does not emulate. */
function checkEmulated(request: ApplyRequest, emulated: (type: string) => boolean): void {
  const raw = request.resolver.template.Resources[request.logicalId]?.Properties ?? {};
  for (const id of referencedLogicalIds({
    a: raw.DefinitionString,
    b: raw.Definition,
    c: raw.DefinitionSubstitutions,
  })) {
    const type = request.resolver.typeOf(id);
    if (!emulated(type)) {
      throw new StackResourceNotEmulatedError(
        `State machine ${request.logicalId} needs ${id} (${type}), a resource type the local engine does not emulate`,
      );
    }
  }
}

function stateMachine(emulated: (type: string) => boolean): ResourceHandler {
  return {
    replaceOn: ['StateMachineName', 'StateMachineType'],
    async apply(request) {
      checkEmulated(request, emulated);
      const { logicalId, props, resolver, context, target } = request;
      const name = context.physicalName(logicalId, resolver);
      const machineArn = arn(target, 'states', `stateMachine:${name}`);
      const definition = definitionOf(props).split(ENGINE_URL_TOKEN).join(target.engineUrl());
      const roleArn = str(props.RoleArn, 'RoleArn');
      let revisionId: string;
      let existing: Props | undefined;
      try {
        existing = await target.sfn.handle('DescribeStateMachine', { stateMachineArn: machineArn });
      } catch (err) {
        if ((err as Error).name !== 'StateMachineDoesNotExist') throw err;
      }
      if (!existing) {
        await target.sfn.handle('CreateStateMachine', {
          name,
          definition,
          roleArn,
          type: props.StateMachineType ?? 'STANDARD',
        });
        revisionId = String(
          ((await target.sfn.handle('DescribeStateMachine', { stateMachineArn: machineArn })) as Props).revisionId,
        );
      } else if (
        JSON.stringify(JSON.parse(existing.definition)) !== JSON.stringify(JSON.parse(definition)) ||
        existing.roleArn !== roleArn
      ) {
        revisionId = String(
          (
            (await target.sfn.handle('UpdateStateMachine', {
              stateMachineArn: machineArn,
              definition,
              roleArn,
            })) as Props
          ).revisionId,
        );
      } else {
        revisionId = String(existing.revisionId);
      }
      return {
        physicalId: machineArn,
        attributes: attrs(machineArn, { Arn: machineArn, Name: name, StateMachineRevisionId: revisionId }),
      };
    },
    async remove(row, target) {
      await target.sfn.handle('DeleteStateMachine', { stateMachineArn: row.physical_id });
    },
  };
}

const stateMachineVersion: ResourceHandler = {
  replaceOn: '*',
  async apply({ props, target }) {
    const out = (await target.sfn.handle('PublishStateMachineVersion', {
      stateMachineArn: str(props.StateMachineArn, 'StateMachineArn'),
      ...(props.StateMachineRevisionId ? { revisionId: props.StateMachineRevisionId } : {}),
      ...(props.Description ? { description: props.Description } : {}),
    })) as Props;
    const versionArn = String(out.stateMachineVersionArn);
    return { physicalId: versionArn, attributes: attrs(versionArn, { Arn: versionArn }) };
  },
  async remove(row, target) {
    try {
      await target.sfn.handle('DeleteStateMachineVersion', { stateMachineVersionArn: row.physical_id });
    } catch (err) {
      // Still routed to by an alias of another deploy, or gone already: kept, as the service would refuse.
      if (!/ResourceNotFound|StateMachineDoesNotExist/.test((err as Error).name)) throw err;
    }
  },
};

const stateMachineAlias: ResourceHandler = {
  replaceOn: ['Name'],
  async apply({ props, previous, target }) {
    const name = str(props.Name, 'Name');
    const anyVersion = Array.isArray(props.RoutingConfiguration)
      ? props.RoutingConfiguration[0]?.StateMachineVersionArn
      : props.DeploymentPreference?.StateMachineVersionArn;
    const machineArn = str(anyVersion, 'StateMachineVersionArn').split(':').slice(0, 7).join(':');
    const aliasArn = `${machineArn}:${name}`;
    let current: Props | undefined;
    try {
      current = await target.sfn.handle('DescribeStateMachineAlias', { stateMachineAliasArn: aliasArn });
    } catch (err) {
      if ((err as Error).name !== 'ResourceNotFound') throw err;
    }
    const previousRoutes = current?.routingConfiguration as
      { stateMachineVersionArn: string; weight: number }[] | undefined;
    const previousRollout = previous ? (JSON.parse(previous.attributes) as { Rollout?: string }).Rollout : undefined;
    // A rerun of the same deploy keeps the rollout it started (and its start time).
    const kept = previousRollout ? (JSON.parse(previousRollout) as RolloutState) : undefined;
    const plan = aliasRouting(
      props,
      kept && kept.to === props.DeploymentPreference?.StateMachineVersionArn
        ? [{ stateMachineVersionArn: kept.from, weight: 100 }]
        : previousRoutes,
    );
    const rollout = plan.rollout
      ? { ...plan.rollout, startedMillis: kept?.to === plan.rollout.to ? kept.startedMillis : target.nowMillis() }
      : undefined;
    const routes = rollout ? rolloutRoutes(rollout, target.nowMillis() - rollout.startedMillis) : plan.routes;
    const description = typeof props.Description === 'string' ? props.Description : undefined;
    if (!current) {
      await target.sfn.handle('CreateStateMachineAlias', {
        name,
        routingConfiguration: routes,
        ...(description ? { description } : {}),
      });
    } else if (
      JSON.stringify(current.routingConfiguration) !== JSON.stringify(routes) ||
      (description !== undefined && current.description !== description)
    ) {
      await target.sfn.handle('UpdateStateMachineAlias', {
        stateMachineAliasArn: aliasArn,
        routingConfiguration: routes,
        ...(description ? { description } : {}),
      });
    }
    return {
      physicalId: aliasArn,
      attributes: attrs(aliasArn, { Arn: aliasArn, ...(rollout ? { Rollout: JSON.stringify(rollout) } : {}) }),
    };
  },
  async remove(row, target) {
    await target.sfn.handle('DeleteStateMachineAlias', { stateMachineAliasArn: row.physical_id });
  },
};

/** Resources kept as data: what they say is read at run time (event rules, IAM for `--enforce-iam`). */
function recorded(attributes: (request: ApplyRequest, name: string) => Record<string, string>): ResourceHandler {
  return {
    replaceOn: [],
    async apply(request) {
      const name = request.context.physicalName(request.logicalId, request.resolver);
      const more = attributes(request, name);
      return { physicalId: more.Ref ?? name, attributes: attrs(more.Ref ?? name, more) };
    },
  };
}

/**
 * The resource types the stack mode creates, by CloudFormation type. Anything else is listed at boot as
 * not emulated (and refused when a state machine's definition needs it).
 */
export function resourceHandlers(): Readonly<Record<string, ResourceHandler>> {
  const handlers: Record<string, ResourceHandler> = {
    'AWS::DynamoDB::Table': table,
    'AWS::S3::Bucket': bucket,
    'AWS::SQS::Queue': queue,
    'AWS::SecretsManager::Secret': secret,
    'AWS::Lambda::Function': lambdaFunction,
    'AWS::Lambda::Version': lambdaVersion,
    'AWS::Lambda::Url': functionUrl,
    'AWS::StepFunctions::StateMachineVersion': stateMachineVersion,
    'AWS::StepFunctions::StateMachineAlias': stateMachineAlias,
    'AWS::SNS::Topic': topic,
    'AWS::SNS::Subscription': subscription,
    'AWS::SNS::TopicPolicy': recorded((_r, name) => ({ Ref: name })),
    'AWS::Events::EventBus': eventBus,
    'AWS::Events::Rule': eventRule,
    'AWS::IAM::Role': recorded(({ target, props }, name) => ({
      Ref: name,
      Arn: arn(target, 'iam', `role${props.Path ?? '/'}${name}`, { region: false }),
      RoleId: `AROA${name.slice(-17).toUpperCase()}`,
    })),
    'AWS::IAM::Policy': recorded((_r, name) => ({ Ref: name })),
  };
  handlers['AWS::StepFunctions::StateMachine'] = stateMachine((type) => type in handlers);
  return handlers;
}
