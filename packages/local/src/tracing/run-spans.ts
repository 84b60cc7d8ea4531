/**
 * A run as a trace: the execution is the root span, each state it entered a span under it (under its Map or
 * Parallel state when inside one), each attempt of a Task a span under its state. Model steps carry the
 * OpenTelemetry semantic conventions for generative-AI calls. Built from the recorded history alone, so a run
 * closed before a crash is traced the same after it, and ids are derived from the run: exporting it twice
 * (close hooks are at-least-once) sends the same spans, not a second trace.
 */
import { createHash } from 'node:crypto';
import type { HistoryEvent } from '@aws-sdk/client-sfn';
import { toolResultSources, unwrapTaskResult } from '../operations';

/** One span of a run's trace, before it is handed to an exporter. */
export interface RunSpan {
  /** 32 hex digits, the same for every span of a run. */
  readonly traceId: string;
  /** 16 hex digits. */
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly startMillis: number;
  readonly endMillis: number;
  /** `error` with its message when the state, attempt or run failed. */
  readonly status: { readonly code: 'ok' | 'error'; readonly message?: string };
  readonly attributes: Readonly<Record<string, string | number | boolean | readonly string[]>>;
}

/** What the root span needs besides the history. */
export interface TracedRun {
  readonly executionArn: string;
  readonly status: string;
  /** When the run closed, for spans still open in the history (a state the run failed in). */
  readonly stopMillis: number;
}

/** Options of {@link runSpans}. */
export interface RunSpanOptions {
  /**
   * Whether model spans carry the prompt, the messages and the model's text (`gen_ai.input.messages`,
   * `gen_ai.output.messages`): content is sent only when the user opts in, as the conventions ask.
   * @default false
   */
  readonly captureContent?: boolean;
}

const ATTEMPT_STARTS = new Set(['TaskScheduled', 'LambdaFunctionScheduled', 'ActivityScheduled']);
const ATTEMPT_ENDS = /^(Task(Succeeded|Failed|TimedOut|StartFailed|SubmitFailed)|LambdaFunction(Succeeded|Failed|TimedOut|StartFailed|ScheduleFailed)|Activity(Succeeded|Failed|TimedOut|ScheduleFailed))$/;
const SUCCEEDED = /Succeeded$/;
const ENTERED = /^(\w+)StateEntered$/;
const EXITED = /StateExited$/;

const hex = (text: string, digits: number) => createHash('sha256').update(text).digest('hex').slice(0, digits);
const millis = (event: HistoryEvent) => event.timestamp?.getTime() ?? 0;

/** An event's error and cause, from whichever details it carries. */
function failureOf(event: HistoryEvent): { error?: string; cause?: string } {
  for (const value of Object.values(event)) {
    if (value && typeof value === 'object' && ('error' in value || 'cause' in value)) {
      const { error, cause } = value as { error?: string; cause?: string };
      return { error, cause };
    }
  }
  return {};
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The input a Task attempt was scheduled with (a Lambda's Payload, else the parameters). */
function scheduledInput(event: HistoryEvent): unknown {
  const parameters = parseJson(event.taskScheduledEventDetails?.parameters ?? event.lambdaFunctionScheduledEventDetails?.input);
  return parameters && typeof parameters === 'object' && 'Payload' in parameters ? (parameters as { Payload: unknown }).Payload : parameters;
}

/** What an attempt answered (a Lambda's Payload, else the output). */
function attemptOutput(event: HistoryEvent): unknown {
  return unwrapTaskResult(parseJson(event.taskSucceededEventDetails?.output ?? event.lambdaFunctionSucceededEventDetails?.output));
}

interface ModelCall {
  readonly prompt?: string;
  readonly system?: string;
  readonly modelId?: string;
  readonly turn?: number;
}
interface ModelAnswer {
  readonly text?: string;
  readonly final?: boolean;
  readonly toolCalls?: readonly { readonly name?: string }[];
  readonly usage?: { readonly inputTokens?: number; readonly outputTokens?: number };
  readonly replayed?: boolean;
}

/** The scheduled function's name (ARN or name), for telling a model step from a tool step. */
function functionOf(event: HistoryEvent): string {
  const parameters = parseJson(event.taskScheduledEventDetails?.parameters) as { FunctionName?: unknown } | undefined;
  return String(parameters?.FunctionName ?? event.lambdaFunctionScheduledEventDetails?.resource ?? event.taskScheduledEventDetails?.resource ?? '');
}

/** The generative-AI attributes of a model step's attempt (OpenTelemetry semantic conventions, gen_ai.*). */
function modelAttributes(call: ModelCall, answer: ModelAnswer | undefined, captureContent: boolean): Record<string, string | number | boolean | string[]> {
  const attributes: Record<string, string | number | boolean | string[]> = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': call.modelId ?? 'default',
    'autosave.model.turn': call.turn ?? 0,
  };
  if (answer) {
    if (answer.usage?.inputTokens !== undefined) attributes['gen_ai.usage.input_tokens'] = answer.usage.inputTokens;
    if (answer.usage?.outputTokens !== undefined) attributes['gen_ai.usage.output_tokens'] = answer.usage.outputTokens;
    attributes['gen_ai.response.finish_reasons'] = [answer.final === false ? 'tool_calls' : 'stop'];
    attributes['autosave.model.replayed'] = answer.replayed === true;
    if (answer.toolCalls?.length) attributes['autosave.model.tool_calls'] = answer.toolCalls.map((c) => String(c.name ?? ''));
  }
  if (captureContent) {
    const input = [...(call.system ? [{ role: 'system', parts: [{ type: 'text', content: call.system }] }] : []), { role: 'user', parts: [{ type: 'text', content: call.prompt ?? '' }] }];
    attributes['gen_ai.input.messages'] = JSON.stringify(input);
    if (answer?.text !== undefined) attributes['gen_ai.output.messages'] = JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: answer.text }] }]);
  }
  return attributes;
}

/**
 * The spans of one closed run, from its history (events in ascending id order). Every span ends: a state or an
 * attempt the history leaves open ends when the run closed, as failed.
 */
export function runSpans(run: TracedRun, events: readonly HistoryEvent[], options: RunSpanOptions = {}): RunSpan[] {
  const traceId = hex(`autosave:${run.executionArn}`, 32);
  const spanIdOf = (key: string) => hex(`${run.executionArn}#${key}`, 16);
  const rootId = spanIdOf('run');
  const byId = new Map<number, HistoryEvent>();
  for (const event of events) if (event.id !== undefined) byId.set(event.id, event);

  interface OpenSpan {
    spanId: string;
    parentSpanId: string;
    name: string;
    startMillis: number;
    endMillis?: number;
    failure?: { error?: string; cause?: string };
    /** A state's last failed attempt: its failure, if the run ended with the state still open. */
    lastAttemptFailure?: { error?: string; cause?: string };
    attributes: Record<string, string | number | boolean | readonly string[]>;
  }
  const states: OpenSpan[] = [];
  const attempts: OpenSpan[] = [];
  /** The state span each event belongs to, by event id. */
  const stateOfEvent = new Map<number, OpenSpan>();
  const openStates: OpenSpan[] = [];
  const openAttempt = new Map<OpenSpan, { span: OpenSpan; call?: ModelCall; kind: string }>();
  const captureContent = options.captureContent ?? false;

  for (const event of events) {
    const type = event.type ?? '';
    const previous = event.previousEventId !== undefined ? byId.get(event.previousEventId) : undefined;
    const previousState = event.previousEventId !== undefined ? stateOfEvent.get(event.previousEventId) : undefined;
    const entered = ENTERED.exec(type);
    if (entered) {
      // After a sibling's exit (or the run's start) a state is the sibling's peer; after a Map's or Parallel's
      // own event (an iteration or a branch starting) it is inside that state.
      const sibling = !previous || EXITED.test(previous.type ?? '') || (previous.type ?? '').startsWith('Execution');
      const parentSpanId = sibling ? (previousState?.parentSpanId ?? rootId) : (previousState?.spanId ?? rootId);
      const span: OpenSpan = {
        spanId: spanIdOf(String(event.id)),
        parentSpanId,
        name: event.stateEnteredEventDetails?.name ?? '?',
        startMillis: millis(event),
        attributes: { 'autosave.state.name': event.stateEnteredEventDetails?.name ?? '?', 'autosave.state.type': entered[1] },
      };
      states.push(span);
      openStates.push(span);
      if (event.id !== undefined) stateOfEvent.set(event.id, span);
      continue;
    }
    if (type.startsWith('Execution')) continue;
    const state = previousState ?? openStates.at(-1);
    if (!state) continue;
    if (event.id !== undefined) stateOfEvent.set(event.id, state);
    if (EXITED.test(type)) {
      state.endMillis = millis(event);
      openStates.splice(openStates.indexOf(state), 1);
    } else if (ATTEMPT_STARTS.has(type)) {
      const n = attempts.filter((a) => a.parentSpanId === state.spanId).length + 1;
      const fn = functionOf(event);
      const kind = /model-step/.test(fn) ? 'model' : /tool-step/.test(fn) ? 'tool' : 'task';
      const call = kind === 'model' ? (scheduledInput(event) as ModelCall | undefined) : undefined;
      const span: OpenSpan = {
        spanId: spanIdOf(String(event.id)),
        parentSpanId: state.spanId,
        name: kind === 'model' ? `chat ${call?.modelId ?? 'default'}` : `${state.name} attempt ${n}`,
        startMillis: millis(event),
        attributes: {
          'autosave.attempt': n,
          'autosave.task.resource': event.taskScheduledEventDetails?.resource ?? event.lambdaFunctionScheduledEventDetails?.resource ?? event.activityScheduledEventDetails?.resource ?? '',
          ...(fn ? { 'autosave.task.function': fn } : {}),
        },
      };
      if (kind === 'tool') {
        // One tool (its key), or an agent turn's batch of calls (a key each).
        const input = scheduledInput(event) as { idempotencyKey?: unknown; calls?: { idempotencyKey?: unknown; name?: unknown }[] } | undefined;
        const keys = [input?.idempotencyKey, ...(Array.isArray(input?.calls) ? input.calls.map((c) => c?.idempotencyKey) : [])].filter((k): k is string => typeof k === 'string');
        if (keys.length === 1) span.attributes['autosave.tool.idempotency_key'] = keys[0];
        if (keys.length > 1) span.attributes['autosave.tool.idempotency_keys'] = keys;
      }
      attempts.push(span);
      openAttempt.set(state, { span, call, kind });
    } else if (ATTEMPT_ENDS.test(type)) {
      const attempt = openAttempt.get(state);
      if (!attempt) continue;
      openAttempt.delete(state);
      attempt.span.endMillis = millis(event);
      if (SUCCEEDED.test(type)) {
        const output = attemptOutput(event);
        if (attempt.kind === 'model') Object.assign(attempt.span.attributes, modelAttributes(attempt.call ?? {}, output as ModelAnswer, captureContent));
        if (attempt.kind === 'tool') {
          const { source, calls } = toolResultSources(output);
          if (source) attempt.span.attributes['autosave.tool.source'] = source;
          if (calls) {
            attempt.span.attributes['autosave.tool.calls'] = calls.map((c) => String(c.name));
            attempt.span.attributes['autosave.tool.sources'] = calls.map((c) => String(c.source));
          }
        }
      } else {
        attempt.span.failure = state.lastAttemptFailure = failureOf(event);
        if (attempt.kind === 'model') Object.assign(attempt.span.attributes, modelAttributes(attempt.call ?? {}, undefined, captureContent));
      }
    } else if (/(Failed|TimedOut|Aborted)$/.test(type)) {
      state.failure = failureOf(event);
    }
  }

  const close = (span: OpenSpan): RunSpan => {
    if (span.endMillis === undefined) span.failure ??= span.lastAttemptFailure;
    const failed = span.failure !== undefined || span.endMillis === undefined;
    const message = span.failure ? [span.failure.error, span.failure.cause].filter(Boolean).join(': ') : failed ? `still open when the run ended ${run.status}` : undefined;
    return {
      traceId,
      spanId: span.spanId,
      parentSpanId: span.parentSpanId,
      name: span.name,
      startMillis: span.startMillis,
      endMillis: span.endMillis ?? run.stopMillis,
      status: failed ? { code: 'error', message } : { code: 'ok' },
      attributes: { ...span.attributes, ...(span.failure?.error ? { 'error.type': span.failure.error } : {}) },
    };
  };

  const started = events.find((e) => e.type === 'ExecutionStarted');
  const closing = [...events].reverse().find((e) => /^Execution(Succeeded|Failed|Aborted|TimedOut)$/.test(e.type ?? ''));
  const runFailure = closing && closing.type !== 'ExecutionSucceeded' ? failureOf(closing) : undefined;
  const name = run.executionArn.split(':').at(-1) ?? run.executionArn;
  const machine = run.executionArn.split(':').at(-2) ?? '';
  const root: RunSpan = {
    traceId,
    spanId: rootId,
    name: `${machine} ${name}`,
    startMillis: started ? millis(started) : (events[0] ? millis(events[0]) : run.stopMillis),
    endMillis: closing ? millis(closing) : run.stopMillis,
    status: run.status === 'SUCCEEDED' ? { code: 'ok' } : { code: 'error', message: [runFailure?.error ?? run.status, runFailure?.cause].filter(Boolean).join(': ') },
    attributes: {
      'autosave.execution.arn': run.executionArn,
      'autosave.execution.name': name,
      'autosave.state_machine.name': machine,
      'autosave.execution.status': run.status,
      ...(runFailure?.error ? { 'error.type': runFailure.error } : {}),
    },
  };
  return [root, ...states.map(close), ...attempts.map(close)];
}
