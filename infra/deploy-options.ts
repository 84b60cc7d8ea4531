import { Duration } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { DEFAULT_BEDROCK_MODEL_ID, DEFAULT_EMAIL_FROM } from '../lib/endpoints';

/** How a new state machine version reaches the `live` alias. */
export type RolloutKind = 'all-at-once' | 'canary' | 'linear';

/** @default `all-at-once`: the alias moves to the new version as soon as it is published. */
export const DEFAULT_ROLLOUT: RolloutKind = 'all-at-once';
/** Share of new starts routed to the new version per step of a canary/linear rollout. */
export const DEFAULT_ROLLOUT_PERCENTAGE = 10;
/** Minutes between rollout steps (canary: before the rest; linear: between increments). */
export const DEFAULT_ROLLOUT_INTERVAL_MINUTES = 5;
/** SES identity (domain or address) the send-email tool may send from. */
export const DEFAULT_EMAIL_IDENTITY = 'example.com';
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
  /** `autosave:modelId`: the Bedrock model the model step may invoke. @default DEFAULT_BEDROCK_MODEL_ID */
  readonly modelId?: string;
  /** `autosave:emailIdentity`: the SES identity send-email may use. @default {@link DEFAULT_EMAIL_IDENTITY} */
  readonly emailIdentity?: string;
  /** `autosave:emailFrom`: sender address. @default DEFAULT_EMAIL_FROM */
  readonly emailFrom?: string;
  /** `autosave:alarmEmail`: subscribe this address to the alarm topic. @default no subscription */
  readonly alarmEmail?: string;
  /** `autosave:logRetentionDays`. @default {@link DEFAULT_LOG_RETENTION_DAYS} */
  readonly logRetentionDays?: number;
}

/** {@link DeployOptions} with every default applied. */
export type ResolvedDeployOptions = Required<Omit<DeployOptions, 'alarmEmail'>> & Pick<DeployOptions, 'alarmEmail'>;

/** Applies the defaults once, refusing a log retention CloudWatch does not offer. */
export function resolveDeployOptions(options: DeployOptions = {}): ResolvedDeployOptions {
  const logRetentionDays = options.logRetentionDays ?? DEFAULT_LOG_RETENTION_DAYS;
  if (!(Object.values(RetentionDays) as number[]).includes(logRetentionDays)) {
    throw new Error(`autosave:logRetentionDays must be a CloudWatch Logs retention (1, 3, 5, 7, 14, 30, 60, 90, ...), got ${logRetentionDays}`);
  }
  return {
    rollout: options.rollout ?? DEFAULT_ROLLOUT,
    rolloutPercentage: options.rolloutPercentage ?? DEFAULT_ROLLOUT_PERCENTAGE,
    rolloutIntervalMinutes: options.rolloutIntervalMinutes ?? DEFAULT_ROLLOUT_INTERVAL_MINUTES,
    modelId: options.modelId ?? DEFAULT_BEDROCK_MODEL_ID,
    emailIdentity: options.emailIdentity ?? DEFAULT_EMAIL_IDENTITY,
    emailFrom: options.emailFrom ?? DEFAULT_EMAIL_FROM,
    alarmEmail: options.alarmEmail,
    logRetentionDays,
  };
}

const ROLLOUTS: readonly RolloutKind[] = ['all-at-once', 'canary', 'linear'];

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
  return {
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
