/**
 * A run as a trace: the execution is the root span, each state it entered a span under it (under its Map or
 * Parallel state when inside one), each attempt of a Task a span under its state. Model steps carry the
 * OpenTelemetry semantic conventions for generative-AI calls. Built from the recorded history alone, so a run
 * closed before a crash is traced the same after it, and ids are derived from the run: exporting it twice
 * (close hooks are at-least-once) sends the same spans, not a second trace.
 */
import { createHash } from 'node:crypto';
import type { HistoryEvent } from '@aws-sdk/client-sfn';
import { analyzeHistory, stepKind, toolResultSources, type StepEntry } from '../operations';

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

const hex = (text: string, digits: number) => createHash('sha256').update(text).digest('hex').slice(0, digits);

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

/** The generative-AI attributes of a model step's attempt (OpenTelemetry semantic conventions, gen_ai.*). */
function modelAttributes(
  call: ModelCall,
  answer: ModelAnswer | undefined,
  captureContent: boolean,
): Record<string, string | number | boolean | string[]> {
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
    if (answer.toolCalls?.length)
      attributes['autosave.model.tool_calls'] = answer.toolCalls.map((c) => String(c.name ?? ''));
  }
  if (captureContent) {
    const input = [
      ...(call.system ? [{ role: 'system', parts: [{ type: 'text', content: call.system }] }] : []),
      { role: 'user', parts: [{ type: 'text', content: call.prompt ?? '' }] },
    ];
    attributes['gen_ai.input.messages'] = JSON.stringify(input);
    if (answer?.text !== undefined)
      attributes['gen_ai.output.messages'] = JSON.stringify([
        { role: 'assistant', parts: [{ type: 'text', content: answer.text }] },
      ]);
  }
  return attributes;
}

/**
 * The spans of one closed run, from its history (events in ascending id order), read as the console and the CLI
 * read it ({@link analyzeHistory}). Every span ends: a state or an attempt the history leaves open ends when the run
 * closed, as failed.
 */
export function runSpans(run: TracedRun, events: readonly HistoryEvent[], options: RunSpanOptions = {}): RunSpan[] {
  const analysis = analyzeHistory(events);
  const traceId = hex(`autosave:${run.executionArn}`, 32);
  const spanIdOf = (key: string) => hex(`${run.executionArn}#${key}`, 16);
  const rootId = spanIdOf('run');
  const stateSpanId = (entry: StepEntry) => spanIdOf(`state:${entry.eventId}`);
  const captureContent = options.captureContent ?? false;
  const span = (
    spanId: string,
    parentSpanId: string,
    name: string,
    times: { start: Date; end?: Date },
    failure: { error?: string; cause?: string } | undefined,
    attributes: RunSpan['attributes'],
  ): RunSpan => {
    const open = times.end === undefined;
    const failed = failure !== undefined || open;
    const message = failure
      ? [failure.error, failure.cause].filter(Boolean).join(': ')
      : `still open when the run ended ${run.status}`;
    return {
      traceId,
      spanId,
      parentSpanId,
      name,
      startMillis: times.start.getTime(),
      endMillis: times.end?.getTime() ?? run.stopMillis,
      status: failed ? { code: 'error', message } : { code: 'ok' },
      attributes: { ...attributes, ...(failure?.error ? { 'error.type': failure.error } : {}) },
    };
  };

  const spans: RunSpan[] = [];
  for (const entry of analysis.entries) {
    const kind = stepKind(entry);
    const stateId = stateSpanId(entry);
    const lastAttempt = entry.attemptLog.at(-1);
    const stateFailure =
      entry.outcome === 'failed' || entry.exitedAt === undefined
        ? entry.error
          ? { error: entry.error, cause: entry.cause }
          : lastAttempt?.outcome === 'failed'
            ? lastAttempt
            : undefined
        : undefined;
    spans.push(
      span(
        stateId,
        entry.parent ? stateSpanId(entry.parent) : rootId,
        entry.name,
        { start: entry.enteredAt, end: entry.exitedAt },
        stateFailure,
        {
          'autosave.state.name': entry.name,
          'autosave.state.type': entry.type,
        },
      ),
    );
    entry.attemptLog.forEach((attempt, i) => {
      const attributes: Record<string, string | number | boolean | readonly string[]> = {
        'autosave.attempt': i + 1,
        ...(entry.functionName ? { 'autosave.task.function': entry.functionName } : {}),
      };
      if (attempt.reinvocation) attributes['autosave.attempt.reinvocation'] = true;
      const call = attempt.input as
        (ModelCall & { idempotencyKey?: unknown; calls?: { idempotencyKey?: unknown }[] }) | undefined;
      if (kind === 'model')
        Object.assign(
          attributes,
          modelAttributes(
            call ?? {},
            attempt.outcome === 'succeeded' ? (attempt.output as ModelAnswer) : undefined,
            captureContent,
          ),
        );
      if (kind === 'tool') {
        // One tool (its key), or an agent turn's batch of calls (a key each).
        const keys = [
          call?.idempotencyKey,
          ...(Array.isArray(call?.calls) ? call.calls.map((c) => c?.idempotencyKey) : []),
        ].filter((k): k is string => typeof k === 'string');
        if (keys.length === 1) attributes['autosave.tool.idempotency_key'] = keys[0];
        if (keys.length > 1) attributes['autosave.tool.idempotency_keys'] = keys;
        const { source, calls } = toolResultSources(attempt.output);
        if (source) attributes['autosave.tool.source'] = source;
        if (calls) {
          attributes['autosave.tool.calls'] = calls.map((c) => c.name);
          attributes['autosave.tool.sources'] = calls.map((c) => c.source);
        }
      }
      const name = kind === 'model' ? `chat ${call?.modelId ?? 'default'}` : `${entry.name} attempt ${i + 1}`;
      const failure = attempt.outcome === 'failed' ? { error: attempt.error, cause: attempt.cause } : undefined;
      spans.push(
        span(
          spanIdOf(`attempt:${attempt.eventId}`),
          stateId,
          name,
          { start: attempt.startedAt, end: attempt.endedAt },
          failure,
          attributes,
        ),
      );
    });
  }

  const closing = [...events].reverse().find((e) => e.type === analysis.closeEvent);
  const closed =
    closing?.executionFailedEventDetails ??
    closing?.executionAbortedEventDetails ??
    closing?.executionTimedOutEventDetails;
  const runFailure = closed ? { error: closed.error, cause: closed.cause } : undefined;
  const name = run.executionArn.split(':').at(-1) ?? run.executionArn;
  const machine = run.executionArn.split(':').at(-2) ?? '';
  const root: RunSpan = {
    traceId,
    spanId: rootId,
    name: `${machine} ${name}`,
    startMillis: (analysis.startedAt ?? events[0]?.timestamp)?.getTime() ?? run.stopMillis,
    endMillis: analysis.closedAt?.getTime() ?? run.stopMillis,
    status:
      run.status === 'SUCCEEDED'
        ? { code: 'ok' }
        : { code: 'error', message: [runFailure?.error ?? run.status, runFailure?.cause].filter(Boolean).join(': ') },
    attributes: {
      'autosave.execution.arn': run.executionArn,
      'autosave.execution.name': name,
      'autosave.state_machine.name': machine,
      'autosave.execution.status': run.status,
      ...(runFailure?.error ? { 'error.type': runFailure.error } : {}),
    },
  };
  return [root, ...spans];
}
