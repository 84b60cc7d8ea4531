/**
 * The benchmark's Lambda functions for `autosave local --functions bench/bench-functions.ts` (the engine
 * as its own process). `bench-step` answers at once; `bench-slow-step` holds step 4 for
 * `BENCH_SLOW_STEP_MILLIS` so a SIGKILL catches runs in flight. Both append to `BENCH_SIGNAL_FILE` what the
 * driver waits for (a task token, a run caught at step 4).
 */
import { appendFileSync } from 'node:fs';
import { stepResult } from './workload';

const signalFile = process.env.BENCH_SIGNAL_FILE;
const slowMillis = Number(process.env.BENCH_SLOW_STEP_MILLIS ?? 0);
/** The step the slow function holds. */
export const SLOW_STEP = 4;

const signal = (line: string) => {
  if (signalFile) appendFileSync(signalFile, `${line}\n`);
};

export default {
  'bench-step': async (event: { step?: number; token?: string }) => {
    if (event.token) signal(event.token);
    return stepResult(Number(event.step ?? 0));
  },
  'bench-slow-step': async (event: { step?: number; runId?: string }) => {
    const step = Number(event.step ?? 0);
    if (step === SLOW_STEP && slowMillis > 0) {
      signal(String(event.runId));
      await new Promise((resolve) => setTimeout(resolve, slowMillis));
    }
    return stepResult(step);
  },
};
