import { Duration } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { DEFAULT_BEDROCK_MODEL_ID } from '@autosave/runtime/endpoints';
import { bedrockModelTarget, BedrockModelIdError } from '@autosave/runtime/models';

/** How a new state machine version reaches the `live` alias. */
export type RolloutKind = 'all-at-once' | 'canary' | 'linear';

/** @default `all-at-once`: the alias moves to the new version as soon as it is published. */
export const DEFAULT_ROLLOUT: RolloutKind = 'all-at-once';
/** Share of new starts routed to the new version per step of a canary/linear rollout. */
export const DEFAULT_ROLLOUT_PERCENTAGE = 10;
/** Minutes between rollout steps (canary: before the rest; linear: between increments). */
export const DEFAULT_ROLLOUT_INTERVAL_MINUTES = 5;
/** The local part of the sender when the SES identity is a domain: `autosave@<domain>`. */
export const DEFAULT_EMAIL_LOCAL_PART = 'autosave';
/** State machine logging: errors only (ALL logs every transition and costs per event). */
export const DEFAULT_STATE_MACHINE_LOG_LEVEL: StateMachineLogLevel = 'ERROR';
/** Step Functions log levels. */
export type StateMachineLogLevel = 'OFF' | 'ERROR' | 'FATAL' | 'ALL';
/** A domain nobody can verify in SES (RFC 2606 `example.*`): refused at synth. */
const UNVERIFIABLE_DOMAIN = /(^|[.@])example\.[a-z]+$/i;
/** Retention of every log group the stack creates. */
export const DEFAULT_LOG_RETENTION_DAYS = 30;
/**
 * Payload objects expire after the longest time a reference can still be read: a run may last a year
 * (Step Functions' maximum), then be redriven within 14 days of closing; a month of margin on top.
 */
export const DEFAULT_PAYLOAD_EXPIRATION = Duration.days(365 + 14 + 31);

/** Deploy-time choices, read from CDK context by infra/app.ts (`-c autosave:<name>=<value>`). */
export interface DeployOptions {
  /** `autosave:rollout`. @default {@link DEFAULT_ROLLOUT} */
  readonly rollout?: RolloutKind;
  /** `autosave:rolloutPercentage`. @default {@link DEFAULT_ROLLOUT_PERCENTAGE} */
  readonly rolloutPercentage?: number;
  /** `autosave:rolloutIntervalMinutes`. @default {@link DEFAULT_ROLLOUT_INTERVAL_MINUTES} */
  readonly rolloutIntervalMinutes?: number;
  /**
   * `autosave:modelId`: the Bedrock model the model step invokes and may invoke: a foundation model id, a
   * cross-region inference profile id (`us.anthropic.claude-…`, `eu.…`, `apac.…`, `global.…`) or the ARN
   * of either. Models that Bedrock serves on demand only through a profile need the profile id.
   * @default DEFAULT_BEDROCK_MODEL_ID
   */
  readonly modelId?: string;
  /**
   * `autosave:emailIdentity`: a **verified** SES identity (domain or address) to send email from. Without
   * one the stack sends no email at all: approval links are recorded in the run's history (shown by
   * `autosave approvals` and the console) and the email tool records the message in its result.
   * @default none (no SES)
   */
  readonly emailIdentity?: string;
  /** `autosave:emailFrom`: sender address, inside the identity. @default `autosave@<identity>`, or the identity when it is an address */
  readonly emailFrom?: string;
  /** `autosave:stateMachineLogLevel`. @default {@link DEFAULT_STATE_MACHINE_LOG_LEVEL} */
  readonly stateMachineLogLevel?: StateMachineLogLevel;
  /**
   * `autosave:approvalConcurrency`: reserved concurrency of the public approval endpoint, so a flood of
   * requests cannot use up the account's Lambda concurrency (it also caps the endpoint). @default none reserved
   */
  readonly approvalConcurrency?: number;
  /**
   * `autosave:prefixStateMachineNames`: name each state machine `<stack>-<workflow>` instead of
   * `<workflow>`, so a second stack (or a redeploy next to a retained machine from a destroyed stack)
   * does not collide. @default false
   */
  readonly prefixStateMachineNames?: boolean;
  /**
   * `autosave:localstack`: deploy to LocalStack Community, whose CloudFormation has no
   * `AWS::StepFunctions::StateMachineVersion`/`StateMachineAlias`, returns no revision id and ignores
   * `DefinitionSubstitutions` on update: definitions are written with their ARNs in place, and a custom
   * resource publishes each version and points the `live` alias at it through the Step Functions API
   * (all-at-once only); a configured SES identity is verified through the SES API. @default false
   */
  readonly localstack?: boolean;
  /** `autosave:alarmEmail`: subscribe this address to the alarm topic. @default no subscription */
  readonly alarmEmail?: string;
  /** `autosave:logRetentionDays`. @default {@link DEFAULT_LOG_RETENTION_DAYS} */
  readonly logRetentionDays?: number;
  /**
   * `autosave:tracing`: AWS X-Ray tracing of every state machine and function, so a run and the Lambda calls
   * its steps make are one trace. @default true
   */
  readonly tracing?: boolean;
}

/** Options without a default value. */
type OptionalOptions = 'alarmEmail' | 'emailIdentity' | 'emailFrom' | 'approvalConcurrency';
/** {@link DeployOptions} with every default applied. */
export type ResolvedDeployOptions = Required<Omit<DeployOptions, OptionalOptions>> &
  Pick<DeployOptions, OptionalOptions>;

/** Deploy options that cannot work on AWS. */
export class DeployOptionsError extends Error {
  override readonly name = 'DeployOptionsError';
}

/** The sender of an identity: the identity if it is an address, else `autosave@<domain>`; refuses `example.*`. */
function emailSettings(
  identity: string | undefined,
  from: string | undefined,
): { emailIdentity?: string; emailFrom?: string } {
  if (identity === undefined) {
    if (from !== undefined)
      throw new DeployOptionsError('autosave:emailFrom needs autosave:emailIdentity (a verified SES identity)');
    return {};
  }
  const sender = from ?? (identity.includes('@') ? identity : `${DEFAULT_EMAIL_LOCAL_PART}@${identity}`);
  for (const value of [identity, sender]) {
    if (UNVERIFIABLE_DOMAIN.test(value)) {
      throw new DeployOptionsError(
        `SES cannot send from "${value}": example.* domains cannot be verified. Verify your own identity, or leave autosave:emailIdentity unset (links are then recorded in the run history, no email is sent)`,
      );
    }
  }
  const domain = identity.includes('@') ? identity.split('@')[1] : identity;
  if (!(sender === identity || sender.toLowerCase().endsWith(`@${domain.toLowerCase()}`))) {
    throw new DeployOptionsError(`autosave:emailFrom "${sender}" is not inside the SES identity "${identity}"`);
  }
  return { emailIdentity: identity, emailFrom: sender };
}

/** Whether LocalStack mode is on; it publishes through the API, so only an all-at-once rollout. */
function localstackRollout(options: DeployOptions): boolean {
  const on = options.localstack ?? false;
  if (on && (options.rollout ?? DEFAULT_ROLLOUT) !== 'all-at-once') {
    throw new DeployOptionsError(
      `autosave:localstack supports only autosave:rollout=all-at-once (LocalStack has no state machine alias deployment preferences), got ${options.rollout}`,
    );
  }
  return on;
}

/** The model id, refused at synth when no grant can be derived from it. */
function checkedModelId(modelId: string): string {
  try {
    bedrockModelTarget(modelId);
    return modelId;
  } catch (error) {
    if (error instanceof BedrockModelIdError)
      throw new DeployOptionsError(`autosave:modelId: ${error.message}`, { cause: error });
    throw error;
  }
}

/** Applies the defaults once, refusing a log retention CloudWatch does not offer. */
export function resolveDeployOptions(options: DeployOptions = {}): ResolvedDeployOptions {
  const logRetentionDays = options.logRetentionDays ?? DEFAULT_LOG_RETENTION_DAYS;
  if (!(Object.values(RetentionDays) as number[]).includes(logRetentionDays)) {
    throw new Error(
      `autosave:logRetentionDays must be a CloudWatch Logs retention (1, 3, 5, 7, 14, 30, 60, 90, ...), got ${logRetentionDays}`,
    );
  }
  return {
    rollout: options.rollout ?? DEFAULT_ROLLOUT,
    rolloutPercentage: options.rolloutPercentage ?? DEFAULT_ROLLOUT_PERCENTAGE,
    rolloutIntervalMinutes: options.rolloutIntervalMinutes ?? DEFAULT_ROLLOUT_INTERVAL_MINUTES,
    modelId: checkedModelId(options.modelId ?? DEFAULT_BEDROCK_MODEL_ID),
    ...emailSettings(options.emailIdentity, options.emailFrom),
    alarmEmail: options.alarmEmail,
    logRetentionDays,
    stateMachineLogLevel: options.stateMachineLogLevel ?? DEFAULT_STATE_MACHINE_LOG_LEVEL,
    approvalConcurrency: options.approvalConcurrency,
    prefixStateMachineNames: options.prefixStateMachineNames ?? false,
    localstack: localstackRollout(options),
    tracing: options.tracing ?? true,
  };
}

const ROLLOUTS: readonly RolloutKind[] = ['all-at-once', 'canary', 'linear'];
const LOG_LEVELS: readonly StateMachineLogLevel[] = ['OFF', 'ERROR', 'FATAL', 'ALL'];

/** Reads {@link DeployOptions} from a context lookup (`node.tryGetContext`), refusing unknown rollout kinds. */
export function deployOptionsFromContext(get: (key: string) => unknown): DeployOptions {
  const str = (key: string): string | undefined => {
    const v = get(`autosave:${key}`);
    return v === undefined || v === null || v === '' ? undefined : String(v);
  };
  const num = (key: string): number | undefined => {
    const v = str(key);
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isFinite(n)) throw new Error(`Context autosave:${key} must be a number, got "${v}"`);
    return n;
  };
  const rollout = str('rollout');
  if (rollout !== undefined && !(ROLLOUTS as readonly string[]).includes(rollout)) {
    throw new Error(`Context autosave:rollout must be one of ${ROLLOUTS.join(', ')}, got "${rollout}"`);
  }
  const logLevel = str('stateMachineLogLevel');
  if (logLevel !== undefined && !LOG_LEVELS.includes(logLevel as StateMachineLogLevel)) {
    throw new Error(`Context autosave:stateMachineLogLevel must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  const prefix = str('prefixStateMachineNames');
  const localstack = str('localstack');
  const tracing = str('tracing');
  return {
    tracing: tracing === undefined ? undefined : tracing === 'true',
    localstack: localstack === undefined ? undefined : localstack === 'true',
    stateMachineLogLevel: logLevel as StateMachineLogLevel | undefined,
    approvalConcurrency: num('approvalConcurrency'),
    prefixStateMachineNames: prefix === undefined ? undefined : prefix === 'true',
    rollout: rollout as RolloutKind | undefined,
    rolloutPercentage: num('rolloutPercentage'),
    rolloutIntervalMinutes: num('rolloutIntervalMinutes'),
    modelId: str('modelId'),
    emailIdentity: str('emailIdentity'),
    emailFrom: str('emailFrom'),
    alarmEmail: str('alarmEmail'),
    logRetentionDays: num('logRetentionDays'),
  };
}
