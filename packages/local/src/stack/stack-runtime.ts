import { join } from 'node:path';
import type { LambdaInvoker } from '@autosave/engine';
import type { StackStore } from '@autosave/engine/store';
import { invokeAsynchronously } from '../services/delivery';
import { matchesEventPattern, type EventPattern } from '../services/eventbridge';
import { rolloutRoutes, type RolloutState, type StepFunctionsApi } from './resource-handlers';

/** How often running rollouts (canary/linear alias shifts) are looked at, in real milliseconds. */
export const ROLLOUT_TICK_MILLIS = 1_000;
/** How long stopping waits for status-change deliveries under way. */
export const STOP_DELIVERIES_MILLIS = 2_000;

/** Where a sandbox's local endpoints and directories are. */
export interface SandboxEndpoints {
  /** The engine's port: Step Functions, SQS, Parameter Store, Secrets Manager. */
  readonly url: string;
  readonly dynamodb: string;
  readonly s3: string;
  readonly region: string;
  readonly dataDir: string;
}

/** Variables of the engine's process that reach sandboxes unchanged (test seams and local provider choices). */
export const SANDBOX_PASSTHROUGH = ['PATH', 'HOME', 'TMPDIR', 'AUTOSAVE_CRASH_POINT', 'AUTOSAVE_MODEL_SCRIPT'] as const;

/**
 * A sandbox's environment: the function's own variables from the template (resolved to local names and
 * URLs), the SDK pointed at the local services, and — the one place stack mode departs from the
 * template — the AWS-only providers swapped for their local stand-ins: SES (`AUTOSAVE_EMAIL_PROVIDER=ses`)
 * for the outbox, Bedrock for the scripted model (unless this process chose a provider), Lambda's `/tmp`
 * data directory for the engine's, so the console's outbox shows what the functions sent.
 */
export function sandboxEnvironment(
  functionVariables: Readonly<Record<string, string>>,
  local: SandboxEndpoints,
  env: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of SANDBOX_PASSTHROUGH) if (env[key] !== undefined) out[key] = env[key] as string;
  Object.assign(out, functionVariables, {
    AWS_ENDPOINT_URL_SFN: local.url,
    AWS_ENDPOINT_URL_SQS: local.url,
    AWS_ENDPOINT_URL_SSM: local.url,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: local.url,
    AWS_ENDPOINT_URL_DYNAMODB: local.dynamodb,
    AWS_ENDPOINT_URL_S3: local.s3,
    AWS_REGION: local.region,
    AWS_DEFAULT_REGION: local.region,
    // s3rver verifies signatures made with exactly these; the other local services accept any.
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    TZ: ':UTC',
  });
  if (out.AUTOSAVE_EMAIL_PROVIDER === 'ses') out.AUTOSAVE_EMAIL_PROVIDER = 'outbox';
  if (out.AUTOSAVE_MODEL_PROVIDER === 'bedrock')
    out.AUTOSAVE_MODEL_PROVIDER = env.AUTOSAVE_MODEL_PROVIDER || 'scripted';
  if ('AUTOSAVE_DATA_DIR' in out) {
    out.AUTOSAVE_DATA_DIR = local.dataDir;
    out.AUTOSAVE_OUTBOX_DIR = join(local.dataDir, 'outbox');
    out.AUTOSAVE_ACTIONS_DIR = join(local.dataDir, 'actions');
  }
  return out;
}

/** Options of {@link StackRuntime}. */
export interface StackRuntimeOptions {
  readonly store: StackStore;
  readonly invoke: LambdaInvoker;
  readonly sfn: StepFunctionsApi;
  /** Engine time (rollout steps follow the engine clock, virtual or not). */
  readonly nowMillis: () => number;
  /** Where delivery failures are reported. @default console.error */
  readonly logError?: (message: string, detail?: unknown) => void;
}

interface RuleTarget {
  readonly Arn: string;
  readonly Id?: string;
  readonly Input?: string;
}

/**
 * What the deployed stack does at run time, read from the store so it follows every deploy: EventBridge
 * rules deliver status-change events to their Lambda targets (an asynchronous invoke, retried twice as
 * Lambda does), the Function URL decides which function serves `/approvals/*`, and alias rollouts move on
 * the engine clock.
 */
export class StackRuntime {
  private ticker?: NodeJS.Timeout;
  private ticking?: Promise<void>;
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;

  constructor(private readonly options: StackRuntimeOptions) {}

  private rows(type: string) {
    return this.options.store.resources().filter((r) => r.state === 'IN_STACK' && r.type === type);
  }

  /** The function the stack's Function URL targets (served on the engine port), if it has one. */
  functionUrlTarget(): string | undefined {
    const url = this.rows('AWS::Lambda::Url')[0];
    return url ? (JSON.parse(url.attributes) as { FunctionName: string }).FunctionName : undefined;
  }

  /** Delivers an EventBridge event to the target of every enabled rule whose pattern matches it. */
  async deliver(event: Record<string, unknown>): Promise<void> {
    // Stopping: the engine keeps the close notification and delivers it at the next start.
    if (this.stopped) throw new Error('the stack runtime is stopping');
    const delivery = this.deliverNow(event);
    this.inFlight.add(delivery);
    try {
      await delivery;
    } finally {
      this.inFlight.delete(delivery);
    }
  }

  private async deliverNow(event: Record<string, unknown>): Promise<void> {
    const deliveries: Promise<void>[] = [];
    for (const row of this.rows('AWS::Events::Rule')) {
      const props = JSON.parse(row.properties) as {
        EventPattern?: EventPattern;
        State?: string;
        Targets?: RuleTarget[];
      };
      if (props.State === 'DISABLED' || !props.EventPattern || !matchesEventPattern(props.EventPattern, event))
        continue;
      for (const target of props.Targets ?? []) {
        if (!target.Arn.includes(':lambda:')) {
          this.error(
            `rule ${row.physical_id}: target ${target.Arn} is not a Lambda function; the local engine delivers only to Lambda targets`,
          );
          continue;
        }
        deliveries.push(
          this.invokeAsync(target.Arn, target.Input !== undefined ? JSON.parse(target.Input) : event, row.physical_id),
        );
      }
    }
    await Promise.all(deliveries);
  }

  private async invokeAsync(functionArn: string, payload: unknown, rule: string): Promise<void> {
    // Failed because the engine is stopping: the engine keeps the event and delivers it at the next start.
    const outcome = await invokeAsynchronously(this.options.invoke, functionArn, payload, () => this.stopped);
    if (!outcome.delivered)
      this.error(
        `rule ${rule}: ${functionArn} failed ${outcome.attempts} times; the event is dropped, as Lambda does without an on-failure destination`,
        outcome.detail,
      );
  }

  private error(message: string, detail?: unknown): void {
    (this.options.logError ?? ((m: string, d?: unknown) => console.error(`autosave local: ${m}`, d ?? '')))(
      message,
      detail,
    );
  }

  /** Moves every running rollout to the routing its elapsed time calls for (on the engine clock). */
  async tickRollouts(): Promise<void> {
    for (const row of this.rows('AWS::StepFunctions::StateMachineAlias')) {
      const attributes = JSON.parse(row.attributes) as Record<string, string>;
      if (!attributes.Rollout) continue;
      const rollout = JSON.parse(attributes.Rollout) as RolloutState;
      const routes = rolloutRoutes(rollout, this.options.nowMillis() - rollout.startedMillis);
      const current = (await this.options.sfn.handle('DescribeStateMachineAlias', {
        stateMachineAliasArn: row.physical_id,
      })) as { routingConfiguration: unknown };
      if (JSON.stringify(current.routingConfiguration) !== JSON.stringify(routes)) {
        await this.options.sfn.handle('UpdateStateMachineAlias', {
          stateMachineAliasArn: row.physical_id,
          routingConfiguration: routes,
        });
      }
      if (routes.length === 1) {
        const { Rollout: _done, ...rest } = attributes;
        this.options.store.putResource({
          ...row,
          attributes: JSON.stringify(rest),
          updated_ms: this.options.nowMillis(),
        });
      }
    }
  }

  /** Starts looking at rollouts every {@link ROLLOUT_TICK_MILLIS}. */
  start(): void {
    this.ticker ??= setInterval(() => {
      if (this.ticking) return;
      this.ticking = this.tickRollouts()
        .catch((err) => this.error('rollout step failed (tried again at the next tick)', err))
        .finally(() => (this.ticking = undefined));
    }, ROLLOUT_TICK_MILLIS);
    this.ticker.unref();
  }

  /** Stops the rollout clock and waits (bounded) for deliveries under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.ticker);
    this.ticker = undefined;
    await this.ticking;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inFlight]),
      new Promise((resolve) => (timer = setTimeout(resolve, STOP_DELIVERIES_MILLIS))),
    ]);
    clearTimeout(timer);
  }
}
