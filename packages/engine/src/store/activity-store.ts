/**
 * The rows of activities (CreateActivity) and of their queue: the activity tasks scheduled by running
 * executions and not yet handed to a worker. A queued task is written by the transition that schedules it
 * (its token opened in the same commit) and leaves the queue in the transition that records its
 * `ActivityStarted`, so a crash can neither lose a task nor hand one out twice. A task whose token closed
 * before any worker took it (timed out, its run stopped) is dropped when its activity is next polled.
 */
import type { EngineStore } from './engine-store';

/** An activity as stored. */
export interface ActivityRow {
  readonly arn: string;
  readonly name: string;
  readonly created_ms: number;
  /** The `encryptionConfiguration` given at creation, as JSON; null when none. */
  readonly encryption: string | null;
  /** The tags given at creation, as JSON; null when none. */
  readonly tags: string | null;
}

/** An activity task waiting for a worker. */
export interface ActivityTaskRow {
  readonly id: number;
  readonly token: string;
  readonly activity_arn: string;
  readonly execution_arn: string;
  readonly frame_id: string;
  /** The task's input, as JSON text (what GetActivityTask answers). */
  readonly input: string;
}

/** Inserts an activity, or keeps the one of that ARN (CreateActivity is idempotent on the name). */
export function insertActivity(store: EngineStore, row: ActivityRow): void {
  store
    .sql(
      'INSERT OR IGNORE INTO activities (arn, name, created_ms, encryption, tags) VALUES (@arn, @name, @created_ms, @encryption, @tags)',
    )
    .run(row);
}

export function getActivity(store: EngineStore, arn: string): ActivityRow | undefined {
  return store.sql('SELECT * FROM activities WHERE arn = ?').get(arn) as ActivityRow | undefined;
}

/** Every activity, by name. */
export function listActivities(store: EngineStore): ActivityRow[] {
  return store.sql('SELECT * FROM activities ORDER BY name').all() as ActivityRow[];
}

/** How many activities there are (the account quota). */
export function countActivities(store: EngineStore): number {
  return (store.sql('SELECT COUNT(*) AS n FROM activities').get() as { n: number }).n;
}

/** Removes an activity; its queued tasks stay (they run to their timeout, or are taken if it is created again). */
export function deleteActivity(store: EngineStore, arn: string): void {
  store.sql('DELETE FROM activities WHERE arn = ?').run(arn);
}

/** Queues a scheduled activity task (inside the scheduling transition's commit). */
export function queueActivityTask(store: EngineStore, task: Omit<ActivityTaskRow, 'id'>): void {
  store
    .sql(
      'INSERT INTO activity_tasks (token, activity_arn, execution_arn, frame_id, input) VALUES (@token, @activity_arn, @execution_arn, @frame_id, @input)',
    )
    .run(task);
}

/** Takes a task off the queue (inside the transition that records its `ActivityStarted`). */
export function dequeueActivityTask(store: EngineStore, token: string): void {
  store.sql('DELETE FROM activity_tasks WHERE token = ?').run(token);
}

/** A queued task with the attempt (`seq`) its token belongs to. */
export type WaitingActivityTask = ActivityTaskRow & { readonly seq: number };

/** The oldest tasks of an activity still waiting for a worker (their tokens open), oldest first. */
export function waitingActivityTasks(store: EngineStore, activityArn: string, limit: number): WaitingActivityTask[] {
  return store
    .sql(
      `SELECT q.*, t.seq AS seq FROM activity_tasks q JOIN task_tokens t ON t.token = q.token
       WHERE q.activity_arn = ? AND t.open = 1 ORDER BY q.id LIMIT ?`,
    )
    .all(activityArn, limit) as WaitingActivityTask[];
}

/**
 * Drops an activity's queued tasks whose tokens closed before a worker took them; returns how many. Each queued
 * task looks its own token up: closed tokens stay until their runs are deleted, so a list of them all (as
 * `token IN (SELECT … WHERE open = 0)` builds) grows with the store, and every poll would pay for it.
 */
export function dropClosedActivityTasks(store: EngineStore, activityArn: string): number {
  return store
    .sql(
      `DELETE FROM activity_tasks WHERE activity_arn = ?
         AND EXISTS (SELECT 1 FROM task_tokens t WHERE t.token = activity_tasks.token AND t.open = 0)`,
    )
    .run(activityArn).changes;
}
