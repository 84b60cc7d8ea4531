import type { TemplateResolver } from './intrinsics';

/** An IAM policy document as a template holds it (resolved). */
export interface PolicyDocument {
  readonly Version?: string;
  readonly Statement: readonly Record<string, unknown>[] | Record<string, unknown>;
}

/** A named identity policy attached to a role. */
export interface NamedPolicy {
  readonly name: string;
  readonly policy: PolicyDocument;
}

/** A role of a resolved template with every policy the template attaches to it. */
export interface ResolvedRole {
  readonly logicalId: string;
  readonly arn: string;
  readonly name: string;
  /** Inline policies of the role, `AWS::IAM::Policy` and `AWS::IAM::ManagedPolicy` resources naming it. */
  readonly policies: readonly NamedPolicy[];
  /** Managed policy ARNs the template cannot show the contents of (AWS managed policies). */
  readonly unresolvedManagedPolicies: readonly string[];
}

/** Every role of a resolved template and the identity policies the template gives it. */
export function rolesOf(resolver: TemplateResolver): ResolvedRole[] {
  const policyResources = [
    ...resolver.logicalIds('AWS::IAM::Policy'),
    ...resolver.logicalIds('AWS::IAM::ManagedPolicy'),
  ];
  const managedArns = new Map<string, string>();
  for (const id of resolver.logicalIds('AWS::IAM::ManagedPolicy'))
    managedArns.set(String(resolver.context.ref(id, resolver)), id);
  return resolver.logicalIds('AWS::IAM::Role').map((logicalId) => {
    const name = String(resolver.context.ref(logicalId, resolver));
    const arn = String(resolver.context.getAtt(logicalId, 'Arn', resolver));
    const inline = (
      (resolver.property(logicalId, 'Policies') ?? []) as { PolicyName: string; PolicyDocument: PolicyDocument }[]
    ).map((p) => ({
      name: p.PolicyName,
      policy: p.PolicyDocument,
    }));
    const attached = policyResources
      .filter((id) => ((resolver.property(id, 'Roles') ?? []) as unknown[]).includes(name))
      .map((id) => ({ name: id, policy: resolver.property(id, 'PolicyDocument') as PolicyDocument }));
    const unresolved: string[] = [];
    for (const managed of (resolver.property(logicalId, 'ManagedPolicyArns') ?? []) as string[]) {
      const id = managedArns.get(managed);
      if (id === undefined) unresolved.push(managed);
      else if (!attached.some((a) => a.name === id))
        attached.push({ name: id, policy: resolver.property(id, 'PolicyDocument') as PolicyDocument });
    }
    return { logicalId, arn, name, policies: [...inline, ...attached], unresolvedManagedPolicies: unresolved };
  });
}

/** The role of a resolved template with that ARN. */
export function roleByArn(resolver: TemplateResolver, arn: string): ResolvedRole | undefined {
  return rolesOf(resolver).find((r) => r.arn === arn);
}
