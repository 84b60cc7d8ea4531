/** Renewal runs for the renewal-story tests: distinct contracts, their inputs, names and email keys. */
import { contractRenewal } from '../../../../statemachines';

/** The contract version every renewal run renews. */
export const RENEWAL_VERSION = 3;

/** `count` distinct contract ids, `C-<first>`, `C-<first+1>`, ... */
export const contractIdsFrom = (first: number, count: number): string[] =>
  Array.from({ length: count }, (_, i) => `C-${first + i}`);

/** The send step's idempotency key for a contract: `renewal:{contractId}:{version}`. */
export const renewalKey = (contractId: string): string => `renewal:${contractId}:${RENEWAL_VERSION}`;

/** The workflow's example input, for this contract. */
export const renewalInput = (contractId: string): Record<string, unknown> => ({
  ...(contractRenewal.exampleInput as Record<string, unknown>),
  contractId,
  version: RENEWAL_VERSION,
  customerEmail: `billing@${contractId.toLowerCase()}.example.com`,
});

/** The run's execution name. */
export const renewalRunName = (contractId: string, suffix = ''): string =>
  `renewal-${contractId}-v${RENEWAL_VERSION}${suffix}`;
