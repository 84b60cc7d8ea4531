import type { SFNClient } from '@aws-sdk/client-sfn';
import { analyzeHistory } from './run-analysis';
import { getFullHistory, listRuns, type RunSummary } from './runs';

/** Something a tool step did under an idempotency key, and when (an outbox email, say). */
export interface KeyedSideEffect {
  readonly idempotencyKey: string;
  readonly at: Date;
}

/** Runs looked at, at most: the newest ones (a side effect older than all of them stays unlinked). */
const RUNS_SEARCHED = 1000;
/** Runs read besides those open at the time (the engine's clock may not be the wall clock: --virtual-clock). */
const OTHER_RUNS_READ = 50;

/**
 * The run whose tool step acted under each key, by key. The side effect happened while its run was open, so only
 * runs open at that moment are read (their history says which keys their steps were called with): a handful, not
 * every run. Failing those, the newest {@link OTHER_RUNS_READ} others (an engine on a virtual clock keeps other
 * times than the tool's). A key none of them used is absent.
 */
export async function runsOfIdempotencyKeys(
  sfn: SFNClient,
  effects: readonly KeyedSideEffect[],
): Promise<Map<string, RunSummary>> {
  const found = new Map<string, RunSummary>();
  if (effects.length === 0) return found;
  const runs = await listRuns(sfn, { limit: RUNS_SEARCHED });
  const keysOf = new Map<string, Promise<readonly string[]>>();
  const keysOfRun = (run: RunSummary) => {
    let keys = keysOf.get(run.executionArn);
    if (!keys) {
      keys = getFullHistory(sfn, run.executionArn).then((events) =>
        analyzeHistory(events).entries.flatMap((e) => e.idempotencyKeys),
      );
      keysOf.set(run.executionArn, keys);
    }
    return keys;
  };
  for (const effect of effects) {
    const t = effect.at.getTime();
    const isOpen = (r: RunSummary) =>
      (r.startDate?.getTime() ?? Infinity) <= t && (r.stopDate?.getTime() ?? Infinity) >= t;
    const candidates = [...runs.filter(isOpen), ...runs.filter((r) => !isOpen(r)).slice(0, OTHER_RUNS_READ)];
    for (const run of candidates) {
      if ((await keysOfRun(run)).includes(effect.idempotencyKey)) {
        found.set(effect.idempotencyKey, run);
        break;
      }
    }
  }
  return found;
}
