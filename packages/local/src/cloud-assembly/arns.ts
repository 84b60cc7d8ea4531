/** ARN and URL forms of the AWS resources a stack creates (the documented formats of each service). */

/** The account, region and partition an ARN is built in. */
export interface AwsEnvironment {
  readonly partition: string;
  readonly region: string;
  readonly account: string;
}

/** `arn:<partition>:<service>:<region>:<account>:<resource>` (region or account may be empty). */
export function arn(
  env: AwsEnvironment,
  service: string,
  resource: string,
  scope: { region?: boolean; account?: boolean } = {},
): string {
  const region = scope.region === false ? '' : env.region;
  const account = scope.account === false ? '' : env.account;
  return `arn:${env.partition}:${service}:${region}:${account}:${resource}`;
}

/** A Lambda function's unqualified ARN. */
export const lambdaFunctionArn = (env: AwsEnvironment, name: string): string => arn(env, 'lambda', `function:${name}`);
/** A state machine's unqualified ARN. */
export const stateMachineArn = (env: AwsEnvironment, name: string): string =>
  arn(env, 'states', `stateMachine:${name}`);
/** A qualified ARN: a version number or alias name after the unqualified one. */
export const qualifiedArn = (unqualified: string, qualifier: string | number): string => `${unqualified}:${qualifier}`;

/** The parts of a (possibly qualified) Lambda function or state machine ARN. */
export interface QualifiedArnParts {
  /** The ARN without qualifier. */
  readonly unqualified: string;
  /** `3`, `live`, or undefined for an unqualified ARN. */
  readonly qualifier?: string;
}

/**
 * Splits `arn:aws:lambda:r:a:function:name[:qualifier]` or `arn:aws:states:r:a:stateMachine:name[:qualifier]`
 * into the unqualified ARN and its qualifier; any other ARN comes back unqualified as it is.
 */
export function splitQualifiedArn(value: string): QualifiedArnParts {
  const parts = value.split(':');
  const kind = parts[5];
  if (parts[0] === 'arn' && parts.length === 8 && (kind === 'function' || kind === 'stateMachine')) {
    return { unqualified: parts.slice(0, 7).join(':'), qualifier: parts[7] };
  }
  return { unqualified: value };
}

/** The name in an unqualified function or state machine ARN (or the value itself when it is a name). */
export function nameOfArn(value: string): string {
  const parts = value.split(':');
  return parts[0] === 'arn' && parts.length >= 7 ? parts[6] : value;
}
