import type { NamedPolicy } from './iam-policies';
import type { IamRequest } from './task-requests';

/**
 * The IAM policy simulator's package. It is AGPL-3.0 and a devDependency only: it is loaded here on
 * demand with a dynamic `import()`, so nothing a Lambda bundle or the engine's default path loads pulls
 * it in.
 */
export const IAM_SIMULATOR_PACKAGE = '@cloud-copilot/iam-simulate';

/** The simulator is not installed (a production install without devDependencies). */
export class IamSimulatorUnavailableError extends Error {
  override readonly name = 'IamSimulatorUnavailableError';
}

/** The simulator's verdict on one request. */
export interface IamDecision {
  readonly request: IamRequest;
  readonly allowed: boolean;
  /** `Allowed`, `ImplicitlyDenied`, `ExplicitlyDenied`, or the simulator's error. */
  readonly result: string;
}

/** Evaluates requests of one principal against its identity policies. */
export interface IamEvaluator {
  evaluate(principalArn: string, policies: readonly NamedPolicy[], request: IamRequest): Promise<IamDecision>;
}

type SimulatorModule = typeof import('@cloud-copilot/iam-simulate');
let simulator: Promise<SimulatorModule> | undefined;

/** Loads the simulator (once). @throws IamSimulatorUnavailableError when it is not installed */
export async function loadIamSimulator(): Promise<SimulatorModule> {
  simulator ??= (import(/* @vite-ignore */ IAM_SIMULATOR_PACKAGE) as Promise<SimulatorModule>).catch((error: unknown) => {
    simulator = undefined;
    throw new IamSimulatorUnavailableError(`${IAM_SIMULATOR_PACKAGE} is not installed (a devDependency: npm install without --omit=dev)`, { cause: error });
  });
  return simulator;
}

/** The account id of an ARN (its fifth field), or the principal's when the ARN has none (S3). */
function accountOf(arn: string, fallback: string): string {
  const account = arn.split(':')[4];
  return account && /^\d{12}$/.test(account) ? account : fallback;
}

/**
 * An {@link IamEvaluator} backed by `@cloud-copilot/iam-simulate`: identity policies of a principal in
 * the same account as the resource, no resource policy, SCP or boundary (the stack sets none).
 */
export async function createIamEvaluator(): Promise<IamEvaluator> {
  const { runSimulation } = await loadIamSimulator();
  return {
    async evaluate(principalArn, policies, request) {
      const principalAccount = accountOf(principalArn, '');
      const result = await runSimulation(
        {
          request: {
            principal: principalArn,
            action: request.action,
            resource: { resource: request.resource, accountId: accountOf(request.resource, principalAccount) },
            contextVariables: { ...(request.context ?? {}) },
          },
          identityPolicies: policies.map((p) => ({ name: p.name, policy: p.policy })),
          serviceControlPolicies: [],
          resourceControlPolicies: [],
        },
        {},
      );
      const overall = (result as { overallResult?: string; errors?: unknown }).overallResult ?? `error: ${JSON.stringify((result as { errors?: unknown }).errors)}`;
      return { request, allowed: overall === 'Allowed', result: overall };
    },
  };
}
