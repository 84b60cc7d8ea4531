/**
 * The emulated EventBridge: event buses (`default` always there), rules with event patterns, and targets
 * — Lambda functions (invoked asynchronously with the event), SQS queues (the event as the message body),
 * state machines (StartExecution with the event as input) and SNS topics — with `Input` and `InputPath`
 * as EventBridge applies them. PutEvents checks each entry as EventBridge does (a failed entry fails alone,
 * the others are put) and delivers to every enabled rule whose pattern matches (event-pattern.ts).
 * Served to Tasks through the engine's {@link ServiceApi} port (`events:putEvents`, `aws-sdk:eventbridge:<action>`).
 * Buses and rules persist in a JSON file; the newest events are kept in memory for the console.
 */
import { randomUUID } from 'node:crypto';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION, systemClock, type Clock } from '@autosave/workflow/config';
import { EMULATED_API_ACTIONS, ServiceFault, type ServiceApi, type TaskCallContext } from '@autosave/engine';
import { targetKind, type DeliveryTargets } from '../delivery';
import { JsonStateFile } from '../json-state-file';
import { eventPatternProblem, matchesEventPattern, type EventPattern } from './event-pattern';

/** Options of {@link LocalEventBridge}. */
export interface LocalEventBridgeOptions {
  readonly targets: DeliveryTargets;
  /**
   * Publishes to an SNS topic (a rule target that is a topic), saying which rule on which bus delivers it and the
   * run that put the event (absent when it came from outside a run). @default topics are not delivered to
   */
  readonly publishToTopic?: (
    topicArn: string,
    message: string,
    delivery: { readonly rule: string; readonly bus: string; readonly executionArn?: string },
  ) => Promise<void>;
  /** The JSON file buses and rules persist in. @default in memory only */
  readonly file?: string;
  /** @default systemClock */
  readonly clock?: Clock;
  /** @default LOCAL_REGION */
  readonly region?: string;
  /** @default LOCAL_ACCOUNT_ID */
  readonly accountId?: string;
  /** How many events the console can show. @default 200 */
  readonly keepEvents?: number;
}

/** A rule target as PutTargets takes it. */
export interface RuleTarget {
  readonly Id: string;
  readonly Arn: string;
  readonly Input?: string;
  readonly InputPath?: string;
  readonly SqsParameters?: { readonly MessageGroupId?: string };
}

/** A rule. */
export interface EventRule {
  readonly name: string;
  readonly bus: string;
  readonly arn: string;
  pattern?: string;
  state: 'ENABLED' | 'DISABLED';
  description?: string;
  scheduleExpression?: string;
  targets: RuleTarget[];
}

/** An event put on a bus, as the console lists it. */
export interface PutEvent {
  readonly bus: string;
  readonly event: Record<string, unknown>;
  /** The rules it matched. */
  readonly rules: readonly string[];
  /** The run whose Task put it (absent for an event put from outside a run). */
  readonly executionArn?: string;
}

type Input = Record<string, unknown>;

const DEFAULT_BUS = 'default';

export class LocalEventBridge implements ServiceApi {
  private readonly buses = new Set<string>([DEFAULT_BUS]);
  private readonly rules = new Map<string, EventRule>();
  private readonly events: PutEvent[] = [];
  private readonly clock: Clock;
  private readonly region: string;
  private readonly accountId: string;
  private readonly state?: JsonStateFile<{ buses: string[]; rules: EventRule[] }>;

  constructor(private readonly options: LocalEventBridgeOptions) {
    this.clock = options.clock ?? systemClock;
    this.region = options.region ?? LOCAL_REGION;
    this.accountId = options.accountId ?? LOCAL_ACCOUNT_ID;
    if (options.file) {
      this.state = new JsonStateFile(options.file);
      const saved = this.state.read();
      for (const b of saved?.buses ?? []) this.buses.add(b);
      for (const r of saved?.rules ?? []) this.rules.set(`${r.bus}/${r.name}`, r);
    }
  }

  /** Every bus with its rules (the console). */
  list(): { bus: string; rules: EventRule[] }[] {
    return [...this.buses].map((bus) => ({ bus, rules: [...this.rules.values()].filter((r) => r.bus === bus) }));
  }

  /** The newest events, newest first (the console). */
  recentEvents(): readonly PutEvent[] {
    return [...this.events].reverse();
  }

  private busArn(name: string): string {
    return `arn:aws:events:${this.region}:${this.accountId}:event-bus/${name}`;
  }

  /** A bus named by name or ARN; NotFound ResourceNotFoundException when it does not exist. */
  private bus(nameOrArn: unknown): string {
    const name =
      typeof nameOrArn === 'string' && nameOrArn !== '' ? nameOrArn.slice(nameOrArn.lastIndexOf('/') + 1) : DEFAULT_BUS;
    if (!this.buses.has(name))
      throw new ServiceFault('ResourceNotFoundException', `Event bus ${name} does not exist.`, 400);
    return name;
  }

  private rule(input: Input): EventRule {
    const bus = this.bus(input.EventBusName);
    const rule = this.rules.get(`${bus}/${String(input.Name ?? input.Rule)}`);
    if (!rule)
      throw new ServiceFault(
        'ResourceNotFoundException',
        `Rule ${String(input.Name ?? input.Rule)} does not exist on EventBus ${bus}.`,
        400,
      );
    return rule;
  }

  async call(action: string, input: Input, context?: TaskCallContext): Promise<Record<string, unknown>> {
    switch (action as (typeof EMULATED_API_ACTIONS.eventbridge)[number]) {
      case 'PutEvents':
        return this.putEvents(input, context);
      case 'CreateEventBus': {
        const name = String(input.Name ?? '');
        if (!/^[/.\-_A-Za-z0-9]{1,256}$/.test(name) || name === DEFAULT_BUS)
          throw new ServiceFault(
            'ValidationException',
            `1 validation error detected: Value '${name}' at 'name' failed to satisfy constraint`,
            400,
          );
        if (this.buses.has(name))
          throw new ServiceFault('ResourceAlreadyExistsException', `Event bus ${name} already exists.`, 400);
        this.buses.add(name);
        this.save();
        return { EventBusArn: this.busArn(name) };
      }
      case 'DeleteEventBus': {
        const name = String(input.Name ?? '');
        if (name !== DEFAULT_BUS && this.buses.delete(name)) {
          for (const [key, rule] of this.rules) if (rule.bus === name) this.rules.delete(key);
          this.save();
        }
        return {};
      }
      case 'DescribeEventBus': {
        const name = this.bus(input.Name);
        return { Name: name, Arn: this.busArn(name) };
      }
      case 'ListEventBuses':
        return { EventBuses: [...this.buses].map((name) => ({ Name: name, Arn: this.busArn(name) })) };
      case 'PutRule':
        return this.putRule(input);
      case 'DescribeRule': {
        const r = this.rule(input);
        return {
          Name: r.name,
          Arn: r.arn,
          ...(r.pattern !== undefined ? { EventPattern: r.pattern } : {}),
          ...(r.scheduleExpression !== undefined ? { ScheduleExpression: r.scheduleExpression } : {}),
          State: r.state,
          ...(r.description !== undefined ? { Description: r.description } : {}),
          EventBusName: r.bus,
        };
      }
      case 'DeleteRule': {
        const r = this.rule(input);
        if (r.targets.length > 0)
          throw new ServiceFault('ValidationException', "Rule can't be deleted since it has targets.", 400);
        this.rules.delete(`${r.bus}/${r.name}`);
        this.save();
        return {};
      }
      case 'ListRules': {
        const bus = this.bus(input.EventBusName);
        const prefix = typeof input.NamePrefix === 'string' ? input.NamePrefix : '';
        return {
          Rules: [...this.rules.values()]
            .filter((r) => r.bus === bus && r.name.startsWith(prefix))
            .map((r) => ({
              Name: r.name,
              Arn: r.arn,
              State: r.state,
              EventBusName: r.bus,
              ...(r.pattern !== undefined ? { EventPattern: r.pattern } : {}),
            })),
        };
      }
      case 'EnableRule':
      case 'DisableRule': {
        const r = this.rule(input);
        r.state = action === 'EnableRule' ? 'ENABLED' : 'DISABLED';
        this.save();
        return {};
      }
      case 'PutTargets': {
        const r = this.rule(input);
        for (const t of (Array.isArray(input.Targets) ? input.Targets : []) as RuleTarget[]) {
          r.targets = [
            ...r.targets.filter((x) => x.Id !== t.Id),
            {
              Id: t.Id,
              Arn: t.Arn,
              ...(t.Input !== undefined ? { Input: t.Input } : {}),
              ...(t.InputPath !== undefined ? { InputPath: t.InputPath } : {}),
              ...(t.SqsParameters ? { SqsParameters: t.SqsParameters } : {}),
            },
          ];
        }
        this.save();
        return { FailedEntryCount: 0, FailedEntries: [] };
      }
      case 'RemoveTargets': {
        const r = this.rule(input);
        const ids = new Set((Array.isArray(input.Ids) ? input.Ids : []).map(String));
        r.targets = r.targets.filter((t) => !ids.has(t.Id));
        this.save();
        return { FailedEntryCount: 0, FailedEntries: [] };
      }
      case 'ListTargetsByRule':
        return { Targets: this.rule(input).targets };
      default:
        throw new ServiceFault(
          'UnknownOperationException',
          `The action ${action} is not served by the local EventBridge.`,
          400,
        );
    }
  }

  private putRule(input: Input): Record<string, unknown> {
    const bus = this.bus(input.EventBusName);
    const name = String(input.Name ?? '');
    if (!/^[.\-_A-Za-z0-9]{1,64}$/.test(name))
      throw new ServiceFault(
        'ValidationException',
        `1 validation error detected: Value '${name}' at 'name' failed to satisfy constraint`,
        400,
      );
    const pattern = typeof input.EventPattern === 'string' ? input.EventPattern : undefined;
    if (pattern === undefined && input.ScheduleExpression === undefined)
      throw new ServiceFault(
        'ValidationException',
        'Parameter(s) EventPattern or ScheduleExpression must be specified.',
        400,
      );
    if (pattern !== undefined) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(pattern);
      } catch {
        throw new ServiceFault(
          'InvalidEventPatternException',
          'Event pattern is not valid. Reason: Filter is not valid JSON',
          400,
        );
      }
      const problem = eventPatternProblem(parsed);
      if (problem)
        throw new ServiceFault('InvalidEventPatternException', `Event pattern is not valid. Reason: ${problem}`, 400);
    }
    const key = `${bus}/${name}`;
    const arn = `arn:aws:events:${this.region}:${this.accountId}:rule/${bus === DEFAULT_BUS ? '' : `${bus}/`}${name}`;
    const existing = this.rules.get(key);
    this.rules.set(key, {
      name,
      bus,
      arn,
      ...(pattern !== undefined ? { pattern } : {}),
      state: input.State === 'DISABLED' ? 'DISABLED' : 'ENABLED',
      ...(typeof input.Description === 'string' ? { description: input.Description } : {}),
      ...(typeof input.ScheduleExpression === 'string' ? { scheduleExpression: input.ScheduleExpression } : {}),
      targets: existing?.targets ?? [],
    });
    this.save();
    return { RuleArn: arn };
  }

  /** PutEvents: each entry checked alone, as EventBridge answers it. */
  private putEvents(input: Input, context?: TaskCallContext): Record<string, unknown> {
    const entries = Array.isArray(input.Entries) ? (input.Entries as Input[]) : [];
    if (entries.length === 0 || entries.length > 10)
      throw new ServiceFault(
        'ValidationException',
        `1 validation error detected: Value at 'entries' failed to satisfy constraint: Member must have length between 1 and 10`,
        400,
      );
    if (entries.reduce((total, entry) => total + entryBytes(entry), 0) > PUT_EVENTS_LIMIT_BYTES) {
      throw new ServiceFault('ValidationException', 'Total size of the entries in the request is over the limit.', 400);
    }
    const results = entries.map((entry) => this.putEntry(entry, context));
    return { Entries: results, FailedEntryCount: results.filter((r) => 'ErrorCode' in r).length };
  }

  private putEntry(entry: Input, context?: TaskCallContext): Record<string, unknown> {
    const invalid = (field: string) => ({
      ErrorCode: 'InvalidArgument',
      ErrorMessage: `Parameter ${field} is not valid. Reason: ${field} is a required argument.`,
    });
    if (typeof entry.Source !== 'string' || entry.Source === '') return invalid('Source');
    if (typeof entry.DetailType !== 'string' || entry.DetailType === '') return invalid('DetailType');
    if (typeof entry.Detail !== 'string') return invalid('Detail');
    let detail: unknown;
    try {
      detail = JSON.parse(entry.Detail);
    } catch {
      detail = undefined;
    }
    // The detail must be a JSON object (recorded: test_put_events_malformed_detail, a JSON string is malformed).
    if (detail === null || typeof detail !== 'object' || Array.isArray(detail))
      return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' };
    let bus: string;
    try {
      bus = this.bus(entry.EventBusName);
    } catch (err) {
      return { ErrorCode: 'NotFoundException', ErrorMessage: (err as Error).message };
    }
    const id = randomUUID();
    const time = entry.Time !== undefined ? new Date(entry.Time as string | number) : new Date(this.clock.now());
    // The event as rules and targets see it (EventBridge User Guide, "Amazon EventBridge events").
    const event: Record<string, unknown> = {
      version: '0',
      id,
      'detail-type': entry.DetailType,
      source: entry.Source,
      account: this.accountId,
      time: time.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      region: this.region,
      resources: Array.isArray(entry.Resources) ? entry.Resources : [],
      detail,
    };
    const matched: string[] = [];
    for (const rule of this.rules.values()) {
      if (
        rule.bus !== bus ||
        rule.state !== 'ENABLED' ||
        rule.pattern === undefined ||
        !matchesEventPattern(JSON.parse(rule.pattern) as EventPattern, event)
      )
        continue;
      matched.push(rule.name);
      for (const target of rule.targets)
        this.deliver(target, event, {
          rule: rule.name,
          bus,
          ...(context ? { executionArn: context.executionArn } : {}),
        });
    }
    this.events.push({ bus, event, rules: matched, ...(context ? { executionArn: context.executionArn } : {}) });
    if (this.events.length > (this.options.keepEvents ?? 200)) this.events.shift();
    return { EventId: id };
  }

  /** Sends the event (or the target's `Input`, or the part `InputPath` selects) to one target. */
  private deliver(
    target: RuleTarget,
    event: Record<string, unknown>,
    delivery: { readonly rule: string; readonly bus: string; readonly executionArn?: string },
  ): void {
    const payload: unknown =
      target.Input !== undefined
        ? JSON.parse(target.Input)
        : target.InputPath !== undefined
          ? selectPath(event, target.InputPath)
          : event;
    const text = JSON.stringify(payload);
    const targets = this.options.targets;
    switch (targetKind(target.Arn)) {
      case 'lambda':
        return targets.deliver({ kind: 'lambda', arn: target.Arn, event: payload });
      case 'sqs':
        return targets.deliver({
          kind: 'sqs',
          arn: target.Arn,
          body: text,
          ...(target.SqsParameters?.MessageGroupId
            ? { messageGroupId: target.SqsParameters.MessageGroupId, messageDeduplicationId: String(event.id) }
            : {}),
        });
      case 'states':
        return targets.deliver({ kind: 'states', arn: target.Arn, input: text });
      case 'sns':
        if (this.options.publishToTopic)
          void this.options
            .publishToTopic(target.Arn, text, delivery)
            .catch((err: unknown) => console.error(`autosave local: EventBridge target ${target.Arn}:`, err));
        return;
      default:
        console.error(
          `autosave local: EventBridge target ${target.Arn} is not a Lambda function, queue, state machine or topic; the local EventBridge does not deliver to it`,
        );
    }
  }

  private save(): void {
    this.state?.write({ buses: [...this.buses], rules: [...this.rules.values()] });
  }
}

/** A target's `InputPath` (`$.detail`, `$.detail.order.id`): the dotted JSONPath subset EventBridge documents for it. */
function selectPath(event: unknown, path: string): unknown {
  if (path === '$') return event;
  let value: unknown = event;
  for (const key of path.replace(/^\$\.?/, '').split('.')) {
    value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  }
  return value ?? null;
}

/** The most a PutEvents request's entries may hold together (EventBridge API reference, PutEvents: 256 KB). */
export const PUT_EVENTS_LIMIT_BYTES = 262_144;

/**
 * An entry's size as EventBridge counts it (user guide, "Calculating PutEvents event entry size"): 14 bytes
 * for a Time, and the UTF-8 bytes of Source, DetailType, Detail and each of Resources.
 */
function entryBytes(entry: Record<string, unknown>): number {
  let bytes = entry.Time !== undefined ? 14 : 0;
  for (const field of [entry.Source, entry.DetailType, entry.Detail])
    if (typeof field === 'string') bytes += Buffer.byteLength(field);
  if (Array.isArray(entry.Resources))
    for (const r of entry.Resources) if (typeof r === 'string') bytes += Buffer.byteLength(r);
  return bytes;
}
