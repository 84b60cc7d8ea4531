import { CfnResource, Stack, Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * Acknowledges a cdk-nag finding on one construct (and its children), with the reason a reviewer reads.
 * Every suppression in the stack goes through here, so `grep -n acknowledgeNag infra/` lists them all.
 *
 * Rules that report several findings per resource (IAM5) are acknowledged one finding at a time
 * (`AwsSolutions-IAM5[Resource::...]`): a new wildcard added later is still reported.
 */
export function acknowledgeNag(scope: IConstruct, id: string, reason: string): void {
  Validations.of(scope).acknowledge({ id, reason });
}

/** How cdk-nag prints a `Fn::GetAtt <resource>.Arn` inside a finding, e.g. `<SharedPayloads26C6FA41.Arn>`. */
export function nagArnOf(resource: IConstruct): string {
  const cfn = resource instanceof CfnResource ? resource : (resource.node.defaultChild as CfnResource);
  const stack = Stack.of(resource);
  return `<${stack.resolve(stack.getLogicalId(cfn))}.Arn>`;
}

/** How cdk-nag prints an ARN built by `Stack.formatArn` with the stack's own partition, region and account. */
export function nagArn(service: string, resource: string): string {
  return `arn:<AWS::Partition>:${service}:<AWS::Region>:<AWS::AccountId>:${resource}`;
}

/**
 * How cdk-nag prints a resource value inside a finding (its `flattenCfnReference`): `Fn::Join` joined,
 * `Ref` and `Fn::GetAtt` in angle brackets, e.g. `<SharedPayloads26C6FA41.Arn>/*` for an owned bucket's
 * objects and `arn:<AWS::Partition>:s3:::my-bucket/*` for an imported one.
 */
export function nagResource(scope: IConstruct, value: string): string {
  const visit = (node: unknown): string => {
    if (node === undefined) return '';
    if (typeof node === 'string') return node.replace(/\$\{/g, '<').replace(/\}/g, '>');
    // An intrinsic's arguments, as CloudFormation spells them.
    const o = node as Record<string, [unknown, unknown] & string>;
    if (o['Fn::Join']) return (o['Fn::Join'][1] as unknown[]).map(visit).join(o['Fn::Join'][0] as string);
    if (o['Fn::Sub']) return visit(o['Fn::Sub']);
    if (o['Fn::GetAtt']) return `<${visit(o['Fn::GetAtt'][0])}.${visit(o['Fn::GetAtt'][1])}>`;
    if (o['Fn::ImportValue']) return visit(o['Fn::ImportValue']);
    if (o.Ref) return `<${visit(o.Ref)}>`;
    return JSON.stringify(node);
  };
  return visit(Stack.of(scope).resolve(value));
}

/** Why a stack deployed with `autosave:tracing=false` has no X-Ray tracing: its owner turned it off. */
export const TRACING_OFF_REASON =
  'Tracing was turned off for this deployment (-c autosave:tracing=false); it is on by default.';
