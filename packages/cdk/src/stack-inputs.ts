import {
  functions as registeredFunctions,
  type FunctionSpec as RegistryFunctionSpec,
} from '@autosave/runtime/handlers';
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
  /**
   * The tools the workflow may call (`toolNamesOf`), checked against the tool-step's tools at synth and
   * when the function starts. @default not known: no check for this workflow
   */
  readonly tools?: readonly string[];
}

export type { FunctionNeed } from '@autosave/runtime/handlers';

/**
 * A runtime function to deploy: a registry entry (packages/runtime/src/handlers) without its loader (CDK
 * never loads handler code). Without `entry` the function runs Autosave's built-in code, prebuilt; with
 * one, that source file is bundled with `NodejsFunction` (CDK's defaults: the lock file found upward from
 * the current directory, its folder the project root).
 */
export type FunctionSpec = Omit<RegistryFunctionSpec, 'load' | 'entry' | 'handler'> & {
  /** A source file to bundle instead of the built-in code (absolute, or relative to the current directory). @default the built-in code */
  readonly entry?: string;
  /** The handler's export name in `entry`. @default `handler` */
  readonly handler?: string;
  /** `NodejsFunction`'s project root for `entry`. @default the folder of the lock file */
  readonly projectRoot?: string;
  /** `NodejsFunction`'s lock file for `entry`. @default CDK's: the lock file found upward from the current directory */
  readonly depsLockFilePath?: string;
};

/** Every function of the runtime's registry, with its built-in code. */
export function builtInFunctionSpecs(): FunctionSpec[] {
  return registeredFunctions.map(({ name, timeoutSeconds, memoryMb, needs }) => ({
    name,
    timeoutSeconds,
    memoryMb,
    needs,
  }));
}

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
