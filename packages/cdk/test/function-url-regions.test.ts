/**
 * `AWS::Lambda::Url` does not exist in every region (the Lambda documentation's list of regions without
 * Function URLs; cfn-lint's per-region resource schemas). A deploy there must stop before it starts.
 */
import { App, Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import {
  FunctionUrlRegionError,
  REGIONS_WITHOUT_FUNCTION_URLS,
  requireFunctionUrlRegion,
} from '../src/function-url-regions';
import { synthApp } from './synth-app';

describe('Regions without Lambda Function URLs', () => {
  it('an environment-agnostic stack carries a Rules assertion refusing them before any resource is created', () => {
    const rules = synthApp().template.toJSON().Rules as Record<
      string,
      { Assertions: { Assert: unknown; AssertDescription: string }[] }
    >;
    const [assertion] = rules.FunctionUrlsAvailable.Assertions;
    expect(assertion.Assert).toEqual({
      'Fn::Not': [{ 'Fn::Contains': [[...REGIONS_WITHOUT_FUNCTION_URLS], { Ref: 'AWS::Region' }] }],
    });
    expect(assertion.AssertDescription).toMatch(/approval endpoint is a Lambda Function URL.*no Function URLs/);
  });

  it('lists the 11 commercial regions the Lambda documentation names, and those cfn-lint knows without the type', () => {
    expect([...REGIONS_WITHOUT_FUNCTION_URLS].sort()).toEqual(
      [
        'ap-south-2',
        'ap-southeast-4',
        'ap-southeast-5',
        'ap-southeast-6',
        'ap-southeast-7',
        'ap-east-2',
        'ca-west-1',
        'eu-south-2',
        'eu-central-2',
        'il-central-1',
        'me-central-1',
        'mx-central-1',
        'cn-northwest-1',
        'us-gov-east-1',
        'us-gov-west-1',
      ].sort(),
    );
  });

  it.each(['ap-south-2', 'us-gov-west-1'])(
    'a stack pinned to %s is refused at synth, with the reason and the way out',
    (region) => {
      const stack = new Stack(new App(), 'Pinned', { env: { region, account: '123456789012' } });
      expect(() => requireFunctionUrlRegion(stack)).toThrow(FunctionUrlRegionError);
      expect(() => requireFunctionUrlRegion(stack)).toThrow(
        new RegExp(`${region} has no Function URLs.*Deploy the stack to a region that has them`),
      );
    },
  );

  it('a stack pinned to a region with Function URLs needs no rule', () => {
    const stack = new Stack(new App(), 'Pinned', { env: { region: 'eu-west-1', account: '123456789012' } });
    requireFunctionUrlRegion(stack);
    expect(stack.node.tryFindChild('FunctionUrlsAvailable')).toBeUndefined();
  });
});
