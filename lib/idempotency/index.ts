export * from './idempotency-ledger';
export * from './ledger-record';
export * from './dynamodb-ledger-store';
export * from './record-table';
export * from './errors';
export * from './crash-point';
