import type { DescribeExecutionCommandOutput, HistoryEvent, SFNClient } from '@aws-sdk/client-sfn';
import {
  analyzeHistory,
  pendingActivities,
  pendingApprovals,
  type PendingActivity,
  type PendingApproval,
  type RunAnalysis,
} from './run-analysis';
import { getFullHistory, resolveRun } from './runs';
import { workflowNameOf } from './workflows';

/** A run with its history read: what `describe`, `history` and the console's run page show. */
export interface RunDetails {
  readonly execution: DescribeExecutionCommandOutput;
  readonly workflow: string;
  readonly events: readonly HistoryEvent[];
  readonly analysis: RunAnalysis;
  /** The states open now (running or waiting). */
  readonly currentSteps: readonly string[];
  readonly approvals: readonly PendingApproval[];
  /** The activity tasks the run waits on for a worker (Task states whose `Resource` is an activity ARN). */
  readonly activities: readonly PendingActivity[];
}

/** Loads a run by ARN or name, with its whole history. */
export async function loadRunDetails(
  sfn: SFNClient,
  ref: string,
  registryNames: readonly string[] = [],
): Promise<RunDetails> {
  const execution = await resolveRun(sfn, ref, registryNames);
  return runDetailsOf(execution, await getFullHistory(sfn, execution.executionArn!), registryNames);
}

/** A run's details from its description and whole history, however they were read (an express run's are kept by the console). */
export function runDetailsOf(
  execution: DescribeExecutionCommandOutput,
  events: readonly HistoryEvent[],
  registryNames: readonly string[] = [],
): RunDetails {
  const analysis = analyzeHistory(events);
  const machineName = (execution.stateMachineArn ?? '').split(':')[6] ?? '';
  return {
    execution,
    workflow: workflowNameOf(machineName, registryNames),
    events,
    analysis,
    currentSteps: analysis.entries.filter((e) => e.outcome === 'running' || e.outcome === 'waiting').map((e) => e.name),
    approvals: execution.status === 'RUNNING' ? pendingApprovals(analysis) : [],
    activities: execution.status === 'RUNNING' ? pendingActivities(analysis) : [],
  };
}
