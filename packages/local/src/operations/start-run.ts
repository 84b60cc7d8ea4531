import {
  DescribeStateMachineCommand,
  StartExecutionCommand,
  StartSyncExecutionCommand,
  type SFNClient,
  type StartSyncExecutionCommandOutput,
} from '@aws-sdk/client-sfn';
import { InvalidRunInputError } from './errors';

/** How a run started from the console went: a STANDARD run to follow, or an EXPRESS run's whole outcome. */
export type StartedRun =
  | { readonly kind: 'standard'; readonly executionArn: string }
  /** StartSyncExecution's answer: an EXPRESS run is over when the call returns, and the service keeps no record of it. */
  | { readonly kind: 'express'; readonly result: StartSyncExecutionCommandOutput };

/**
 * Starts a run of `target` (a state machine, version or alias ARN) with `input` (JSON text, checked here so the
 * user gets their own mistake back, not the service's), named `name` or by the service. An EXPRESS machine runs
 * with StartSyncExecution, so its outcome can be shown (the client must not add the `sync-` host prefix).
 */
export async function startRun(sfn: SFNClient, target: string, input: string, name?: string): Promise<StartedRun> {
  try {
    JSON.parse(input);
  } catch (err) {
    throw new InvalidRunInputError(`The input is not JSON: ${(err as Error).message}`);
  }
  const machineArn = target.split(':').slice(0, 7).join(':');
  const { type } = await sfn.send(new DescribeStateMachineCommand({ stateMachineArn: machineArn }));
  const request = { stateMachineArn: target, input, ...(name ? { name } : {}) };
  if (type === 'EXPRESS') return { kind: 'express', result: await sfn.send(new StartSyncExecutionCommand(request)) };
  const { executionArn } = await sfn.send(new StartExecutionCommand(request));
  return { kind: 'standard', executionArn: executionArn ?? '' };
}
