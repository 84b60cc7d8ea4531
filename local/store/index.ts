export * from './engine-store';
export * from './group-committer';
