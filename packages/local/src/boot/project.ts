import type { Workflow } from '@autosave/workflow';
import type { UserFunctionExport } from '../services/lambda/user-functions';
import type { StartLocalOptions } from './options';

/** The project's workflows, functions, environment and label: its own, else the options'. */
export interface LocalProject {
  readonly workflows: readonly Workflow[];
  readonly functions: Readonly<Record<string, UserFunctionExport>> | undefined;
  readonly variables: Readonly<Record<string, string>> | undefined;
  readonly label: string | undefined;
}

/**
 * Loads the project (a TypeScript config compiles here): after the engine, whose Step Functions API answers
 * meanwhile on a restart, and before everything the functions reach.
 */
export async function loadProject(options: StartLocalOptions): Promise<LocalProject> {
  const project = (await options.project?.()) ?? {};
  return {
    workflows: project.workflows ?? options.workflows ?? [],
    functions: project.functions ?? options.functions,
    variables: project.environment ?? options.environment,
    label: project.label ?? options.label,
  };
}
