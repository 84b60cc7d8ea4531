import { IntrinsicResolutionError, substitute, type TemplateResolver } from './intrinsics';

/** A state machine of a resolved template. */
export interface ResolvedStateMachine {
  readonly logicalId: string;
  readonly name: string;
  /** The unqualified ARN. */
  readonly arn: string;
  readonly type: 'STANDARD' | 'EXPRESS';
  /** The role Step Functions assumes for this machine's service calls. */
  readonly roleArn: string;
  /** The definition as deployed: `DefinitionString` with `DefinitionSubstitutions` applied (or `Definition`). */
  readonly definition: Record<string, unknown>;
  /** ARNs of the template's version resources of this machine. */
  readonly versionArns: readonly string[];
  /** ARNs of the template's aliases of this machine. */
  readonly aliasArns: readonly string[];
}

/**
 * The definition a `AWS::StepFunctions::StateMachine` deploys: Step Functions replaces each `${key}` of
 * `DefinitionString` (or of the strings of `Definition`) with its `DefinitionSubstitutions` value.
 */
export function deployedDefinition(resolver: TemplateResolver, logicalId: string): Record<string, unknown> {
  const substitutions = (resolver.property(logicalId, 'DefinitionSubstitutions') ?? {}) as Record<string, unknown>;
  const lookup = (name: string): string => {
    if (!(name in substitutions)) throw new IntrinsicResolutionError(`${logicalId}: no substitution for \${${name}}`);
    const value = substitutions[name];
    return typeof value === 'string' ? value : JSON.stringify(value);
  };
  const text = resolver.property(logicalId, 'DefinitionString');
  if (typeof text === 'string') return JSON.parse(substitute(text, lookup)) as Record<string, unknown>;
  const object = resolver.property(logicalId, 'Definition');
  if (object && typeof object === 'object')
    return JSON.parse(substitute(JSON.stringify(object), lookup)) as Record<string, unknown>;
  throw new IntrinsicResolutionError(
    `${logicalId} has neither DefinitionString nor Definition (DefinitionS3Location is not read)`,
  );
}

/** Every state machine of a resolved template, with its deployed definition, role, versions and aliases. */
export function stateMachinesOf(resolver: TemplateResolver): ResolvedStateMachine[] {
  const versions = resolver.logicalIds('AWS::StepFunctions::StateMachineVersion');
  const aliases = resolver.logicalIds('AWS::StepFunctions::StateMachineAlias');
  return resolver.logicalIds('AWS::StepFunctions::StateMachine').map((logicalId) => {
    const arn = resolver.string(resolver.context.ref(logicalId, resolver), `${logicalId} ARN`);
    const versionArns = versions
      .filter((v) => resolver.property(v, 'StateMachineArn') === arn)
      .map((v) => resolver.string(resolver.context.ref(v, resolver)));
    const aliasArns = aliases
      .map((a) => resolver.string(resolver.context.ref(a, resolver)))
      .filter((a) => a.startsWith(`${arn}:`));
    return {
      logicalId,
      name: resolver.string(resolver.context.getAtt(logicalId, 'Name', resolver)),
      arn,
      type: (resolver.property(logicalId, 'StateMachineType') as 'STANDARD' | 'EXPRESS' | undefined) ?? 'STANDARD',
      roleArn: resolver.string(resolver.property(logicalId, 'RoleArn'), `${logicalId} RoleArn`),
      definition: deployedDefinition(resolver, logicalId),
      versionArns,
      aliasArns,
    };
  });
}
