import { TestStateCommand, type TestStateCommandOutput, type MockInput } from '@aws-sdk/client-sfn';
import { localDefinition, LOCAL_STATE_MACHINE_ROLE_ARN } from '../../services/deploy-workflows';
import { commandHelp, commandSpec, parseCommandArgs, requirePositional } from '../args';
import { createCliContext } from '../command';
import { commandRunner } from '../command-runner';
import { CliUsageError, EXIT_FAILURE } from '../errors';
import { printJson, terminal } from '../output';
import { readRunInput } from './start';

const USAGE =
  'autosave test-state <workflow> <state> [--input <file|json>] [--mock <file|json>] [--error <Error>[:<cause>]] [--retry-count <n>] [--level info|debug|trace] [--role-arn <arn>] [--json]';

export const spec = commandSpec({
  usage: USAGE,
  options: {
    input: {
      type: 'string',
      value: '<file|json>',
      description: "the state's input: inline JSON or a JSON file (default: the workflow's example input)",
    },
    mock: {
      type: 'string',
      value: '<file|json>',
      description: 'the Task\'s mocked result, or a TestState mock ({"result": ..., "fieldValidationMode": "STRICT"})',
    },
    error: {
      type: 'string',
      value: '<Error>[:<cause>]',
      description: 'a mocked error instead of a result: which retrier or catcher takes it',
    },
    'retry-count': {
      type: 'string',
      value: '<n>',
      description: "the attempts already made, for the retrier's backoff",
    },
    level: {
      type: 'string',
      value: 'info|debug|trace',
      default: 'debug',
      description: 'how much of the data flow TestState shows (inspectionLevel)',
    },
    'role-arn': {
      type: 'string',
      value: '<arn>',
      description: 'the role TestState runs the state with (default: the local state machine role)',
    },
  },
  notes: ['<workflow> <state>: a deployed workflow and one of its states, by name'],
  examples: [
    'npx autosave test-state clinical-trial-onboarding verify-site --input \'{"siteId":"site-4412"}\'',
    'npx autosave test-state clinical-trial-onboarding email-welcome-pack --error States.Timeout --retry-count 1',
  ],
});

/** `autosave test-state`: one state of a workflow run alone with TestState, its data flow step by step. */
export const summary =
  'run one state of a workflow with TestState (--input, a mocked --mock result or --error, --retry-count) and show its data flow';

/** The inspection steps in the order a state's data flows through them, with the names the ASL fields have. */
const STEPS: readonly (readonly [key: string, label: string])[] = [
  ['input', 'input'],
  ['variables', 'variables'],
  ['afterInputPath', 'after InputPath'],
  ['afterItemsPath', 'after ItemsPath'],
  ['afterParameters', 'after Parameters'],
  ['afterArguments', 'after Arguments'],
  ['result', 'result'],
  ['afterResultSelector', 'after ResultSelector'],
  ['afterResultPath', 'after ResultPath'],
];
const MAP_LIMITS: readonly (readonly [
  key: 'maxConcurrency' | 'toleratedFailureCount' | 'toleratedFailurePercentage',
  label: string,
])[] = [
  ['maxConcurrency', 'MaxConcurrency'],
  ['toleratedFailureCount', 'ToleratedFailureCount'],
  ['toleratedFailurePercentage', 'ToleratedFailurePercentage'],
];

/** JSON text shown indented under its label (the answer's fields are JSON text; a non-JSON one is shown as is). */
function indented(text: string): string {
  let pretty = text;
  try {
    pretty = JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    // not JSON: as is
  }
  return pretty
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}

/**
 * A TestState answer as a person reads it: the status and where the state goes, what a retrier or
 * catcher did, then each data-flow step with its value, and the output.
 */
export function formatTestState(
  state: string,
  answer: Pick<TestStateCommandOutput, 'status' | 'output' | 'error' | 'cause' | 'nextState' | 'inspectionData'>,
): string {
  const lines: string[] = [];
  const failure = answer.error !== undefined ? `  ${answer.error}${answer.cause ? `: ${answer.cause}` : ''}` : '';
  lines.push(`${state}: ${answer.status ?? 'UNKNOWN'}${failure}`);
  const details = answer.inspectionData?.errorDetails;
  if (details?.retryIndex !== undefined) {
    lines.push(
      details.retryBackoffIntervalSeconds !== undefined
        ? `  Retry[${details.retryIndex}] would retry it after ${details.retryBackoffIntervalSeconds} s`
        : `  Retry[${details.retryIndex}] matched but has no attempts left`,
    );
  }
  if (details?.catchIndex !== undefined) lines.push(`  Catch[${details.catchIndex}] caught it`);
  const data = answer.inspectionData;
  if (data) {
    for (const [key, label] of STEPS) {
      const value = data[key as keyof typeof data];
      if (typeof value === 'string') lines.push('', `  ${label}`, indented(value));
    }
    const limits = MAP_LIMITS.filter(([key]) => data[key] !== undefined).map(([key, label]) => `${label} ${data[key]}`);
    if (limits.length > 0) lines.push('', `  ${limits.join(', ')}`);
    for (const [key, label] of [
      ['request', 'HTTP request'],
      ['response', 'HTTP response'],
    ] as const) {
      if (data[key]) lines.push('', `  ${label}`, indented(JSON.stringify(data[key])));
    }
  }
  if (answer.output !== undefined) lines.push('', '  output', indented(answer.output));
  if (answer.nextState !== undefined) lines.push('', `  next state: ${answer.nextState}`);
  return lines.join('\n');
}

/** `--mock`: a TestState mock (`result`/`errorOutput`/`fieldValidationMode`) or, as a shorthand, the mocked result itself. */
export function mockFrom(text: string): MockInput {
  const value: unknown = JSON.parse(text);
  const isMock =
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Object.keys(value).length > 0 &&
    Object.keys(value).every((k) => ['result', 'errorOutput', 'fieldValidationMode'].includes(k));
  if (!isMock) return { result: text };
  const { result, ...rest } = value as { result?: unknown } & Omit<MockInput, 'result'>;
  return {
    ...rest,
    ...(result !== undefined ? { result: typeof result === 'string' ? result : JSON.stringify(result) } : {}),
  };
}

/** `--error Name[:cause]`: a mocked error. */
export function errorMockFrom(value: string): MockInput {
  const at = value.indexOf(':');
  return {
    errorOutput: at < 0 ? { error: value, cause: '' } : { error: value.slice(0, at), cause: value.slice(at + 1) },
  };
}

const LEVELS = { info: 'INFO', debug: 'DEBUG', trace: 'TRACE' } as const;

/** Runs `autosave test-state` with its arguments; resolves to the exit code (1 when the state FAILED or would retry). */
export const run = commandRunner('test-state', async (args) => {
  const { values, positionals } = parseCommandArgs(args, spec);
  if (values.help) return void terminal().line(commandHelp(spec));
  const workflowName = requirePositional(positionals, 0, 'workflow', USAGE);
  const stateName = requirePositional(positionals, 1, 'state', USAGE);
  const ctx = createCliContext(values.endpoint, values.config);
  const workflows = await ctx.registryWorkflows();
  const workflow = workflows.find((w) => w.name === workflowName);
  if (!workflow)
    throw new CliUsageError(`unknown workflow '${workflowName}' (known: ${workflows.map((w) => w.name).join(', ')})`);
  const definition = localDefinition(workflow);
  const machine = JSON.parse(definition) as { StartAt: string; States: Record<string, unknown> };
  if (!(stateName in machine.States))
    throw new CliUsageError(
      `'${workflowName}' has no state '${stateName}' (its states: ${Object.keys(machine.States).join(', ')})`,
    );
  const level = LEVELS[values.level as keyof typeof LEVELS];
  if (!level) throw new CliUsageError(`--level must be info, debug or trace (usage: ${USAGE})`);
  if (values.mock !== undefined && values.error !== undefined)
    throw new CliUsageError(`--mock and --error do not go together (usage: ${USAGE})`);
  const retryCount = values['retry-count'] === undefined ? undefined : Number(values['retry-count']);
  if (retryCount !== undefined && !(Number.isInteger(retryCount) && retryCount >= 0))
    throw new CliUsageError(`--retry-count must be a whole number (usage: ${USAGE})`);

  // A state after the first reads the state data {input, steps} the states before it built (docs/architecture.md §1).
  const input =
    values.input !== undefined || stateName === machine.StartAt
      ? await readRunInput(values.input, workflowName)
      : JSON.stringify({ input: workflow.exampleInput ?? {}, steps: {} });
  const mock =
    values.error !== undefined
      ? errorMockFrom(values.error)
      : values.mock !== undefined
        ? mockFrom(await readRunInput(values.mock, workflowName))
        : undefined;
  // An un-mocked Task needs a role; the local engine checks none, so its own role does.
  const roleArn =
    values['role-arn'] ?? (ctx.sfnTarget.endpoint !== undefined ? LOCAL_STATE_MACHINE_ROLE_ARN : undefined);
  const answer = await ctx.sfn.send(
    new TestStateCommand({
      definition,
      stateName,
      input,
      inspectionLevel: level,
      ...(roleArn !== undefined ? { roleArn } : {}),
      ...(mock ? { mock } : {}),
      ...(retryCount !== undefined ? { stateConfiguration: { retrierRetryCount: retryCount } } : {}),
    }),
  );
  if (values.json) {
    const { $metadata: _metadata, ...wire } = answer;
    printJson(wire);
  } else {
    terminal().line(formatTestState(stateName, answer));
  }
  return answer.status === 'FAILED' || answer.status === 'RETRIABLE' ? EXIT_FAILURE : 0;
});
