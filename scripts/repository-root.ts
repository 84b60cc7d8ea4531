/**
 * This repository's root: the example app, which the repository's own tools (the deploy rehearsal, the crash demo)
 * and tests synthesize and run. Never part of a published package, which knows only the user's app it is run in.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPOSITORY_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
