import { MAX_JSON_NESTING_DEPTH, MAX_TASK_TOKEN_LENGTH, STATES_PAYLOAD_LIMIT_BYTES } from '@autosave/workflow/config';
import { TASK_TOKEN_PATTERN } from '../executor/task-token';
import type { FramePosition } from '../executor/frame';
import type { TaskTokenRow } from '../store';
import { InvalidOutput, InvalidToken, ServiceUnavailable, TaskDoesNotExist, TaskTimedOut } from '../service-errors';
import type { ExecutionRuntime } from './executions';
import { byteLength, nestsDeeperThan, optionalString, requireString } from './wire';

type Input = Record<string, unknown>;

/** The request's `taskToken`, refused with AWS's `InvalidToken` answer when it is not one the engine could have made. */
function wellFormedToken(input: Input): string {
  const token = requireString(input, 'taskToken');
  if (token.length > MAX_TASK_TOKEN_LENGTH || !TASK_TOKEN_PATTERN.test(token))
    throw new InvalidToken("Invalid Token: 'Invalid token'");
  return token;
}

/** Finds an open token: `InvalidToken` when malformed, `TaskDoesNotExist` when unknown, `TaskTimedOut` when closed. */
function openToken(rt: ExecutionRuntime, input: Input): TaskTokenRow {
  const token = wellFormedToken(input);
  const row = rt.store.getTaskToken(token);
  if (!row) throw new TaskDoesNotExist('Task Does Not Exist');
  if (!row.open) throw new TaskTimedOut('Task Timed Out');
  return row;
}

async function answer(
  rt: ExecutionRuntime,
  row: TaskTokenRow,
  outcome: Parameters<ExecutionRuntime['executor']['signal']>[2],
): Promise<object> {
  const result = await rt.executor.signal(row.execution_arn, row.frame_id, outcome);
  if (result === 'stale') throw new TaskTimedOut('Task Timed Out');
  // The task is still waiting on this token: a caller told "timed out" would give up on a live task.
  if (result === 'not-applied') throw new ServiceUnavailable('The engine could not take the answer now; try again');
  return {};
}

/** SendTaskSuccess. */
export async function sendTaskSuccess(rt: ExecutionRuntime, input: Input): Promise<object> {
  // A malformed token is refused before the output is read: AWS answers InvalidToken for one sent with an
  // output that is not JSON (aws-sdk:sfn:sendTaskSuccess, test_sfn_send_task_outcome_with_no_such_token).
  wellFormedToken(input);
  const output = requireString(input, 'output');
  if (byteLength(output) > STATES_PAYLOAD_LIMIT_BYTES) throw new InvalidOutput('Output exceeds the maximum size');
  if (nestsDeeperThan(output, MAX_JSON_NESTING_DEPTH))
    throw new InvalidOutput(`Invalid Output: nested deeper than ${MAX_JSON_NESTING_DEPTH} levels`);
  let value: unknown;
  try {
    value = JSON.parse(output);
  } catch {
    throw new InvalidOutput('Invalid Output: not JSON');
  }
  const row = openToken(rt, input);
  return answer(rt, row, { kind: 'task-outcome', seq: row.seq, source: 'token', outcome: { ok: true, value } });
}

/** SendTaskFailure. */
export async function sendTaskFailure(rt: ExecutionRuntime, input: Input): Promise<object> {
  const row = openToken(rt, input);
  const error = optionalString(input, 'error') ?? '';
  const cause = optionalString(input, 'cause') ?? '';
  return answer(rt, row, { kind: 'task-outcome', seq: row.seq, source: 'token', outcome: { ok: false, error, cause } });
}

/** SendTaskHeartbeat: pushes the task's heartbeat deadline out by its `HeartbeatSeconds`. */
export async function sendTaskHeartbeat(rt: ExecutionRuntime, input: Input): Promise<object> {
  const row = openToken(rt, input);
  const frame = rt.store.getFrame(row.execution_arn, row.frame_id);
  if (!frame || frame.status !== 'RUNNING') throw new TaskTimedOut('Task Timed Out');
  const pos = JSON.parse(frame.position) as FramePosition;
  if (pos.phase.kind !== 'task' || pos.seq !== row.seq) throw new TaskTimedOut('Task Timed Out');
  const heartbeatSeconds = pos.phase.heartbeatSeconds;
  if (heartbeatSeconds !== undefined) {
    // On the group commit like every other write: many heartbeats in one turn share one fsync.
    await rt.store.committer.commit(() =>
      rt.store.pushHeartbeat(row.execution_arn, row.frame_id, row.seq, rt.clock.now() + heartbeatSeconds * 1000),
    );
    rt.armTimers();
  }
  return {};
}
