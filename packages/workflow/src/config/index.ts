export * from './constants';
export * from './duration';
export * from './clock';
