/**
 * The CloudFormation template shapes the cloud assembly readers and resolvers work on. Values stay
 * `unknown` until resolved: a template is JSON that may hold intrinsic functions anywhere.
 */

/** One resource of a template. */
export interface CfnResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
  readonly DependsOn?: string | readonly string[];
  readonly Condition?: string;
  readonly DeletionPolicy?: CfnDeletionPolicy;
  readonly UpdateReplacePolicy?: CfnDeletionPolicy;
  readonly Metadata?: Record<string, unknown>;
}

/** What CloudFormation does with a resource that leaves the template or is replaced. */
export type CfnDeletionPolicy = 'Delete' | 'Retain' | 'RetainExceptOnCreate' | 'Snapshot';

/** A template parameter. */
export interface CfnParameter {
  readonly Type: string;
  readonly Default?: unknown;
  readonly Description?: string;
}

/** A CloudFormation template (the parts a consumer reads). */
export interface CfnTemplate {
  readonly Description?: string;
  readonly Parameters?: Record<string, CfnParameter>;
  readonly Conditions?: Record<string, unknown>;
  readonly Mappings?: Record<string, Record<string, Record<string, unknown>>>;
  readonly Resources: Record<string, CfnResource>;
  readonly Outputs?: Record<string, { readonly Value: unknown; readonly Description?: string }>;
}

/** Whether a resource outlives its removal from the template (or its replacement). */
export function isRetained(resource: CfnResource, on: 'delete' | 'replace' = 'delete'): boolean {
  const policy = on === 'delete' ? resource.DeletionPolicy : resource.UpdateReplacePolicy;
  return policy === 'Retain' || policy === 'RetainExceptOnCreate';
}
