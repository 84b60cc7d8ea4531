/**
 * What the submitting call of a mocked `.sync` or `.waitForTaskToken` Task answered, for its TaskSubmitted
 * event. A mock config gives only the final result (or error); AWS's run of the real call records the
 * submitting call's own response there (LocalStack's AWS-validated local_mocking/test_base_callbacks:
 * `states:startExecution.sync[:2]` -> `{ExecutionArn, StartDate, …}`, `sqs:sendMessage.waitForTaskToken` ->
 * `{MD5OfMessageBody, MessageId, …}`, for a success and a failure alike). The HTTP metadata AWS adds to a
 * real response (SdkHttpMetadata, SdkResponseMetadata) is not invented here, as for any mocked result.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { TaskOutcome } from '../executor/task-outcome';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** StartExecution's response: the child's ARN and start (from the mocked DescribeExecution result when it has them). */
function startExecutionResponse(args: Json, outcome: TaskOutcome, nowMs: number): Json {
  const final = outcome.ok && isObject(outcome.value) ? outcome.value : {};
  const machine = typeof args.StateMachineArn === 'string' ? args.StateMachineArn : '';
  const name = typeof args.Name === 'string' ? args.Name : randomUUID();
  const executionArn =
    typeof final.ExecutionArn === 'string'
      ? final.ExecutionArn
      : `${machine.replace(':stateMachine:', ':execution:')}:${name}`;
  return { ExecutionArn: executionArn, StartDate: final.StartDate ?? nowMs / 1000 };
}

/** SendMessage's response: the MD5 of the body as sent and a message id. */
function sendMessageResponse(args: Json): Json {
  const body = typeof args.MessageBody === 'string' ? args.MessageBody : JSON.stringify(args.MessageBody ?? null);
  return { MD5OfMessageBody: createHash('md5').update(body).digest('hex'), MessageId: randomUUID() };
}

/**
 * The submitting call's response of a mocked callback or `.sync` Task (`resourceType`, `resource` as its
 * history names them). Integrations whose submit response no recording shows answer `{}`.
 */
export function mockedSubmission(
  resourceType: string,
  resource: string,
  args: unknown,
  outcome: TaskOutcome,
  nowMs: number,
): Json {
  const action = resource.split('.')[0];
  const request = isObject(args) ? args : {};
  if (resourceType === 'states' && action === 'startExecution') return startExecutionResponse(request, outcome, nowMs);
  if (resourceType === 'sqs' && action === 'sendMessage') return sendMessageResponse(request);
  return {};
}
