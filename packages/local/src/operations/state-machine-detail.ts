import {
  DescribeExecutionCommand,
  DescribeStateMachineAliasCommand,
  ListExecutionsCommand,
  ListStateMachineAliasesCommand,
  ListStateMachineVersionsCommand,
  type SFNClient,
} from '@aws-sdk/client-sfn';
import { LIVE_ALIAS_NAME } from '@autosave/workflow/config';

/** A published version of a state machine (ListStateMachineVersions). */
export interface StateMachineVersion {
  readonly arn: string;
  /** The version number (the ARN's last part). */
  readonly version: string;
  readonly creationDate?: Date;
}

/** An alias and where it routes (DescribeStateMachineAlias). */
export interface StateMachineAlias {
  readonly arn: string;
  readonly name: string;
  readonly description?: string;
  /** The versions it sends runs to, with the percentage of runs each gets. */
  readonly routing: readonly { readonly versionArn: string; readonly version: string; readonly weight: number }[];
  readonly creationDate?: Date;
}

/** What the state machine page shows beside the definition. */
export interface StateMachineDetail {
  readonly versions: readonly StateMachineVersion[];
  readonly aliases: readonly StateMachineAlias[];
  /** The input of the machine's newest run (STANDARD only: the service lists no EXPRESS run). */
  readonly lastRunInput?: string;
  /** What a run started from the console targets: the `live` alias when there is one (as the CLI starts runs), else the machine. */
  readonly startTarget: string;
}

const versionOf = (arn: string) => arn.split(':').at(-1) ?? arn;

/** Versions (newest first), aliases with their routing, and the newest run's input of one state machine. */
export async function describeStateMachineDetail(
  sfn: SFNClient,
  stateMachineArn: string,
  type: string,
): Promise<StateMachineDetail> {
  const [versions, aliasItems, lastRunInput] = await Promise.all([
    sfn.send(new ListStateMachineVersionsCommand({ stateMachineArn, maxResults: 100 })),
    sfn.send(new ListStateMachineAliasesCommand({ stateMachineArn, maxResults: 100 })),
    type === 'EXPRESS' ? undefined : lastInputOf(sfn, stateMachineArn),
  ]);
  const aliases = await Promise.all(
    (aliasItems.stateMachineAliases ?? []).map(async (item): Promise<StateMachineAlias> => {
      const a = await sfn.send(
        new DescribeStateMachineAliasCommand({ stateMachineAliasArn: item.stateMachineAliasArn }),
      );
      return {
        arn: a.stateMachineAliasArn ?? item.stateMachineAliasArn ?? '',
        name: a.name ?? '',
        ...(a.description ? { description: a.description } : {}),
        routing: (a.routingConfiguration ?? []).map((r) => ({
          versionArn: r.stateMachineVersionArn ?? '',
          version: versionOf(r.stateMachineVersionArn ?? ''),
          weight: r.weight ?? 0,
        })),
        ...(a.creationDate ? { creationDate: a.creationDate } : {}),
      };
    }),
  );
  return {
    versions: (versions.stateMachineVersions ?? []).map((v) => ({
      arn: v.stateMachineVersionArn ?? '',
      version: versionOf(v.stateMachineVersionArn ?? ''),
      ...(v.creationDate ? { creationDate: v.creationDate } : {}),
    })),
    aliases,
    ...(lastRunInput !== undefined ? { lastRunInput } : {}),
    startTarget: startTargetAmong(
      stateMachineArn,
      aliases.map((a) => a.arn),
    ),
  };
}

/** The `live` alias among `aliasArns` (what the CLI starts), else the machine itself. */
const startTargetAmong = (stateMachineArn: string, aliasArns: readonly string[]): string =>
  aliasArns.find((arn) => arn.split(':').at(-1) === LIVE_ALIAS_NAME) ?? stateMachineArn;

/** What a run started from the console targets (see {@link StateMachineDetail.startTarget}). */
export async function startTargetOf(sfn: SFNClient, stateMachineArn: string): Promise<string> {
  const aliases = await sfn.send(new ListStateMachineAliasesCommand({ stateMachineArn, maxResults: 100 }));
  return startTargetAmong(
    stateMachineArn,
    (aliases.stateMachineAliases ?? []).map((a) => a.stateMachineAliasArn ?? ''),
  );
}

/** The newest run's input (ListExecutions answers newest first), if the machine has run. */
async function lastInputOf(sfn: SFNClient, stateMachineArn: string): Promise<string | undefined> {
  const newest = (await sfn.send(new ListExecutionsCommand({ stateMachineArn, maxResults: 1 }))).executions?.[0];
  if (!newest?.executionArn) return undefined;
  return (await sfn.send(new DescribeExecutionCommand({ executionArn: newest.executionArn }))).input;
}
