import type { HistoryEvent } from '@aws-sdk/client-sfn';
import type { OtlpRunExporter } from './otlp-run-exporter';
import { runSpans } from './run-spans';

/** The Step Functions API as the engine serves it in process (AWS JSON 1.0 shapes). */
export type StepFunctionsApi = (operation: string, input: object) => Promise<object>;

/** Events read per GetExecutionHistory page. */
const HISTORY_PAGE = 1000;

/** Wire timestamps are epoch seconds; the span builder reads the SDK's shapes, whose timestamps are Dates. */
function withDates(event: Record<string, unknown>): HistoryEvent {
  return { ...event, timestamp: new Date(Number(event.timestamp) * 1000) } as HistoryEvent;
}

/** Reads a closed run's description and whole history, and exports its trace. */
export async function exportRunTrace(
  api: StepFunctionsApi,
  exporter: OtlpRunExporter,
  executionArn: string,
): Promise<void> {
  const described = (await api('DescribeExecution', { executionArn })) as { status: string; stopDate?: number };
  const events: HistoryEvent[] = [];
  let nextToken: string | undefined;
  do {
    const page = (await api('GetExecutionHistory', {
      executionArn,
      maxResults: HISTORY_PAGE,
      ...(nextToken ? { nextToken } : {}),
    })) as {
      events: Record<string, unknown>[];
      nextToken?: string;
    };
    for (const event of page.events) events.push(withDates(event));
    nextToken = page.nextToken;
  } while (nextToken);
  const stopMillis =
    described.stopDate !== undefined ? described.stopDate * 1000 : (events.at(-1)?.timestamp?.getTime() ?? 0);
  await exporter.export(
    runSpans({ executionArn, status: described.status, stopMillis }, events, {
      captureContent: exporter.captureContent,
    }),
  );
}
