/**
 * `--enforce-iam`: the engine's Task calls judged against the state machine role as the deployed stack
 * defines it now, by the IAM policy simulator (AGPL, a devDependency loaded on demand by
 * lib/cloud-assembly; the engine itself knows no IAM, it only asks the {@link TaskCallAuthorizer}).
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  callRequestsOf,
  rolesOf,
  TemplateResolver,
  type AwsEnvironment,
  type CfnTemplate,
  type IamEvaluator,
  type IamRequest,
  type NamedPolicy,
} from '../cloud-assembly';
import { StatesError } from '@autosave/workflow/errors';
import type { TaskCall, TaskCallAuthorizer, TaskCallDenial } from '@autosave/engine';
import type { StackStore } from '@autosave/engine/store';
import { LocalResolutionContext, type AppliedAttributes } from './local-resolution-context';

/** The resource types a role's identity policies come from (managed policies are not emulated). */
const IAM_TYPES = ['AWS::IAM::Role', 'AWS::IAM::Policy'];

/**
 * How each integration's service reports AccessDenied to a Task, as Step Functions' (AWS SDK for Java
 * v1) clients name and word it: an unmodelled error code surfaces as the service's base exception, and
 * the cause ends with the SDK's `(Service: …; Status Code: …; Error Code: …; Request ID: …; Proxy: null)`.
 * Recorded on AWS: `Lambda.AWSLambdaException` "User: …assumed-role/… is not authorized to perform:
 * lambda:InvokeFunction on resource: … because no identity-based policy allows the lambda:InvokeFunction
 * action (Service: AWSLambda; Status Code: 403; Error Code: AccessDeniedException; …)"; SQS answers with
 * the query protocol's "Access to the resource <queue URL> is denied." (Error Code AccessDenied).
 */
const SERVICE_DENIALS: Readonly<
  Record<string, { readonly error: string; readonly service: string; readonly status: number; readonly code: string }>
> = {
  lambda: { error: 'Lambda.AWSLambdaException', service: 'AWSLambda', status: 403, code: 'AccessDeniedException' },
  dynamodb: {
    error: 'DynamoDB.AmazonDynamoDBException',
    service: 'AmazonDynamoDBv2',
    status: 400,
    code: 'AccessDeniedException',
  },
  sqs: { error: 'SQS.AmazonSQSException', service: 'AmazonSQS', status: 403, code: 'AccessDenied' },
  states: {
    error: 'StepFunctions.AWSStepFunctionsException',
    service: 'AWSStepFunctions',
    status: 400,
    code: 'AccessDeniedException',
  },
};

/** Options of {@link StackIamEnforcement}. */
export interface StackIamEnforcementOptions {
  readonly store: StackStore;
  /** The simulator (see `createIamEvaluator` in lib/cloud-assembly). */
  readonly evaluator: IamEvaluator;
  readonly environment: AwsEnvironment;
  /** The stack's name (for resolving the recorded IAM resources). */
  readonly stackName: () => string | undefined;
}

interface RolePolicies {
  readonly policies: readonly NamedPolicy[];
  /** Hash of the policies: the "policy version" decisions are cached under. */
  readonly version: string;
  /** AWS managed policies the role attaches, whose contents the template does not show. */
  readonly unresolved: readonly string[];
}

/**
 * Authorizes every Task call of the engine against the execution's role with the policies the stack
 * gives that role **now** (a state machine version pins the role ARN, not its policy: after a deploy,
 * runs on old versions are judged by the new policy, as on AWS). A role the stack does not define
 * (a registry machine, a role made outside the stack) has no identity policy, so every call is denied,
 * as IAM would. Decisions are cached per (policy version, action, resource, context).
 */
export class StackIamEnforcement {
  private roles?: Map<string, RolePolicies>;
  private readonly decisions = new Map<string, Promise<{ allowed: boolean; result: string }>>();

  constructor(private readonly options: StackIamEnforcementOptions) {}

  /** Forgets the roles read from the store (a deploy changed IAM resources); cached decisions stay valid by their policy version. */
  invalidate(): void {
    this.roles = undefined;
  }

  /** The engine's authorizer. */
  readonly authorize: TaskCallAuthorizer = async (call) => {
    const role = this.rolePolicies(call.roleArn);
    for (const request of callRequestsOf(call.resource, call.args, this.options.environment)) {
      const decision = await this.decide(role, call.roleArn, request);
      if (!decision.allowed) return denialOf(call, request, decision.result, this.options.environment);
    }
    return undefined;
  };

  /** Every role's AWS managed policies that cannot be evaluated (the boot lines list them). */
  unresolvedManagedPolicies(): string[] {
    return [...new Set([...this.readRoles().values()].flatMap((r) => r.unresolved))].sort();
  }

  private decide(
    role: RolePolicies,
    roleArn: string,
    request: IamRequest,
  ): Promise<{ allowed: boolean; result: string }> {
    const key = [role.version, request.action, request.resource, JSON.stringify(request.context ?? {})].join('\0');
    let decision = this.decisions.get(key);
    if (!decision) {
      decision = this.options.evaluator
        .evaluate(roleArn, role.policies, request)
        .then((d) => ({ allowed: d.allowed, result: d.result }));
      decision.catch(() => this.decisions.delete(key));
      this.decisions.set(key, decision);
    }
    return decision;
  }

  private rolePolicies(roleArn: string): RolePolicies {
    return this.readRoles().get(roleArn) ?? { policies: [], version: 'none', unresolved: [] };
  }

  /** The stack's roles and their identity policies, from the resources it recorded (resolved when applied). */
  private readRoles(): Map<string, RolePolicies> {
    if (this.roles) return this.roles;
    const rows = this.options.store.resources().filter((r) => IAM_TYPES.includes(r.type));
    const template: CfnTemplate = {
      Resources: Object.fromEntries(
        rows.map((r) => [
          r.logical_id,
          { Type: r.type, Properties: JSON.parse(r.properties) as Record<string, unknown> },
        ]),
      ),
    };
    const applied = new Map(rows.map((r) => [r.logical_id, JSON.parse(r.attributes) as AppliedAttributes]));
    const { region, account } = this.options.environment;
    const resolver = new TemplateResolver(
      template,
      new LocalResolutionContext({ stackName: this.options.stackName() ?? 'stack', region, account, applied }),
    );
    const roles = new Map<string, RolePolicies>();
    for (const role of rolesOf(resolver)) {
      const version = createHash('sha256').update(JSON.stringify(role.policies)).digest('hex').slice(0, 16);
      roles.set(role.arn, { policies: role.policies, version, unresolved: role.unresolvedManagedPolicies });
    }
    this.roles = roles;
    return roles;
  }
}

/** The session Step Functions' assumed-role ARN names (AWS's is random; ours is stable per run). */
function sessionName(executionArn: string): string {
  const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  return [...createHash('sha256').update(executionArn).digest()]
    .slice(0, 32)
    .map((b) => letters[b % letters.length])
    .join('');
}

/** The error and cause a denied request fails the Task with, as the service words it. */
export function denialOf(call: TaskCall, request: IamRequest, result: string, env: AwsEnvironment): TaskCallDenial {
  const service = request.action.split(':')[0];
  const roleName = call.roleArn
    .split(':')
    .slice(5)
    .join(':')
    .replace(/^role\//, '')
    .split('/')
    .pop();
  const principal = `arn:${env.partition}:sts::${call.roleArn.split(':')[4] || env.account}:assumed-role/${roleName}/${sessionName(call.executionArn)}`;
  const why =
    result === 'ExplicitlyDenied'
      ? 'with an explicit deny in an identity-based policy'
      : `because no identity-based policy allows the ${request.action} action`;
  const message =
    service === 'sqs'
      ? `Access to the resource ${sqsUrlOf(request.resource)} is denied.`
      : `User: ${principal} is not authorized to perform: ${request.action} on resource: ${request.resource} ${why}`;
  const denial = SERVICE_DENIALS[service];
  // A call of a service whose AccessDenied naming was not recorded fails the Task as States.TaskFailed.
  if (!denial) return { error: StatesError.TaskFailed, cause: message };
  return {
    error: denial.error,
    cause: `${message} (Service: ${denial.service}; Status Code: ${denial.status}; Error Code: ${denial.code}; Request ID: ${randomUUID()}; Proxy: null)`,
  };
}

/** `arn:aws:sqs:<region>:<account>:<name>` → its AWS queue URL. */
function sqsUrlOf(queueArn: string): string {
  const [, , , region, account, name] = queueArn.split(':');
  return `https://sqs.${region}.amazonaws.com/${account}/${name}`;
}
