/**
 * The numbers that matter, defined once. The workflow compiler, the runtime, the local engine and the
 * CDK stack all read them from here.
 */

/** Retries of a failed Task after its first attempt (ASL `MaxAttempts`). */
export const MAX_ATTEMPTS = 5;
/** First retry delay (ASL `IntervalSeconds`). */
export const RETRY_INTERVAL_SECONDS = 2;
/** Growth of the retry delay per attempt (ASL `BackoffRate`). */
export const RETRY_BACKOFF_RATE = 2;
/** Cap on one retry delay (ASL `MaxDelaySeconds`): 2 s doubling five times stays under a minute. */
export const RETRY_MAX_DELAY_SECONDS = 60;

/**
 * The retrier for a live idempotency claim held by another attempt (a crashed Lambda's claim lives for
 * its remaining time, at most the tool-step timeout). Its delays are not jittered on purpose: their sum
 * must outlast that lease for certain, 5 + 10 + 20 + 30 x 5 = 185 s, and a collision on one key is a
 * single retrying run, not a fleet that needs spreading.
 */
export const LEASE_WAIT_RETRY = {
  intervalSeconds: 5,
  maxAttempts: 8,
  backoffRate: 2,
  maxDelaySeconds: 30,
} as const;

/** Payloads larger than this never travel inline in a state; they go by S3 reference. */
export const PAYLOAD_INLINE_LIMIT_BYTES = 100 * 1024;
/** Step Functions' hard limit on any state input/output, task result or execution input (UTF-8 bytes). */
export const STATES_PAYLOAD_LIMIT_BYTES = 256 * 1024;

/** Step Functions' hard limit on a state machine definition (API reference: `definition` at most 1,048,576). */
export const DEFINITION_LIMIT_BYTES = 1024 * 1024;
/**
 * Deepest nesting of arrays and objects the local engine accepts in a definition, an execution input or a
 * task output. The service documents no figure; 1,000 is the default of Jackson (the JSON parser of
 * AWS's Java stack) and far beyond any real payload, and it keeps every recursive walk of the engine
 * (JSONata, JSONPath, payload templates, structured clones) well inside the call stack.
 */
export const MAX_JSON_NESTING_DEPTH = 1000;

/** Longest state machine, alias or execution name the service accepts. */
export const MAX_NAME_LENGTH = 80;
/** Longest state name Step Functions accepts. */
export const MAX_STATE_NAME_LENGTH = 80;
/** Versions one state machine may have. */
export const MAX_VERSIONS_PER_STATE_MACHINE = 1000;
/** Aliases one state machine may have. */
export const MAX_ALIASES_PER_STATE_MACHINE = 100;
/** Longest task token the API accepts. */
export const MAX_TASK_TOKEN_LENGTH = 2048;
/** Largest page the list operations return. */
export const MAX_PAGE_SIZE = 1000;
/** Most items `range()` produces (Step Functions' limit for `States.ArrayRange`). */
export const MAX_RANGE_ITEMS = 1000;

/** Step Functions' hard limit on events in one execution's history. */
export const HISTORY_EVENT_LIMIT = 25_000;
/** How long the service keeps a closed execution (and its history) before it is gone: 90 days. */
export const CLOSED_EXECUTION_RETENTION_DAYS = 90;

/** The longest an EXPRESS run may last: the service times it out after five minutes, whatever its definition says. */
export const EXPRESS_MAX_DURATION_SECONDS = 300;
/**
 * Longest delay a Wait state accepts, in seconds (2^31 - 1, about 68 years; recorded on AWS: 24,855 days
 * waits, 24,856 days fails with `States.Runtime` "Wait state delay is too long.").
 */
export const MAX_WAIT_DELAY_SECONDS = 2 ** 31 - 1;
/** Share of the history limit a workflow may plan to use; the rest is headroom for retries. */
export const HISTORY_BUDGET_FRACTION = 0.8;
/** Events an execution may plan to write before it must continue as new. */
export const HISTORY_EVENT_BUDGET = Math.floor(HISTORY_EVENT_LIMIT * HISTORY_BUDGET_FRACTION);

/** Default timeout of a human approval: 7 days. */
export const DEFAULT_APPROVAL_TIMEOUT_SECONDS = 7 * 24 * 60 * 60;
/** Default number of agent-loop turns after which a run continues as new. */
export const DEFAULT_CONTINUE_AS_NEW_TURNS = 1_000;
/** Default agent-loop turn cap. */
export const DEFAULT_MAX_TURNS = 50;

/** How long idempotency, model-call and approval records live (DynamoDB TTL): 30 days. */
export const DEFAULT_RECORD_TTL_SECONDS = 30 * 24 * 60 * 60;

/** The alias that callers start every workflow through. */
export const LIVE_ALIAS_NAME = 'live';

/** Account and region the local engine uses in every ARN it makes. */
export const LOCAL_ACCOUNT_ID = '123456789012';
export const LOCAL_REGION = 'us-east-1';
/**
 * Credentials every client of a local server uses (the engine's Step Functions and SQS APIs, dynalite,
 * s3rver). Every local server takes any credentials (the local S3 through a proxy that hands s3rver its own
 * key); these are s3rver's, so a client pointed at s3rver directly works too.
 */
export const LOCAL_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;
/** Default port of the local engine (Step Functions API, SQS API, console and approval pages). */
export const DEFAULT_LOCAL_PORT = 8083;
/** Default data directory of the local engine. */
export const DEFAULT_LOCAL_DATA_DIR = '.autosave';
