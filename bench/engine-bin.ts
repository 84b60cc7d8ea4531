/**
 * Which `autosave` executable the bench's engine processes run (the API parts and the restart): this
 * checkout's, or another's named by `BENCH_ENGINE_BIN`, so that two builds can be compared by the same bench
 * code on the same machine in the same minutes (this machine's speed moves by half within minutes, so
 * figures from different sessions do not compare). The other checkout needs its own installed
 * `node_modules` and CLI bundle. The user-driven part also needs a build that answers AUTOSAVE_CPU_ACCOUNTING,
 * and the scale part's restart opens a store this checkout wrote, which an older build may refuse:
 * `npm run bench:restart` has the other build write its own.
 */
import { resolve } from 'node:path';
import { AUTOSAVE_BIN } from '../scripts/engine-process';

/** The environment variable naming another checkout's `bin/autosave.js`. */
export const ENGINE_BIN_ENV = 'BENCH_ENGINE_BIN';

const named = process.env[ENGINE_BIN_ENV];

/** The executable the bench's engine processes run. */
export const ENGINE_BIN = named ? resolve(named) : AUTOSAVE_BIN;

/** The other checkout's executable, for the bench's output; undefined when the engine is this checkout's. */
export const engineBinNote = (): string | undefined => (named ? `${ENGINE_BIN} (${ENGINE_BIN_ENV})` : undefined);
