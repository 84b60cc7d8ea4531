import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { LocalApiServer } from '../api/server';
import type { InProcessLambdaRunner } from '../services/lambda/lambda-runner';
import { APPROVAL_ENDPOINT_FUNCTION } from '../services/lambda/registry-functions';
import type { RecordedDecisions } from '../services/recorded-decisions';
import type { Shutdown } from './shutdown';

/** Recorded decisions whose module loads at their first use. */
function loadedOnFirstUse(load: () => Promise<RecordedDecisions>): RecordedDecisions {
  let loaded: Promise<RecordedDecisions> | undefined;
  const get = () => (loaded ??= load());
  return {
    beforeTimeout: async (taskToken) => (await get()).beforeTimeout(taskToken),
    redeliverAll: async () => (await get()).redeliverAll(),
    close: () =>
      void loaded?.then(
        (d) => d.close(),
        () => undefined,
      ),
  };
}

/**
 * Approval decisions recorded but cut off before they reached their run (a crash mid-POST), when a function
 * serves the approval pages: once the functions are built. Their module (the approvals, DynamoDB's document
 * client) loads at the boot's sweep ({@link sweepRecordedDecisions}): the runs caught in flight do not wait for it.
 */
export function recordedDecisionsOf(boot: {
  readonly lambdas: InProcessLambdaRunner;
  readonly dynamodbClientOf: () => Promise<DynamoDBClient>;
  readonly api: LocalApiServer;
  readonly shutdown: Shutdown;
}): RecordedDecisions | undefined {
  const { lambdas, dynamodbClientOf, api, shutdown } = boot;
  const decisions = lambdas.has(APPROVAL_ENDPOINT_FUNCTION)
    ? loadedOnFirstUse(async () =>
        (await import('../services/recorded-decisions')).recordedDecisions(dynamodbClientOf, api.url),
      )
    : undefined;
  if (decisions) shutdown.add(() => decisions.close());
  return decisions;
}

/**
 * Delivers the recorded decisions not yet delivered, in the background, once `when` resolves true (after the full
 * handler is bound: the engine serves SendTaskSuccess). A stop that begins later waits for the sweep first.
 */
export function sweepRecordedDecisions(
  decisions: RecordedDecisions | undefined,
  when: Promise<boolean>,
  shutdown: Shutdown,
  log: (line: string) => void,
): void {
  if (!decisions) return;
  // Delivered once `when` says (the engine serves SendTaskSuccess by then); a wait timing out first takes its
  // decision anyway. Not once stopping has begun.
  void when.then((go) => {
    if (!go) return;
    const sweep = decisions
      .redeliverAll()
      .then((n) => {
        if (n > 0) log(`  delivered ${n} approval decision(s) recorded before the last stop but not yet delivered`);
      })
      .catch((err: unknown) =>
        console.error(
          'autosave local: could not deliver recorded approval decisions (reading a link delivers them):',
          err,
        ),
      );
    shutdown.first(() => sweep);
  });
}
