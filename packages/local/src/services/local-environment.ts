import { writeFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { LOCAL_ACCOUNT_ID, LOCAL_CREDENTIALS, LOCAL_REGION } from '@autosave/workflow/config';
import { DEFAULT_BUCKET_NAME, DEFAULT_TABLE_NAME } from '@autosave/runtime/endpoints';

/** File in the data directory that tells other processes (CLI, tests) where the local services listen. */
export const ENDPOINTS_FILE = 'endpoints.json';

/** Where the local services listen. */
export interface LocalEndpoints {
  /** Step Functions API, SQS API, console and approval pages: the one engine port. */
  readonly url: string;
  readonly dynamodb: string;
  readonly s3: string;
  readonly region: string;
  readonly accountId: string;
  /** The local dead-letter queue's URL. */
  readonly dlqUrl: string;
}

/** Writes `<dataDir>/endpoints.json` atomically (a reader never sees half a file). */
export async function writeEndpointsFile(dataDir: string, endpoints: LocalEndpoints): Promise<string> {
  const file = join(dataDir, ENDPOINTS_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(
    tmp,
    `${JSON.stringify({ ...endpoints, stepFunctions: endpoints.url, sqs: endpoints.url, console: endpoints.url }, null, 2)}\n`,
  );
  await rename(tmp, file);
  return file;
}

/** Where the outbox email provider keeps the emails the local functions send (`AUTOSAVE_OUTBOX_DIR`). */
export function localOutboxDirectory(dataDir: string): string {
  return join(dataDir, 'outbox');
}

/** Options of {@link localEnvironment}. */
export interface LocalEnvironmentOptions {
  readonly endpoints: LocalEndpoints;
  /** Absolute data directory (`AUTOSAVE_DATA_DIR`: the approval secret, outbox and action logs live under it). */
  readonly dataDir: string;
  /** Variables the user set for the functions (the config's `environment`, a model script...): kept over `base`'s. @default none */
  readonly variables?: Readonly<Record<string, string>>;
}

/**
 * The environment the local functions run with (docs/architecture.md §3): the standard SDK variables point
 * at the local services and the AUTOSAVE_* configuration is filled, so handler code runs unchanged — it is
 * the same code that runs on AWS. Endpoints, region, credentials and data-dir paths always follow this
 * engine; the choices a user may make (`AUTOSAVE_MODEL_PROVIDER`, `AUTOSAVE_EMAIL_PROVIDER`, table and
 * bucket names...) are kept when `base` or `variables` set them. A new object: `base` (the process's own
 * environment by default) is read, never written.
 */
export function localEnvironment(
  options: LocalEnvironmentOptions,
  base: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  const { endpoints, dataDir } = options;
  const env: NodeJS.ProcessEnv = { ...base, ...options.variables };
  Object.assign(env, {
    AWS_ENDPOINT_URL_SFN: endpoints.url,
    AWS_ENDPOINT_URL_SQS: endpoints.url,
    AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb,
    AWS_ENDPOINT_URL_S3: endpoints.s3,
    AWS_REGION: endpoints.region,
    AWS_DEFAULT_REGION: endpoints.region,
    // Any credentials work on every local service; handlers get these so that none need configuring.
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AUTOSAVE_DATA_DIR: dataDir,
    AUTOSAVE_DLQ_URL: endpoints.dlqUrl,
    AUTOSAVE_APPROVAL_BASE_URL: endpoints.url,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    AUTOSAVE_OUTBOX_DIR: localOutboxDirectory(dataDir),
    AUTOSAVE_ACTIONS_DIR: join(dataDir, 'actions'),
  });
  delete env.AWS_SESSION_TOKEN;
  delete env.AWS_PROFILE;
  env.AUTOSAVE_TABLE ||= DEFAULT_TABLE_NAME;
  env.AUTOSAVE_BUCKET ||= DEFAULT_BUCKET_NAME;
  env.AUTOSAVE_MODEL_PROVIDER ||= 'scripted';
  env.AUTOSAVE_EMAIL_PROVIDER ||= 'outbox';
  return env;
}

/** Endpoints with the local account and region filled in. */
export function localEndpoints(parts: { url: string; dynamodb: string; s3: string; dlqUrl: string }): LocalEndpoints {
  return { ...parts, region: LOCAL_REGION, accountId: LOCAL_ACCOUNT_ID };
}
