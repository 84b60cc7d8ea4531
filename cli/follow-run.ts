import { DescribeExecutionCommand, type DescribeExecutionCommandOutput, type SFNClient } from '@aws-sdk/client-sfn';
import { definitionOfRun, statesLeftFrom, formatDuration, analyzeHistory, pendingApprovals, type PendingApproval, getFullHistory } from '../lib/operations';
import { terminal } from './output';

/** How often `start --wait` looks at the run. @default 250 ms */
export const DEFAULT_FOLLOW_INTERVAL_MILLIS = 250;

/** Where a followed run stopped being followed. */
export interface FollowOutcome {
  readonly execution: DescribeExecutionCommandOutput;
  /** Set when the run is waiting on a human. */
  readonly approvals: readonly PendingApproval[];
}

const BAR_WIDTH = 20;

/** A progress line: `[########------------] 4/9  provision-edc-access  12.3s`. */
export function progressLine(done: number, total: number, current: string, elapsedMillis: number): string {
  const filled = total > 0 ? Math.round((BAR_WIDTH * done) / total) : 0;
  return `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${done}/${total}  ${current}  ${formatDuration(elapsedMillis)}`;
}

/**
 * Follows a run until it closes or waits on a human, printing the current step, the elapsed time and a
 * progress line (redrawn in place on a terminal, one line per change otherwise).
 */
export async function followRun(sfn: SFNClient, executionArn: string, intervalMillis = DEFAULT_FOLLOW_INTERVAL_MILLIS): Promise<FollowOutcome> {
  const t = terminal();
  let definition: Awaited<ReturnType<typeof definitionOfRun>> | undefined;
  let lastLine = '';
  for (;;) {
    const execution = await sfn.send(new DescribeExecutionCommand({ executionArn }));
    definition ??= await definitionOfRun(sfn, execution);
    const analysis = analyzeHistory(await getFullHistory(sfn, executionArn));
    const open = analysis.entries.filter((e) => e.outcome === 'running' || e.outcome === 'waiting');
    const done = new Set(analysis.entries.filter((e) => e.outcome === 'succeeded').map((e) => e.name)).size;
    const current = open.at(-1)?.name;
    const left = current ? statesLeftFrom(definition, current) : 0;
    const elapsed = (execution.stopDate?.getTime() ?? Date.now()) - (execution.startDate?.getTime() ?? Date.now());
    const line = progressLine(done, done + left, current ?? (execution.status ?? ''), elapsed);
    const approvals = execution.status === 'RUNNING' ? pendingApprovals(analysis) : [];
    const finished = execution.status !== 'RUNNING' || approvals.length > 0;
    if (t.interactive) t.write(`\r\x1b[2K${line}${finished ? '\n' : ''}`);
    else if (line.replace(/\S+$/, '') !== lastLine.replace(/\S+$/, '') || finished) t.line(line);
    lastLine = line;
    if (finished) return { execution, approvals };
    await new Promise((resolve) => setTimeout(resolve, intervalMillis));
  }
}
