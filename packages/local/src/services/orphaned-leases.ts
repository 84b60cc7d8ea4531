import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDbLedgerStore } from '@autosave/runtime/idempotency';

/**
 * Ends the leases of idempotency claims whose attempts died with the previous engine process.
 *
 * Locally every Lambda runs inside the engine's process, so at boot no attempt from before is alive: an
 * IN_PROGRESS claim left in the ledger belongs to an attempt a crash (or SIGKILL) cut off. Its lease would
 * otherwise block the step's re-invocation for up to the function's whole timeout (the lease is the
 * attempt's remaining time). Ending it is exactly what the ledger does when an attempt fails
 * ({@link DynamoDbLedgerStore.release}): the re-invoked attempt takes the claim over at once and
 * reconciles with the provider before acting. (On AWS the Lambda's timeout ends such an attempt and the
 * lease-wait retrier outlasts it; nothing like this runs there.)
 *
 * Returns the number of leases ended.
 */
export async function expireOrphanedLeases(dynamodb: DynamoDBClient, table: string): Promise<number> {
  const ledger = new DynamoDbLedgerStore(dynamodb, table);
  let ended = 0;
  for await (const claim of ledger.inProgressClaims()) {
    await ledger.release(claim.key, claim.claimToken);
    ended += 1;
  }
  return ended;
}
