/**
 * @autosave/local: the local engine, started in-process (`startLocal`). The `autosave` command is the
 * package's bin (src/bin.ts); the engine's parts are reached only through these exports.
 */
export * from './server';
export * from './project';
