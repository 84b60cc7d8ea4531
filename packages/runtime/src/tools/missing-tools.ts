/** What a workflow (or one of its steps) names of tools: the input of {@link missingTools}. */
export interface ToolNeeds {
  readonly workflow: string;
  /** The step that names them, when known (a workflow given precompiled lists its tools only). */
  readonly step?: string;
  readonly tools: readonly string[];
}

/** Tools a workflow (or step) names that the tool-step function does not implement. */
export interface MissingTools {
  readonly workflow: string;
  readonly step?: string;
  readonly missing: readonly string[];
}

/**
 * The needs whose tools are not all in `known`, in order, with the missing ones. One check for every place
 * that can see a workflow and the tool-step's tools before a run starts: the construct at synth, the local
 * engine when it loads the workflows.
 */
export function missingTools(needs: readonly ToolNeeds[], known: readonly string[]): MissingTools[] {
  return needs.flatMap(({ workflow, step, tools }) => {
    const missing = tools.filter((tool) => !known.includes(tool));
    return missing.length === 0 ? [] : [{ workflow, ...(step === undefined ? {} : { step }), missing }];
  });
}

/** The sentence naming a {@link MissingTools}, the workflow, its step when known, and the tools there are. */
export function describeMissingTools(found: MissingTools, known: readonly string[]): string {
  const where =
    found.step === undefined ? `Workflow "${found.workflow}"` : `Workflow "${found.workflow}", step "${found.step}",`;
  return `${where} names ${found.missing.map((t) => `"${t}"`).join(', ')}, which the tool-step function does not implement (its tools: ${known.join(', ') || 'none'}).`;
}
