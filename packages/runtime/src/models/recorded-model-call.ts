import { DEFAULT_RECORD_TTL_SECONDS, systemClock, type Clock } from '@autosave/workflow/config';
import { CrashPoint, crashPoint } from '../crash-points';
import { TTL_ATTRIBUTE, type RecordTable } from '../records';
import { MetricName, noMetrics, type RuntimeMetrics } from '../metrics';
import { isPayloadRef, type PayloadStore } from '../payloads';
import type { ModelCallSite, ModelRequest, ModelResponse } from './conversation';
import type { ModelProvider } from './model-provider';

/** Prefix of recorded model calls in the runtime's table. */
export const MODEL_RECORD_ID_PREFIX = 'model#';

/** The record key of a model call: `${executionArn}#${step}#${turn}`. */
export const modelRecordKey = (site: ModelCallSite): string => `${site.executionArn}#${site.step}#${site.turn}`;

/** Options of {@link RecordedModelCall}. */
export interface RecordedModelCallOptions {
  readonly provider: ModelProvider;
  readonly table: RecordTable;
  /** Holds responses over the inline limit (the table item stores the reference). */
  readonly payloads: PayloadStore;
  /** @default systemClock */
  readonly clock?: Clock;
  /** @default DEFAULT_RECORD_TTL_SECONDS (30 days) */
  readonly ttlSeconds?: number;
  /** Reports ModelCallsMade, ModelCallsReplayed and token usage. @default no metrics */
  readonly metrics?: RuntimeMetrics;
}

/**
 * A model call made at most once per execution, step and turn: the output is recorded before it is
 * returned, and a retried invocation gets the recording without calling the model.
 *
 * Replay hazard: if the process dies after the model answered and before the record is written, the
 * retry calls the model again (nothing was returned to anyone, so no one saw the first answer).
 * Concurrency: two attempts racing on one turn may both call the model; the first record wins and
 * both return it.
 */
export class RecordedModelCall {
  private readonly clock: Clock;
  private readonly ttlSeconds: number;
  private readonly metrics: RuntimeMetrics;

  constructor(private readonly options: RecordedModelCallOptions) {
    this.clock = options.clock ?? systemClock;
    this.ttlSeconds = options.ttlSeconds ?? DEFAULT_RECORD_TTL_SECONDS;
    this.metrics = options.metrics ?? noMetrics;
  }

  /** The recorded response for `site`, calling the provider only if there is none. */
  async call(
    site: ModelCallSite,
    request: ModelRequest,
  ): Promise<{ readonly response: ModelResponse; readonly replayed: boolean }> {
    const id = MODEL_RECORD_ID_PREFIX + modelRecordKey(site);
    const recorded = await this.options.table.get(id);
    if (recorded) return this.replay(recorded.response);

    const response = await this.options.provider.converse(request, site);
    this.metrics.add(MetricName.ModelCallsMade);
    this.metrics.add(MetricName.ModelInputTokens, response.usage.inputTokens);
    this.metrics.add(MetricName.ModelOutputTokens, response.usage.outputTokens);
    crashPoint(CrashPoint.AfterModelBeforeRecord);

    const stored = await this.options.payloads.offloadIfLarge(response);
    const write = await this.options.table.putIfAbsent({
      id,
      response: JSON.stringify(stored),
      provider: this.options.provider.name,
      recordedAt: new Date(this.clock.now()).toISOString(),
      [TTL_ATTRIBUTE]: Math.floor(this.clock.now() / 1000) + this.ttlSeconds,
    });
    if (!write.written && write.existing) return this.replay(write.existing.response);
    return { response, replayed: false };
  }

  private async replay(stored: unknown): Promise<{ response: ModelResponse; replayed: boolean }> {
    this.metrics.add(MetricName.ModelCallsReplayed);
    // Only the record itself may be a reference: a reference-shaped value the model wrote stays as it is.
    const parsed: unknown = JSON.parse(String(stored));
    const response = isPayloadRef(parsed)
      ? await this.options.payloads.resolve<ModelResponse>(parsed)
      : (parsed as ModelResponse);
    return { response, replayed: true };
  }
}
