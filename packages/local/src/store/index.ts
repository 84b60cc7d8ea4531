export * from './engine-store';
export * from './group-committer';
export * from './queue-store';
export * from './transition-batch';
export * from './stack-store';
export * from './data-dir-lock';
export * from './wal-frames';
export * from './mocked-runs-store';
