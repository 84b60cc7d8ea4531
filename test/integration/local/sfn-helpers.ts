/** Helpers for tests that drive a live local engine with the Step Functions SDK client. */
import {
  DescribeExecutionCommand,
  SFNClient,
  StartExecutionCommand,
  type DescribeExecutionCommandOutput,
  type StartExecutionCommandInput,
} from '@aws-sdk/client-sfn';
import { eventually } from '../../fixtures/wait';

/** Any credentials: the local engine accepts signatures without verifying them. */
export const TEST_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

/** A Step Functions client for the engine at `url`. */
export const sfnClient = (url: string): SFNClient =>
  new SFNClient({ endpoint: url, region: 'us-east-1', credentials: TEST_CREDENTIALS });

/** Resolves with the execution once it has left RUNNING (polled; nothing to await otherwise over HTTP). */
export function untilClosed(sfn: SFNClient, executionArn: string): Promise<DescribeExecutionCommandOutput> {
  return eventually(`${executionArn} to close`, async () => {
    const d = await sfn.send(new DescribeExecutionCommand({ executionArn }));
    return d.status !== 'RUNNING' && d.status !== 'PENDING_REDRIVE' ? d : undefined;
  });
}

/** A JSONata state machine definition. */
export const jsonataMachine = (startAt: string, states: Record<string, unknown>): string =>
  JSON.stringify({ QueryLanguage: 'JSONata', StartAt: startAt, States: states });

/** A lambda:invoke Task on `functionName` taking the function's Payload as its output. */
export const invokeTask = (
  functionName: string,
  payload: unknown = '{% $states.input %}',
  extra: Record<string, unknown> = {},
) => ({
  Type: 'Task',
  Resource: 'arn:aws:states:::lambda:invoke',
  Arguments: { FunctionName: functionName, Payload: payload },
  Output: '{% $states.result.Payload %}',
  ...extra,
});

/**
 * Sends a StartExecution again after its first attempt may have been cut off (a kill between the
 * engine's commit and its answer). Step Functions answers a resend with the same name and input while
 * the run is open with the same run, but once that run has closed with `ExecutionAlreadyExists`: then
 * the run is ours if it has our input, and the resend succeeded.
 */
export async function resendStartExecution(
  sfn: SFNClient,
  input: StartExecutionCommandInput & { name: string },
): Promise<{ executionArn?: string }> {
  try {
    return await sfn.send(new StartExecutionCommand(input));
  } catch (err) {
    if ((err as Error).name !== 'ExecutionAlreadyExists') throw err;
    const executionArn = `${input.stateMachineArn!.replace(':stateMachine:', ':execution:').split(':').slice(0, 7).join(':')}:${input.name}`;
    const existing = await sfn.send(new DescribeExecutionCommand({ executionArn }));
    if (existing.input !== (input.input ?? '{}')) throw err;
    return existing;
  }
}
