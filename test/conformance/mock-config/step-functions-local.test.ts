/**
 * Histories Step Functions Local recorded for mocked runs, reproduced under the same mock config: the sample
 * aws-samples/aws-stepfunctions-examples sam/app-local-testing-mock-config (its machine LocalTesting, its
 * MockConfigFile.json, its input sfn_valid_input.json), whose README quotes events of two runs (25 Jan 2022).
 * Step Functions Local, the tool mock configs are made for, names a mocked `aws-sdk` Task `aws-sdk` and
 * `<service>:<action>` and writes a mocked failure as its error and cause alone. One difference is left:
 * its TaskSucceeded carries the state's output (after ResultSelector and ResultPath) where AWS's real runs,
 * and the engine, carry the service's result.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mockedEngine, SwitchableMockConfig } from './support';

const mocks = new SwitchableMockConfig();
const engine = mockedEngine(mocks);

const DEFINITION = JSON.parse(
  readFileSync(
    new URL(
      '../../fixtures/corpus/aws-samples+aws-stepfunctions-examples/sam__app-local-testing-mock-config__statemachine__local_testing.asl.json',
      import.meta.url,
    ),
    'utf8',
  )
    .replace('${CheckIdentityFunctionArn}', 'arn:aws:lambda:us-east-1:123456789012:function:CheckIdentity')
    .replace('${CheckAddressFunctionArn}', 'arn:aws:lambda:us-east-1:123456789012:function:CheckAddress')
    .replace('${FollowUpTableName}', 'FollowUpTable'),
);
const INPUT = {
  data: {
    firstname: 'Jane',
    lastname: 'Doe',
    identity: { email: 'jdoe@example.com', ssn: '123-45-6789' },
    address: { street: '123 Main St', city: 'Columbus', state: 'OH', zip: '43219' },
    comments: 'I am glad to sign-up for this service. Looking forward to different options.',
  },
};
const lambdaBody = (body: string) => ({ '0': { Return: { StatusCode: 200, Payload: { statusCode: 200, body } } } });
const SENTIMENT = {
  Sentiment: 'POSITIVE',
  SentimentScore: { Mixed: 0.00012647535, Negative: 0.00008031699, Neutral: 0.0051454515, Positive: 0.9946478 },
};
const CAUSE = 'Server Exception while calling DetectSentiment API in Comprehend Service';
const STATES = {
  'Check Identity': 'CheckIdentityLambdaMockedSuccess',
  'Check Address': 'CheckAddressLambdaMockedSuccess',
  'Add to FollowUp': 'AddToFollowUpSuccess',
  CustomerAddedToFollowup: 'CustomerAddedToFollowupSuccess',
};
const MOCK_CONFIG = {
  StateMachines: {
    LocalTesting: {
      TestCases: {
        HappyPathTest: { ...STATES, DetectSentiment: 'DetectSentimentPositive' },
        RetryOnServiceExceptionTest: { ...STATES, DetectSentiment: 'DetectSentimentRetryOnErrorWithSuccess' },
      },
    },
  },
  MockedResponses: {
    CheckIdentityLambdaMockedSuccess: lambdaBody('{"approved": true, "message": "identity validation passed"}'),
    CheckAddressLambdaMockedSuccess: lambdaBody('{"approved": true, "message": "address validation passed"}'),
    AddToFollowUpSuccess: { '0': { Return: { SdkHttpMetadata: { HttpStatusCode: 200 } } } },
    CustomerAddedToFollowupSuccess: { '0': { Return: { StatusCode: 200, Payload: { statusCode: 200 } } } },
    DetectSentimentPositive: { '0': { Return: SENTIMENT } },
    DetectSentimentRetryOnErrorWithSuccess: {
      '0-2': { Throw: { Error: 'InternalServerException', Cause: CAUSE } },
      '3': { Return: SENTIMENT },
    },
  },
};

const run = (testCase: string) => {
  mocks.use(MOCK_CONFIG);
  return engine.run(DEFINITION, INPUT, { machineName: 'LocalTesting', testCase });
};

describe('Step Functions Local histories of the sample app-local-testing-mock-config', () => {
  it('RetryOnServiceExceptionTest: three mocked TaskFailed of error and cause alone, then TaskSucceeded of aws-sdk / comprehend:detectSentiment, at the recorded ids', async () => {
    const { events, outcome } = await run('RetryOnServiceExceptionTest');
    expect(outcome.status).toBe('SUCCEEDED');
    const failed = events.filter(
      (e) =>
        e.type === 'TaskFailed' && (e.taskFailedEventDetails as { error: string }).error === 'InternalServerException',
    );
    expect(failed).toEqual(
      [19, 22, 25].map((id) => ({
        type: 'TaskFailed',
        id,
        previousEventId: id - 1,
        taskFailedEventDetails: { error: 'InternalServerException', cause: CAUSE },
      })),
    );
    const succeeded = events.find(
      (e) =>
        e.type === 'TaskSucceeded' &&
        (e.taskSucceededEventDetails as { resource: string }).resource === 'comprehend:detectSentiment',
    );
    expect(succeeded).toMatchObject({
      id: 28,
      previousEventId: 27,
      taskSucceededEventDetails: { resourceType: 'aws-sdk', resource: 'comprehend:detectSentiment' },
    });
    // The mocked Task's other events name it alike.
    const detect = events
      .filter((e) => e.type === 'TaskScheduled' || e.type === 'TaskStarted')
      .map(
        (e) => (e.taskScheduledEventDetails ?? e.taskStartedEventDetails) as { resourceType: string; resource: string },
      );
    expect(detect.filter((d) => d.resource === 'comprehend:detectSentiment')).toHaveLength(8);
    expect(detect.every((d) => d.resourceType !== 'aws-sdk:comprehend')).toBe(true);
  });

  it('HappyPathTest: CustomerAddedToFollowup exits at event 32 after 31', async () => {
    const { events } = await run('HappyPathTest');
    const exited = events.find(
      (e) =>
        e.type === 'TaskStateExited' &&
        (e.stateExitedEventDetails as { name: string }).name === 'CustomerAddedToFollowup',
    );
    expect(exited).toMatchObject({ id: 32, previousEventId: 31 });
  });
});
