/**
 * The user's project as the CLI finds it: `--config <file>`, else the first `autosave.config.ts` (.mts,
 * .cts, .js, .mjs, .cjs) walking up from the current directory. Loaded once per process.
 */
import { CONFIG_FILE_NAMES, findProject, type LocalProject } from '../project';
import { CliUsageError } from './errors';

let loaded: { readonly flag: string | undefined; readonly project: Promise<LocalProject | undefined> } | undefined;

/** The project, or undefined when no config file is found (commands that talk to AWS need none). */
export function cliProject(configFlag?: string): Promise<LocalProject | undefined> {
  if (loaded?.flag !== configFlag || !loaded)
    loaded = { flag: configFlag, project: findProject({ configFile: configFlag }) };
  return loaded.project;
}

/** The project; a usage error saying where the CLI looked when there is no config file. */
export async function requireProject(configFlag: string | undefined, command: string): Promise<LocalProject> {
  const project = await cliProject(configFlag);
  if (!project) {
    throw new CliUsageError(
      `autosave ${command} needs your workflows: no ${CONFIG_FILE_NAMES[0]} in ${process.cwd()} or its parents. ` +
        `Write one (export default defineConfig({ workflows: [...] }), defineConfig from @autosave/local) or name it with --config <file>`,
    );
  }
  return project;
}
