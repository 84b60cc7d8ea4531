import { approvalService, lambdaHandler } from '../lambda';

/**
 * approval-request: invoked with `.waitForTaskToken`; stores the token and issues the signed link. The
 * machine ignores the return value; the log line names the approval, never the token or the signature.
 */
export const handler = lambdaHandler(async (event: unknown, rt) => {
  const issued = await (await approvalService(rt)).request(event);
  console.log(
    JSON.stringify({
      message: 'approval link issued',
      approvalId: issued.approvalId,
      expiresAtSeconds: issued.expiresAtSeconds,
    }),
  );
  return issued;
});
