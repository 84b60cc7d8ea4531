/**
 * The emulated CloudWatch metrics API for `aws-sdk:cloudwatch:putMetricData` (and `listMetrics`): every
 * datum is recorded (a JSON line per datum in a file, when given) so the console and tests can read what a
 * workflow emitted. PutMetricData checks what CloudWatch checks first (a namespace, 1-1000 data, each with a
 * name, no `AWS/` namespace) and answers nothing, as CloudWatch does.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { systemClock, type Clock } from '@autosave/workflow/config';
import { EMULATED_API_ACTIONS, ServiceFault, type ServiceApi, type TaskCallContext } from '@autosave/engine';

/** One recorded datum. */
export interface MetricDatum {
  readonly namespace: string;
  readonly metricName: string;
  readonly dimensions: readonly { readonly Name: string; readonly Value: string }[];
  readonly value?: number;
  readonly values?: readonly number[];
  readonly statisticValues?: Record<string, number>;
  readonly unit?: string;
  readonly timestamp: string;
  /** The execution that put it, when a Task did. */
  readonly executionArn?: string;
}

type Input = Record<string, unknown>;

export class LocalCloudWatch implements ServiceApi {
  private readonly data: MetricDatum[] = [];

  constructor(
    private readonly options: { readonly file?: string; readonly clock?: Clock; readonly keep?: number } = {},
  ) {
    if (options.file) {
      try {
        for (const line of readFileSync(options.file, 'utf8').split('\n'))
          if (line) this.data.push(JSON.parse(line) as MetricDatum);
      } catch {
        // No file yet.
      }
    }
  }

  /** The newest data, newest first (the console). */
  recent(): readonly MetricDatum[] {
    return [...this.data].reverse();
  }

  async call(action: string, input: Input, context?: TaskCallContext): Promise<Record<string, unknown>> {
    switch (action as (typeof EMULATED_API_ACTIONS.cloudwatch)[number]) {
      case 'PutMetricData':
        return this.putMetricData(input, context);
      case 'ListMetrics': {
        const seen = new Map<string, Record<string, unknown>>();
        for (const d of this.data) {
          if (typeof input.Namespace === 'string' && d.namespace !== input.Namespace) continue;
          if (typeof input.MetricName === 'string' && d.metricName !== input.MetricName) continue;
          seen.set(JSON.stringify([d.namespace, d.metricName, d.dimensions]), {
            Namespace: d.namespace,
            MetricName: d.metricName,
            Dimensions: d.dimensions,
          });
        }
        return { Metrics: [...seen.values()] };
      }
      default:
        throw new ServiceFault('InvalidAction', `The action ${action} is not served by the local CloudWatch.`, 400);
    }
  }

  private putMetricData(input: Input, context?: TaskCallContext): Record<string, unknown> {
    const namespace = input.Namespace;
    if (typeof namespace !== 'string' || namespace === '')
      throw new ServiceFault('MissingParameter', 'The parameter Namespace is required.', 400);
    if (namespace.startsWith('AWS/'))
      throw new ServiceFault('InvalidParameterValue', 'The value AWS/ for parameter Namespace is invalid.', 400);
    const data = Array.isArray(input.MetricData) ? (input.MetricData as Input[]) : [];
    if (data.length === 0 || data.length > 1000)
      throw new ServiceFault(
        'InvalidParameterValue',
        'The parameter MetricData must contain between 1 and 1000 items.',
        400,
      );
    const now = new Date((this.options.clock ?? systemClock).now()).toISOString();
    data.forEach((d, i) => {
      if (typeof d.MetricName !== 'string' || d.MetricName === '')
        throw new ServiceFault(
          'MissingParameter',
          `The parameter MetricData.member.${i + 1}.MetricName is required.`,
          400,
        );
    });
    for (const d of data) {
      const datum: MetricDatum = {
        namespace,
        metricName: d.MetricName as string,
        dimensions: (Array.isArray(d.Dimensions) ? d.Dimensions : []) as MetricDatum['dimensions'],
        ...(typeof d.Value === 'number' ? { value: d.Value } : {}),
        ...(Array.isArray(d.Values) ? { values: d.Values as number[] } : {}),
        ...(d.StatisticValues && typeof d.StatisticValues === 'object'
          ? { statisticValues: d.StatisticValues as Record<string, number> }
          : {}),
        ...(typeof d.Unit === 'string' ? { unit: d.Unit } : {}),
        timestamp: d.Timestamp !== undefined ? new Date(d.Timestamp as string).toISOString() : now,
        ...(context?.executionArn ? { executionArn: context.executionArn } : {}),
      };
      this.data.push(datum);
      if (this.options.file) appendFileSync(this.options.file, `${JSON.stringify(datum)}\n`);
    }
    while (this.data.length > (this.options.keep ?? 1000)) this.data.shift();
    return {};
  }
}
