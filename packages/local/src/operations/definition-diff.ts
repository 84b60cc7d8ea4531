import { PLACEHOLDER_NAMES, toAslJson } from '@autosave/workflow';

/** How a deployed definition compares with the one compiled from the code. */
export interface DefinitionComparison {
  readonly same: boolean;
  readonly addedStates: readonly string[];
  readonly removedStates: readonly string[];
  readonly changedStates: readonly string[];
  /** Top-level fields that differ (`Comment` carries the workflow's code version). */
  readonly changedFields: readonly string[];
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const PLACEHOLDER = new RegExp(`\\\\\\$\\\\\\{(${PLACEHOLDER_NAMES.join('|')})\\\\\\}`, 'g');

/**
 * Whether `deployed` (concrete ARNs) is `compiled` (with `${...}` placeholders) filled in: both are put in
 * the canonical form of `toAslJson`, and each placeholder of the compiled text matches any JSON string
 * content. The values CDK substitutes (pinned Lambda versions) are the deployer's business, not the code's.
 */
export function matchesTemplate(compiled: unknown, deployed: unknown): boolean {
  const pattern = escapeRegExp(toAslJson(compiled)).replace(PLACEHOLDER, '[^"]*');
  return new RegExp(`^${pattern}$`).test(toAslJson(deployed));
}

type Definition = { readonly States?: Readonly<Record<string, unknown>> } & Readonly<Record<string, unknown>>;

/** Compares a compiled definition (with placeholders) with a deployed one, naming the states that differ. */
export function compareDefinitions(compiled: Definition, deployed: Definition): DefinitionComparison {
  const a = compiled.States ?? {};
  const b = deployed.States ?? {};
  const addedStates = Object.keys(a).filter((s) => !(s in b));
  const removedStates = Object.keys(b).filter((s) => !(s in a));
  const changedStates = Object.keys(a).filter((s) => s in b && !matchesTemplate(a[s], b[s]));
  const fields = new Set([...Object.keys(compiled), ...Object.keys(deployed)].filter((k) => k !== 'States'));
  const changedFields = [...fields].filter((k) => !matchesTemplate(compiled[k] ?? null, deployed[k] ?? null));
  return {
    same: addedStates.length + removedStates.length + changedStates.length + changedFields.length === 0,
    addedStates,
    removedStates,
    changedStates,
    changedFields,
  };
}
