export * from './payload-ref';
export * from './payload-store';
export * from './blob-store';
export * from './s3-blob-store';
export * from './errors';
