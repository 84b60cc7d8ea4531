import { mkdir } from 'node:fs/promises';
import { resolve, join } from 'node:path';
import { DEFAULT_LOCAL_DATA_DIR } from '@autosave/workflow/config';
import { lockDataDirectory } from '@autosave/engine/store';
import type { StartLocalOptions } from './options';

/** Name of each part's files in the data directory. */
export const DATA_LAYOUT = {
  engine: 'engine',
  sqs: 'sqs.sqlite',
  dynamodb: 'dynamodb',
  s3: 's3',
  stack: 'stack',
} as const;

/** The data directory, and the release of its lock. */
export interface LockedDataDirectory {
  readonly dataDir: string;
  readonly unlock: () => Promise<void>;
}

/**
 * Creates the data directory and locks it (unless the caller already holds the lock): first, before anything opens
 * a file in it, so that a second engine on the same directory stops here.
 */
export async function lockDataDir(options: StartLocalOptions): Promise<LockedDataDirectory> {
  const dataDir = resolve(options.dataDir ?? DEFAULT_LOCAL_DATA_DIR);
  await mkdir(join(dataDir, DATA_LAYOUT.engine), { recursive: true });
  const unlock = options.dataDirLock ?? (await lockDataDirectory(dataDir));
  return { dataDir, unlock };
}
