/**
 * The durable API floor: the user-driven API part's runs (the same SDK driver, polling 1 ms doubling to 20 ms)
 * served by bench/api-floor-server.mjs, a process that does only what no engine with our durability can skip:
 * Node's HTTP server, the JSON protocol, the bench's step function, and eight fsync'd SQLite commits per run,
 * shared across runs in flight. Its CPU per run, part by part, is what is left of the engine's figure once
 * every line of the engine's own work (state machine, history, validation, indexes) is taken out.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SFNClient } from '@aws-sdk/client-sfn';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '@autosave/workflow/config';
import { userDrivenRuns } from './api-engine';
import { startFloorProcess } from './http-floor';
import { javascriptFunctionsModule } from './restart';
import { measureWorkload, type WorkloadFigures, type WorkloadPart } from './workload';

/** The floor's server: `node <it> <database file> <functions module>`. */
export const API_FLOOR_SERVER = fileURLToPath(new URL('./api-floor-server.mjs', import.meta.url));

/** What the floor's process cost, measured as the engine's is (process.cpuUsage in the process, every thread). */
export interface ApiFloorFigures extends Pick<WorkloadFigures, 'sequential' | 'concurrent'> {
  /** CPU per run over every measured run (the warm-up's too, as the engine's figure), ms. */
  readonly cpuPerRunMs: number;
  readonly byPart: readonly { part: WorkloadPart; runs: number; cpuPerRunMs: number }[];
  readonly pollsPerRun: number;
}

/** The floor process's CPU so far (process.cpuUsage, user + system), µs, from its `GET /cpu`. */
export async function floorCpuMicros(url: string): Promise<number> {
  return ((await (await fetch(`${url}/cpu`)).json()) as { processCpuMicros: number }).processCpuMicros;
}

export async function measureApiFloor(): Promise<ApiFloorFigures> {
  const dir = await mkdtemp(join(tmpdir(), 'autosave-bench-api-floor-'));
  const floor = await startFloorProcess([
    API_FLOOR_SERVER,
    join(dir, 'floor.db'),
    await javascriptFunctionsModule(dir),
  ]);
  const sfn = new SFNClient({ endpoint: floor.url, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  try {
    const cpuMicros = () => floorCpuMicros(floor.url);
    const { driver } = await userDrivenRuns(sfn);
    const parts = new Map<WorkloadPart, { runs: number; micros: number }>();
    const before = await cpuMicros();
    let partFrom = before;
    const figures = await measureWorkload(driver.runToEnd, async (part, runs) => {
      const now = await cpuMicros();
      const sum = parts.get(part) ?? { runs: 0, micros: 0 };
      parts.set(part, { runs: sum.runs + runs, micros: sum.micros + now - partFrom });
      partFrom = now;
    });
    return {
      ...figures,
      cpuPerRunMs: (partFrom - before) / 1000 / driver.runs,
      byPart: [...parts].map(([part, { runs, micros }]) => ({ part, runs, cpuPerRunMs: micros / 1000 / runs })),
      pollsPerRun: driver.polls / driver.runs,
    };
  } finally {
    sfn.destroy();
    await floor.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
