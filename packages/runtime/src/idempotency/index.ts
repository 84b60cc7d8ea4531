export * from './idempotency-ledger';
export * from './ledger-record';
export * from './dynamodb-ledger-store';
export * from './errors';
