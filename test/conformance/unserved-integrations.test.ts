/**
 * Task resources AWS knows but the engine does not serve: CreateStateMachine accepts them as AWS does
 * (AWS docs: "Integrating optimized services with Step Functions", "AWS SDK service integrations",
 * activities), a run fails at such a Task with `Local.IntegrationNotServed` whose cause says how to
 * serve it, and ValidateStateMachineDefinition lists them as warnings. A resource AWS does not know is
 * refused in AWS's words.
 */
import { describe, expect, it } from 'vitest';
import { jsonata, jsonpath } from '../../packages/engine/test/support/engine-harness';
import { recordedEngine } from './support/recorded-run';

const engine = recordedEngine({ echo: (payload: unknown) => payload });
const express = recordedEngine({}, { express: true });
const task = (Resource: string) => jsonpath({ T: { Type: 'Task', Resource, Parameters: {}, End: true } });

const NOT_RECOGNIZED = (resource: string) =>
  `The resource provided ${resource} is not recognized. The value is not a valid resource ARN, or the resource is not available in this region.`;

describe('CreateStateMachine accepts every integration AWS knows', () => {
  it.each([
    'arn:aws:states:::sns:publish',
    'arn:aws:states:::sns:publish.waitForTaskToken',
    'arn:aws:states:::events:putEvents',
    'arn:aws:states:::events:putEvents.waitForTaskToken',
    'arn:aws:states:::bedrock:invokeModel',
    'arn:aws:states:::apigateway:invoke',
    'arn:aws:states:::http:invoke',
    'arn:aws:states:::athena:startQueryExecution.sync',
    'arn:aws:states:::athena:getQueryResults',
    'arn:aws:states:::batch:submitJob.sync',
    'arn:aws:states:::ecs:runTask.waitForTaskToken',
    'arn:aws:states:::glue:startJobRun.sync',
    'arn:aws:states:::codebuild:startBuild.sync',
    'arn:aws:states:::elasticmapreduce:createCluster.sync',
    'arn:aws:states:::sagemaker:createTrainingJob.sync',
    'arn:aws:states:::mediaconvert:createJob.sync',
    'arn:aws:states:::aws-sdk:glue:startCrawler',
    'arn:aws:states:::aws-sdk:rekognition:detectLabels',
    'arn:aws:states:::aws-sdk:cloudwatch:putMetricData',
    'arn:aws:states:::aws-sdk:s3:copyObject',
    'arn:aws:states:::aws-sdk:kms:encrypt',
    'arn:aws:states:::aws-sdk:cloudwatchlogs:createLogStream',
    'arn:aws:states:::aws-sdk:eventbridge:putEvents.waitForTaskToken',
    'arn:aws:states:::aws-sdk:directory:describeDirectories',
    'arn:aws:states:us-east-1:123456789012:activity:approve',
  ])('%s', async (resource) => {
    expect(await engine.create(task(resource))).toBe('created');
  });

  it.each([
    ['lambda:invoke', 'arn:aws:states:us-east-1:123456789012:lambda:invoke'],
    ['sqs:sendMessage.waitForTaskToken', 'arn:aws:states:eu-west-1:123456789012:sqs:sendMessage.waitForTaskToken'],
    ['sns:publish', 'arn:aws:states:us-east-1:123456789012:sns:publish'],
    ['aws-sdk:s3:getObject', 'arn:aws:states:us-east-1:123456789012:aws-sdk:s3:getObject'],
  ])('an optimized integration ARN carrying a region and account (%s)', async (_what, resource) => {
    expect(await engine.create(task(resource))).toBe('created');
  });

  it('a Lambda integration whose ARN carries a region and account runs as lambda:invoke', async () => {
    const def = jsonata({
      T: {
        Type: 'Task',
        Resource: 'arn:aws:states:us-east-1:123456789012:lambda:invoke',
        Arguments: { FunctionName: 'echo', Payload: { a: 1 } },
        Output: '{% $states.result.Payload %}',
        End: true,
      },
    });
    const run = await engine.run(def, {});
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output: { a: 1 } });
    expect(run.events[2]).toMatchObject({ taskScheduledEventDetails: { resourceType: 'lambda', resource: 'invoke' } });
  });
});

describe('a run fails at a Task the engine does not serve, saying how to serve it', () => {
  it.each(['arn:aws:states:::aws-sdk:kms:encrypt', 'arn:aws:states:::mediaconvert:createJob.sync'])(
    '%s fails with Local.IntegrationNotServed',
    async (resource) => {
      const run = await engine.run(task(resource), {});
      expect(run.types).toEqual([
        'ExecutionStarted',
        'TaskStateEntered',
        'TaskScheduled',
        'TaskStarted',
        'TaskFailed',
        'ExecutionFailed',
      ]);
      expect(run.outcome).toMatchObject({ status: 'FAILED', error: 'Local.IntegrationNotServed' });
      const cause = (run.outcome as { cause: string }).cause;
      expect(cause).toContain(`'${resource}'`);
      expect(cause).toMatch(/emulates.*pass-through.*mock config/);
    },
  );

  it('the failure is a Task failure: Catch takes it like any other error', async () => {
    const def = jsonpath({
      T: {
        Type: 'Task',
        Resource: 'arn:aws:states:::aws-sdk:kms:encrypt',
        Parameters: {},
        Catch: [{ ErrorEquals: ['Local.IntegrationNotServed'], Next: 'Caught' }],
        End: true,
      },
      Caught: { Type: 'Pass', End: true },
    });
    const run = await engine.run(def, {});
    expect(run.outcome).toMatchObject({ status: 'SUCCEEDED', output: { Error: 'Local.IntegrationNotServed' } });
  });
});

describe('ValidateStateMachineDefinition warns of the Tasks the engine does not serve', () => {
  it('one WARNING diagnostic per such Task, naming the state and the resource; the result stays OK', async () => {
    const def = jsonpath({
      Publish: { Type: 'Task', Resource: 'arn:aws:states:::aws-sdk:kms:encrypt', Parameters: {}, Next: 'Run' },
      Run: { Type: 'Task', Resource: 'arn:aws:states:::batch:submitJob.sync', Parameters: {}, End: true },
    });
    const answer = (await engine.harness.engine.handle('ValidateStateMachineDefinition', {
      definition: JSON.stringify(def),
    })) as {
      result: string;
      diagnostics: { severity: string; code: string; message: string; location: string }[];
    };
    expect(answer.result).toBe('OK');
    expect(answer.diagnostics).toEqual([
      expect.objectContaining({
        severity: 'WARNING',
        code: 'INTEGRATION_NOT_SERVED',
        location: '/States/Publish/Resource',
      }),
      expect.objectContaining({
        severity: 'WARNING',
        code: 'INTEGRATION_NOT_SERVED',
        location: '/States/Run/Resource',
      }),
    ]);
    expect(answer.diagnostics[0].message).toContain('arn:aws:states:::aws-sdk:kms:encrypt');
  });
});

describe('AWS SDK integrations of services AWS has since retired are accepted (deployed samples call them; their SDK models are gone)', () => {
  it.each([
    'lookoutvision:detectAnomalies',
    'lookoutmetrics:listAnomalyDetectors',
    'honeycode:getScreenData',
    'iot1clickdevicesservice:listDevices',
    'iot1clickprojects:listProjects',
    'robomaker:createSimulationJob',
    'qldb:describeLedger',
    'qldbsession:sendCommand',
    'opsworks:describeStacks',
    'opsworkscm:describeServers',
    'worklink:listFleets',
    'nimble:listStudios',
    'mobile:listProjects',
    'alexaforbusiness:searchRooms',
    'iotfleethub:listApplications',
    'elasticinference:describeAccelerators',
    'codestar:listProjects',
    'sumerian:getProject',
    'iotanalytics:listChannels',
    'macie:listMemberAccounts',
    'evidently:evaluateFeature',
    'sms:getServers',
  ])('aws-sdk:%s', async (call) => {
    expect(await engine.create(task(`arn:aws:states:::aws-sdk:${call}`))).toBe('created');
  });

  it('a run fails there with Local.IntegrationNotServed, and the warning says the service is retired', async () => {
    const resource = 'arn:aws:states:::aws-sdk:lookoutvision:detectAnomalies';
    const run = await engine.run(task(resource), {});
    expect(run.outcome).toMatchObject({ status: 'FAILED', error: 'Local.IntegrationNotServed' });
    const answer = (await engine.harness.engine.handle('ValidateStateMachineDefinition', {
      definition: JSON.stringify(task(resource)),
    })) as { result: string; diagnostics: { message: string }[] };
    expect(answer.result).toBe('OK');
    expect(answer.diagnostics[0].message).toMatch(/lookoutvision.*retired/);
  });

  it('a retired service still needs a well-formed action (aws-sdk:lookoutvision:9x is refused)', async () => {
    expect(await engine.create(task('arn:aws:states:::aws-sdk:lookoutvision:9x'))).toMatchObject({
      name: 'InvalidDefinition',
    });
  });

  it('a service AWS never had stays refused (aws-sdk:lookoutvisionx)', async () => {
    expect(await engine.create(task('arn:aws:states:::aws-sdk:lookoutvisionx:detectAnomalies'))).toMatchObject({
      name: 'InvalidDefinition',
      message: expect.stringContaining('is not recognized'),
    });
  });
});

describe('the engine tells its host of them when a machine is created or updated (autosave local prints them)', () => {
  const told: { arn: string; locations: string[] }[] = [];
  const host = recordedEngine(
    {},
    {
      engine: {
        onDefinitionWarnings: (arn, warnings) => told.push({ arn, locations: warnings.map((w) => w.location) }),
      },
    },
  );

  it('one call per stored definition with unserved Tasks, none for a definition the engine serves whole', async () => {
    expect(await host.create(jsonpath({ P: { Type: 'Pass', End: true } }))).toBe('created');
    expect(told).toEqual([]);
    expect(
      await host.create(
        jsonpath({
          Branch: {
            Type: 'Parallel',
            Branches: [
              jsonpath({ Call: { Type: 'Task', Resource: 'arn:aws:states:::aws-sdk:kms:encrypt', End: true } }),
            ],
            End: true,
          },
        }),
      ),
    ).toBe('created');
    expect(told).toEqual([
      { arn: expect.stringContaining(':stateMachine:'), locations: ['/States/Branch/Branches/0/States/Call/Resource'] },
    ]);
  });
});

describe('refused in AWS words: resources AWS does not know', () => {
  it.each([
    ['an SDK service AWS does not have', 'arn:aws:states:::aws-sdk:nosuchservice:doThing'],
    ['an action the SDK service does not have', 'arn:aws:states:::aws-sdk:kms:noSuchAction'],
    ['.sync on an SDK integration (AWS has none)', 'arn:aws:states:::aws-sdk:glue:startJobRun.sync'],
    ['an optimized service AWS does not have', 'arn:aws:states:::nosuchservice:invoke'],
    ['an action the optimized service does not have', 'arn:aws:states:::sns:createTopic'],
    ['a pattern the service does not have (lambda:invoke.sync)', 'arn:aws:states:::lambda:invoke.sync'],
    ['not an ARN', 'create'],
  ])('%s (%s)', async (_why, resource) => {
    expect(await engine.create(task(resource))).toEqual({
      name: 'InvalidDefinition',
      message: expect.stringContaining(NOT_RECOGNIZED(resource)),
    });
  });

  it('an EXPRESS machine refuses an activity, served or not', async () => {
    const refused = await express.create(task('arn:aws:states:us-east-1:123456789012:activity:approve'));
    expect(refused).toEqual({
      name: 'InvalidDefinition',
      message: expect.stringContaining('Express state machine does not support Activity ARN'),
    });
  });

  it("an EXPRESS machine refuses .sync on an integration the engine does not serve, in AWS's words", async () => {
    const refused = await express.create(task('arn:aws:states:::batch:submitJob.sync'));
    expect(refused).toEqual({
      name: 'InvalidDefinition',
      message: expect.stringContaining("Express state machine does not support '.sync' service integration"),
    });
  });
});
