import { InvalidArn } from './service-errors';

/** The account and region every ARN of one engine carries. */
export interface ArnScope {
  readonly region: string;
  readonly accountId: string;
}

/** What a `stateMachine:` ARN points at. */
export type StateMachineTarget =
  | { readonly kind: 'stateMachine'; readonly name: string; readonly stateMachineArn: string }
  | { readonly kind: 'version'; readonly name: string; readonly stateMachineArn: string; readonly version: number }
  | { readonly kind: 'alias'; readonly name: string; readonly stateMachineArn: string; readonly alias: string };

const prefix = (scope: ArnScope, kind: string): string => `arn:aws:states:${scope.region}:${scope.accountId}:${kind}:`;

/** `arn:aws:states:<region>:<account>:stateMachine:<name>` */
export const stateMachineArn = (scope: ArnScope, name: string): string => prefix(scope, 'stateMachine') + name;
/** A published version's ARN: the state machine ARN and `:<n>`. */
export const versionArn = (machineArn: string, version: number): string => `${machineArn}:${version}`;
/** An alias ARN: the state machine ARN and `:<alias>`. */
export const aliasArn = (machineArn: string, alias: string): string => `${machineArn}:${alias}`;
/** `arn:aws:states:<region>:<account>:execution:<machine>:<execution>` */
export const executionArn = (scope: ArnScope, machineName: string, name: string): string =>
  `${prefix(scope, 'execution')}${machineName}:${name}`;

/**
 * An express execution's ARN, as the service spells it: `arn:aws:states:<region>:<account>:express:<machine>:<execution>:<uuid>`
 * (express names are not unique, so every start gets its own id).
 */
export const expressExecutionArn = (scope: ArnScope, machineName: string, name: string, id: string): string =>
  `${prefix(scope, 'express')}${machineName}:${name}:${id}`;

const EXPRESS_EXECUTION_ARN = /^arn:aws[a-z-]*:states:[a-z0-9-]+:\d{12}:express:/;
const STATE_MACHINE_ARN = /^arn:aws[a-z-]*:states:([a-z0-9-]+):(\d{12}):stateMachine:([^:]+)(?::([^:]+))?$/;
const EXECUTION_ARN = /^arn:aws[a-z-]*:states:([a-z0-9-]+):(\d{12}):execution:([^:]+):([^:]+)$/;

/** Parses a state machine, version or alias ARN; throws `InvalidArn` otherwise. */
export function parseStateMachineArn(arn: unknown): StateMachineTarget {
  const m = typeof arn === 'string' ? STATE_MACHINE_ARN.exec(arn) : null;
  if (!m) throw new InvalidArn(`Invalid Arn: '${String(arn)}'`);
  const [, region, account, name, qualifier] = m;
  const base = `arn:aws:states:${region}:${account}:stateMachine:${name}`;
  if (qualifier === undefined) return { kind: 'stateMachine', name, stateMachineArn: base };
  if (/^\d+$/.test(qualifier)) return { kind: 'version', name, stateMachineArn: base, version: Number(qualifier) };
  return { kind: 'alias', name, stateMachineArn: base, alias: qualifier };
}

/** The parts of an execution ARN (any account and region), or undefined when it is not one (an express run's included). */
export function parseExecutionArn(
  arn: string,
):
  | { readonly region: string; readonly account: string; readonly machineName: string; readonly name: string }
  | undefined {
  const m = EXECUTION_ARN.exec(arn);
  return m ? { region: m[1], account: m[2], machineName: m[3], name: m[4] } : undefined;
}

/**
 * Checks an execution ARN's shape; throws `InvalidArn` otherwise. An express execution's ARN is refused
 * with the service's words: Describe, history, stop and redrive do not apply to express runs (their
 * history lives in CloudWatch Logs only).
 */
export function assertExecutionArn(arn: unknown): string {
  if (typeof arn === 'string' && EXPRESS_EXECUTION_ARN.test(arn))
    throw new InvalidArn("Invalid Arn: 'Resource type not valid in this context: express'");
  if (typeof arn !== 'string' || !EXECUTION_ARN.test(arn)) throw new InvalidArn(`Invalid Arn: '${String(arn)}'`);
  return arn;
}

/** `arn:aws:states:<region>:<account>:activity:<name>` */
export const activityArn = (scope: ArnScope, name: string): string => prefix(scope, 'activity') + name;

const ACTIVITY_ARN = /^arn:aws[a-z-]*:states:[a-z0-9-]+:\d{12}:activity:[^:]+$/;
const STATES_RESOURCE = /^arn:aws[a-z-]*:states:[a-z0-9-]*:\d*:([A-Za-z]+):/;

/**
 * Checks an activity ARN; throws `InvalidArn` in the service's words otherwise: a string that is no ARN
 * at all `Invalid ARN prefix: <it>` (recorded: test_describe_activity_invalid_arn), another Step Functions
 * resource `Resource type not valid in this context: <type>`.
 */
export function assertActivityArn(arn: string): string {
  if (ACTIVITY_ARN.test(arn)) return arn;
  if (!arn.startsWith('arn:')) throw new InvalidArn(`Invalid Arn: 'Invalid ARN prefix: ${arn}'`);
  const other = STATES_RESOURCE.exec(arn);
  if (other && other[1] !== 'activity')
    throw new InvalidArn(`Invalid Arn: 'Resource type not valid in this context: ${other[1]}'`);
  throw new InvalidArn(`Invalid Arn: '${arn}'`);
}
