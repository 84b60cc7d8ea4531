import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { systemClock, type Clock } from '@autosave/workflow/config';
import { VirtualClock } from '@autosave/engine';
import type { StartLocalOptions } from './options';

/** Where a virtual clock keeps its time, so a restart does not send it back to its epoch. */
export const VIRTUAL_CLOCK_FILE = 'virtual-clock.json';

/** A {@link VirtualClock} that starts where the last one stopped and records every advance. */
async function persistentVirtualClock(file: string): Promise<VirtualClock> {
  let saved: number | undefined;
  try {
    saved = (JSON.parse(await readFile(file, 'utf8')) as { epochMillis: number }).epochMillis;
  } catch {
    saved = undefined;
  }
  const clock = new VirtualClock(saved);
  const advanceTo = clock.advanceTo.bind(clock);
  clock.advanceTo = async (targetMillis: number) => {
    await advanceTo(targetMillis);
    await writeFile(file, JSON.stringify({ epochMillis: clock.now() }));
  };
  return clock;
}

/** The clock everything local reads: the virtual one when asked for, else the system's. */
export interface LocalClock {
  readonly virtualClock?: VirtualClock;
  readonly clock: Clock;
}

/** Starts the clock (a virtual one where the last stopped): before SQS and the engine, which read it. */
export async function startClock(options: StartLocalOptions, dataDir: string): Promise<LocalClock> {
  const virtualClock = options.virtualClock
    ? await persistentVirtualClock(join(dataDir, VIRTUAL_CLOCK_FILE))
    : undefined;
  const clock: Clock = virtualClock ?? systemClock;
  return { virtualClock, clock };
}
