/**
 * The local engine refuses, when it starts, a workflow naming a tool its tool-step function does not
 * implement, as the construct refuses it at synth: otherwise the run would fail only on reaching that step
 * (`Unknown tool "..."`), after the steps and approvals before it. The check is the construct's own
 * (`missingTools` of @autosave/runtime/tools).
 */
import { join } from 'node:path';
import type { EmailProvider } from '@autosave/runtime/tools';
import { toolUsesOf, type Workflow } from '@autosave/workflow';
import { AutosaveConfigError } from './config-file';

/**
 * The tool-step function the engine will invoke: the built-in one, or a handler of the project's (loaded only when
 * a step names a tool: a restart of workflows that name none loads neither it nor the runtime's tools).
 */
export type LocalToolStep =
  { readonly builtIn: true } | { readonly builtIn: false; readonly loadHandler: () => Promise<unknown> };

/** What {@link checkWorkflowTools} weighs. */
export interface WorkflowToolsCheck {
  readonly workflows: readonly Workflow[];
  readonly toolStep: LocalToolStep;
  /** Where the functions' data goes (`AUTOSAVE_ACTIONS_DIR` when the environment does not set it). */
  readonly dataDir: string;
  /** The functions' environment variables. */
  readonly environment: Readonly<Record<string, string | undefined>>;
  /**
   * Whether the mock config maps this workflow's step in one of its test cases: a step a test mocks never
   * reaches the tool-step function, so a tool the test does not register is no mistake there.
   * @default none is mocked
   */
  readonly mocked?: (workflow: string, step: string) => boolean;
  /** What the error names as the project (the config file, or the test environment). */
  readonly where: string;
}

/**
 * An email provider for making a tool list whose names are all the check reads: a tool made with it keeps it
 * for its calls, and none is made from this list.
 */
const NAMES_ONLY_EMAIL: EmailProvider = {
  name: 'names-only',
  send: () => Promise.reject(new Error('the workflow tools check sends no email')),
};

/** The names of the tools `toolStep` implements; undefined when a handler of the project's does not say. */
async function localToolNames(
  check: Pick<WorkflowToolsCheck, 'toolStep' | 'dataDir' | 'environment'>,
): Promise<readonly string[] | undefined> {
  if (check.toolStep.builtIn) return (await import('@autosave/runtime/tools')).BUILT_IN_TOOL_NAMES;
  const [{ toolStepHandlerTools }, handler] = await Promise.all([
    import('@autosave/runtime/lambda'),
    check.toolStep.loadHandler(),
  ]);
  return toolStepHandlerTools(handler, {
    emailProvider: NAMES_ONLY_EMAIL,
    actionsDir: check.environment.AUTOSAVE_ACTIONS_DIR || join(check.dataDir, 'actions'),
  });
}

/**
 * Refuses the first workflow step that names a tool the tool-step function lacks (unless mocked). A
 * handler that does not say its tools (not made by toolStepHandler) is not checked: it checks at its start.
 * @throws AutosaveConfigError naming the workflow, the step, the missing tools and the known ones
 */
export async function checkWorkflowTools(check: WorkflowToolsCheck): Promise<void> {
  const needs = check.workflows.flatMap((workflow) =>
    toolUsesOf(workflow)
      .filter(({ step }) => !check.mocked?.(workflow.name, step))
      .map(({ step, tools }) => ({ workflow: workflow.name, step, tools })),
  );
  if (needs.length === 0) return;
  const known = await localToolNames(check);
  if (known === undefined) return;
  // Loaded here, not with the module: the runtime's entries bring Powertools and SDK clients, which a restart
  // does not load before the Step Functions API answers (restart-answers-first.test.ts).
  const { describeMissingTools, missingTools } = await import('@autosave/runtime/tools');
  const [first] = missingTools(needs, known);
  if (!first) return;
  throw new AutosaveConfigError(
    `${check.where}: ${describeMissingTools(first, known)} ` +
      (check.toolStep.builtIn
        ? "Give the project's own tool-step (functions: { 'tool-step': toolStepHandler({ tools }) }), or change the workflow."
        : 'Add the tool to toolStepHandler({ tools }) of the tool-step function, or change the workflow.'),
  );
}
