/**
 * What AWS Step Functions knows as a Task `Resource`, whether or not the engine serves it: the
 * optimized integrations (`arn:aws:states:::<service>:<action>[.sync|.waitForTaskToken]`), the AWS SDK
 * integrations (`arn:aws:states:::aws-sdk:<service>:<action>`) and activities. CreateStateMachine
 * accepts everything this module knows and refuses the rest in AWS's words; which of them the engine
 * runs is task-integrations.ts's `resolveTaskTarget` (an unserved one fails at run time with
 * {@link IntegrationNotServedError}).
 */

import { lazyRequire } from '../lazy-require';

/** How a Task waits for its work (the `.waitForTaskToken` / `.sync` suffixes). */
export type IntegrationPattern = 'request' | 'waitForTaskToken' | 'sync';

/** A Task `Resource` AWS knows, parsed. */
export type KnownResource =
  | {
      readonly kind: 'optimized' | 'aws-sdk';
      /** The service as the ARN names it (`sns`, `aws-sdk:glue`). */
      readonly service: string;
      /** The action as the ARN spells it (`publish`, `startJobRun`). */
      readonly action: string;
      readonly pattern: IntegrationPattern;
      /** The action with its suffix, as history's `resource` names it (`publish.waitForTaskToken`). */
      readonly resource: string;
    }
  | {
      readonly kind: 'activity';
      readonly service: 'activity';
      readonly action: string;
      readonly pattern: 'request';
      readonly resource: string;
    };

/** An optimized integration's service: its actions and the patterns AWS has for them. */
interface OptimizedService {
  /** The actions AWS takes, or `'*'` where the engine does not check them (services with many job actions, where a false refusal would be the worse error). */
  readonly actions: readonly string[] | '*';
  /** The patterns AWS has for the service. @default every pattern */
  readonly patterns?: readonly IntegrationPattern[];
}

const CALLBACK: readonly IntegrationPattern[] = ['request', 'waitForTaskToken'];
const JOB: readonly IntegrationPattern[] = ['request', 'sync'];

/**
 * The optimized integrations AWS documents ("Integrating optimized services with Step Functions" and each
 * service's page), by the service name their ARN uses.
 */
const OPTIMIZED_SERVICES: Readonly<Record<string, OptimizedService>> = {
  lambda: { actions: ['invoke'], patterns: CALLBACK },
  sqs: { actions: ['sendMessage'], patterns: CALLBACK },
  sns: { actions: ['publish'], patterns: CALLBACK },
  events: { actions: ['putEvents'], patterns: CALLBACK },
  apigateway: { actions: ['invoke'], patterns: CALLBACK },
  dynamodb: { actions: ['getItem', 'putItem', 'updateItem', 'deleteItem'], patterns: ['request'] },
  states: { actions: ['startExecution'] },
  http: { actions: ['invoke'] },
  athena: {
    actions: ['startQueryExecution', 'stopQueryExecution', 'getQueryExecution', 'getQueryResults'],
    patterns: JOB,
  },
  batch: { actions: ['submitJob'], patterns: JOB },
  bedrock: { actions: ['invokeModel', 'createModelCustomizationJob'] },
  ecs: { actions: ['runTask'] },
  glue: { actions: ['startJobRun'], patterns: JOB },
  databrew: { actions: ['startJobRun'], patterns: JOB },
  mediaconvert: { actions: ['createJob'], patterns: JOB },
  codebuild: { actions: '*' },
  eks: { actions: '*' },
  elasticmapreduce: { actions: '*' },
  'emr-containers': { actions: '*' },
  'emr-serverless': { actions: '*' },
  sagemaker: { actions: '*' },
  evidently: { actions: '*' },
  // A distributed Map's ItemReader / ResultWriter resources.
  s3: { actions: ['getObject', 'putObject', 'listObjectsV2'], patterns: ['request'] },
};

/**
 * The AWS SDK catalog (aws-sdk-catalog.json, written by scripts/aws-sdk-catalog.mjs: service name -> its
 * API actions in PascalCase, separated by spaces), indexed on first use.
 */
const catalog = lazyRequire<{ services: Record<string, string> }>('./executor/aws-sdk-catalog.json');
let sdkActions: Map<string, ReadonlySet<string>> | undefined;
function awsSdkActions(): Map<string, ReadonlySet<string>> {
  if (!sdkActions) {
    sdkActions = new Map();
    for (const [service, actions] of Object.entries(catalog().services)) {
      const set = new Set(actions.split(' '));
      sdkActions.set(service, set);
      // The Java SDK v2 (whose names Step Functions uses) drops a trailing "Service" (`directoryservice` -> `directory`).
      if (service.endsWith('service') && service.length > 'service'.length)
        sdkActions.set(service.slice(0, -'service'.length), set);
    }
  }
  return sdkActions;
}

/**
 * Services AWS SDK integrations named that AWS has since retired (end of support): botocore, the catalog's
 * source, dropped their models, so their actions are unknown to it. A state machine deployed while they
 * ran was accepted by AWS, and such definitions are still in public samples: the engine accepts any
 * well-formed action of theirs, as an integration it does not serve (docs/definitions.md).
 */
const RETIRED_AWS_SDK_SERVICES: ReadonlySet<string> = new Set([
  'alexaforbusiness',
  'codestar',
  'elasticinference',
  'evidently',
  'honeycode',
  'iot1clickdevicesservice',
  'iot1clickdevices',
  'iot1clickprojects',
  'iotanalytics',
  'iotfleethub',
  'lookoutmetrics',
  'lookoutvision',
  'macie',
  'mobile',
  'nimble',
  'opsworks',
  'opsworkscm',
  'qldb',
  'qldbsession',
  'robomaker',
  'sms',
  'sumerian',
  'worklink',
]);

/** Whether `aws-sdk:<service>` names a service AWS has retired (its SDK model gone from the catalog). */
export function isRetiredAwsSdkService(service: string): boolean {
  return RETIRED_AWS_SDK_SERVICES.has(service) && !awsSdkActions().has(service);
}

/** Whether `aws-sdk:<service>:<action>` names a service and one of its actions (`startJobRun` or `StartJobRun`); any action of a retired service. */
export function isAwsSdkAction(service: string, action: string): boolean {
  if (isRetiredAwsSdkService(service)) return true;
  const actions = awsSdkActions().get(service);
  return actions !== undefined && actions.has(action.charAt(0).toUpperCase() + action.slice(1));
}

/** Whether a pass-through route may name `service`: an optimized integration's (`sns`, `events`) or an SDK integration's (`athena`). */
export function isRoutableService(service: string): boolean {
  return Object.hasOwn(OPTIMIZED_SERVICES, service) || awsSdkActions().has(service);
}

/** The services AWS has an SDK integration for, as the ARN names them. */
export function awsSdkServices(): readonly string[] {
  return [...awsSdkActions().keys()];
}

/** `arn:<partition>:states:<region?>:<account?>:<rest>`: a resource of Step Functions itself. */
const STATES_ARN = /^arn:aws[a-z-]*:states:([a-z0-9-]*):(\d{12}|):(.+)$/;
/** `<service>:<action>[.sync[:2]|.waitForTaskToken]` or `aws-sdk:<service>:<action>[...]`. */
const INTEGRATION = /^((?:aws-sdk:)?[a-z0-9-]+):([A-Za-z][A-Za-z0-9]*)(?:\.(waitForTaskToken|sync(?::2)?))?$/;
const ACTIVITY = /^activity:[^\s:]{1,80}$/;

/**
 * Parses a `Resource` AWS would accept as a service integration or an activity: the optimized
 * integration ARN may carry a region and account (`arn:aws:states:us-east-1:123456789012:lambda:invoke`),
 * which AWS takes as the same integration. Undefined for anything else (Lambda function ARNs are
 * task-integrations.ts's).
 */
export function knownResource(resource: string): KnownResource | undefined {
  const arn = STATES_ARN.exec(resource);
  if (!arn) return undefined;
  const [, region, account, rest] = arn;
  if (ACTIVITY.test(rest)) {
    return region && account
      ? { kind: 'activity', service: 'activity', action: rest.slice('activity:'.length), pattern: 'request', resource }
      : undefined;
  }
  const m = INTEGRATION.exec(rest);
  if (!m) return undefined;
  const [, service, action, suffix] = m;
  const pattern: IntegrationPattern = suffix === 'waitForTaskToken' ? 'waitForTaskToken' : suffix ? 'sync' : 'request';
  const parsed = { service, action, pattern, resource: suffix ? `${action}.${suffix}` : action };
  if (service.startsWith('aws-sdk:')) {
    // AWS has no `.sync` for SDK integrations.
    return pattern !== 'sync' && isAwsSdkAction(service.slice('aws-sdk:'.length), action)
      ? { kind: 'aws-sdk', ...parsed }
      : undefined;
  }
  const known = Object.hasOwn(OPTIMIZED_SERVICES, service) ? OPTIMIZED_SERVICES[service] : undefined;
  if (
    !known ||
    (known.actions !== '*' && !known.actions.includes(action)) ||
    (known.patterns && !known.patterns.includes(pattern))
  )
    return undefined;
  return { kind: 'optimized', ...parsed };
}

/**
 * The error of a Task whose integration AWS knows but the engine does not serve (a Task failure, so
 * Retry and Catch see it like any other). Its cause says the ways to serve it: an integration the
 * engine emulates, a pass-through to a real endpoint, or a mock config (docs/definitions.md).
 */
export class IntegrationNotServedError extends Error {
  override readonly name = 'Local.IntegrationNotServed';

  constructor(readonly resource: string) {
    super(
      `The local engine accepts the resource '${resource}' as AWS does but does not serve it. ` +
        'Serve it with an integration the engine emulates, a pass-through to a real endpoint, or a mock config (docs/definitions.md).',
    );
  }
}

/**
 * How a Task whose integration the engine does not serve can run locally (docs/integrations.md): routed
 * to a real endpoint by the pass-through (not a `.sync` job, whose polling is not emulated), mocked in a
 * mock config test case, or replaced by a call to a Lambda function of the `--functions` module.
 */
export function howToServe(resource: string): string {
  const sdk = /^arn:aws[a-z-]*:states:[a-z0-9-]*:\d*:aws-sdk:([a-z0-9-]+):/.exec(resource)?.[1];
  const retired =
    sdk && isRetiredAwsSdkService(sdk)
      ? `aws-sdk:${sdk} is a service AWS has retired (its SDK model is gone), and no endpoint serves it any more. `
      : '';
  const service = /^arn:aws[a-z-]*:states:[a-z0-9-]*:\d*:(?:aws-sdk:)?([a-z0-9-]+):/.exec(resource)?.[1];
  const ways = [
    ...(service && !retired && !/\.sync(?::2)?$/.test(resource)
      ? [`route it to a real endpoint with --pass-through ${service}[=<endpoint>] (real calls, real side effects)`]
      : []),
    'mock it in a mock config test case (--mock-config)',
    'or call a Lambda function of your --functions module in its place',
  ];
  return `${retired}Serve it: ${ways.join('; ')}.`;
}
