import type { IamRequest, ResolvedDeployment } from '../../../local/src/cloud-assembly';

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
    const env = ((resolver.property(logicalId, 'Environment') as { Variables?: Record<string, string> } | undefined)
      ?.Variables ?? {}) as Record<string, string>;
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
  const table = (...actions: string[]) =>
    actions.map((action) => ({ action: `dynamodb:${action}`, resource: a.table(e.AUTOSAVE_TABLE) }));
  const payloads = () => [
    { action: 's3:GetObject', resource: a.object(e.AUTOSAVE_BUCKET) },
    { action: 's3:PutObject', resource: a.object(e.AUTOSAVE_BUCKET) },
  ];
  const secret = (): IamRequest[] => [
    { action: 'ssm:GetParameter', resource: a.parameter(e.AUTOSAVE_APPROVAL_SECRET_PARAMETER) },
  ];
  const executions = (...actions: string[]) =>
    machines.flatMap((m) => actions.map((action) => ({ action, resource: a.execution(m) })));
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
      return [
        ...executions('states:DescribeExecution', 'states:GetExecutionHistory'),
        { action: 'sqs:SendMessage', resource: a.queue(e.AUTOSAVE_DLQ_URL) },
        ...table('GetItem', 'PutItem'),
      ];
    case 'redrive':
      return executions('states:RedriveExecution', 'states:DescribeExecution');
    default:
      throw new Error(`No calls listed for function ${fn.registryName}: add what its code sends`);
  }
}

/**
 * Regions each geography's inference profiles may route a call to (examples from Bedrock's "Supported
 * Regions and models for inference profiles"; a profile's list changes over time). A global profile's
 * destination is any commercial region. (A global call may also be authorized on a foundation-model ARN
 * with no region; the simulator cannot match a bedrock ARN without a region, so that form is not judged.)
 */
export const PROFILE_DESTINATIONS: Readonly<Record<string, readonly string[]>> = {
  us: ['us-east-1', 'us-east-2', 'us-west-2'],
  eu: ['eu-central-1', 'eu-west-1', 'eu-west-3', 'eu-north-1'],
  apac: ['ap-northeast-1', 'ap-southeast-2', 'ap-south-1'],
  global: ['us-east-1', 'eu-west-1', 'ap-northeast-1', 'sa-east-1'],
};

/**
 * Converse on a model id, as Bedrock authorizes it (its inference-profile prerequisites page): a
 * foundation model on its ARN in the caller's region; a cross-region inference profile (`us.`, `eu.`,
 * `apac.`, `global.` prefix, or its ARN) on the profile's ARN **and** on the foundation model in the
 * region the profile routes the call to, with `bedrock:InferenceProfileArn` naming the profile.
 */
export function bedrockCalls(modelId: string, a: { region: string; account: string; partition: string }): IamRequest[] {
  const arn = /^arn:[^:]+:bedrock:[^:]*:[^:]*:(foundation-model|inference-profile)\/(.+)$/.exec(modelId);
  const id = arn ? arn[2] : modelId;
  const profile = /^(us|eu|apac|global)\.(.+)$/.exec(id);
  if (!profile || arn?.[1] === 'foundation-model') {
    return [
      {
        action: 'bedrock:InvokeModel',
        resource: arn ? modelId : `arn:${a.partition}:bedrock:${a.region}::foundation-model/${id}`,
      },
    ];
  }
  const profileArn = arn ? modelId : `arn:${a.partition}:bedrock:${a.region}:${a.account}:inference-profile/${id}`;
  return [
    { action: 'bedrock:InvokeModel', resource: profileArn },
    ...PROFILE_DESTINATIONS[profile[1]].map((region) => ({
      action: 'bedrock:InvokeModel',
      resource: `arn:${a.partition}:bedrock:${region}::foundation-model/${profile[2]}`,
      context: { 'bedrock:InferenceProfileArn': profileArn },
    })),
  ];
}
