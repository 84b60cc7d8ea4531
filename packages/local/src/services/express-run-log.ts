/**
 * EXPRESS runs kept as they closed, for the console (operations/express-runs.ts reads them). No value import of
 * the SDK: the local server makes the log before the console and its clients load.
 */
import type { DescribeExecutionCommandOutput, HistoryEvent } from '@aws-sdk/client-sfn';

/** An EXPRESS run as the engine hands it over when it closes (DescribeExecution's and GetExecutionHistory's wire shapes). */
export interface ExpressRunWire {
  readonly description: Readonly<Record<string, unknown>>;
  readonly events: readonly Readonly<Record<string, unknown>>[];
}

/** A closed EXPRESS run in the SDK's shapes, as if DescribeExecution and GetExecutionHistory had answered. */
export interface ExpressRunRecord {
  readonly execution: DescribeExecutionCommandOutput;
  readonly events: readonly HistoryEvent[];
}

/** What the console reads of the express runs kept and in flight. */
export interface ExpressRunReader {
  /** Newest first: the runs in flight, then those that closed. */
  list(): readonly ExpressRunRecord[];
  get(executionArn: string): ExpressRunRecord | undefined;
}

/** Closed express runs kept (the oldest is forgotten first). */
export const EXPRESS_RUNS_KEPT = 500;

// The wire's epoch seconds become Dates where the SDK's deserializer makes them.
const date = (value: unknown): Date | undefined => (typeof value === 'number' ? new Date(value * 1000) : undefined);

/** A run in the wire's shapes, in the SDK's. */
function recordOf(run: ExpressRunWire): ExpressRunRecord {
  const d = run.description;
  const execution = {
    ...d,
    startDate: date(d.startDate),
    stopDate: date(d.stopDate),
    redriveDate: date(d.redriveDate),
    $metadata: {},
  } as DescribeExecutionCommandOutput;
  return { execution, events: run.events.map((e) => ({ ...e, timestamp: date(e.timestamp) }) as HistoryEvent) };
}

/**
 * The local stand-in for an express machine's CloudWatch Logs: the last {@link EXPRESS_RUNS_KEPT} express runs
 * to close, in memory (the service keeps no express run, and neither does the engine), and the runs still in
 * flight, read from the engine when asked. A restart forgets them.
 */
export class ExpressRunLog implements ExpressRunReader {
  private readonly runs = new Map<string, ExpressRunRecord>();

  /**
   * @param capacity runs kept @default EXPRESS_RUNS_KEPT
   * @param inFlight the runs in flight, newest first (the engine's `expressRunsInFlight`) @default none
   */
  constructor(
    private readonly capacity = EXPRESS_RUNS_KEPT,
    private readonly inFlight: () => readonly ExpressRunWire[] = () => [],
  ) {}

  /** Keeps a run that just closed. */
  record(run: ExpressRunWire): void {
    const record = recordOf(run);
    const arn = record.execution.executionArn ?? '';
    this.runs.delete(arn);
    this.runs.set(arn, record);
    for (const oldest of this.runs.keys()) {
      if (this.runs.size <= this.capacity) break;
      this.runs.delete(oldest);
    }
  }

  list(): readonly ExpressRunRecord[] {
    return [...this.inFlight().map(recordOf), ...[...this.runs.values()].reverse()];
  }

  get(executionArn: string): ExpressRunRecord | undefined {
    const closed = this.runs.get(executionArn);
    if (closed) return closed;
    const running = this.inFlight().find((run) => run.description.executionArn === executionArn);
    return running && recordOf(running);
  }
}
