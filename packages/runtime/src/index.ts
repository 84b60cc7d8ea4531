/**
 * @autosave/runtime: what runs inside the Lambdas. Each module is also its own subpath
 * (`@autosave/runtime/tools`, ...), which a Lambda bundle or the local engine imports to load only that module;
 * the function registry is `@autosave/runtime/handlers` only.
 */
export * from './approvals';
export * from './aws-clients';
export * from './crash-points';
export * from './dead-letters';
export * from './endpoints';
export * from './idempotency';
export * from './lambda';
export * from './metrics';
export * from './models';
export * from './payloads';
export * from './records';
export * from './tools';
