/**
 * Sends runs' traces to an OTLP/HTTP receiver (a collector, Jaeger, Honeycomb...) through the OpenTelemetry SDK's
 * own exporter. Spans are built from the recorded history once a run closes ({@link runSpans}) and handed to the
 * exporter as finished spans: their times are the history's, not the moment of the export.
 */
import { SpanKind, SpanStatusCode, TraceFlags, type HrTime, type SpanContext } from '@opentelemetry/api';
import { millisToHrTime } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import type { RunSpan } from './run-spans';

/** Where and what {@link OtlpRunExporter} exports. */
export interface OtlpTracesOptions {
  /**
   * The receiver's traces URL (`http://127.0.0.1:4318/v1/traces`). From the environment, as the OpenTelemetry
   * SDKs read it: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as is, else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`.
   */
  readonly url: string;
  /** Extra headers (`OTEL_EXPORTER_OTLP_HEADERS`: `key=value,...`). @default none */
  readonly headers?: Readonly<Record<string, string>>;
  /** The `service.name` resource attribute (`OTEL_SERVICE_NAME`). @default `autosave-local` */
  readonly serviceName?: string;
  /**
   * Whether model spans carry prompts and answers (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`).
   * @default false
   */
  readonly captureContent?: boolean;
}

/** The OTLP traces settings of an environment, or undefined when it sets no OTLP endpoint (or turns traces off). */
export function otlpTracesFromEnvironment(
  env: Readonly<Record<string, string | undefined>>,
): OtlpTracesOptions | undefined {
  if (env.OTEL_TRACES_EXPORTER === 'none' || env.OTEL_SDK_DISABLED === 'true') return undefined;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.replace(/(?<!\/)\/+$/, '');
  const url = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || (base ? `${base}/v1/traces` : undefined);
  if (!url) return undefined;
  const headers = Object.fromEntries(
    (env.OTEL_EXPORTER_OTLP_TRACES_HEADERS ?? env.OTEL_EXPORTER_OTLP_HEADERS ?? '')
      .split(',')
      .map((pair) => pair.split('=').map((part) => decodeURIComponent(part.trim())))
      .filter((pair) => pair.length === 2 && pair[0] !== ''),
  );
  return {
    url,
    headers,
    serviceName: env.OTEL_SERVICE_NAME || undefined,
    captureContent: env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT === 'true',
  };
}

const SCOPE = { name: '@autosave/local', version: '0.1.0' };

/** Exports the spans of closed runs to one OTLP/HTTP receiver. */
export class OtlpRunExporter {
  private readonly exporter: OTLPTraceExporter;
  private readonly resource;

  constructor(private readonly options: OtlpTracesOptions) {
    this.exporter = new OTLPTraceExporter({ url: options.url, headers: { ...options.headers } });
    this.resource = resourceFromAttributes({ 'service.name': options.serviceName ?? 'autosave-local' });
  }

  /** Whether model spans carry content. */
  get captureContent(): boolean {
    return this.options.captureContent ?? false;
  }

  /** Sends one run's spans; rejects with the exporter's error when the receiver did not take them. */
  export(spans: readonly RunSpan[]): Promise<void> {
    const readable = spans.map((span) => this.readable(span));
    return new Promise((resolve, reject) => {
      this.exporter.export(readable, (result) =>
        result.error || result.code !== 0 ? reject(result.error ?? new Error('the OTLP export failed')) : resolve(),
      );
    });
  }

  /** Sends what is queued and closes the exporter's connections. */
  shutdown(): Promise<void> {
    return this.exporter.shutdown();
  }

  private readable(span: RunSpan): ReadableSpan {
    const context = (spanId: string): SpanContext => ({
      traceId: span.traceId,
      spanId,
      traceFlags: TraceFlags.SAMPLED,
    });
    const start = millisToHrTime(span.startMillis);
    const end = millisToHrTime(Math.max(span.endMillis, span.startMillis));
    const duration: HrTime = millisToHrTime(Math.max(span.endMillis - span.startMillis, 0));
    return {
      name: span.name,
      kind: span.attributes['gen_ai.operation.name'] ? SpanKind.CLIENT : SpanKind.INTERNAL,
      spanContext: () => context(span.spanId),
      parentSpanContext: span.parentSpanId ? context(span.parentSpanId) : undefined,
      startTime: start,
      endTime: end,
      duration,
      status:
        span.status.code === 'ok'
          ? { code: SpanStatusCode.OK }
          : { code: SpanStatusCode.ERROR, message: span.status.message },
      attributes: { ...span.attributes } as ReadableSpan['attributes'],
      links: [],
      events: [],
      ended: true,
      resource: this.resource,
      instrumentationScope: SCOPE,
      droppedAttributesCount: 0,
      droppedEventsCount: 0,
      droppedLinksCount: 0,
    };
  }
}
