import { ConditionalCheckFailedException, ScanCommand, UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { IDEMPOTENCY_ID_PREFIX } from '../../lib/idempotency/dynamodb-ledger-store';

/**
 * Ends the leases of idempotency claims whose attempts died with the previous engine process.
 *
 * Locally every Lambda runs inside the engine's process, so at boot no attempt from before is alive: an
 * IN_PROGRESS claim left in the ledger belongs to an attempt a crash (or SIGKILL) cut off. Its lease would
 * otherwise block the step's re-invocation for up to the function's whole timeout (the lease is the
 * attempt's remaining time) — longer than the retry policy waits, so the run would fail with
 * `IdempotencyInProgressError`. Expiring the lease lets the re-invoked attempt take the claim over and
 * reconcile with the provider, the ledger's own path for a crashed attempt. (On AWS the Lambda's timeout
 * ends such an attempt; nothing like this runs there.)
 *
 * Returns the number of leases ended. Knows the ledger's item layout (`idem#<key>`, `status`,
 * `leaseExpiresAt`, `claimToken`) from lib/idempotency's DynamoDB adapter.
 */
export async function expireOrphanedLeases(dynamodb: DynamoDBClient, table: string): Promise<number> {
  let ended = 0;
  let startKey: Record<string, any> | undefined;
  do {
    const page = await dynamodb.send(new ScanCommand({
      TableName: table,
      FilterExpression: 'begins_with(id, :prefix) AND #status = :inProgress',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':prefix': { S: IDEMPOTENCY_ID_PREFIX }, ':inProgress': { S: 'IN_PROGRESS' } },
      ExclusiveStartKey: startKey,
    }));
    for (const item of page.Items ?? []) {
      try {
        await dynamodb.send(new UpdateItemCommand({
          TableName: table,
          Key: { id: item.id },
          UpdateExpression: 'SET leaseExpiresAt = :ended',
          ConditionExpression: '#status = :inProgress AND claimToken = :token',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':ended': { N: '0' }, ':inProgress': { S: 'IN_PROGRESS' }, ':token': item.claimToken },
        }));
        ended += 1;
      } catch (err) {
        if (!(err instanceof ConditionalCheckFailedException)) throw err;
      }
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return ended;
}
