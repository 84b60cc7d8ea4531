export * from './autosave-error';
export * from './states-errors';
export * from './error-policy';
