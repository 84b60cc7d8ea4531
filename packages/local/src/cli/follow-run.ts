import { DescribeExecutionCommand, type DescribeExecutionCommandOutput, type SFNClient } from '@aws-sdk/client-sfn';
import {
  definitionOfRun,
  formatDuration,
  analyzeHistory,
  pendingApprovals,
  getFullHistory,
  progressPlanOf,
  runProgress,
  type AslGraphDefinition,
  type EngineNow,
  type PendingApproval,
  type ProgressPlan,
  type RunProgress,
} from '../operations';
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

/** Options of {@link followRun}. */
export interface FollowRunOptions {
  /** How often to look at the run. @default {@link DEFAULT_FOLLOW_INTERVAL_MILLIS} */
  readonly intervalMillis?: number;
  /** The engine's now, for the elapsed time of a run still open. @default unknown: the elapsed time is omitted until the run closes */
  readonly engineNow?: EngineNow;
}

/**
 * A progress line: `[########------------] 4/7  provision-edc-access  12.3s` for a run with a known
 * total, `turn 3  research  12.3s` for an agent loop; the elapsed time is left out when unknown.
 */
export function progressLine(progress: RunProgress, current: string, elapsedMillis?: number): string {
  let position: string;
  if (progress.kind === 'loop') position = `turn ${progress.turn}`;
  else {
    const filled = progress.total > 0 ? Math.round((BAR_WIDTH * progress.done) / progress.total) : 0;
    position = `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${progress.done}/${progress.total}`;
  }
  return `${position}  ${current}${elapsedMillis === undefined ? '' : `  ${formatDuration(elapsedMillis)}`}`;
}

/**
 * The run's elapsed time from engine timestamps only: start to stop once it closed, start to the
 * engine's now while open (undefined when the engine's now is unknown).
 */
export function runElapsedMillis(
  execution: Pick<DescribeExecutionCommandOutput, 'startDate' | 'stopDate'>,
  engineNowMillis: number | undefined,
): number | undefined {
  const start = execution.startDate?.getTime();
  const end = execution.stopDate?.getTime() ?? engineNowMillis;
  return start === undefined || end === undefined ? undefined : Math.max(0, end - start);
}

/**
 * Follows a run until it closes or waits on a human, printing the current step, the elapsed time and a
 * progress line (redrawn in place on a terminal, one line per change otherwise). The total comes from
 * the definition ({@link progressPlanOf}), so it stays the same from the first line to the last.
 */
export async function followRun(
  sfn: SFNClient,
  executionArn: string,
  options: FollowRunOptions = {},
): Promise<FollowOutcome> {
  const intervalMillis = options.intervalMillis ?? DEFAULT_FOLLOW_INTERVAL_MILLIS;
  const t = terminal();
  let definition: AslGraphDefinition | undefined;
  let plan: ProgressPlan | undefined;
  let lastLine = '';
  for (;;) {
    const execution = await sfn.send(new DescribeExecutionCommand({ executionArn }));
    definition ??= await definitionOfRun(sfn, execution);
    plan ??= progressPlanOf(definition);
    const analysis = analyzeHistory(await getFullHistory(sfn, executionArn));
    const open = analysis.entries.filter((e) => e.outcome === 'running' || e.outcome === 'waiting');
    const progress = runProgress(
      definition,
      plan,
      analysis.entries.map((e) => e.name),
      analysis.entries.filter((e) => e.outcome === 'succeeded').map((e) => e.name),
    );
    const current = open.at(-1)?.name;
    const elapsed = runElapsedMillis(execution, execution.stopDate ? undefined : await options.engineNow?.());
    const step = current ?? execution.status ?? '';
    const line = progressLine(progress, step, elapsed);
    const approvals = execution.status === 'RUNNING' ? pendingApprovals(analysis) : [];
    const finished = execution.status !== 'RUNNING' || approvals.length > 0;
    // Off a terminal, a line per change of progress or step (not per tick of the elapsed time).
    const withoutTime = progressLine(progress, step);
    if (t.interactive) t.write(`\r\x1b[2K${line}${finished ? '\n' : ''}`);
    else if (withoutTime !== lastLine || finished) t.line(line);
    lastLine = withoutTime;
    if (finished) return { execution, approvals };
    await new Promise((resolve) => setTimeout(resolve, intervalMillis));
  }
}
