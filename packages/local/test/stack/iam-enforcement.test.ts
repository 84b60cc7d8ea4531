/**
 * The stack mode's IAM enforcement: the roles and policies the stack recorded, judged by the real policy
 * simulator, decisions cached per policy version; a denial in each integration's own words.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createIamEvaluator, type IamEvaluator } from '../../src/cloud-assembly';
import type { TaskCall } from '../../../engine/src';
import { denialOf, StackIamEnforcement } from '../../src/stack';
import { StackStore, type StackResourceRow } from '../../../engine/src/store';

const env = { partition: 'aws', region: 'us-east-1', account: '123456789012' };
const roleArn = 'arn:aws:iam::123456789012:role/Flow-Role-ABC';
const fn = 'arn:aws:lambda:us-east-1:123456789012:function:worker';
const call = (args: unknown, resource = 'arn:aws:states:::lambda:invoke'): TaskCall => ({
  roleArn,
  executionArn: 'arn:aws:states:us-east-1:123456789012:execution:flow:run-1',
  stateMachineArn: 'arn:aws:states:us-east-1:123456789012:stateMachine:flow',
  state: 'Call',
  resource,
  args,
});

function row(logicalId: string, type: string, properties: object, attributes: object): StackResourceRow {
  return {
    logical_id: logicalId,
    type,
    physical_id: logicalId,
    attributes: JSON.stringify(attributes),
    properties: JSON.stringify(properties),
    deletion_policy: null,
    update_replace_policy: null,
    assembly_id: 'a1',
    state: 'IN_STACK',
    updated_ms: 0,
  };
}

describe('StackIamEnforcement', () => {
  let dir: string;
  let store: StackStore;
  let evaluations: number;
  let iam: StackIamEnforcement;

  const grant = (resource: string | string[]) =>
    store.putResource(
      row(
        'FlowRolePolicy',
        'AWS::IAM::Policy',
        {
          PolicyName: 'p',
          Roles: ['Flow-Role-ABC'],
          PolicyDocument: {
            Version: '2012-10-17',
            Statement: [{ Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: resource }],
          },
        },
        { Ref: 'p' },
      ),
    );

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'autosave-iam-'));
    store = new StackStore(dir);
    store.putResource(
      row('FlowRole', 'AWS::IAM::Role', { AssumeRolePolicyDocument: {} }, { Ref: 'Flow-Role-ABC', Arn: roleArn }),
    );
    const simulator = await createIamEvaluator();
    evaluations = 0;
    const counting: IamEvaluator = { ...simulator, evaluate: (...a) => (evaluations++, simulator.evaluate(...a)) };
    iam = new StackIamEnforcement({ store, evaluator: counting, environment: env, stackName: () => 'Flow' });
  });
  afterEach(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("allows what the recorded policy grants and denies the rest, in Lambda's words", async () => {
    grant(`${fn}:*`);
    expect(await iam.authorize(call({ FunctionName: `${fn}:3` }))).toBeUndefined();
    const denied = await iam.authorize(call({ FunctionName: 'other:1' }));
    expect(denied?.error).toBe('Lambda.AWSLambdaException');
    expect(denied?.cause).toContain(
      'is not authorized to perform: lambda:InvokeFunction on resource: arn:aws:lambda:us-east-1:123456789012:function:other:1 because',
    );
  });

  it('asks the simulator once per (policy version, action, resource, context), and again once the policy changed', async () => {
    grant(`${fn}:*`);
    for (let i = 0; i < 5; i++) expect(await iam.authorize(call({ FunctionName: `${fn}:1` }))).toBeUndefined();
    expect(evaluations).toBe(1);
    grant(`${fn}:2`);
    iam.invalidate();
    expect((await iam.authorize(call({ FunctionName: `${fn}:1` })))?.error).toBe('Lambda.AWSLambdaException');
    expect(evaluations).toBe(2);
  });

  it('denies every call of a role the stack does not define (it has no identity policy)', async () => {
    const denied = await iam.authorize({
      ...call({ FunctionName: fn }),
      roleArn: 'arn:aws:iam::123456789012:role/elsewhere',
    });
    expect(denied?.error).toBe('Lambda.AWSLambdaException');
    expect(denied?.cause).toContain('assumed-role/elsewhere/');
  });
});

describe('denialOf: AccessDenied as each integration reports it to a Task', () => {
  const c = call({});
  it.each([
    [
      'lambda:InvokeFunction',
      `${fn}:1`,
      'Lambda.AWSLambdaException',
      /^User: arn:aws:sts::123456789012:assumed-role\/Flow-Role-ABC\/[A-Za-z]{32} is not authorized to perform: lambda:InvokeFunction on resource: arn:aws:lambda:us-east-1:123456789012:function:worker:1 because no identity-based policy allows the lambda:InvokeFunction action \(Service: AWSLambda; Status Code: 403; Error Code: AccessDeniedException; Request ID: [0-9a-f-]{36}; Proxy: null\)$/,
    ],
    [
      'dynamodb:PutItem',
      'arn:aws:dynamodb:us-east-1:123456789012:table/runs',
      'DynamoDB.AmazonDynamoDBException',
      /perform: dynamodb:PutItem on resource: arn:aws:dynamodb:us-east-1:123456789012:table\/runs because no identity-based policy allows the dynamodb:PutItem action \(Service: AmazonDynamoDBv2; Status Code: 400; Error Code: AccessDeniedException; Request ID: [0-9a-f-]{36}; Proxy: null\)$/,
    ],
    [
      'sqs:SendMessage',
      'arn:aws:sqs:us-east-1:123456789012:dlq',
      'SQS.AmazonSQSException',
      /^Access to the resource https:\/\/sqs\.us-east-1\.amazonaws\.com\/123456789012\/dlq is denied\. \(Service: AmazonSQS; Status Code: 403; Error Code: AccessDenied; Request ID: [0-9a-f-]{36}; Proxy: null\)$/,
    ],
    [
      'states:StartExecution',
      'arn:aws:states:us-east-1:123456789012:stateMachine:flow',
      'StepFunctions.AWSStepFunctionsException',
      /perform: states:StartExecution on resource: arn:aws:states:us-east-1:123456789012:stateMachine:flow because no identity-based policy allows the states:StartExecution action \(Service: AWSStepFunctions; Status Code: 400; Error Code: AccessDeniedException;/,
    ],
  ])('%s', (action, resource, error, cause) => {
    const d = denialOf(c, { action, resource }, 'ImplicitlyDenied', env);
    expect(d.error).toBe(error);
    expect(d.cause).toMatch(cause);
  });

  it('says "with an explicit deny" for an explicit Deny, and names the same session for the same run', () => {
    const a = denialOf(c, { action: 'lambda:InvokeFunction', resource: fn }, 'ExplicitlyDenied', env);
    const b = denialOf(c, { action: 'lambda:InvokeFunction', resource: fn }, 'ExplicitlyDenied', env);
    expect(a.cause).toContain(
      `on resource: ${fn} with an explicit deny in an identity-based policy (Service: AWSLambda;`,
    );
    expect(a.cause.split(' ')[1]).toBe(b.cause.split(' ')[1]);
  });
});
