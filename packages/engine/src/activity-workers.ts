/**
 * The workers waiting in GetActivityTask's long poll, per activity: in memory only (a poll is an open
 * HTTP request; the tasks themselves are rows). A poll looks for a task, and while there is none waits
 * until a task of its activity is scheduled or its time is up. Polls are held on the wall clock: a
 * virtual engine clock moves timers, not how long an HTTP request stays open.
 */
import { ActivityWorkerLimitExceeded } from './service-errors';

/** How long GetActivityTask holds a poll that finds no task: 60 seconds, as the service does. */
export const ACTIVITY_POLL_MILLIS = 60_000;
/** Polls one activity may have open at once; one more is refused with ActivityWorkerLimitExceeded. */
export const MAX_ACTIVITY_POLLERS = 1_000;

/** What a poll answers: a task, or nothing (`{}`: no `taskToken`, as the service answers an empty poll). */
export type PollAnswer = { readonly taskToken: string; readonly input: string } | Record<string, never>;

interface ActivityWaiters {
  /** Grows with every task scheduled for the activity: a poll that saw an older value looks again at once. */
  generation: number;
  polls: number;
  readonly wakers: Set<() => void>;
}

/** The open polls of every activity, and the wake-ups when tasks are scheduled. */
export class ActivityWorkers {
  private readonly activities = new Map<string, ActivityWaiters>();
  private stopped = false;

  constructor(private readonly pollMillis: number = ACTIVITY_POLL_MILLIS) {}

  /** A task of `activityArn` was scheduled (committed): every poll of it looks again. */
  notify(activityArn: string): void {
    const waiters = this.activities.get(activityArn);
    if (!waiters) return;
    waiters.generation += 1;
    for (const wake of waiters.wakers) wake();
  }

  /** Ends every open poll with an empty answer (the engine is stopping). */
  stop(): void {
    this.stopped = true;
    for (const waiters of this.activities.values()) for (const wake of waiters.wakers) wake();
  }

  /** Open polls of an activity (the console's view of its workers). */
  polling(activityArn: string): number {
    return this.activities.get(activityArn)?.polls ?? 0;
  }

  /**
   * One long poll: `take` until it finds a task, waiting between tries for a task to be scheduled, for at
   * most the poll time; then an empty answer.
   */
  async poll(activityArn: string, take: () => Promise<PollAnswer | undefined>): Promise<PollAnswer> {
    let waiters = this.activities.get(activityArn);
    if (!waiters) this.activities.set(activityArn, (waiters = { generation: 0, polls: 0, wakers: new Set() }));
    if (waiters.polls >= MAX_ACTIVITY_POLLERS) {
      throw new ActivityWorkerLimitExceeded(
        `The maximum number of workers concurrently polling for activity tasks (${MAX_ACTIVITY_POLLERS}) has been reached`,
      );
    }
    waiters.polls += 1;
    const deadline = Date.now() + this.pollMillis;
    try {
      for (;;) {
        const seen = waiters.generation;
        const task = await take();
        if (task) return task;
        const left = deadline - Date.now();
        if (left <= 0 || this.stopped) return {};
        if (waiters.generation === seen) await this.wait(waiters, left);
      }
    } finally {
      waiters.polls -= 1;
      if (waiters.polls === 0 && waiters.wakers.size === 0) this.activities.delete(activityArn);
    }
  }

  private wait(waiters: ActivityWaiters, millis: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        waiters.wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, millis);
      waiters.wakers.add(wake);
    });
  }
}
