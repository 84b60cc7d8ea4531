/** Helpers for tests that drive a live local engine with the Step Functions SDK client. */
import { DescribeExecutionCommand, SFNClient, type DescribeExecutionCommandOutput } from '@aws-sdk/client-sfn';

/** Any credentials: the local engine accepts signatures without verifying them. */
export const TEST_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

/** A Step Functions client for the engine at `url`. */
export const sfnClient = (url: string): SFNClient => new SFNClient({ endpoint: url, region: 'us-east-1', credentials: TEST_CREDENTIALS });

/** Resolves with the execution once it has left RUNNING (polled every 10 ms; nothing to await otherwise over HTTP). */
export async function untilClosed(sfn: SFNClient, executionArn: string): Promise<DescribeExecutionCommandOutput> {
  for (;;) {
    const d = await sfn.send(new DescribeExecutionCommand({ executionArn }));
    if (d.status !== 'RUNNING' && d.status !== 'PENDING_REDRIVE') return d;
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A JSONata state machine definition. */
export const jsonataMachine = (startAt: string, states: Record<string, unknown>): string =>
  JSON.stringify({ QueryLanguage: 'JSONata', StartAt: startAt, States: states });

/** A lambda:invoke Task on `functionName` taking the function's Payload as its output. */
export const invokeTask = (functionName: string, payload: unknown = '{% $states.input %}', extra: Record<string, unknown> = {}) => ({
  Type: 'Task',
  Resource: 'arn:aws:states:::lambda:invoke',
  Arguments: { FunctionName: functionName, Payload: payload },
  Output: '{% $states.result.Payload %}',
  ...extra,
});
