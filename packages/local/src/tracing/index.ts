/**
 * Runs as OpenTelemetry traces: the spans of a closed run, built from its history, and their export over
 * OTLP/HTTP. Loaded only when an OTLP endpoint is configured (`OTEL_EXPORTER_OTLP_ENDPOINT`).
 */
export * from './run-spans';
export * from './otlp-run-exporter';
export * from './run-traces';
