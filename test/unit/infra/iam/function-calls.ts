import type { IamRequest, ResolvedDeployment } from '../../../../lib/cloud-assembly';

/** A function of a resolved deploy: its role and the environment its code reads. */
export interface DeployedFunction {
  readonly logicalId: string;
  readonly registryName: string;
  readonly roleArn: string;
  readonly env: Readonly<Record<string, string>>;
}

/** Every function of a deploy, by registry name (from its `Autosave <name>` description). */
export function functionsOf(deploy: ResolvedDeployment): Map<string, DeployedFunction> {
  const { resolver } = deploy;
  const out = new Map<string, DeployedFunction>();
  for (const logicalId of resolver.logicalIds('AWS::Lambda::Function')) {
    const description = String(resolver.property(logicalId, 'Description') ?? '');
    const registryName = description.replace(/^Autosave /, '');
    const env = ((resolver.property(logicalId, 'Environment') as { Variables?: Record<string, string> } | undefined)?.Variables ?? {}) as Record<string, string>;
    out.set(registryName, { logicalId, registryName, roleArn: String(resolver.property(logicalId, 'Role')), env });
  }
  return out;
}

/** Builds ARNs in the deploy's account and region. */
function arns(deploy: ResolvedDeployment) {
  const { region, account, partition } = deploy.record.environment;
  return {
    table: (name: string) => `arn:${partition}:dynamodb:${region}:${account}:table/${name}`,
    object: (bucket: string) => `arn:${partition}:s3:::${bucket}/sha256/0123abcd`,
    bucket: (bucket: string) => `arn:${partition}:s3:::${bucket}`,
    queue: (url: string) => `arn:${partition}:sqs:${region}:${account}:${url.split('/').pop()}`,
    execution: (machine: string) => `arn:${partition}:states:${region}:${account}:execution:${machine}:run-1`,
    parameter: (name: string) => `arn:${partition}:ssm:${region}:${account}:parameter${name}`,
    region,
    account,
    partition,
  };
}

/**
 * The AWS calls each function's code makes (read from lib/: the record table's Get/Put/Update, the
 * payload store's Get/PutObject, the ledger, SendTaskSuccess, the dead-letter send, redrive, Converse,
 * the secret read), with resources taken from the environment the template gives the function.
 * Independent of the grants on purpose: this is what the code does, the grants must follow it.
 */
export function callsOf(fn: DeployedFunction, deploy: ResolvedDeployment, machines: readonly string[]): IamRequest[] {
  const a = arns(deploy);
  const e = fn.env;
  const table = (...actions: string[]) => actions.map((action) => ({ action: `dynamodb:${action}`, resource: a.table(e.AUTOSAVE_TABLE) }));
  const payloads = () => [
    { action: 's3:GetObject', resource: a.object(e.AUTOSAVE_BUCKET) },
    { action: 's3:PutObject', resource: a.object(e.AUTOSAVE_BUCKET) },
  ];
  const secret = (): IamRequest[] => [{ action: 'ssm:GetParameter', resource: a.parameter(e.AUTOSAVE_APPROVAL_SECRET_PARAMETER) }];
  const executions = (...actions: string[]) => machines.flatMap((m) => actions.map((action) => ({ action, resource: a.execution(m) })));
  switch (fn.registryName) {
    case 'model-step':
      return [...table('GetItem', 'PutItem'), ...payloads(), ...bedrockCalls(e.AUTOSAVE_MODEL_ID, a)];
    case 'tool-step':
      return [...table('GetItem', 'PutItem', 'UpdateItem'), ...payloads()];
    case 'approval-request':
      return [...table('GetItem', 'PutItem'), ...secret()];
    case 'approval-endpoint':
      return [...table('GetItem', 'UpdateItem'), ...secret(), { action: 'states:SendTaskSuccess', resource: '*' }];
    case 'run-monitor':
      return [...executions('states:DescribeExecution', 'states:GetExecutionHistory'), { action: 'sqs:SendMessage', resource: a.queue(e.AUTOSAVE_DLQ_URL) }, ...table('GetItem', 'PutItem')];
    case 'redrive':
      return executions('states:RedriveExecution', 'states:DescribeExecution');
    default:
      throw new Error(`No calls listed for function ${fn.registryName}: add what its code sends`);
  }
}

/**
 * Converse on a model id: a foundation model is authorized on its ARN; a cross-region inference profile
 * (`us.`, `eu.`, `apac.`, `global.` prefix) on the profile's ARN in the caller's region **and** on the
 * foundation model in every region the profile may route to (Bedrock's inference-profile IAM page).
 */
export function bedrockCalls(modelId: string, a: { region: string; account: string; partition: string }): IamRequest[] {
  const profile = /^(us|eu|apac|us-gov|global)\.(.+)$/.exec(modelId);
  if (!profile) return [{ action: 'bedrock:InvokeModel', resource: `arn:${a.partition}:bedrock:${a.region}::foundation-model/${modelId}` }];
  return [
    { action: 'bedrock:InvokeModel', resource: `arn:${a.partition}:bedrock:${a.region}:${a.account}:inference-profile/${modelId}` },
    // A profile-routed call names the destination region's foundation model (us-east-2 for a us. profile from us-east-1).
    { action: 'bedrock:InvokeModel', resource: `arn:${a.partition}:bedrock:us-east-2::foundation-model/${profile[2]}` },
  ];
}
