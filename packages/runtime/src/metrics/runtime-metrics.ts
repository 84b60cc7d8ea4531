import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { METRICS_NAMESPACE, METRICS_SERVICE, MetricName, type MetricNameValue } from './metric-names';

/**
 * Where the runtime reports what it did. The lib modules only call {@link RuntimeMetrics.add}; a handler
 * wrapper flushes once per invocation.
 */
export interface RuntimeMetrics {
  /** Adds `value` to a metric for this invocation. */
  add(name: MetricNameValue, value?: number): void;
  /** Writes the buffered metrics (one EMF line) and clears them. */
  flush(): void;
}

const UNITS: Record<MetricNameValue, (typeof MetricUnit)[keyof typeof MetricUnit]> = {
  [MetricName.DuplicateSuppressed]: MetricUnit.Count,
  [MetricName.Reconciled]: MetricUnit.Count,
  [MetricName.ModelCallsMade]: MetricUnit.Count,
  [MetricName.ModelCallsReplayed]: MetricUnit.Count,
  [MetricName.ModelInputTokens]: MetricUnit.Count,
  [MetricName.ModelOutputTokens]: MetricUnit.Count,
  [MetricName.PayloadsOffloaded]: MetricUnit.Count,
  [MetricName.ApprovalWaitSeconds]: MetricUnit.Seconds,
  [MetricName.Redrives]: MetricUnit.Count,
  [MetricName.DeadLettered]: MetricUnit.Count,
  [MetricName.RunRestartedFromScratch]: MetricUnit.Count,
  [MetricName.HistoryEvents]: MetricUnit.Count,
};

/** Options of {@link EmfMetrics}. */
export interface EmfMetricsOptions {
  /** The `service` dimension. @default METRICS_SERVICE (`autosave`) */
  readonly serviceName?: string;
  /** A Powertools Metrics instance (the test seam). @default a new one in namespace {@link METRICS_NAMESPACE} */
  readonly metrics?: Metrics;
}

/** CloudWatch embedded metric format through Powertools Metrics (stdout; CloudWatch Logs extracts it). */
export class EmfMetrics implements RuntimeMetrics {
  /** The underlying Powertools instance. */
  readonly powertools: Metrics;

  constructor(options: EmfMetricsOptions = {}) {
    this.powertools =
      options.metrics ??
      new Metrics({ namespace: METRICS_NAMESPACE, serviceName: options.serviceName ?? METRICS_SERVICE });
  }

  add(name: MetricNameValue, value = 1): void {
    this.powertools.addMetric(name, UNITS[name], value);
  }

  flush(): void {
    // Powertools warns on an empty flush; an invocation that did nothing notable has nothing to say.
    if (this.powertools.hasStoredMetrics()) this.powertools.publishStoredMetrics();
  }
}

/** Keeps totals in memory: for tests and for the local console's counters. */
export class InMemoryMetrics implements RuntimeMetrics {
  readonly totals = new Map<MetricNameValue, number>();

  add(name: MetricNameValue, value = 1): void {
    this.totals.set(name, (this.totals.get(name) ?? 0) + value);
  }

  /** The total of one metric (0 when never reported). */
  get(name: MetricNameValue): number {
    return this.totals.get(name) ?? 0;
  }

  flush(): void {}
}

/** Discards everything. */
export const noMetrics: RuntimeMetrics = { add: () => {}, flush: () => {} };
