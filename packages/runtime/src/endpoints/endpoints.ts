/**
 * Runtime configuration from the environment (docs/architecture.md §3). The SDK client factories are in
 * lib/aws-clients, so that reading the configuration (the local engine does at start) loads no SDK client.
 *
 * The SDK itself honours `AWS_ENDPOINT_URL` and `AWS_ENDPOINT_URL_<SERVICE>` (DynamoDB, S3, SQS, SFN, ...),
 * so the factories only add what the SDK cannot guess: a region when none is set, and path-style S3
 * addressing when S3 points at a local server (s3rver has no virtual-host buckets). Credentials come from
 * the ordinary provider chain; the local engine sets them in the environment for s3rver and dynalite.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { DEFAULT_LOCAL_DATA_DIR, DEFAULT_LOCAL_PORT, LOCAL_ACCOUNT_ID, LOCAL_REGION } from '@autosave/workflow/config';
import { runtimeEnvironment } from './environment';

/** @default `autosave` — the table for idempotency (`idem#`), model (`model#`) and approval (`approval#`) records. */
export const DEFAULT_TABLE_NAME = 'autosave';
/** @default `autosave-payloads` — the bucket for payload references. */
export const DEFAULT_BUCKET_NAME = 'autosave-payloads';
/** Name of the local dead-letter queue. */
export const DEFAULT_DLQ_NAME = 'autosave-dlq';
/** Base of approval links when none is configured: the local engine's port. */
export const DEFAULT_APPROVAL_BASE_URL = `http://127.0.0.1:${DEFAULT_LOCAL_PORT}`;
/** Bedrock model used when a model step names none. */
export const DEFAULT_BEDROCK_MODEL_ID = 'anthropic.claude-3-5-haiku-20241022-v1:0';
/** Sender address of emails when none is configured. */
export const DEFAULT_EMAIL_FROM = 'autosave@example.com';

/** Which model provider the model-step Lambda uses. */
export type ModelProviderKind = 'bedrock' | 'scripted';
/** Which email provider the `send-email` tool uses. */
export type EmailProviderKind = 'ses' | 'outbox';

/** The runtime's configuration, read once from the environment by {@link loadRuntimeConfig}. */
export interface RuntimeConfig {
  /** `AUTOSAVE_TABLE`. @default {@link DEFAULT_TABLE_NAME} */
  readonly table: string;
  /** `AUTOSAVE_BUCKET`. @default {@link DEFAULT_BUCKET_NAME} */
  readonly bucket: string;
  /** `AUTOSAVE_DLQ_URL`. @default the local engine's `autosave-dlq` queue URL */
  readonly dlqUrl: string;
  /** `AUTOSAVE_APPROVAL_BASE_URL`, without a trailing slash. @default {@link DEFAULT_APPROVAL_BASE_URL} */
  readonly approvalBaseUrl: string;
  /** `AUTOSAVE_APPROVAL_SECRET`: literal signing secret(s), comma-separated, newest first. */
  readonly approvalSecret?: string;
  /** `AUTOSAVE_APPROVAL_SECRET_PARAMETER`: SSM SecureString holding the secret(s) (AWS). */
  readonly approvalSecretParameter?: string;
  /** `AUTOSAVE_MODEL_PROVIDER`. @default `scripted` */
  readonly modelProvider: ModelProviderKind;
  /** `AUTOSAVE_MODEL_SCRIPT`: the scripted model's JSON file. @default none (a model call then fails saying so) */
  readonly modelScript?: string;
  /** `AUTOSAVE_MODEL_ID`: Bedrock model when a step names none. @default {@link DEFAULT_BEDROCK_MODEL_ID} */
  readonly modelId: string;
  /** `AUTOSAVE_EMAIL_PROVIDER`. @default `outbox` */
  readonly emailProvider: EmailProviderKind;
  /** `AUTOSAVE_EMAIL_FROM`. @default {@link DEFAULT_EMAIL_FROM} */
  readonly emailFrom: string;
  /** `AUTOSAVE_DATA_DIR`: the local engine's data directory. @default {@link DEFAULT_LOCAL_DATA_DIR} */
  readonly dataDir: string;
  /** `AUTOSAVE_OUTBOX_DIR`. @default `<dataDir>/outbox` */
  readonly outboxDir: string;
  /** `AUTOSAVE_ACTIONS_DIR`: where the onboarding fakes record their actions. @default `<dataDir>/actions` */
  readonly actionsDir: string;
}

/** Reads {@link RuntimeConfig} from an environment (default {@link runtimeEnvironment}), applying the documented defaults. */
export function loadRuntimeConfig(env: NodeJS.ProcessEnv = runtimeEnvironment()): RuntimeConfig {
  const dataDir = env.AUTOSAVE_DATA_DIR || DEFAULT_LOCAL_DATA_DIR;
  return {
    table: env.AUTOSAVE_TABLE || DEFAULT_TABLE_NAME,
    bucket: env.AUTOSAVE_BUCKET || DEFAULT_BUCKET_NAME,
    dlqUrl:
      env.AUTOSAVE_DLQ_URL ||
      `${withoutTrailingSlash(env.AWS_ENDPOINT_URL_SQS || DEFAULT_APPROVAL_BASE_URL)}/${LOCAL_ACCOUNT_ID}/${DEFAULT_DLQ_NAME}`,
    approvalBaseUrl: withoutTrailingSlash(env.AUTOSAVE_APPROVAL_BASE_URL || DEFAULT_APPROVAL_BASE_URL),
    approvalSecret: env.AUTOSAVE_APPROVAL_SECRET || undefined,
    approvalSecretParameter: env.AUTOSAVE_APPROVAL_SECRET_PARAMETER || undefined,
    modelProvider: oneOf(env.AUTOSAVE_MODEL_PROVIDER, ['bedrock', 'scripted'] as const, 'scripted'),
    modelScript: env.AUTOSAVE_MODEL_SCRIPT || undefined,
    modelId: env.AUTOSAVE_MODEL_ID || DEFAULT_BEDROCK_MODEL_ID,
    emailProvider: oneOf(env.AUTOSAVE_EMAIL_PROVIDER, ['ses', 'outbox'] as const, 'outbox'),
    emailFrom: env.AUTOSAVE_EMAIL_FROM || DEFAULT_EMAIL_FROM,
    dataDir,
    outboxDir: env.AUTOSAVE_OUTBOX_DIR || join(dataDir, 'outbox'),
    actionsDir: env.AUTOSAVE_ACTIONS_DIR || join(dataDir, 'actions'),
  };
}

const withoutTrailingSlash = (url: string): string => url.replace(/(?<!\/)\/+$/, '');

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (!value) return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new Error(`Expected one of ${allowed.join(', ')}, got "${value}"`);
}

/** The region clients use: `AWS_REGION`, then `AWS_DEFAULT_REGION`, then the local region. */
export function awsRegion(env: NodeJS.ProcessEnv = runtimeEnvironment()): string {
  return env.AWS_REGION || env.AWS_DEFAULT_REGION || LOCAL_REGION;
}

/** File holding the generated local approval secret inside the data directory. */
export const LOCAL_APPROVAL_SECRET_FILE = 'approval-secret';

/**
 * The approval signing secrets, newest first (older ones still verify, so a key can rotate):
 * `AUTOSAVE_APPROVAL_SECRET` (comma-separated), else the SSM SecureString named by
 * `AUTOSAVE_APPROVAL_SECRET_PARAMETER`, else a secret generated once into `<dataDir>/approval-secret`
 * (local runs only).
 */
export async function loadApprovalSecrets(config: RuntimeConfig): Promise<string[]> {
  if (config.approvalSecret) return splitSecrets(config.approvalSecret);
  if (config.approvalSecretParameter) {
    const { SSMClient, GetParameterCommand } = await import('@aws-sdk/client-ssm');
    const ssm = new SSMClient({ region: awsRegion() });
    const out = await ssm.send(new GetParameterCommand({ Name: config.approvalSecretParameter, WithDecryption: true }));
    return splitSecrets(out.Parameter?.Value ?? '');
  }
  const file = join(config.dataDir, LOCAL_APPROVAL_SECRET_FILE);
  mkdirSync(config.dataDir, { recursive: true });
  try {
    // 'wx': the first process to get here writes the secret; everyone else reads that one.
    writeFileSync(file, randomBytes(32).toString('base64url'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return splitSecrets(readFileSync(file, 'utf8'));
}

function splitSecrets(value: string): string[] {
  const secrets = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (secrets.length === 0) throw new Error('The approval signing secret is empty');
  return secrets;
}
