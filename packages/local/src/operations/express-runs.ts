import type { ExpressRunRecord } from '../services/express-run-log';
export type { ExpressRunReader, ExpressRunRecord, ExpressRunWire } from '../services/express-run-log';
import type { RunSummary } from './runs';
import { workflowNameOf } from './workflows';

/** An express run (in flight or kept as it closed) as the runs list shows it (its input kept, for the input search). */
export function expressRunSummary(run: ExpressRunRecord, registryNames: readonly string[] = []): RunSummary {
  const e = run.execution;
  return {
    name: e.name ?? '',
    executionArn: e.executionArn ?? '',
    workflow: workflowNameOf((e.stateMachineArn ?? '').split(':')[6] ?? '', registryNames),
    status: e.status ?? '',
    startDate: e.startDate,
    stopDate: e.stopDate,
    express: true,
    input: e.input,
  };
}
