/**
 * Golden histories: a run's GetExecutionHistory reduced to what is behaviour — the sequence of event
 * types, each with the state it belongs to — with ids, timestamps, ARNs, tokens and payloads stripped,
 * so the file is deterministic. A change in that sequence is a change in behaviour and must be reviewed
 * (regenerate with UPDATE_GOLDEN=1 and read the diff).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HistoryEvent } from '@aws-sdk/client-sfn';

/** Directory of the golden files: test/fixtures/history. */
export const GOLDEN_HISTORY_DIR = fileURLToPath(new URL('../../../fixtures/history/', import.meta.url));
/** Set to 1 to rewrite the golden files from the runs instead of comparing. */
export const UPDATE_GOLDEN_ENV = 'UPDATE_GOLDEN';

/** One history event as the golden keeps it. */
export interface GoldenEvent {
  readonly type: string;
  /** The state the event belongs to (the last state entered), absent before the first. */
  readonly state?: string;
}

/** The file content: the workflow, the path taken (absent for the happy path) and its events. */
export interface GoldenHistory {
  readonly workflow: string;
  readonly path?: string;
  readonly events: readonly GoldenEvent[];
}

/** Reduces a history to (event type, state name) pairs. */
export function goldenEvents(events: readonly HistoryEvent[]): GoldenEvent[] {
  let state: string | undefined;
  return events.map((e) => {
    const entered = e.stateEnteredEventDetails?.name;
    if (entered) state = entered;
    const exited = e.stateExitedEventDetails?.name;
    const owner = entered ?? exited ?? state;
    if (exited) state = undefined;
    return owner === undefined ? { type: e.type! } : { type: e.type!, state: owner };
  });
}

/** File of a workflow's golden: `<workflow>.history.json` for the happy path, `<workflow>.<path>.history.json` for another. */
export const goldenPath = (workflow: string, path?: string): string =>
  join(GOLDEN_HISTORY_DIR, `${workflow}${path ? `.${path}` : ''}.history.json`);

/**
 * With UPDATE_GOLDEN=1 writes the golden and returns it; otherwise returns the stored golden (the test
 * compares). A missing golden is an error that says how to make one.
 */
export async function goldenFor(
  workflow: string,
  actual: readonly GoldenEvent[],
  path?: string,
): Promise<GoldenHistory> {
  const file = goldenPath(workflow, path);
  const golden: GoldenHistory = { workflow, ...(path ? { path } : {}), events: actual };
  if (process.env[UPDATE_GOLDEN_ENV] === '1') {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, serializeGolden(golden));
    return golden;
  }
  try {
    return JSON.parse(await readFile(file, 'utf8')) as GoldenHistory;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error(`No golden history at ${file}: run with ${UPDATE_GOLDEN_ENV}=1 to record it, then review it`);
    }
    throw error;
  }
}

/** One event a line, so a diff of a golden reads as a diff of behaviour. */
export function serializeGolden(golden: GoldenHistory): string {
  const lines = golden.events.map((e) => `    ${JSON.stringify(e)}`);
  const path = golden.path ? `  "path": ${JSON.stringify(golden.path)},\n` : '';
  return `{\n  "workflow": ${JSON.stringify(golden.workflow)},\n${path}  "events": [\n${lines.join(',\n')}\n  ]\n}\n`;
}
