import { createHash } from 'node:crypto';
import { Lazy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as cr from 'aws-cdk-lib/custom-resources';
import { Construct, type IConstruct } from 'constructs';
import { LIVE_ALIAS_NAME } from '@autosave/workflow/config';
import { placeholder, type PlaceholderName } from '@autosave/workflow';
import { acknowledgeNag, nagArn } from './nag';

/**
 * LocalStack mode (`-c autosave:localstack=true`). LocalStack Community's CloudFormation has no
 * `AWS::StepFunctions::StateMachineVersion` or `StateMachineAlias`, returns no `StateMachineRevisionId`,
 * and ignores `DefinitionSubstitutions` when it updates a state machine. So in this mode the definition
 * carries its ARNs in place (no substitutions), and CDK's AwsCustomResource publishes a version and points
 * the `live` alias at it through the Step Functions API after every change of the definition or of a
 * pinned Lambda version.
 */

/** The definition text with every `${Placeholder}` replaced by its value (CDK renders the tokens as Fn::Join). */
export function definitionWithArnsInPlace(definition: string, substitutions: Readonly<Record<string, string>>): string {
  let text = definition;
  for (const [name, value] of Object.entries(substitutions))
    text = text.split(placeholder(name as PlaceholderName)).join(value);
  return text;
}

/** Options of {@link LocalstackLiveVersion}. */
export interface LocalstackLiveVersionProps {
  readonly stateMachine: sfn.StateMachine;
  /** The state machine's name. */
  readonly stateMachineName: string;
  /** The unqualified state machine ARN, built from its name. */
  readonly unqualifiedArn: string;
  /** What the version's description starts with (workflow, code version, definition hash). */
  readonly description: string;
  /** The values the definition's placeholders got (the pinned Lambda version ARNs): a change republishes. */
  readonly substitutions: Readonly<Record<string, string>>;
}

/** A published version of the state machine and the `live` alias routing all starts to it, made through the API. */
export class LocalstackLiveVersion extends Construct {
  /** The ARN of the version published by the last deploy. */
  readonly versionArn: string;

  constructor(scope: Construct, id: string, props: LocalstackLiveVersionProps) {
    super(scope, id);
    const stack = Stack.of(this);
    // Resolved at synthesis, once the pinned versions' logical ids (which follow their code) are final.
    const pinnedHash = Lazy.string({
      produce: () =>
        createHash('sha256')
          .update(JSON.stringify(stack.resolve(props.substitutions)))
          .digest('hex')
          .slice(0, 12),
    });
    const publish = new cr.AwsCustomResource(this, 'Publish', {
      // onCreate defaults to onUpdate: a changed description (definition or pinned code) publishes a new
      // version; the old one stays (no onDelete), as runs in flight may still be on it.
      onUpdate: {
        service: 'SFN',
        action: 'publishStateMachineVersion',
        parameters: {
          stateMachineArn: props.stateMachine.stateMachineArn,
          description: `${props.description} code ${pinnedHash}`,
        },
        physicalResourceId: cr.PhysicalResourceId.fromResponse('stateMachineVersionArn'),
      },
      policy: cr.AwsCustomResourcePolicy.fromStatements([
        new iam.PolicyStatement({ actions: ['states:PublishStateMachineVersion'], resources: [props.unqualifiedArn] }),
      ]),
      installLatestAwsSdk: false,
    });
    this.versionArn = publish.getResponseField('stateMachineVersionArn');
    const aliasArn = `${props.unqualifiedArn}:${LIVE_ALIAS_NAME}`;
    const routingConfiguration = [{ stateMachineVersionArn: this.versionArn, weight: 100 }];
    new cr.AwsCustomResource(this, 'LiveAlias', {
      onCreate: {
        service: 'SFN',
        action: 'createStateMachineAlias',
        parameters: { name: LIVE_ALIAS_NAME, description: 'What callers start', routingConfiguration },
        physicalResourceId: cr.PhysicalResourceId.of(aliasArn),
      },
      onUpdate: {
        service: 'SFN',
        action: 'updateStateMachineAlias',
        parameters: { stateMachineAliasArn: aliasArn, routingConfiguration },
        physicalResourceId: cr.PhysicalResourceId.of(aliasArn),
      },
      policy: cr.AwsCustomResourcePolicy.fromStatements([
        new iam.PolicyStatement({
          actions: ['states:CreateStateMachineAlias', 'states:UpdateStateMachineAlias'],
          resources: [props.unqualifiedArn, `${props.unqualifiedArn}:*`],
        }),
      ]),
      installLatestAwsSdk: false,
    });
    acknowledgeNag(
      this.node.findChild('LiveAlias'),
      `AwsSolutions-IAM5[Resource::${nagArn('states', `stateMachine:${props.stateMachineName}:*`)}]`,
      'LocalStack mode only: the alias routes to the version each deploy publishes, whose number is known only then.',
    );
    acknowledgeLocalstackProvider(stack);
  }
}

/**
 * Verifies the SES identity the stack sends from (LocalStack's SES refuses unverified senders and marks
 * an identity verified when asked).
 */
export function verifyLocalstackEmailIdentity(scope: Construct, identity: string): void {
  const isAddress = identity.includes('@');
  new cr.AwsCustomResource(scope, 'LocalstackEmailIdentity', {
    onUpdate: {
      service: 'SES',
      action: isAddress ? 'verifyEmailIdentity' : 'verifyDomainIdentity',
      parameters: isAddress ? { EmailAddress: identity } : { Domain: identity },
      physicalResourceId: cr.PhysicalResourceId.of(`ses-identity-${identity}`),
    },
    policy: cr.AwsCustomResourcePolicy.fromStatements([
      new iam.PolicyStatement({ actions: ['ses:VerifyEmailIdentity', 'ses:VerifyDomainIdentity'], resources: ['*'] }),
    ]),
    installLatestAwsSdk: false,
  });
  acknowledgeNag(
    scope.node.findChild('LocalstackEmailIdentity'),
    'AwsSolutions-IAM5[Resource::*]',
    'LocalStack mode only: SES Verify*Identity supports no resource-level permissions.',
  );
  acknowledgeLocalstackProvider(Stack.of(scope));
}

const acknowledgedProviders = new WeakSet<IConstruct>();

/** The one Lambda that runs every AwsCustomResource of the stack (CDK's singleton provider, `AWS<uuid>`). */
function acknowledgeLocalstackProvider(stack: Stack): void {
  const provider = stack.node.tryFindChild(`AWS${cr.AwsCustomResource.PROVIDER_FUNCTION_UUID.replace(/-/g, '')}`);
  if (!provider || acknowledgedProviders.has(provider)) return;
  acknowledgedProviders.add(provider);
  const reason =
    "LocalStack mode only: CDK's AwsCustomResource provider, which publishes versions and moves the live alias where LocalStack's CloudFormation cannot; it is not deployed to AWS.";
  for (const id of [
    'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
    'AwsSolutions-L1',
    'Serverless-LambdaDLQ',
    'Serverless-LambdaTracing',
    'Serverless-LambdaLatestVersion',
    'Serverless-LambdaDefaultMemorySize',
  ]) {
    acknowledgeNag(provider, id, reason);
  }
}
