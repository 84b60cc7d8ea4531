import { mkdir } from 'node:fs/promises';
import { DEFAULT_LOCAL_DATA_DIR, DEFAULT_LOCAL_PORT } from '@autosave/workflow/config';
import { commandHelp, commandSpec, parseCommandArgs } from '../args';
import { keepEngineHeapSmall } from '../engine-heap';
import { parentGone } from '../parent-watch';
import { commandRunner } from '../command-runner';
import { CliUsageError } from '../errors';
import { terminal } from '../output';
import { cliProject } from '../project';
import { CONFIG_FILE_NAMES, findConfigFile, projectOptions } from '../../project';

/** `autosave local`: runs the embedded engine with every workflow deployed, until SIGINT/SIGTERM. */
export const summary =
  'run the local engine (Step Functions, SQS, DynamoDB, S3, console) with every workflow deployed; --stack runs the synthesized CDK stack';

const USAGE = `autosave local [--config <file>] [--port ${DEFAULT_LOCAL_PORT}] [--data ${DEFAULT_LOCAL_DATA_DIR}] [--virtual-clock] [--functions <module>] [--mock-config <file>] [--integrations <file>] [--pass-through <service>[=<endpoint>],...] [--allow-outbound <host>[:<port>],...] [--expression-timeout <ms>] [--stack [--app <cdk.out>] [--stack-name <name>] [--enforce-iam]]`;

export const spec = commandSpec({
  usage: USAGE,
  options: {
    config: {
      type: 'string',
      value: '<file>',
      description:
        "the project's config: workflows, handlers, model script\n(default: the first autosave.config.ts walking up from here)",
    },
    port: {
      type: 'string',
      value: '<port>',
      default: String(DEFAULT_LOCAL_PORT),
      description: 'the port of the API, the console and the approval links (0 picks a free one)',
    },
    data: {
      type: 'string',
      value: '<dir>',
      default: DEFAULT_LOCAL_DATA_DIR,
      description: 'the data directory: runs, histories, queues, tables and buckets survive a restart there',
    },
    'virtual-clock': {
      type: 'boolean',
      default: false,
      description: 'start on a virtual clock moved by POST /_autosave/clock/advance (Waits and timeouts cost nothing)',
    },
    functions: {
      type: 'string',
      value: '<module>',
      description: 'a module exporting the Lambda handlers the definitions call, by function name',
    },
    'mock-config': {
      type: 'string',
      value: '<file>',
      description:
        "a mock config (Step Functions Local's MockConfigFile format; default: $SFN_MOCK_CONFIG):\nStartExecution on <stateMachineArn>#<TestCase> runs under that test case; re-read when it changes",
    },
    stack: {
      type: 'boolean',
      default: false,
      description: "boot from the app's cloud assembly (synthesized here, cached by a hash of the sources)",
    },
    app: {
      type: 'string',
      value: '<cdk.out>',
      description: 'use this cloud assembly instead of synthesizing (implies --stack)',
    },
    'stack-name': {
      type: 'string',
      value: '<name>',
      description: 'the stack to boot, when the assembly holds several',
    },
    'enforce-iam': {
      type: 'boolean',
      default: false,
      description:
        'judge every Task call against the state machine role with the IAM policy simulator\n(a devDependency; implies --stack)',
    },
    integrations: {
      type: 'string',
      value: '<file>',
      description: 'pass-through routes and HTTP connections (default: <data>/integrations.json)',
    },
    'pass-through': {
      type: 'string',
      value: '<service>[=<url>],...',
      description:
        "route these services' Tasks to AWS (or the endpoint) through their AWS SDK v3 clients:\nreal calls, real side effects (docs/integrations.md)",
    },
    'allow-outbound': {
      type: 'string',
      value: '<host>[:<port>],...',
      description:
        "local targets a definition's http:invoke may call (by default it may not reach loopback,\nlink-local or private addresses, nor the engine's own ports; docs/integrations.md)",
    },
    'expression-timeout': {
      type: 'string',
      value: '<ms>',
      description: `longest a state's JSONata may evaluate before the state fails with States.QueryEvaluationError\n(default 10000; docs/local-engine.md)`,
    },
  },
  examples: [
    'npx autosave local',
    'npx autosave local --port 0 --data /tmp/autosave --virtual-clock',
    'npx autosave local --stack --enforce-iam',
  ],
  positionals: false,
  common: ['help'],
});

/** Reads `--allow-outbound 127.0.0.1:8080,localhost`: the local targets a definition's http:invoke may call. */
export const parseAllowOutboundFlag = (value: string): string[] =>
  value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);

/** Reads `--pass-through glue,athena=http://127.0.0.1:4566`: each service to AWS, or to the endpoint after `=`. */
export function parsePassThroughFlag(value: string): Record<string, { endpoint?: string }> {
  return Object.fromEntries(
    value
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean)
      .map((part) => {
        const at = part.indexOf('=');
        return at < 0 ? [part, {}] : [part.slice(0, at), { endpoint: part.slice(at + 1) }];
      }),
  );
}

/** Parses the flags, starts the engine and resolves with the exit code once a signal stopped it. */
export const run = commandRunner('local', async (args) => {
  const started = Date.now();
  const { values } = parseCommandArgs(args, spec);
  if (values.help) return void terminal().line(commandHelp(spec));
  keepEngineHeapSmall();
  const expressionTimeout =
    values['expression-timeout'] === undefined ? undefined : Number(values['expression-timeout']);
  if (expressionTimeout !== undefined && !(Number.isInteger(expressionTimeout) && expressionTimeout > 0)) {
    throw new CliUsageError(`--expression-timeout must be a whole number of milliseconds above 0 (usage: ${USAGE})`);
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new CliUsageError(`--port must be a port number (0 picks a free one) (usage: ${USAGE})`);
  let stack: { assemblyDir: string; stackName?: string; origin: string; enforceIam: boolean } | undefined;
  if (values.stack || values.app || values['enforce-iam']) {
    const { appAssembly } = await import('../stack-assembly');
    const assembly = await appAssembly(values.app);
    stack = {
      assemblyDir: assembly.directory,
      stackName: values['stack-name'],
      origin: assembly.origin,
      enforceIam: values['enforce-iam'],
    };
  }
  // The project's workflows and handlers (stack mode takes them from the assembly), loaded by startLocal
  // once the store is open: a restart answers before a TypeScript config compiles. Without a config the
  // engine still runs whatever definitions are created on it.
  const configFile = values.config ?? findConfigFile(process.cwd());
  if (!configFile && !stack)
    terminal().line(
      `No ${CONFIG_FILE_NAMES[0]} in ${process.cwd()} or its parents: no workflow deployed (--config <file> names one)`,
    );
  // The data directory first, before the engine's modules load: a second engine is refused at once.
  await mkdir(values.data, { recursive: true });
  const { lockDataDirectory } = await import('@autosave/engine/store');
  const dataDirLock = await lockDataDirectory(values.data);
  // Loaded here, not at the top: `autosave help` should not pay for the engine's dependencies.
  const { startLocal } = await import('../../server');
  const local = await startLocal({
    // This process is the engine's alone.
    ownsProcess: true,
    project: async () => {
      const project = configFile ? await cliProject(configFile) : undefined;
      return project ? projectOptions(project) : undefined;
    },
    port,
    dataDir: values.data,
    virtualClock: values['virtual-clock'],
    functionsModule: values.functions,
    stack,
    dataDirLock,
    ...(values['mock-config'] ? { mockConfigFile: values['mock-config'] } : {}),
    ...(values.integrations ? { integrationsFile: values.integrations } : {}),
    ...(values['pass-through'] ? { passThrough: parsePassThroughFlag(values['pass-through']) } : {}),
    ...(values['allow-outbound'] ? { allowOutbound: parseAllowOutboundFlag(values['allow-outbound']) } : {}),
    ...(expressionTimeout !== undefined ? { expressionLimits: { timeoutMillis: expressionTimeout } } : {}),
    // OpenTelemetry's own settings; the exporter's modules load only when one is set.
    ...(process.env.OTEL_EXPORTER_OTLP_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
      ? { traces: (await import('../../tracing')).otlpTracesFromEnvironment(process.env) }
      : {}),
  });
  terminal().line(`Ready in ${Date.now() - started} ms`);
  await new Promise<void>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      terminal().line(`autosave local: ${signal}, stopping (runs in flight resume at the next start)`);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    void parentGone()?.then(() => {
      terminal().line(
        'autosave local: the process that started it is gone, stopping (runs in flight resume at the next start)',
      );
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve();
    });
  });
  await local.stop();
});
