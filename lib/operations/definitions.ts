import { DescribeStateMachineCommand, type DescribeExecutionCommandOutput, type SFNClient } from '@aws-sdk/client-sfn';

/** The parts of an ASL definition the CLI and the console read (transitions only). */
export interface AslGraphDefinition {
  readonly StartAt: string;
  readonly States: Readonly<
    Record<
      string,
      {
        readonly Type?: string;
        readonly Next?: string;
        readonly End?: boolean;
        readonly Default?: string;
        readonly Choices?: readonly { readonly Next?: string }[];
        readonly Catch?: readonly { readonly Next?: string }[];
      }
    >
  >;
}

/** The definition a run executes: its pinned version's when it started through a version or alias. */
export async function definitionOfRun(sfn: SFNClient, execution: DescribeExecutionCommandOutput): Promise<AslGraphDefinition> {
  const arn = execution.stateMachineVersionArn ?? execution.stateMachineArn!;
  const machine = await sfn.send(new DescribeStateMachineCommand({ stateMachineArn: arn }));
  return JSON.parse(machine.definition ?? '{"StartAt":"","States":{}}') as AslGraphDefinition;
}

/** States a state can go to next (Next, Choices, Default; Catch targets too unless `withCatch` is false). */
export function successorsOf(definition: AslGraphDefinition, state: string, withCatch = true): string[] {
  const s = definition.States[state];
  if (!s) return [];
  return [s.Next, ...(s.Choices ?? []).map((c) => c.Next), s.Default, ...(withCatch ? (s.Catch ?? []).map((c) => c.Next) : [])].filter(
    (n): n is string => typeof n === 'string' && n in definition.States,
  );
}

/**
 * The fewest states left to run from `state` (itself included) to an end, not counting error paths
 * (Catch): a progress estimate that follows the machine's paths rather than counting states the run
 * may never visit.
 */
export function statesLeftFrom(definition: AslGraphDefinition, state: string): number {
  const depth = new Map<string, number>([[state, 1]]);
  const queue = [state];
  while (queue.length > 0) {
    const current = queue.shift()!;
    const s = definition.States[current];
    if (!s || s.End || s.Type === 'Succeed' || s.Type === 'Fail') return depth.get(current)!;
    for (const next of successorsOf(definition, current, false)) {
      if (!depth.has(next)) {
        depth.set(next, depth.get(current)! + 1);
        queue.push(next);
      }
    }
  }
  return 1;
}
