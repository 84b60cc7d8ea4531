/**
 * `aws-sdk:cloudwatch:putMetricData` on the emulated CloudWatch: each datum is recorded (with the execution
 * that put it) and listed by `listMetrics`; CloudWatch's own checks fail the Task as
 * `CloudWatch.<Code>Exception`. The SDK integration answers PutMetricData's empty response as `{}`.
 */
import { describe, expect, it } from 'vitest';
import { LocalCloudWatch } from '../../packages/local/src/services/cloudwatch';
import { jsonata } from '../../packages/engine/test/support/engine-harness';
import { recordedEngine } from './support/recorded-run';

const cloudwatch = new LocalCloudWatch();
const engine = recordedEngine({}, { engine: { integrations: { cloudwatch } } });

const put = (args: object) =>
  jsonata({
    Put: { Type: 'Task', Resource: 'arn:aws:states:::aws-sdk:cloudwatch:putMetricData', Arguments: args, End: true },
  });

describe('aws-sdk:cloudwatch:putMetricData', () => {
  it('records every datum with its dimensions and unit, and answers {}', async () => {
    const run = await engine.run(
      put({
        Namespace: 'Shop',
        MetricData: [
          {
            MetricName: 'Orders',
            Value: '{% $states.input.n %}',
            Unit: 'Count',
            Dimensions: [{ Name: 'Region', Value: 'eu' }],
          },
        ],
      }),
      { n: 3 },
    );
    expect(run.events[2].taskScheduledEventDetails).toMatchObject({
      resourceType: 'aws-sdk:cloudwatch',
      resource: 'putMetricData',
    });
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output: {} });
    expect(cloudwatch.recent()[0]).toMatchObject({
      namespace: 'Shop',
      metricName: 'Orders',
      value: 3,
      unit: 'Count',
      dimensions: [{ Name: 'Region', Value: 'eu' }],
    });
    expect(cloudwatch.recent()[0].executionArn).toMatch(/:execution:/);
    const listed = await engine.run(
      jsonata({
        L: {
          Type: 'Task',
          Resource: 'arn:aws:states:::aws-sdk:cloudwatch:listMetrics',
          Arguments: { Namespace: 'Shop' },
          End: true,
        },
      }),
    );
    expect(listed.outcome).toEqual({
      status: 'SUCCEEDED',
      output: { Metrics: [{ Namespace: 'Shop', MetricName: 'Orders', Dimensions: [{ Name: 'Region', Value: 'eu' }] }] },
    });
  });

  it.each([
    [
      'no namespace',
      { MetricData: [{ MetricName: 'X', Value: 1 }] },
      'CloudWatch.MissingParameterException',
      'The parameter Namespace is required.',
    ],
    [
      'an AWS/ namespace',
      { Namespace: 'AWS/EC2', MetricData: [{ MetricName: 'X', Value: 1 }] },
      'CloudWatch.InvalidParameterValueException',
      'The value AWS/ for parameter Namespace is invalid.',
    ],
    [
      'a datum without a name',
      { Namespace: 'Shop', MetricData: [{ Value: 1 }] },
      'CloudWatch.MissingParameterException',
      'The parameter MetricData.member.1.MetricName is required.',
    ],
  ])("%s fails the Task in CloudWatch's words", async (_why, args, error, message) => {
    const run = await engine.run(put(args));
    expect(run.outcome).toMatchObject({ status: 'FAILED', error });
    expect(
      (run.outcome as { cause: string }).cause.startsWith(
        `${message} (Service: CloudWatch, Status Code: 400, Request ID: `,
      ),
    ).toBe(true);
  });
});
