import { SFNClient } from '@aws-sdk/client-sfn';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DEFAULT_LOCAL_PORT, LOCAL_CREDENTIALS, LOCAL_REGION } from '@autosave/workflow/config';
import { CliUsageError } from './errors';

/** The local engine's address when no AWS setting says otherwise. */
export const DEFAULT_LOCAL_ENDPOINT = `http://127.0.0.1:${DEFAULT_LOCAL_PORT}`;

/** Where the CLI sends its Step Functions and SQS calls, and why. */
export interface AwsTarget {
  /** Explicit endpoint; undefined lets the SDK resolve it (AWS itself, or `AWS_ENDPOINT_URL_*`). */
  readonly endpoint?: string;
  readonly region: string;
  /** Set only when the target is a local server and no credentials are configured. */
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
  /** One line saying where calls go, for messages such as "cannot reach ...". */
  readonly description: string;
  /** Set when the calls go to AWS itself: the settings that sent them there (`AWS_REGION is set`). */
  readonly awsBecause?: string;
}

type Env = Readonly<Record<string, string | undefined>>;

const isLoopback = (url: string) => /^https?:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?(\/|$)/i.test(url);

/**
 * Resolves the target from the standard AWS settings, in this order:
 * 1. `--endpoint <url>` on the command line;
 * 2. `AWS_ENDPOINT_URL_<SERVICE>` or `AWS_ENDPOINT_URL` (the SDK's own variables, e.g. LocalStack);
 * 3. `AWS_PROFILE`, `AWS_REGION`/`AWS_DEFAULT_REGION` or `AWS_ACCESS_KEY_ID`: real AWS, the SDK's chain;
 * 4. nothing set: the local engine at {@link DEFAULT_LOCAL_ENDPOINT}.
 * A loopback endpoint without configured credentials gets dummy ones, so `npx autosave runs` works on a
 * laptop with no AWS account.
 */
export function resolveAwsTarget(service: 'SFN' | 'SQS', env: Env = process.env, endpointFlag?: string): AwsTarget {
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? LOCAL_REGION;
  const hasCredentials = Boolean(env.AWS_ACCESS_KEY_ID || env.AWS_PROFILE);
  const local = (url: string, why: string): AwsTarget => ({
    endpoint: requireEndpointUrl(url, why),
    region,
    credentials: isLoopback(url) && !hasCredentials ? LOCAL_CREDENTIALS : undefined,
    description: `${url} (${why})`,
  });
  if (endpointFlag) return local(endpointFlag, '--endpoint');
  const envEndpoint = env[`AWS_ENDPOINT_URL_${service}`] ?? env.AWS_ENDPOINT_URL;
  if (envEndpoint)
    return local(envEndpoint, env[`AWS_ENDPOINT_URL_${service}`] ? `AWS_ENDPOINT_URL_${service}` : 'AWS_ENDPOINT_URL');
  const awsSettings = (['AWS_PROFILE', 'AWS_REGION', 'AWS_DEFAULT_REGION', 'AWS_ACCESS_KEY_ID'] as const).filter(
    (name) => env[name],
  );
  if (awsSettings.length > 0) {
    return {
      region,
      description: `AWS ${service} in ${region}${env.AWS_PROFILE ? ` (profile ${env.AWS_PROFILE})` : ''}`,
      awsBecause: `${awsSettings.join(' and ')} ${awsSettings.length > 1 ? 'are' : 'is'} set`,
    };
  }
  return local(DEFAULT_LOCAL_ENDPOINT, 'local engine default');
}

/**
 * An endpoint as the SDK needs it: an absolute http(s) URL. Without a scheme the SDK reads `127.0.0.1:8083` as
 * no endpoint at all and fails later on credentials, far from the cause.
 */
function requireEndpointUrl(url: string, source: string): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    // reported below
  }
  if (parsed?.protocol !== 'http:' && parsed?.protocol !== 'https:') {
    const example = /^[\w.-]+:\d+$/.test(url) ? `http://${url}` : DEFAULT_LOCAL_ENDPOINT;
    throw new CliUsageError(`${source} '${url}' is not an http(s) URL: give it with its scheme, e.g. ${example}`);
  }
  return url;
}

/**
 * A Step Functions client for the resolved target. With an explicit endpoint the SDK's host prefixes are
 * off: it would send StartSyncExecution to `sync-<host>` (the prefix AWS's `sync-states.` endpoint uses),
 * a name a local endpoint never has.
 */
export function createSfnClient(target: AwsTarget = resolveAwsTarget('SFN')): SFNClient {
  return new SFNClient({
    region: target.region,
    endpoint: target.endpoint,
    credentials: target.credentials,
    maxAttempts: 2,
    ...(target.endpoint ? { disableHostPrefix: true } : {}),
  });
}

/** An SQS client for the resolved target (the dead-letter queue). */
export function createSqsClient(target: AwsTarget = resolveAwsTarget('SQS')): SQSClient {
  return new SQSClient({
    region: target.region,
    endpoint: target.endpoint,
    credentials: target.credentials,
    maxAttempts: 2,
  });
}
