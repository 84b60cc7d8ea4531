/**
 * @autosave/cdk: what a CDK app imports. Everything else in this folder is the stack's internals, reached
 * only through these exports (the import rules and the package's exports map hold that line).
 */
export * from './autosave-workflows';
export * from './autosave-stack';
export { bundleBuiltInFunction, PREBUILT_FUNCTIONS_DIR, FUNCTION_BUNDLING } from './function-code';
export * from './deploy-options';
export * from './stack-inputs';
export * from './cost-model';
export * from './function-url-regions';
