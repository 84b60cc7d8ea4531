import type { NamedPolicy, PolicyDocument } from './iam-policies';
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

/** Evaluates requests as AWS would authorize them. */
export interface IamEvaluator {
  /** A request of one principal of the account, against its identity policies. */
  evaluate(principalArn: string, policies: readonly NamedPolicy[], request: IamRequest): Promise<IamDecision>;
  /**
   * A request of an AWS service principal (`cloudwatch.amazonaws.com`), which has no identity policies of
   * the account: only the resource's own policy can allow it.
   */
  evaluateService(servicePrincipal: string, resourcePolicy: PolicyDocument, request: IamRequest): Promise<IamDecision>;
}

type SimulatorModule = typeof import('@cloud-copilot/iam-simulate');
let simulator: Promise<SimulatorModule> | undefined;

/** Loads the simulator (once). @throws IamSimulatorUnavailableError when it is not installed */
export async function loadIamSimulator(): Promise<SimulatorModule> {
  simulator ??= (import(/* @vite-ignore */ IAM_SIMULATOR_PACKAGE) as Promise<SimulatorModule>).catch(
    (error: unknown) => {
      simulator = undefined;
      throw new IamSimulatorUnavailableError(
        `${IAM_SIMULATOR_PACKAGE} is not installed (a devDependency: npm install without --omit=dev)`,
        { cause: error },
      );
    },
  );
  return simulator;
}

/** The account id of an ARN (its fifth field), or the principal's when the ARN has none (S3). */
function accountOf(arn: string, fallback: string): string {
  const account = arn.split(':')[4];
  return account && /^\d{12}$/.test(account) ? account : fallback;
}

/**
 * An {@link IamEvaluator} backed by `@cloud-copilot/iam-simulate`: identity policies of a principal in
 * the same account as the resource, or a service principal against the resource's policy; no SCP or
 * boundary (the stack sets none).
 */
export async function createIamEvaluator(): Promise<IamEvaluator> {
  const { runSimulation } = await loadIamSimulator();
  const simulate = async (
    principal: string,
    request: IamRequest,
    policies: { identity: readonly NamedPolicy[]; resource?: PolicyDocument; principalAccount: string },
  ): Promise<IamDecision> => {
    const result = await runSimulation(
      {
        request: {
          principal,
          action: request.action,
          resource: { resource: request.resource, accountId: accountOf(request.resource, policies.principalAccount) },
          contextVariables: { ...(request.context ?? {}) },
        },
        identityPolicies: policies.identity.map((p) => ({ name: p.name, policy: p.policy })),
        serviceControlPolicies: [],
        resourceControlPolicies: [],
        ...(policies.resource ? { resourcePolicy: policies.resource } : {}),
      },
      {},
    );
    const overall =
      (result as { overallResult?: string; errors?: unknown }).overallResult ??
      `error: ${JSON.stringify((result as { errors?: unknown }).errors)}`;
    return { request, allowed: overall === 'Allowed', result: overall };
  };
  return {
    evaluate: (principalArn, policies, request) =>
      simulate(principalArn, request, { identity: policies, principalAccount: accountOf(principalArn, '') }),
    evaluateService: (servicePrincipal, resourcePolicy, request) =>
      simulate(servicePrincipal, request, {
        identity: [],
        resource: resourcePolicy,
        principalAccount: accountOf(request.resource, ''),
      }),
  };
}
