/**
 * The reference: the same JSONPath definition on aws-local-stepfunctions (in memory, nothing durable).
 * Its only published version declares Node 22; on Node 20 it needs Promise.withResolvers.
 */
import {
  measureWorkload,
  peakRssBytes,
  STEPS,
  sevenStepDefinition,
  stepFunction,
  type WorkloadFigures,
} from './workload';

function polyfillPromiseWithResolvers(): void {
  const P = Promise as unknown as { withResolvers?: () => unknown };
  P.withResolvers ??= function withResolvers<T>() {
    let resolve!: (v: T) => void;
    let reject!: (e: unknown) => void;
    const promise = new Promise<T>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}

export async function measureReference(): Promise<WorkloadFigures> {
  polyfillPromiseWithResolvers();
  const { StateMachine } = await import('aws-local-stepfunctions');
  const machine = new StateMachine(sevenStepDefinition() as never, { validationOptions: { checkArn: false } });
  // Its handlers are typed on its own JSONValue; ours is the same function every peer runs.
  const handlers = Object.fromEntries(Array.from({ length: STEPS }, (_, i) => [`Step${i + 1}`, stepFunction as never]));
  const run = (r: number) =>
    machine.run({ runId: `run-${r}` }, { overrides: { taskResourceLocalHandlers: handlers } }).result;
  const figures = await measureWorkload(run);
  return {
    ...figures,
    peakRssBytes: peakRssBytes(),
    notes: ['in memory: no checkpoint, no task tokens, nothing survives a restart'],
  };
}
