import type { FunctionSpec as RegistryFunctionSpec } from '@autosave/runtime/handlers';
import { PLACEHOLDERS, type PlaceholderName } from '@autosave/workflow';

/**
 * What the stack is built from: the workflows (compiled ASL with placeholders) and the runtime functions.
 * infra/app.ts fills these from the registries in statemachines/ and lambdas/; tests may pass their own.
 */

/** A workflow ready to deploy: its compiled definition still holds the `${...}` placeholders. */
export interface WorkflowSpec {
  /** The workflow's name; also the state machine's name (so its ARNs are known before deploy). */
  readonly name: string;
  /** The workflow's code version string (shown in the state machine version's description). */
  readonly version: string;
  /** STANDARD or EXPRESS. */
  readonly type: 'STANDARD' | 'EXPRESS';
  /** The compiled ASL (JSONata) with placeholders, as one JSON string. */
  readonly definition: string;
}

export type { FunctionNeed } from '@autosave/runtime/handlers';

/**
 * A runtime function to bundle and deploy: a lambdas/index.ts registry entry without its loader (CDK
 * never loads handler code). `entry` may be absolute or relative to the project root.
 */
export type FunctionSpec = Omit<RegistryFunctionSpec, 'load'>;

/** The registry names of the six runtime functions (docs/architecture.md §2). */
export const FunctionNames = {
  modelStep: 'model-step',
  toolStep: 'tool-step',
  approvalRequest: 'approval-request',
  approvalEndpoint: 'approval-endpoint',
  runMonitor: 'run-monitor',
  redrive: 'redrive',
} as const;

/**
 * The runtime function a definition placeholder names (lib/workflow's placeholder table), or undefined
 * for the workflow's own alias placeholder.
 */
export function functionForPlaceholder(name: PlaceholderName): string | undefined {
  const spec: { kind: string; functionName?: string } = PLACEHOLDERS[name];
  return spec.kind === 'lambda' ? spec.functionName : undefined;
}
