import { createHash } from 'node:crypto';
import { arn, lambdaFunctionArn, nameOfArn, qualifiedArn, stateMachineArn, type AwsEnvironment } from './arns';
import { IntrinsicResolutionError, TemplateResolver, type PseudoParameter, type ResolutionContext } from './intrinsics';
import { isRetained, type CfnTemplate } from './template';

/** The region resolved templates are placed in when none is given. */
export const DEFAULT_AWS_REGION = 'us-east-1';
/** The account resolved templates are placed in when none is given (AWS's documentation example). */
export const DEFAULT_AWS_ACCOUNT = '123456789012';
/** The partition when none is given. */
export const DEFAULT_AWS_PARTITION = 'aws';

/** The version resource types whose numbers CloudFormation's publish assigns, and the property naming their parent. */
const VERSION_TYPES: Readonly<Record<string, string>> = {
  'AWS::Lambda::Version': 'FunctionName',
  'AWS::StepFunctions::StateMachineVersion': 'StateMachineArn',
};

/** Resource types whose versions die with them (deleting a function or state machine deletes its versions). */
const PARENT_TYPES = ['AWS::Lambda::Function', 'AWS::StepFunctions::StateMachine'];

/** A published Lambda or state machine version. */
export interface PublishedVersion {
  /** The Version resource's logical id in the template that published it. */
  readonly logicalId: string;
  /** The unqualified function or state machine ARN. */
  readonly parentArn: string;
  /** The version number (1, 2, ...; never reused). */
  readonly number: number;
  /** `parentArn:number`. */
  readonly arn: string;
  /** Hash of the Version resource's resolved properties: a change replaces the resource (a new version). */
  readonly fingerprint: string;
  /** Whether the resource is kept when it leaves the template or is replaced. */
  readonly retainedOnDelete: boolean;
  readonly retainedOnReplace: boolean;
}

/** A parent (function or state machine) that exists after a deploy. */
export interface DeployedParent {
  readonly logicalId: string;
  readonly arn: string;
  readonly retainedOnDelete: boolean;
}

/**
 * What a deploy left in the account, as far as version numbering needs: every version that still exists
 * (the template's and the retained older ones), the highest number published per parent, and which
 * parents exist. Pass it as `previous` to resolve the next deploy.
 */
export interface DeploymentRecord {
  readonly environment: AwsEnvironment;
  readonly stackName: string;
  /** Every version that exists after the deploy, oldest first. */
  readonly versions: readonly PublishedVersion[];
  /** Highest version number published per parent ARN (numbers never reuse, even after deletion). */
  readonly lastVersionNumber: Readonly<Record<string, number>>;
  /** Functions and state machines that exist after the deploy. */
  readonly parents: readonly DeployedParent[];
  /** The ARN each Version resource of the deployed template stands for, by logical id. */
  readonly templateVersions: Readonly<Record<string, string>>;
}

/** Options of {@link AwsResolutionContext}. */
export interface AwsResolutionContextOptions {
  /** @default {@link DEFAULT_AWS_REGION} */
  readonly region?: string;
  /** @default {@link DEFAULT_AWS_ACCOUNT} */
  readonly account?: string;
  /** @default {@link DEFAULT_AWS_PARTITION} */
  readonly partition?: string;
  /** The stack name (generated physical names start with it). */
  readonly stackName: string;
  /** The account as the previous deploy of this stack left it. @default a first deploy */
  readonly previous?: DeploymentRecord;
  /** Template parameter values. @default each parameter's `Default` */
  readonly parameters?: Readonly<Record<string, unknown>>;
}

/** Physical-name property and maximum length, per resource type, for names CloudFormation generates. */
const NAMING: Readonly<
  Record<string, { readonly property: string; readonly max: number; readonly lowercase?: boolean }>
> = {
  'AWS::Lambda::Function': { property: 'FunctionName', max: 64 },
  'AWS::IAM::Role': { property: 'RoleName', max: 64 },
  'AWS::IAM::Policy': { property: 'PolicyName', max: 128 },
  'AWS::DynamoDB::Table': { property: 'TableName', max: 255 },
  'AWS::S3::Bucket': { property: 'BucketName', max: 63, lowercase: true },
  'AWS::SQS::Queue': { property: 'QueueName', max: 80 },
  'AWS::SNS::Topic': { property: 'TopicName', max: 256 },
  'AWS::SecretsManager::Secret': { property: 'Name', max: 512 },
  'AWS::Logs::LogGroup': { property: 'LogGroupName', max: 512 },
  'AWS::StepFunctions::StateMachine': { property: 'StateMachineName', max: 80 },
  'AWS::StepFunctions::StateMachineAlias': { property: 'Name', max: 80 },
  'AWS::CloudWatch::Alarm': { property: 'AlarmName', max: 255 },
  'AWS::CloudWatch::Dashboard': { property: 'DashboardName', max: 255 },
  'AWS::Events::Rule': { property: 'Name', max: 64 },
  'AWS::Events::EventBus': { property: 'Name', max: 256 },
};

/**
 * The values CloudFormation gives a template's references on AWS, for one region, account and stack:
 * physical names (given, or generated as `<stack>-<logicalId>-<suffix>`; CloudFormation's suffix is
 * random, ours a hash of stack and logical id, so it is stable across synths as a kept physical id is),
 * ARNs, queue URLs, Function URLs, state machine revision ids, and **version numbers as publishing
 * assigns them**: a Version resource that is new or whose properties changed (a replacement) gets the
 * next number of its function or state machine; an unchanged one keeps its number. New versions of one
 * parent in one deploy are numbered in logical-id order (CloudFormation creates them in parallel).
 */
export class AwsResolutionContext implements ResolutionContext {
  readonly environment: AwsEnvironment;
  readonly stackName: string;
  private readonly previous?: DeploymentRecord;
  private readonly parameters: Readonly<Record<string, unknown>>;
  private numbering?: Map<string, PublishedVersion>;

  constructor(options: AwsResolutionContextOptions) {
    this.environment = {
      region: options.region ?? options.previous?.environment.region ?? DEFAULT_AWS_REGION,
      account: options.account ?? options.previous?.environment.account ?? DEFAULT_AWS_ACCOUNT,
      partition: options.partition ?? options.previous?.environment.partition ?? DEFAULT_AWS_PARTITION,
    };
    this.stackName = options.stackName;
    this.previous = options.previous;
    this.parameters = options.parameters ?? {};
  }

  pseudo(name: PseudoParameter): unknown {
    const env = this.environment;
    switch (name) {
      case 'AWS::AccountId':
        return env.account;
      case 'AWS::Region':
        return env.region;
      case 'AWS::Partition':
        return env.partition;
      case 'AWS::StackName':
        return this.stackName;
      case 'AWS::StackId':
        return arn(env, 'cloudformation', `stack/${this.stackName}/${uuidFrom(this.stackName)}`);
      case 'AWS::URLSuffix':
        return env.partition === 'aws-cn' ? 'amazonaws.com.cn' : 'amazonaws.com';
      case 'AWS::NotificationARNs':
        return [];
      default:
        throw new IntrinsicResolutionError(`No value for ${name}`);
    }
  }

  parameter(name: string, resolver: TemplateResolver): unknown {
    return name in this.parameters ? this.parameters[name] : resolver.template.Parameters?.[name]?.Default;
  }

  /** The physical name of a resource: its name property, or the name CloudFormation generates. */
  physicalName(logicalId: string, resolver: TemplateResolver): string {
    const type = resolver.typeOf(logicalId);
    const naming = NAMING[type];
    const given = naming ? resolver.property(logicalId, naming.property) : undefined;
    if (typeof given === 'string' && given !== '') return given;
    const suffix = hashOf(this.stackName, logicalId).slice(0, 12).toUpperCase();
    const max = naming?.max ?? 64;
    const name = `${`${this.stackName}-${logicalId}`.slice(0, max - suffix.length - 1)}-${suffix}`;
    return naming?.lowercase ? name.toLowerCase() : name;
  }

  ref(logicalId: string, resolver: TemplateResolver): unknown {
    const env = this.environment;
    switch (resolver.typeOf(logicalId)) {
      case 'AWS::Lambda::Version':
      case 'AWS::StepFunctions::StateMachineVersion':
        return this.version(logicalId, resolver).arn;
      case 'AWS::StepFunctions::StateMachine':
        return stateMachineArn(env, this.physicalName(logicalId, resolver));
      case 'AWS::StepFunctions::StateMachineAlias':
      case 'AWS::Lambda::Alias':
      case 'AWS::SNS::Topic':
      case 'AWS::SecretsManager::Secret':
        return this.getAtt(logicalId, 'Arn', resolver);
      case 'AWS::SQS::Queue':
        return this.getAtt(logicalId, 'QueueUrl', resolver);
      case 'AWS::Lambda::Permission':
      case 'AWS::Lambda::EventSourceMapping':
      case 'AWS::Lambda::Url':
      case 'AWS::IAM::Policy':
      case 'AWS::S3::BucketPolicy':
      case 'AWS::SQS::QueuePolicy':
      case 'AWS::SNS::TopicPolicy':
        return `${this.stackName}-${logicalId}-${hashOf(logicalId).slice(0, 8)}`;
      default:
        return this.physicalName(logicalId, resolver);
    }
  }

  getAtt(logicalId: string, attribute: string, resolver: TemplateResolver): unknown {
    const env = this.environment;
    const type = resolver.typeOf(logicalId);
    const name = (): string => this.physicalName(logicalId, resolver);
    const unknown = (): never => {
      throw new IntrinsicResolutionError(`No attribute ${attribute} on ${type} ${logicalId}`);
    };
    switch (type) {
      case 'AWS::Lambda::Function':
        if (attribute === 'Arn') return lambdaFunctionArn(env, name());
        return unknown();
      case 'AWS::Lambda::Version': {
        const version = this.version(logicalId, resolver);
        if (attribute === 'Version') return String(version.number);
        if (attribute === 'FunctionArn') return version.arn;
        return unknown();
      }
      case 'AWS::Lambda::Alias':
        if (attribute === 'AliasArn' || attribute === 'Arn') {
          return qualifiedArn(
            this.functionArnOf(resolver.property(logicalId, 'FunctionName')),
            resolver.string(resolver.property(logicalId, 'Name')),
          );
        }
        return unknown();
      case 'AWS::Lambda::Url':
        if (attribute === 'FunctionUrl')
          return `https://${hashOf(this.stackName, logicalId).slice(0, 32)}.lambda-url.${env.region}.on.aws/`;
        if (attribute === 'FunctionArn') return this.functionArnOf(resolver.property(logicalId, 'TargetFunctionArn'));
        return unknown();
      case 'AWS::StepFunctions::StateMachine':
        if (attribute === 'Arn') return stateMachineArn(env, name());
        if (attribute === 'Name') return name();
        if (attribute === 'StateMachineRevisionId')
          return hashOf(JSON.stringify(resolver.resolvedProperties(logicalId))).slice(0, 32);
        return unknown();
      case 'AWS::StepFunctions::StateMachineVersion':
        if (attribute === 'Arn') return this.version(logicalId, resolver).arn;
        return unknown();
      case 'AWS::StepFunctions::StateMachineAlias': {
        if (attribute !== 'Arn') return unknown();
        const routes = resolver.property(logicalId, 'RoutingConfiguration') as
          { StateMachineVersionArn: string }[] | undefined;
        const preference = resolver.property(logicalId, 'DeploymentPreference') as
          { StateMachineVersionArn: string } | undefined;
        const versionArn = routes?.[0]?.StateMachineVersionArn ?? preference?.StateMachineVersionArn;
        if (!versionArn) throw new IntrinsicResolutionError(`Alias ${logicalId} routes to no version`);
        const unqualified = versionArn.split(':').slice(0, 7).join(':');
        return qualifiedArn(unqualified, resolver.string(resolver.property(logicalId, 'Name')));
      }
      case 'AWS::IAM::Role':
        if (attribute === 'Arn')
          return arn(env, 'iam', `role${this.rolePath(logicalId, resolver)}${name()}`, { region: false });
        if (attribute === 'RoleId') return `AROA${hashOf(this.stackName, logicalId).slice(0, 17).toUpperCase()}`;
        return unknown();
      case 'AWS::DynamoDB::Table':
        if (attribute === 'Arn') return arn(env, 'dynamodb', `table/${name()}`);
        if (attribute === 'StreamArn') return arn(env, 'dynamodb', `table/${name()}/stream/1970-01-01T00:00:00.000`);
        return unknown();
      case 'AWS::S3::Bucket':
        if (attribute === 'Arn') return arn(env, 's3', name(), { region: false, account: false });
        if (attribute === 'DomainName') return `${name()}.s3.amazonaws.com`;
        if (attribute === 'RegionalDomainName') return `${name()}.s3.${env.region}.amazonaws.com`;
        return unknown();
      case 'AWS::SQS::Queue':
        if (attribute === 'Arn') return arn(env, 'sqs', name());
        if (attribute === 'QueueName') return name();
        if (attribute === 'QueueUrl') return `https://sqs.${env.region}.amazonaws.com/${env.account}/${name()}`;
        return unknown();
      case 'AWS::SNS::Topic':
        if (attribute === 'TopicArn' || attribute === 'Arn') return arn(env, 'sns', name());
        if (attribute === 'TopicName') return name();
        return unknown();
      case 'AWS::SecretsManager::Secret':
        // Secrets Manager appends a dash and six random characters to a secret's ARN.
        if (attribute === 'Arn' || attribute === 'Id')
          return arn(env, 'secretsmanager', `secret:${name()}-${hashOf(name()).slice(0, 6)}`);
        return unknown();
      case 'AWS::Logs::LogGroup':
        if (attribute === 'Arn') return arn(env, 'logs', `log-group:${name()}:*`);
        return unknown();
      case 'AWS::CloudWatch::Alarm':
        if (attribute === 'Arn') return arn(env, 'cloudwatch', `alarm:${name()}`);
        return unknown();
      case 'AWS::Events::Rule': {
        // A rule on a custom bus has the bus in its ARN (arn:aws:events:<region>:<account>:rule/<bus>/<rule>).
        const bus = resolver.property(logicalId, 'EventBusName');
        const busPart = typeof bus === 'string' && bus !== 'default' ? `${bus.slice(bus.lastIndexOf('/') + 1)}/` : '';
        if (attribute === 'Arn') return arn(env, 'events', `rule/${busPart}${name()}`);
        return unknown();
      }
      case 'AWS::Events::EventBus':
        if (attribute === 'Arn') return arn(env, 'events', `event-bus/${name()}`);
        if (attribute === 'Name') return name();
        return unknown();
      default:
        return unknown();
    }
  }

  /**
   * What the account holds after this deploy: the template's versions plus the older ones that are
   * retained and whose function or state machine still exists.
   */
  record(resolver: TemplateResolver): DeploymentRecord {
    const current = [...this.numberedVersions(resolver).values()];
    const parents: DeployedParent[] = PARENT_TYPES.flatMap((type) =>
      resolver.logicalIds(type).map((logicalId) => ({
        logicalId,
        arn: String(
          type === 'AWS::Lambda::Function' ? this.getAtt(logicalId, 'Arn', resolver) : this.ref(logicalId, resolver),
        ),
        retainedOnDelete: isRetained(resolver.template.Resources[logicalId]),
      })),
    );
    for (const old of this.previous?.parents ?? []) {
      if (old.retainedOnDelete && !parents.some((p) => p.arn === old.arn)) parents.push(old);
    }
    const alive = new Set(parents.map((p) => p.arn));
    const kept = (this.previous?.versions ?? []).filter((old) => {
      if (!alive.has(old.parentArn)) return false;
      const now = current.find((v) => v.logicalId === old.logicalId && v.parentArn === old.parentArn);
      if (now) return now.number === old.number || old.retainedOnReplace;
      return old.retainedOnDelete;
    });
    const versions = [...kept.filter((k) => !current.some((c) => c.arn === k.arn)), ...current].sort(
      (a, b) => a.parentArn.localeCompare(b.parentArn) || a.number - b.number,
    );
    const lastVersionNumber: Record<string, number> = { ...(this.previous?.lastVersionNumber ?? {}) };
    for (const v of current) lastVersionNumber[v.parentArn] = Math.max(lastVersionNumber[v.parentArn] ?? 0, v.number);
    const templateVersions = Object.fromEntries(current.map((v) => [v.logicalId, v.arn]));
    return {
      environment: this.environment,
      stackName: this.stackName,
      versions,
      lastVersionNumber,
      parents,
      templateVersions,
    };
  }

  private version(logicalId: string, resolver: TemplateResolver): PublishedVersion {
    const found = this.numberedVersions(resolver).get(logicalId);
    if (!found) throw new IntrinsicResolutionError(`${logicalId} is not a version resource`);
    return found;
  }

  /** Numbers every Version resource of the template (once), continuing from the previous deploy. */
  private numberedVersions(resolver: TemplateResolver): Map<string, PublishedVersion> {
    if (this.numbering) return this.numbering;
    const numbering = new Map<string, PublishedVersion>();
    this.numbering = numbering;
    try {
      const candidates = Object.keys(VERSION_TYPES)
        .flatMap((type) => resolver.logicalIds(type).map((logicalId) => ({ logicalId, type })))
        .map(({ logicalId, type }) => ({
          logicalId,
          parentArn: this.parentArnOf(type, resolver.property(logicalId, VERSION_TYPES[type])),
          fingerprint: '',
        }));
      // Numbering of state machine versions needs Lambda versions resolved (through the revision id):
      // assign Lambda versions first.
      candidates.sort(
        (a, b) => kindOrder(a.parentArn) - kindOrder(b.parentArn) || a.logicalId.localeCompare(b.logicalId),
      );
      const next = new Map<string, number>(Object.entries(this.previous?.lastVersionNumber ?? {}));
      for (const c of candidates) {
        const fingerprint = hashOf(JSON.stringify(resolver.resolvedProperties(c.logicalId)));
        // Only a Version resource of the previous template is updated in place; one that left it and
        // comes back is a new resource, and publishing it makes a new number.
        const previousArn = this.previous?.templateVersions[c.logicalId];
        const before = this.previous?.versions.find((v) => v.arn === previousArn && v.parentArn === c.parentArn);
        const alive = this.previous?.parents.some((p) => p.arn === c.parentArn) ?? false;
        const number =
          before && alive && before.fingerprint === fingerprint ? before.number : (next.get(c.parentArn) ?? 0) + 1;
        next.set(c.parentArn, Math.max(next.get(c.parentArn) ?? 0, number));
        const resource = resolver.template.Resources[c.logicalId];
        numbering.set(c.logicalId, {
          logicalId: c.logicalId,
          parentArn: c.parentArn,
          number,
          arn: qualifiedArn(c.parentArn, number),
          fingerprint,
          retainedOnDelete: isRetained(resource, 'delete'),
          retainedOnReplace: isRetained(resource, 'replace'),
        });
      }
    } catch (error) {
      this.numbering = undefined;
      throw error;
    }
    return numbering;
  }

  private parentArnOf(type: string, parent: unknown): string {
    if (typeof parent !== 'string') throw new IntrinsicResolutionError(`A ${type} names no parent`);
    return type === 'AWS::Lambda::Version' ? this.functionArnOf(parent) : parent;
  }

  /** A function ARN from what a property holds: a name, an ARN, or a qualified ARN. */
  private functionArnOf(value: unknown): string {
    if (typeof value !== 'string')
      throw new IntrinsicResolutionError(`Expected a function name or ARN, got ${JSON.stringify(value)}`);
    return value.startsWith('arn:')
      ? value.split(':').slice(0, 7).join(':')
      : lambdaFunctionArn(this.environment, nameOfArn(value));
  }

  private rolePath(logicalId: string, resolver: TemplateResolver): string {
    const path = resolver.property(logicalId, 'Path');
    return typeof path === 'string' && path !== '' ? path : '/';
  }
}

/** Lambda versions first (state machine revisions depend on them). */
function kindOrder(parentArn: string): number {
  return parentArn.includes(':lambda:') ? 0 : 1;
}

function hashOf(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\0')).digest('hex');
}

function uuidFrom(text: string): string {
  const h = hashOf(text);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** A template resolved for one deploy: its resolver and what the account holds afterwards. */
export interface ResolvedDeployment {
  readonly resolver: TemplateResolver;
  readonly context: AwsResolutionContext;
  readonly record: DeploymentRecord;
}

/** Resolves a template as a deploy of it on AWS would (after `options.previous`, if given). */
export function resolveAwsDeployment(template: CfnTemplate, options: AwsResolutionContextOptions): ResolvedDeployment {
  const context = new AwsResolutionContext(options);
  const resolver = new TemplateResolver(template, context);
  return { resolver, context, record: context.record(resolver) };
}
