import { describe, expect, it } from 'vitest';
import { callRequestsOf, createIamEvaluator, splitQualifiedArn, taskRequestsOf } from '../../src/cloud-assembly';

const sm = 'arn:aws:states:us-east-1:123456789012:stateMachine:flow';
const fn = 'arn:aws:lambda:us-east-1:123456789012:function:worker';
const definition = {
  StartAt: 'Invoke',
  States: {
    Invoke: {
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke',
      Arguments: { FunctionName: `${fn}:3` },
      Next: 'Fan',
    },
    Fan: {
      Type: 'Parallel',
      Branches: [
        {
          StartAt: 'Wait',
          States: {
            Wait: {
              Type: 'Task',
              Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
              Arguments: { FunctionName: fn },
              End: true,
            },
          },
        },
      ],
      Next: 'Dynamic',
    },
    Dynamic: {
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke',
      Arguments: { FunctionName: '{% $states.input.fn %}' },
      Next: 'Continue',
    },
    Continue: {
      Type: 'Task',
      Resource: 'arn:aws:states:::states:startExecution',
      Arguments: { StateMachineArn: `${sm}:live` },
      End: true,
    },
  },
};

describe('taskRequestsOf: what each Task asks IAM for', () => {
  it('lists Lambda invokes on the ARN the definition names, nested states too, and continue-as-new on the unqualified machine with its qualifier', () => {
    const { requests, dynamic } = taskRequestsOf(definition);
    expect(requests).toEqual([
      {
        state: 'Invoke',
        integration: 'arn:aws:states:::lambda:invoke',
        action: 'lambda:InvokeFunction',
        resource: `${fn}:3`,
      },
      {
        state: 'Fan/Wait',
        integration: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
        action: 'lambda:InvokeFunction',
        resource: fn,
      },
      {
        state: 'Continue',
        integration: 'arn:aws:states:::states:startExecution',
        action: 'states:StartExecution',
        resource: sm,
        context: { 'states:StateMachineQualifier': ['live'] },
      },
    ]);
    expect(dynamic).toEqual([
      { state: 'Dynamic', integration: 'arn:aws:states:::lambda:invoke', field: 'FunctionName' },
    ]);
  });

  it('splits qualified function and state machine ARNs', () => {
    expect(splitQualifiedArn(`${fn}:3`)).toEqual({ unqualified: fn, qualifier: '3' });
    expect(splitQualifiedArn(sm)).toEqual({ unqualified: sm });
  });
});

describe('createIamEvaluator: the policy simulator decides', () => {
  const principal = 'arn:aws:iam::123456789012:role/flow-role';
  const start = {
    action: 'states:StartExecution',
    resource: sm,
    context: { 'states:StateMachineQualifier': ['live'] },
  };
  const allow = (statement: Record<string, unknown>) => [
    { name: 'p', policy: { Version: '2012-10-17', Statement: [{ Effect: 'Allow', ...statement }] } },
  ];

  it('denies StartExecution through an alias when only the alias ARN is granted (AWS authorizes the unqualified ARN)', async () => {
    const iam = await createIamEvaluator();
    expect(
      (await iam.evaluate(principal, allow({ Action: 'states:StartExecution', Resource: `${sm}:live` }), start)).result,
    ).toBe('ImplicitlyDenied');
  });

  it('allows it on the unqualified ARN scoped by states:StateMachineQualifier (an array key: ForAnyValue), and only for that qualifier', async () => {
    const iam = await createIamEvaluator();
    const policies = allow({
      Action: 'states:StartExecution',
      Resource: sm,
      Condition: { 'ForAnyValue:StringEquals': { 'states:StateMachineQualifier': ['live'] } },
    });
    expect((await iam.evaluate(principal, policies, start)).allowed).toBe(true);
    expect(
      (await iam.evaluate(principal, policies, { ...start, context: { 'states:StateMachineQualifier': ['7'] } }))
        .allowed,
    ).toBe(false);
  });

  it('lets function:name:* cover every version of that function and no other function', async () => {
    const iam = await createIamEvaluator();
    const policies = allow({ Action: 'lambda:InvokeFunction', Resource: `${fn}:*` });
    expect(
      (await iam.evaluate(principal, policies, { action: 'lambda:InvokeFunction', resource: `${fn}:1` })).allowed,
    ).toBe(true);
    expect(
      (await iam.evaluate(principal, policies, { action: 'lambda:InvokeFunction', resource: `${fn}-other:1` })).allowed,
    ).toBe(false);
  });
});

describe('callRequestsOf: what one Task call at run time asks IAM for', () => {
  const env = { partition: 'aws', region: 'us-east-1', account: '123456789012' };

  it.each([
    ['a full function ARN', { FunctionName: `${fn}:3` }, `${fn}:3`],
    ['a function name', { FunctionName: 'worker' }, fn],
    ['a name with a qualifier', { FunctionName: 'worker:live' }, `${fn}:live`],
    ['a partial ARN', { FunctionName: '123456789012:function:worker:2' }, `${fn}:2`],
    ['a Qualifier argument', { FunctionName: fn, Qualifier: '4' }, `${fn}:4`],
  ])('invokes on the qualified function ARN, given %s', (_what, args, resource) => {
    expect(callRequestsOf('arn:aws:states:::lambda:invoke.waitForTaskToken', args, env)).toEqual([
      { action: 'lambda:InvokeFunction', resource },
    ]);
  });

  it('takes a direct function ARN Resource as it is', () => {
    expect(callRequestsOf(`${fn}:7`, { any: 'payload' }, env)).toEqual([
      { action: 'lambda:InvokeFunction', resource: `${fn}:7` },
    ]);
  });

  it('starts a child on the unqualified machine ARN with states:StateMachineQualifier', () => {
    expect(
      callRequestsOf('arn:aws:states:::states:startExecution', { StateMachineArn: `${sm}:3`, Input: {} }, env),
    ).toEqual([{ action: 'states:StartExecution', resource: sm, context: { 'states:StateMachineQualifier': ['3'] } }]);
  });

  it('names the table by its ARN and the queue by its ARN, whatever host its URL has', () => {
    expect(callRequestsOf('arn:aws:states:::dynamodb:putItem', { TableName: 'runs', Item: {} }, env)).toEqual([
      { action: 'dynamodb:PutItem', resource: 'arn:aws:dynamodb:us-east-1:123456789012:table/runs' },
    ]);
    expect(
      callRequestsOf(
        'arn:aws:states:::sqs:sendMessage',
        { QueueUrl: 'http://127.0.0.1:4599/123456789012/dlq', MessageBody: 'x' },
        env,
      ),
    ).toEqual([{ action: 'sqs:SendMessage', resource: 'arn:aws:sqs:us-east-1:123456789012:dlq' }]);
  });
});
