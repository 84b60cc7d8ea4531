import type { StackMode, StackIamEnforcement } from '../stack';

/** The IAM enforcement, when on, and the startup line that says whether it is. */
export interface LocalIam {
  readonly iam: StackIamEnforcement | undefined;
  readonly line: string;
}

/**
 * IAM: judged only when asked for (stack mode, `--enforce-iam`) and the simulator is installed; said once at
 * boot either way ({@link logIam}, after the deploy). Before the deploy, which gives the engine its enforcement.
 */
export async function enforceIam(stack: StackMode | undefined, asked: boolean | undefined): Promise<LocalIam> {
  // IAM: judged only when asked for and the simulator is installed; said once at boot either way.
  let iam: StackIamEnforcement | undefined;
  let iamLine = 'IAM is not enforced (autosave local --stack --enforce-iam evaluates the state machine roles)';
  if (stack && asked) {
    try {
      iam = await stack.enforceIam();
      iamLine = 'IAM enforced: every Task call is judged against the state machine role by the IAM policy simulator';
    } catch (err) {
      if (!(err instanceof (await import('../cloud-assembly')).IamSimulatorUnavailableError)) throw err;
      iamLine = `IAM is not enforced: ${err.message}`;
    }
  }
  return { iam, line: iamLine };
}

/** Says whether IAM is enforced, and which AWS managed policies it could not evaluate: once the deploy is done. */
export function logIam({ iam, line }: LocalIam, log: (line: string) => void): void {
  log(`  ${line}`);
  const unresolved = iam?.unresolvedManagedPolicies() ?? [];
  if (unresolved.length > 0)
    log(`  AWS managed policies not evaluated (their contents are not in the template): ${unresolved.join(', ')}`);
}
