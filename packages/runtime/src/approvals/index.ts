export * from './link-signer';
export * from './approval-record';
export * from './approval-page';
export * from './approval-service';
export * from './approval-http';
export * from './email-approvers';
export * from './signing-keys';
