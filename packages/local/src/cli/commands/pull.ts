import { S3Client } from '@aws-sdk/client-s3';
import { SFNClient } from '@aws-sdk/client-sfn';
import { LOCAL_CREDENTIALS } from '@autosave/workflow/config';
import { commandHelp, commandSpec, parseCommandArgs } from '../args';
import { resolveAwsTarget } from '../aws-clients';
import { commandRunner } from '../command-runner';
import { CliUsageError } from '../errors';
import { printJson, printTable, terminal } from '../output';
import { listRunsToPull, pullRun, type PulledRun, type RunSelection } from '../../operations';

export const spec = commandSpec({
  usage:
    'autosave pull <execution-arn> | autosave pull --state-machine <arn> [--status FAILED|TIMED_OUT|ABORTED] [--since 24h] ' +
    '[--region <r>] [--profile <p>] [--from-endpoint <url>] [--endpoint <local engine>] [--json]',
  options: {
    region: {
      type: 'string',
      value: '<region>',
      description: "the source's region (default: AWS_REGION, else the ARN's)",
    },
    profile: {
      type: 'string',
      value: '<profile>',
      description: "the AWS profile to read the source with (default: the SDK's chain)",
    },
    'from-endpoint': {
      type: 'string',
      value: '<url>',
      description:
        "a Step Functions endpoint other than AWS's to read the run from (a second local engine, LocalStack)",
    },
    'from-s3-endpoint': {
      type: 'string',
      value: '<url>',
      description:
        "with --from-endpoint: the source's S3, to copy the payloads the run names by s3:// reference (AWS: its own S3, always)",
    },
    'state-machine': {
      type: 'string',
      value: '<arn>',
      description:
        'pull every run of this state machine with --status (and --since), and print their failures grouped by state and error',
    },
    status: {
      type: 'string',
      value: '<status>',
      description: 'with --state-machine: FAILED (default), TIMED_OUT or ABORTED',
    },
    since: {
      type: 'string',
      value: '<30m|24h|7d>',
      description: 'with --state-machine: only runs that stopped in this window',
    },
  },
  notes: [
    '--endpoint names the local engine that takes the run (found as the other commands find it: AWS_ENDPOINT_URL, else the local default);',
    '--region/--profile/--from-endpoint name where the run is read. The IAM policy the pull needs: docs/pull.md',
  ],
  examples: [
    'npx autosave pull arn:aws:states:eu-west-1:111122223333:execution:research-agent:run-42 --profile prod',
    'npx autosave pull --state-machine arn:aws:states:eu-west-1:111122223333:stateMachine:research-agent --status FAILED --since 24h',
  ],
});

/** `autosave pull`: a run that failed on AWS, into the local engine, to fix and redrive there. */
export const summary =
  'pull a failed run from AWS (or --from-endpoint) into the local engine, to fix and `autosave redrive` it; --state-machine --status --since for many';

const STATUSES: readonly RunSelection['status'][] = ['FAILED', 'TIMED_OUT', 'ABORTED'];
const UNITS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `24h`, `90m`, `7d` in milliseconds. */
function sinceMillis(text: string): number {
  const m = /^(\d+)([mhd])$/.exec(text);
  if (!m) throw new CliUsageError(`--since takes a number of minutes, hours or days (30m, 24h, 7d), not '${text}'`);
  return Number(m[1]) * UNITS[m[2]];
}

/** The environment without what names the source (profile, region): those say where the run is read, not where the local engine is. */
function engineEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { AWS_PROFILE: _p, AWS_REGION: _r, AWS_DEFAULT_REGION: _d, AWS_ACCESS_KEY_ID: _k, ...rest } = env;
  return rest;
}

/** Runs `autosave pull` with its arguments; resolves to the exit code. */
export const run = commandRunner('pull', async (args) => {
  const { values, positionals } = parseCommandArgs(args, spec);
  if (values.help) return void terminal().line(commandHelp(spec));
  const arn = positionals[0];
  const machineArn = values['state-machine'];
  if ((arn === undefined) === (machineArn === undefined))
    throw new CliUsageError(`give an execution ARN or --state-machine, one of them (usage: ${spec.usage})`);
  const engine = resolveAwsTarget('SFN', engineEnvironment(process.env), values.endpoint);
  if (!engine.endpoint)
    throw new CliUsageError('the local engine has no endpoint here: pass --endpoint http://127.0.0.1:<port>');
  const fromEndpoint = values['from-endpoint'];
  const sourceConfig = {
    region:
      values.region ??
      process.env.AWS_REGION ??
      process.env.AWS_DEFAULT_REGION ??
      arnRegion(arn ?? machineArn) ??
      'us-east-1',
    ...(values.profile ? { profile: values.profile } : {}),
    // A source on this machine (a second local engine) takes any credentials, as the local engine does.
    ...(fromEndpoint &&
    /^http:\/\/(127\.|localhost)/.test(fromEndpoint) &&
    !process.env.AWS_ACCESS_KEY_ID &&
    !values.profile
      ? { credentials: LOCAL_CREDENTIALS }
      : {}),
    maxAttempts: 3,
  };
  const source = new SFNClient({
    ...sourceConfig,
    ...(fromEndpoint ? { endpoint: fromEndpoint, disableHostPrefix: true } : {}),
  });
  const t = terminal();
  const s3Endpoint = values['from-s3-endpoint'];
  // The payloads a run names by reference are read from the source's S3: AWS's own, or the one named with --from-endpoint.
  const payloads =
    fromEndpoint && !s3Endpoint
      ? undefined
      : new S3Client({ ...sourceConfig, ...(s3Endpoint ? { endpoint: s3Endpoint, forcePathStyle: true } : {}) });
  const pull = (executionArn: string) =>
    pullRun(source, engine.endpoint as string, executionArn, {
      ...(fromEndpoint ? { sourceEndpoint: fromEndpoint } : {}),
      ...(payloads ? { payloads } : {}),
    });
  if (arn !== undefined) {
    const pulled = await pull(arn);
    if (values.json) return void printJson(pulled);
    describePulled(pulled);
    return;
  }
  const status = (values.status ?? 'FAILED') as RunSelection['status'];
  if (!STATUSES.includes(status))
    throw new CliUsageError(`--status takes ${STATUSES.join(', ')}, not '${values.status}'`);
  const sinceMs = values.since === undefined ? undefined : Date.now() - sinceMillis(values.since);
  const runs = await listRunsToPull(source, {
    stateMachineArn: machineArn as string,
    status,
    ...(sinceMs !== undefined ? { sinceMs } : {}),
  });
  const pulled: PulledRun[] = [];
  const failed: { executionArn: string; reason: string }[] = [];
  for (const r of runs) {
    try {
      pulled.push(await pull(r.executionArn as string));
    } catch (err) {
      failed.push({ executionArn: r.executionArn as string, reason: (err as Error).message });
    }
  }
  const groups = groupFailures(pulled);
  const resumable = pulled.filter((p) => p.failedState !== undefined && p.warnings.length === 0).length;
  if (values.json) return void printJson({ pulled, failed, groups, resumable });
  t.line(
    `${runs.length} ${status} run(s) of ${machineArn}${values.since ? ` in the last ${values.since}` : ''}; pulled ${pulled.length}`,
  );
  if (groups.length > 0) {
    t.line();
    printTable(
      ['STATE', 'ERROR', 'RUNS', 'EXAMPLE'],
      groups.map((g) => [g.state, g.error, String(g.runs), g.example]),
    );
  }
  for (const f of failed) t.line(`not pulled: ${f.executionArn}: ${f.reason}`);
  t.line();
  t.line(
    `${resumable} of ${pulled.length} resume locally once fixed (autosave redrive <run>, each at its failed state)`,
  );
  return failed.length > 0 ? 1 : undefined;
});

/** The failures of pulled runs grouped by the state they stopped in and their error, biggest group first. */
function groupFailures(
  pulled: readonly PulledRun[],
): { state: string; error: string; runs: number; example: string }[] {
  const groups = new Map<string, { state: string; error: string; runs: number; example: string }>();
  for (const p of pulled) {
    const state = p.failedState ?? '-';
    const error = p.error ?? p.status;
    const key = JSON.stringify([state, error]);
    const g = groups.get(key) ?? { state, error, runs: 0, example: p.executionArn.split(':').pop() as string };
    g.runs += 1;
    groups.set(key, g);
  }
  return [...groups.values()].sort((a, b) => b.runs - a.runs || a.state.localeCompare(b.state));
}

/** What a pull did, and what to do next. */
function describePulled(p: PulledRun): void {
  const t = terminal();
  const name = p.executionArn.split(':').pop() as string;
  t.line(`${p.alreadyPulled ? 'already pulled' : 'pulled'} ${p.sourceExecutionArn}`);
  t.line(`  as ${p.executionArn} (${p.events} events from the source)`);
  t.line(
    `  ${p.status}${p.failedState ? ` at ${p.failedState}` : ''}${p.error ? `: ${p.error}` : ''}${p.cause ? ` (${p.cause.length > 200 ? `${p.cause.slice(0, 200)}…` : p.cause})` : ''}`,
  );
  if (p.payloads.copied > 0)
    t.line(`  ${p.payloads.copied} payload(s) it names by s3:// reference copied to the local S3`);
  for (const m of p.payloads.missing)
    t.line(`  warning: payload ${m.ref} not copied (${m.reason}): a step that reads it fails with NoSuchKey`);
  for (const w of p.warnings) t.line(`  warning: ${w}`);
  if (p.status !== 'SUCCEEDED')
    t.line(`fix the step, then: npx autosave redrive ${name}   (its earlier steps are not run again)`);
}

/** The region an ARN names. */
function arnRegion(arn: string | undefined): string | undefined {
  return arn?.split(':')[3] || undefined;
}
