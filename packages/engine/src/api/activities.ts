/**
 * The activity operations: CreateActivity, DescribeActivity, ListActivities, DeleteActivity and the
 * workers' GetActivityTask long poll. A Task state whose `Resource` is an activity ARN queues a task
 * (executor/states/task.ts); a worker's poll takes the oldest, and the transition that records its
 * `ActivityStarted` takes it off the queue, so each task goes to one worker, across crashes too. The
 * worker then answers with SendTaskSuccess/SendTaskFailure/SendTaskHeartbeat on the task's token.
 * Error texts are the ones AWS answered (localstack's AWS-validated snapshots test_sfn_api_activities).
 */
import { MAX_NAME_LENGTH } from '@autosave/workflow/config';
import {
  type ActivityRow,
  countActivities,
  deleteActivity as deleteActivityRow,
  dequeueActivityTask,
  dropClosedActivityTasks,
  getActivity,
  insertActivity,
  listActivities as listActivityRows,
  waitingActivityTasks,
} from '../store';
import type { ActivityWorkers, PollAnswer } from '../activity-workers';
import { activityArn, assertActivityArn } from '../arns';
import type { EngineContext } from '../engine-context';
import { isValidResourceName } from '../names';
import {
  ActivityAlreadyExists,
  ActivityDoesNotExist,
  ActivityLimitExceeded,
  InvalidName,
  ServiceUnavailable,
  TooManyTags,
  ValidationException,
} from '../service-errors';
import type { ExecutionRuntime } from './executions';
import { epochSeconds, optionalString, page, pageRequest, requireString } from './wire';

type Input = Record<string, unknown>;

/** Activities one account may have (the service's default quota). */
export const MAX_ACTIVITIES = 10_000;
/** Tags one resource may have. */
const MAX_TAGS = 50;

function encryptionOf(input: Input): string | null {
  const config = input.encryptionConfiguration;
  if (config === undefined || config === null) return null;
  if (typeof config !== 'object' || Array.isArray(config))
    throw new ValidationException("Value at 'encryptionConfiguration' must be an object");
  return JSON.stringify(config);
}

function tagsOf(input: Input): string | null {
  const tags = input.tags;
  if (tags === undefined || tags === null) return null;
  if (!Array.isArray(tags)) throw new ValidationException("Value at 'tags' must be a list");
  if (tags.length > MAX_TAGS) throw new TooManyTags(`Too many tags: a resource may have ${MAX_TAGS}`);
  return JSON.stringify(tags);
}

/**
 * CreateActivity: idempotent on the name. A second call answers the first activity's ARN and creation
 * date (recorded: create_activity_response_duplicate) and keeps its tags; only a different encryption
 * configuration is refused, as it may not be updated.
 */
export async function createActivity(ctx: EngineContext, input: Input): Promise<object> {
  const name = requireString(input, 'name');
  if (!isValidResourceName(name)) throw new InvalidName(`Invalid Name: '${name}'`);
  const encryption = encryptionOf(input);
  const tags = tagsOf(input);
  const arn = activityArn(ctx.scope, name);
  const row = await ctx.store.committer.commit(() => {
    const existing = getActivity(ctx.store, arn);
    if (existing) {
      if ((existing.encryption ?? null) !== encryption)
        throw new ActivityAlreadyExists(`Activity already exists: '${arn}'`);
      return existing;
    }
    if (countActivities(ctx.store) >= MAX_ACTIVITIES)
      throw new ActivityLimitExceeded(`The maximum number of activities (${MAX_ACTIVITIES}) has been reached`);
    const created: ActivityRow = { arn, name, created_ms: ctx.clock.now(), encryption, tags };
    insertActivity(ctx.store, created);
    return created;
  });
  return { activityArn: row.arn, creationDate: epochSeconds(row.created_ms) };
}

function existingActivity(ctx: EngineContext, input: Input): ActivityRow {
  const arn = assertActivityArn(requireString(input, 'activityArn'));
  const row = getActivity(ctx.store, arn);
  if (!row) throw new ActivityDoesNotExist(`Activity Does Not Exist: '${arn}'`);
  return row;
}

/** DescribeActivity. */
export function describeActivity(ctx: EngineContext, input: Input): object {
  const row = existingActivity(ctx, input);
  return {
    activityArn: row.arn,
    name: row.name,
    creationDate: epochSeconds(row.created_ms),
    ...(row.encryption !== null ? { encryptionConfiguration: JSON.parse(row.encryption) } : {}),
  };
}

/** ListActivities: by name, paged by `maxResults` / `nextToken`. */
export function listActivities(ctx: EngineContext, input: Input): object {
  const { items, nextToken } = page(listActivityRows(ctx.store), pageRequest(input));
  return {
    activities: items.map((r) => ({ activityArn: r.arn, name: r.name, creationDate: epochSeconds(r.created_ms) })),
    ...(nextToken ? { nextToken } : {}),
  };
}

/**
 * DeleteActivity: answers `{}` whether or not the activity exists (recorded: delete_activity_response_2).
 * Tasks already scheduled for it stay queued: no worker can poll for them (ActivityDoesNotExist), so their
 * runs wait for their `TimeoutSeconds`, or for an activity created again under the same name.
 */
export async function deleteActivity(ctx: EngineContext, input: Input): Promise<object> {
  const arn = assertActivityArn(requireString(input, 'activityArn'));
  await ctx.store.committer.commit(() => deleteActivityRow(ctx.store, arn));
  return {};
}

/**
 * GetActivityTask: the oldest task of the activity, `{taskToken, input}`; or, when none is scheduled
 * within the poll time (60 s), `{}` (no token, as the service answers an empty poll).
 */
export async function getActivityTask(
  rt: ExecutionRuntime,
  workers: ActivityWorkers,
  input: Input,
): Promise<PollAnswer> {
  const activity = existingActivity(rt, input);
  const workerName = optionalString(input, 'workerName');
  if (workerName !== undefined && [...workerName].length > MAX_NAME_LENGTH) {
    throw new ValidationException(
      `1 validation error detected: Value '${workerName}' at 'workerName' failed to satisfy constraint: Member must have length less than or equal to ${MAX_NAME_LENGTH}`,
    );
  }
  // Tasks whose tokens closed before any worker took them (timed out, their run stopped) leave the queue.
  await rt.store.committer.commit(() => dropClosedActivityTasks(rt.store, activity.arn));
  return workers.poll(activity.arn, () => takeTask(rt, activity.arn, workerName));
}

/** Hands the oldest waiting task to this worker: its `ActivityStarted` committed first. Undefined when none waits. */
async function takeTask(
  rt: ExecutionRuntime,
  arn: string,
  workerName: string | undefined,
): Promise<PollAnswer | undefined> {
  for (;;) {
    const [task] = waitingActivityTasks(rt.store, arn, 1);
    if (!task) return undefined;
    const taken = await rt.executor.signal(task.execution_arn, task.frame_id, {
      kind: 'activity-started',
      seq: task.seq,
      token: task.token,
      ...(workerName !== undefined ? { workerName } : {}),
    });
    if (taken === 'applied') return { taskToken: task.token, input: task.input };
    if (taken === 'not-applied') throw new ServiceUnavailable('The engine could not hand out the task now; try again');
    // Another worker took it first, or its attempt is over: it is no task for this poll.
    await rt.store.committer.commit(() => dequeueActivityTask(rt.store, task.token));
  }
}
