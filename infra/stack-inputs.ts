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

/** A resource a runtime function may be granted (lambdas/index.ts `needs`). */
export type FunctionNeed = 'table' | 'bucket' | 'dlq' | 'sfn' | 'bedrock' | 'ses' | 'secret';

/** A runtime function to bundle and deploy (lambdas/index.ts entry). */
export interface FunctionSpec {
  /** Registry name, e.g. `model-step`. */
  readonly name: string;
  /** Source file esbuild bundles (absolute, or relative to the project root). */
  readonly entry: string;
  /** Exported handler name in `entry`. */
  readonly handler: string;
  /** Lambda timeout. */
  readonly timeoutSeconds: number;
  /** Lambda memory. */
  readonly memoryMb: number;
  /** What the function touches; each need becomes environment variables and a scoped grant. */
  readonly needs: readonly FunctionNeed[];
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

/** Definition placeholders that name a runtime function, and which function fills each. */
export const FUNCTION_PLACEHOLDERS: Readonly<Record<string, string>> = {
  ModelStepFunctionArn: FunctionNames.modelStep,
  ToolStepFunctionArn: FunctionNames.toolStep,
  ApprovalRequestFunctionArn: FunctionNames.approvalRequest,
};

/** The placeholder filled with the workflow's own `live` alias ARN (continue-as-new). */
export const ALIAS_PLACEHOLDER = 'WorkflowAliasArn';

/** The `${Name}` placeholders a definition uses, sorted. */
export function placeholdersIn(definition: string): string[] {
  const names = new Set<string>();
  for (const match of definition.matchAll(/\$\{([A-Za-z0-9_]+)\}/g)) names.add(match[1]);
  return [...names].sort();
}
