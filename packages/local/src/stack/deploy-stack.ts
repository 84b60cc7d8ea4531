import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  assetOfResource,
  readCloudAssembly,
  stackOf,
  TemplateResolver,
  type CfnTemplate,
  type StackArtifact,
} from '../cloud-assembly';
import type { StackResourceRow } from '@autosave/engine/store';
import { LocalResolutionContext, type AppliedAttributes } from './local-resolution-context';
import { referencedLogicalIds, resourceHandlers, type ResourceHandler, type StackTarget } from './resource-handlers';

/** What one resource's deploy did. */
export type ResourceChange = 'created' | 'updated' | 'replaced' | 'unchanged' | 'deleted' | 'retained';

/** The result of {@link deployStack}. */
export interface StackDeployment {
  readonly stackName: string;
  /** sha256 (12 hex) of the template: names the assembly that produced each resource. */
  readonly assemblyId: string;
  readonly assemblyDir: string;
  /** Every change, in the order it was made (unchanged resources included). */
  readonly changes: readonly {
    readonly logicalId: string;
    readonly type: string;
    readonly change: ResourceChange;
    readonly physicalId?: string;
  }[];
  /** Resource types in the template the engine does not emulate, with their counts. */
  readonly notEmulated: readonly { readonly type: string; readonly count: number }[];
  /** The template's Outputs, resolved to local values (may hold the engine URL token). */
  readonly outputs: Readonly<Record<string, string>>;
  readonly durationMillis: number;
}

/** Options of {@link deployStack}. */
export interface DeployStackOptions {
  /** The cloud assembly directory (`cdk.out`). */
  readonly assemblyDir: string;
  /** The stack to deploy. @default the assembly's only stack */
  readonly stackName?: string;
  /**
   * Test seam: called after each resource is applied and recorded, with the number applied so far in
   * this run (the crash test SIGKILLs the engine from here).
   */
  readonly afterResource?: (applied: number) => void;
}

/** The id of an assembly: its template's hash (the template names every asset by its own hash). */
export function assemblyIdOf(stack: StackArtifact): string {
  return createHash('sha256').update(readFileSync(stack.templateFile)).digest('hex').slice(0, 12);
}

/** Logical ids in an order where every resource comes after those it references or depends on. */
export function dependencyOrder(template: CfnTemplate, has: (id: string) => boolean): string[] {
  const ids = Object.keys(template.Resources).filter(has).sort();
  const deps = new Map<string, Set<string>>();
  for (const id of ids) {
    const r = template.Resources[id];
    const set = referencedLogicalIds(r.Properties ?? {});
    for (const d of typeof r.DependsOn === 'string' ? [r.DependsOn] : (r.DependsOn ?? [])) set.add(d);
    deps.set(id, new Set([...set].filter((d) => d !== id && template.Resources[d] !== undefined && has(d))));
  }
  const order: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (id: string) => {
    if (state.get(id) === 'done') return;
    if (state.get(id) === 'visiting') throw new Error(`Circular dependency through ${id}`);
    state.set(id, 'visiting');
    for (const d of [...(deps.get(id) ?? [])].sort()) visit(d);
    state.set(id, 'done');
    order.push(id);
  };
  for (const id of ids) visit(id);
  return order;
}

const changed = (
  handler: ResourceHandler,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): 'none' | 'update' | 'replace' => {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  const differing = [...keys].filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
  if (differing.length === 0) return 'none';
  if (handler.replaceOn === '*' || differing.some((k) => (handler.replaceOn as readonly string[]).includes(k)))
    return 'replace';
  return 'update';
};

/**
 * Applies a stack of a cloud assembly to the running engine and its local services **as a CloudFormation
 * update does**: resources in dependency order, each created, updated in place, or replaced when a
 * property that needs replacement changed (a Version resource whose properties changed is a new version);
 * then, in a clean-up pass, resources that left the template are deleted — unless `DeletionPolicy`
 * (or, for a replaced one, `UpdateReplacePolicy`) says Retain, in which case they stay, off the stack.
 *
 * Crash-safe: each resource's change is idempotent on the service side (publishing an unchanged revision
 * or function returns the version it already has, creates find what a cut-off attempt made) and is
 * recorded, with the assembly that produced it, right after it is made. A kill -9 at any point leaves the
 * deployment IN_PROGRESS with every finished step recorded; running the same deploy again completes it.
 */
export async function deployStack(target: StackTarget, options: DeployStackOptions): Promise<StackDeployment> {
  const started = Date.now();
  const assembly = readCloudAssembly(options.assemblyDir);
  const stack = stackOf(assembly, options.stackName);
  const assemblyId = assemblyIdOf(stack);
  const template = stack.template;
  const handlers = resourceHandlers();
  const store = target.store;
  const deployment = store.beginDeployment(stack.stackName, assemblyId, assembly.directory, target.nowMillis());

  const applied = new Map<string, AppliedAttributes>();
  for (const row of store.resources())
    if (row.state === 'IN_STACK') applied.set(row.logical_id, JSON.parse(row.attributes) as AppliedAttributes);
  const context = new LocalResolutionContext({
    stackName: stack.stackName,
    region: target.region,
    account: target.account,
    applied,
  });
  const resolver = new TemplateResolver(template, context);

  const changes: { logicalId: string; type: string; change: ResourceChange; physicalId?: string }[] = [];
  const notEmulated = new Map<string, number>();
  const toDelete: StackResourceRow[] = [];
  let count = 0;
  const record = (
    logicalId: string,
    type: string,
    props: Record<string, unknown>,
    physicalId: string,
    attributes: AppliedAttributes,
  ): StackResourceRow => {
    const resource = template.Resources[logicalId];
    return {
      logical_id: logicalId,
      type,
      physical_id: physicalId,
      attributes: JSON.stringify(attributes),
      properties: JSON.stringify(props),
      deletion_policy: resource.DeletionPolicy ?? null,
      update_replace_policy: resource.UpdateReplacePolicy ?? null,
      assembly_id: assemblyId,
      state: 'IN_STACK',
      updated_ms: target.nowMillis(),
    };
  };

  for (const logicalId of dependencyOrder(template, (id) => resolver.has(id))) {
    const type = template.Resources[logicalId].Type;
    const handler = handlers[type];
    if (!handler) {
      notEmulated.set(type, (notEmulated.get(type) ?? 0) + 1);
      continue;
    }
    const props = resolver.resolvedProperties(logicalId);
    const previous = store.resource(logicalId);
    const request = {
      logicalId,
      type,
      stackName: stack.stackName,
      assemblyId,
      props,
      resolver,
      context,
      target,
      assetOf: (id: string) => assetOfResource(stack, id),
    };
    if (previous && previous.type === type) {
      const kind = changed(handler, JSON.parse(previous.properties) as Record<string, unknown>, props);
      if (kind === 'none') {
        changes.push({ logicalId, type, change: 'unchanged', physicalId: previous.physical_id });
        continue;
      }
      if (kind === 'update') {
        const out = await handler.apply({ ...request, previous });
        store.putResource(record(logicalId, type, props, out.physicalId, out.attributes));
        applied.set(logicalId, out.attributes);
        changes.push({ logicalId, type, change: 'updated', physicalId: out.physicalId });
      } else {
        const out = await handler.apply(request);
        const retain =
          previous.update_replace_policy === 'Retain' || previous.update_replace_policy === 'RetainExceptOnCreate';
        store.replaceResource(
          record(logicalId, type, props, out.physicalId, out.attributes),
          retain && out.physicalId !== previous.physical_id ? previous : undefined,
        );
        if (!retain && out.physicalId !== previous.physical_id) toDelete.push(previous);
        applied.set(logicalId, out.attributes);
        changes.push({ logicalId, type, change: 'replaced', physicalId: out.physicalId });
      }
    } else {
      const out = await handler.apply(request);
      store.putResource(record(logicalId, type, props, out.physicalId, out.attributes));
      applied.set(logicalId, out.attributes);
      changes.push({ logicalId, type, change: 'created', physicalId: out.physicalId });
    }
    options.afterResource?.(++count);
  }

  // Clean-up, as CloudFormation does after the updates: what left the template goes, dependents first.
  const leaving = store.resources().filter((r) => r.state === 'IN_STACK' && !resolver.has(r.logical_id));
  for (const row of leaving.reverse()) {
    if (row.deletion_policy === 'Retain' || row.deletion_policy === 'RetainExceptOnCreate') {
      store.retainResource(row.logical_id, target.nowMillis());
      changes.push({ logicalId: row.logical_id, type: row.type, change: 'retained', physicalId: row.physical_id });
    } else {
      await handlers[row.type]?.remove?.(row, target);
      store.deleteResource(row.logical_id);
      changes.push({ logicalId: row.logical_id, type: row.type, change: 'deleted', physicalId: row.physical_id });
    }
    options.afterResource?.(++count);
  }
  for (const row of toDelete) await handlers[row.type]?.remove?.(row, target);

  const outputs: Record<string, string> = {};
  for (const [name, output] of Object.entries(template.Outputs ?? {})) {
    try {
      outputs[name] = resolver.string(resolver.value(output.Value), `output ${name}`);
    } catch {
      // An output of a resource type that is not emulated has no local value.
    }
  }
  store.finishDeployment(deployment.id, target.nowMillis(), outputs);
  return {
    stackName: stack.stackName,
    assemblyId,
    assemblyDir: assembly.directory,
    changes,
    outputs,
    notEmulated: [...notEmulated].map(([type, n]) => ({ type, count: n })).sort((a, b) => a.type.localeCompare(b.type)),
    durationMillis: Date.now() - started,
  };
}
