/**
 * The function registry: every Lambda of the runtime, read by local/ (the in-process runner runs each as
 * function `autosave-<name>`) and by infra/ (one NodejsFunction each, with grants from `needs`).
 */
import { fileURLToPath } from 'node:url';

/**
 * What a function touches, for least-privilege grants and environment:
 * - `table`: read/write the runtime's DynamoDB table (`AUTOSAVE_TABLE`)
 * - `bucket`: read/write payload objects (`AUTOSAVE_BUCKET`)
 * - `dlq`: send to / consume from the dead-letter queue (`AUTOSAVE_DLQ_URL`)
 * - `sfn`: Step Functions calls (approval-endpoint: SendTaskSuccess; run-monitor: DescribeExecution,
 *   GetExecutionHistory; redrive: RedriveExecution)
 * - `bedrock`: bedrock:InvokeModel (Converse)
 * - `ses`: ses:SendEmail (when `AUTOSAVE_EMAIL_PROVIDER=ses`)
 * - `secret`: read the approval signing secret (`AUTOSAVE_APPROVAL_SECRET_PARAMETER`, SSM SecureString)
 */
export type FunctionNeed = 'table' | 'bucket' | 'dlq' | 'sfn' | 'bedrock' | 'ses' | 'secret';

/** A Lambda handler (event, optional context). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each handler declares its own event and context types
export type RegisteredHandler = (event: any, context?: any) => Promise<unknown>;

/** One function of the runtime. */
export interface FunctionSpec {
  /** e.g. `tool-step`; locally the function is `autosave-<name>`. */
  readonly name: string;
  /** The handler's export name in `entry` (always `handler`). */
  readonly handler: string;
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
  /** Absolute path of the handler's source file (the esbuild entry). */
  readonly entry: string;
  readonly needs: readonly FunctionNeed[];
  /** Imports the handler module on first use (so reading the registry, e.g. in CDK, loads no handler code). */
  readonly load: () => Promise<RegisteredHandler>;
}

/** Prefix of local function names. */
export const LOCAL_FUNCTION_PREFIX = 'autosave-';
/** The local function name of a registry entry: `autosave-<name>`. */
export const localFunctionName = (name: string): string => LOCAL_FUNCTION_PREFIX + name;

type HandlerModule = Promise<{ handler: RegisteredHandler }>;

/** `load` imports its module by a literal path, so the CLI bundle (bin/cli-bundle.js) carries every handler. */
function fn(
  name: string,
  timeoutSeconds: number,
  memoryMb: number,
  needs: readonly FunctionNeed[],
  load: () => HandlerModule,
): FunctionSpec {
  const entry = fileURLToPath(new URL(`./${name}.ts`, import.meta.url));
  return { name, handler: 'handler', timeoutSeconds, memoryMb, entry, needs, load: async () => (await load()).handler };
}

/** Every function of the runtime. */
export const functions: readonly FunctionSpec[] = [
  fn('model-step', 300, 512, ['table', 'bucket', 'bedrock'], () => import('./model-step')),
  // tool-step's lease is its remaining time: a short timeout keeps a crashed attempt from blocking retries long.
  fn('tool-step', 60, 512, ['table', 'bucket', 'ses'], () => import('./tool-step')),
  fn('approval-request', 30, 256, ['table', 'secret', 'ses'], () => import('./approval-request')),
  fn('approval-endpoint', 15, 256, ['table', 'secret', 'sfn'], () => import('./approval-endpoint')),
  fn('run-monitor', 30, 256, ['sfn', 'dlq', 'table'], () => import('./run-monitor')),
  fn('redrive', 60, 256, ['sfn', 'dlq'], () => import('./redrive')),
];

export default functions;

/** The registry entry of `name` (with or without the `autosave-` prefix). @throws Error for an unknown name */
export function functionSpec(name: string): FunctionSpec {
  const bare = name.startsWith(LOCAL_FUNCTION_PREFIX) ? name.slice(LOCAL_FUNCTION_PREFIX.length) : name;
  const spec = functions.find((f) => f.name === bare);
  if (!spec) throw new Error(`Unknown function "${name}"; known: ${functions.map((f) => f.name).join(', ')}`);
  return spec;
}
