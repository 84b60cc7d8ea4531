export * from './conversation';
export * from './model-provider';
export * from './bedrock-model-provider';
export * from './scripted-model-provider';
export * from './recorded-model-call';
export * from './model-step';
export * from './errors';
export * from './bedrock-model-id';
