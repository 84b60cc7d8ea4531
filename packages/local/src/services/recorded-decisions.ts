import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SFNClient } from '@aws-sdk/client-sfn';
import { ApprovalLinkSigner, ApprovalService } from '@autosave/runtime/approvals';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '@autosave/workflow/config';
import { loadApprovalSecrets, loadRuntimeConfig } from '@autosave/runtime/endpoints';
import { RecordTable } from '@autosave/runtime/records';
import type { RecordedTaskOutcome } from '@autosave/engine';
import { lazyClient } from './lazy-client';

/** The approvals' recorded decisions, as the engine needs them: handed over at a timeout, swept at boot. */
export interface RecordedDecisions {
  /** For {@link EngineOptions.recordedTaskOutcome}: the decision recorded for a timing-out wait, if any. */
  readonly beforeTimeout: RecordedTaskOutcome;
  /** Delivers every recorded decision that never reached its run (a crash cut it off); resolves to how many. */
  redeliverAll(): Promise<number>;
  close(): void;
}

/**
 * The same approval records the `approval-endpoint` function keeps (the runtime's table, configured from the
 * local environment), with SendTaskSuccess to the engine's own port (`engineUrl`, served once it is ready).
 * `dynamodb` is asked for its client at the first decision: a boot does not wait for the local DynamoDB.
 */
export function recordedDecisions(dynamodb: () => Promise<DynamoDBClient>, engineUrl: string): RecordedDecisions {
  const config = loadRuntimeConfig();
  // Made on the first decision to deliver: most starts have none, and the client package is megabytes.
  const sfn = lazyClient<SFNClient>(
    async () =>
      new (await import('@aws-sdk/client-sfn')).SFNClient({
        region: LOCAL_REGION,
        credentials: LOCAL_CREDENTIALS,
        endpoint: engineUrl,
      }),
  );
  let service: Promise<ApprovalService> | undefined;
  const approvals = () =>
    (service ??= Promise.all([loadApprovalSecrets(config), dynamodb()]).then(
      ([secrets, client]) =>
        new ApprovalService({
          table: new RecordTable(client, config.table),
          signer: new ApprovalLinkSigner(secrets),
          sfn,
          baseUrl: config.approvalBaseUrl,
        }),
    ));
  return {
    beforeTimeout: async (taskToken) => {
      const decision = await (await approvals()).settleBeforeTimeout(taskToken);
      return decision ? { ok: true, value: decision } : undefined;
    },
    redeliverAll: async () => (await approvals()).redeliverAllRecordedDecisions(),
    close: () => sfn.destroy(),
  };
}
