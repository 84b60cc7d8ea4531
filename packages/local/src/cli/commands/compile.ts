import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { compileWorkflow, toAslJson, type Workflow } from '@autosave/workflow';
import { requireProject } from '../project';
import { CliUsageError } from '../errors';
import { commandHelp, commandSpec, parseCommandArgs } from '../args';

export const spec = commandSpec({
  usage: 'autosave compile [<workflow>] [--out <dir>] [--config <file>]',
  options: {
    out: {
      type: 'string',
      value: '<dir>',
      description: 'write one <workflow>.asl.json per workflow there, instead of printing the ASL',
    },
  },
  notes: ['<workflow>: one workflow of the project by name (default: every workflow)'],
  examples: ['npx autosave compile clinical-trial-onboarding', 'npx autosave compile --out statemachines/asl'],
  common: ['config', 'help'],
});
const USAGE = `usage: ${spec.usage}`;
/** Exit code of a command line that could not be understood (unknown workflow or option). */
const EXIT_USAGE = 2;

/** `autosave compile`: the compiled ASL of one or every workflow, printed or written to files. */
export const summary = 'print the compiled ASL of the workflows, or write <workflow>.asl.json files (--out <dir>)';

/** File name of a workflow's compiled definition. */
export function aslFileName(workflow: Workflow): string {
  return `${workflow.name}.asl.json`;
}

/**
 * Prints the definition (one workflow: its JSON; several: a JSON object keyed by workflow name) or,
 * with `--out`, writes one `<workflow>.asl.json` per workflow and prints the paths.
 */
export async function run(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseCommandArgs(args, spec);
  } catch (err) {
    console.error(`autosave compile: ${(err as Error).message}`);
    return EXIT_USAGE;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(commandHelp(spec));
    return 0;
  }
  if (positionals.length > 1) {
    console.error(`autosave compile: one workflow at most\n${USAGE}`);
    return EXIT_USAGE;
  }
  const [name] = positionals;
  let workflows;
  try {
    ({ workflows } = await requireProject(values.config, 'compile'));
  } catch (err) {
    if (!(err instanceof CliUsageError)) throw err;
    console.error(`autosave compile: ${err.message}`);
    return EXIT_USAGE;
  }
  const selected = name === undefined ? workflows : workflows.filter((w) => w.name === name);
  if (selected.length === 0) {
    console.error(`autosave compile: unknown workflow '${name}' (known: ${workflows.map((w) => w.name).join(', ')})`);
    return EXIT_USAGE;
  }

  const compiled = selected.map((w) => ({ workflow: w, json: toAslJson(compileWorkflow(w)) }));
  if (values.out !== undefined) {
    await mkdir(values.out, { recursive: true });
    for (const { workflow, json } of compiled) {
      const file = join(values.out, aslFileName(workflow));
      await writeFile(file, json);
      console.log(file);
    }
  } else if (name !== undefined) {
    process.stdout.write(compiled[0].json);
  } else {
    const all = Object.fromEntries(compiled.map(({ workflow, json }) => [workflow.name, JSON.parse(json)]));
    process.stdout.write(JSON.stringify(all, null, 2) + '\n');
  }
  return 0;
}
