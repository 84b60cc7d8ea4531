/**
 * The pull tier's two engines: one stands for AWS (the run fails there, at a tool step with a planted
 * defect), the other for the laptop (the run is pulled there, and redriven with the fixed code). Both are
 * the real local engine (startLocal, port 0, virtual clock) with the example app; each counts the
 * invocations of its own tool-step and model-step functions, by step and turn, around the real handlers.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SFNClient } from '@aws-sdk/client-sfn';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '@autosave/workflow/config';
import { functionSpec, localFunctionName } from '@autosave/runtime/handlers';
import { startLocal, type LocalEngine } from '../../../packages/local/src/server';
import { exampleApp } from '../../fixtures/example-app';

/** The event a tool-step or model-step invocation gets (the fields this tier reads). */
export interface StepEvent {
  readonly executionArn?: string;
  readonly step?: string;
  readonly turn?: number | string;
  readonly tool?: string;
}

/** The error the planted defect throws. */
export class PlantedDefectError extends Error {
  override readonly name = 'PlantedDefect';
}

/** One engine of the pair, with its invocation counts by `<function>:<step>:<turn>`. */
export interface CountedEngine {
  readonly local: LocalEngine;
  readonly sfn: SFNClient;
  readonly invocations: Map<string, number>;
  /** Moves its virtual clock (as a client does, through its route). */
  advance(seconds: number): Promise<void>;
  close(): Promise<void>;
}

const TOOL_STEP = localFunctionName('tool-step');
const MODEL_STEP = localFunctionName('model-step');

type Handler = (event: StepEvent, context?: unknown) => Promise<unknown>;

/**
 * Starts an engine whose tool-step and model-step are counted; `defect(event, fn)` says when the planted
 * defect fails an invocation (before the real handler runs).
 */
export async function startCountedEngine(
  defect: (event: StepEvent, fn: 'tool-step' | 'model-step') => boolean = () => false,
  options: { readonly console?: boolean } = {},
): Promise<CountedEngine> {
  const dir = await mkdtemp(join(tmpdir(), 'autosave-pull-'));
  const app = await exampleApp();
  const invocations = new Map<string, number>();
  const toolStep = app.functions[TOOL_STEP] as unknown as Handler;
  const modelStep = (await functionSpec('model-step').load()) as Handler;
  const counted =
    (fn: 'tool-step' | 'model-step', inner: Handler): Handler =>
    async (event, context) => {
      const key = `${fn}:${event.step}:${event.turn ?? '-'}`;
      invocations.set(key, (invocations.get(key) ?? 0) + 1);
      if (defect(event, fn)) throw new PlantedDefectError(`planted defect in ${event.step}`);
      return inner(event, context);
    };
  const local = await startLocal({
    ...app,
    functions: {
      ...app.functions,
      [TOOL_STEP]: counted('tool-step', toolStep),
      [MODEL_STEP]: counted('model-step', modelStep),
    },
    environment: { ...app.environment, POWERTOOLS_METRICS_DISABLED: 'true' },
    port: 0,
    dataDir: join(dir, 'data'),
    virtualClock: true,
    console: options.console ?? false,
    log: () => {},
  });
  const sfn = new SFNClient({
    endpoint: local.url,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    disableHostPrefix: true,
  });
  return {
    local,
    sfn,
    invocations,
    async advance(seconds) {
      const res = await fetch(`${local.url}/_autosave/clock/advance`, {
        method: 'POST',
        body: JSON.stringify({ seconds }),
      });
      if (!res.ok) throw new Error(`clock advance: HTTP ${res.status}`);
    },
    async close() {
      sfn.destroy();
      await local.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
