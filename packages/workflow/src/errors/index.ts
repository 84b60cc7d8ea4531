export * from './autosave-error';
export * from './states-errors';
export * from './error-policy';
export * from './invalid-step-input-error';
