/**
 * The records every durable part of the runtime keeps: the DynamoDB record table (a typed, TTL'd item
 * store shared by the ledger, approvals, model calls and dead letters) and the canonical hashing that keys
 * and fingerprints them.
 */
export * from './record-table';
export * from './hashing';
