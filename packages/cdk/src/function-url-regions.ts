import { Aws, CfnRule, Fn, Stack, Token } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * Regions where `AWS::Lambda::Url` does not exist: the 11 commercial regions the Lambda documentation
 * lists without Function URLs, plus those whose CloudFormation resource schemas lack the type as cfn-lint
 * 1.51 reads them (mx-central-1, cn-northwest-1, GovCloud). A deploy there would fail halfway, at the URL.
 */
export const REGIONS_WITHOUT_FUNCTION_URLS = [
  'ap-east-2',
  'ap-south-2',
  'ap-southeast-4',
  'ap-southeast-5',
  'ap-southeast-6',
  'ap-southeast-7',
  'ca-west-1',
  'eu-central-2',
  'eu-south-2',
  'il-central-1',
  'me-central-1',
  'mx-central-1',
  'cn-northwest-1',
  'us-gov-east-1',
  'us-gov-west-1',
] as const;

/** The approval endpoint cannot be deployed in the stack's region. */
export class FunctionUrlRegionError extends Error {
  override readonly name = 'FunctionUrlRegionError';
}

const why = (region: string): string =>
  `Autosave's approval endpoint is a Lambda Function URL, and ${region} has no Function URLs (AWS::Lambda::Url). ` +
  `Deploy the stack to a region that has them (e.g. a neighbouring one); the regions without them: ${REGIONS_WITHOUT_FUNCTION_URLS.join(', ')}.`;

/**
 * Makes sure the stack of `scope` never starts a deploy it cannot finish for want of Function URLs: a
 * stack with a concrete region is refused at synth; an environment-agnostic one gets a template `Rules`
 * assertion, which CloudFormation checks before it creates any resource.
 */
export function requireFunctionUrlRegion(scope: IConstruct): void {
  const stack = Stack.of(scope);
  if (!Token.isUnresolved(stack.region)) {
    if ((REGIONS_WITHOUT_FUNCTION_URLS as readonly string[]).includes(stack.region))
      throw new FunctionUrlRegionError(why(stack.region));
    return;
  }
  if (stack.node.tryFindChild('FunctionUrlsAvailable')) return;
  new CfnRule(stack, 'FunctionUrlsAvailable', {
    assertions: [
      {
        assert: Fn.conditionNot(Fn.conditionContains([...REGIONS_WITHOUT_FUNCTION_URLS], Aws.REGION)),
        assertDescription: why('this region'),
      },
    ],
  });
}
