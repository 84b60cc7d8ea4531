/**
 * What a Lambda handler is made of: the composition root (`runtime.ts`: the lib objects built from the
 * environment once per configuration) and the handler factories users build their own tool-step and
 * model-step functions with. The built-in handlers (../handlers) are made from the same parts.
 */
export * from './runtime';
export * from './tool-step-handler';
export * from './model-step-handler';
