/**
 * Every deploy option that changes resources, synthesized as a user would deploy it and judged three
 * ways: cdk-nag's AwsSolutions and Serverless packs (at synth: a finding fails it), the IAM simulator
 * tier (every call of every definition and of every function allowed, every alarm able to notify), and
 * AWS's own CloudFormation linter, cfn-lint, in three regions.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { App, Duration, Stack, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AutosaveWorkflows } from '@autosave/cdk';
import { exampleToolStep, registeredWorkflowSpecs } from '../../../infra/registries';
import {
  createIamEvaluator,
  resolveAwsDeployment,
  stateMachinesOf,
  type CfnTemplate,
  type IamEvaluator,
  type ResolvedDeployment,
} from '../../local/src/cloud-assembly';
import { definitionCalls, denied, unreachableAlarmTopics } from './iam/deploy-judgement';
import { callsOf, functionsOf } from './iam/function-calls';
import { synthApp } from './synth-app';

/**
 * A bound, not a timing assertion: cfn-lint reads every template in three regions' schemas, about 30 s of
 * CPU for the matrix; on a machine at a load of 20 (every engineer's suites on two cores) it took over 300 s.
 */
const CFN_LINT_BOUND_MILLIS = 900_000;

/** The regions cfn-lint checks each template's resource types and properties against. */
const LINT_REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-2'];

/**
 * cfn-lint findings we accept, by rule and template path, each with its reason. Everything else, error or
 * warning, fails the test.
 */
const ACCEPTED_FINDINGS: { rule: string; path: RegExp; reason: string }[] = [
  {
    rule: 'W3005',
    path: /^Resources\/[^/]+\/DependsOn\/\d+$/,
    reason:
      "CDK makes a function and a state machine depend on their role (and its default policy) explicitly, beside the role ARN's GetAtt, " +
      "so that the policy exists before the first invocation; the redundant role dependency is CDK's, harmless, and not ours to remove.",
  },
];

/** The deploy options that change resources (`-c autosave:<key>=<value>`), one synthesis each. */
const MATRIX: Record<string, Record<string, string>> = {
  'rollout all-at-once (the default)': {},
  'rollout canary': { 'autosave:rollout': 'canary' },
  'rollout linear, 20% every 10 minutes': {
    'autosave:rollout': 'linear',
    'autosave:rolloutPercentage': '20',
    'autosave:rolloutIntervalMinutes': '10',
  },
  'email identity, a domain': { 'autosave:emailIdentity': 'trials.acme-health.org' },
  'email identity, an address, and an alarm email': {
    'autosave:emailIdentity': 'ops@acme-health.org',
    'autosave:alarmEmail': 'oncall@acme-health.org',
  },
  'reserved approval concurrency': { 'autosave:approvalConcurrency': '20' },
  'prefixed names under another stack name': {
    'autosave:prefixStateMachineNames': 'true',
    'autosave:stackName': 'AutosaveStaging',
  },
  'model id: an inference profile id': { 'autosave:modelId': 'us.anthropic.claude-3-5-haiku-20241022-v1:0' },
  'model id: an inference profile ARN': {
    'autosave:modelId':
      'arn:aws:bedrock:us-east-1:123456789012:inference-profile/eu.anthropic.claude-3-7-sonnet-20250219-v1:0',
  },
  'model id: a foundation model ARN': {
    'autosave:modelId': 'arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-3-5-haiku-20241022-v1:0',
  },
  'state machine log level ALL, log retention 90 days': {
    'autosave:stateMachineLogLevel': 'ALL',
    'autosave:logRetentionDays': '90',
  },
  'state machine log level OFF': { 'autosave:stateMachineLogLevel': 'OFF' },
  'LocalStack mode, with an email identity': {
    'autosave:localstack': 'true',
    'autosave:emailIdentity': 'trials.acme-health.org',
  },
};

/**
 * `AutosaveWorkflows` in a user's own stack, with the user's table, bucket, dead-letter queue and alarm
 * topic passed in (each as a user would define it, nag-clean), and both nag packs on the user's App.
 */
function synthUserStackWithExistingResources(): CfnTemplate {
  const app = new App({ builtinCloudFormationValidation: false, context: { 'aws:cdk:bundling-stacks': [] } });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
  const stack = new Stack(app, 'ShopStack');
  const table = new dynamodb.Table(stack, 'Orders', {
    partitionKey: { name: 'id', type: dynamodb.AttributeType.STRING },
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    timeToLiveAttribute: 'expiration',
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
  });
  const bucket = new s3.Bucket(stack, 'ShopPayloads', {
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    enforceSSL: true,
    encryption: s3.BucketEncryption.S3_MANAGED,
    serverAccessLogsBucket: s3.Bucket.fromBucketName(stack, 'AccessLogs', 'shop-access-logs'),
  });
  const deadLetterQueue = new sqs.Queue(stack, 'ShopDeadLetters', {
    visibilityTimeout: Duration.minutes(6),
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
  });
  Validations.of(deadLetterQueue).acknowledge(
    { id: 'AwsSolutions-SQS3', reason: 'It is the dead-letter queue.' },
    { id: 'Serverless-SQSRedrivePolicy', reason: 'It is the dead-letter queue.' },
  );
  const alarmTopic = new sns.Topic(stack, 'Ops', { enforceSSL: true });
  Validations.of(alarmTopic).acknowledge({
    id: 'AwsSolutions-SNS2',
    reason: 'The ops topic carries alarm names only.',
  });
  new AutosaveWorkflows(stack, 'Agents', {
    workflows: registeredWorkflowSpecs(),
    toolStep: exampleToolStep(),
    table,
    bucket,
    deadLetterQueue,
    alarmTopic,
  });
  return Template.fromStack(stack).toJSON() as CfnTemplate;
}

const CONSTRUCT_CASE =
  'AutosaveWorkflows in your own stack, with your table, bucket, dead-letter queue and alarm topic';

interface Synthesized {
  readonly name: string;
  readonly template: CfnTemplate;
  readonly deploy: ResolvedDeployment;
}

let synthesized: Synthesized[];
let iam: IamEvaluator;
const lintDir = mkdtempSync(join(tmpdir(), 'autosave-cfn-lint-'));

beforeAll(async () => {
  iam = await createIamEvaluator();
  // Each synthesis runs both nag packs: an unacknowledged finding throws here, naming the rule and resource.
  synthesized = Object.entries(MATRIX).map(([name, context]) => {
    const template = synthApp({ context }).template.toJSON() as CfnTemplate;
    return {
      name,
      template,
      deploy: resolveAwsDeployment(template, { stackName: context['autosave:stackName'] ?? 'Autosave' }),
    };
  });
  const template = synthUserStackWithExistingResources();
  synthesized.push({
    name: CONSTRUCT_CASE,
    template,
    deploy: resolveAwsDeployment(template, { stackName: 'ShopStack' }),
  });
});
afterAll(() => rmSync(lintDir, { recursive: true, force: true }));

describe.each([...Object.keys(MATRIX), CONSTRUCT_CASE])('Deploy option matrix: %s', (name) => {
  const synth = () => synthesized.find((s) => s.name === name)!;

  it('every Task call of every definition is allowed under its state machine role', async () => {
    const calls = definitionCalls(synth().deploy);
    expect(calls.length).toBeGreaterThan(0);
    expect(await denied(iam, synth().deploy, calls)).toEqual([]);
  });

  it("every call each function's code makes is allowed under its role", async () => {
    const { deploy } = synth();
    const machines = stateMachinesOf(deploy.resolver).map((sm) => sm.name);
    const calls = [...functionsOf(deploy).values()]
      .filter((fn) => fn.env.AUTOSAVE_TABLE !== undefined || fn.registryName === 'redrive')
      .flatMap((fn) =>
        callsOf(fn, deploy, machines).map((request) => ({ machine: fn.registryName, roleArn: fn.roleArn, request })),
      );
    expect(calls.length).toBeGreaterThan(10);
    expect(await denied(iam, deploy, calls)).toEqual([]);
  });

  it('every alarm may publish to the topic it notifies', async () => {
    expect(await unreachableAlarmTopics(iam, synth().deploy.resolver)).toEqual([]);
  });
});

/**
 * The template as cfn-lint should read it: a definition CDK writes as `Fn::Join` (LocalStack mode puts
 * the ARNs in place) resolved to its string, so cfn-lint's state machine rule (E3601) checks the ASL.
 */
function lintable({ template, deploy }: Synthesized): CfnTemplate {
  const copy = structuredClone(template);
  for (const logicalId of deploy.resolver.logicalIds('AWS::StepFunctions::StateMachine')) {
    const properties = copy.Resources[logicalId].Properties as Record<string, unknown>;
    if (typeof properties.DefinitionString !== 'string')
      properties.DefinitionString = deploy.resolver.string(
        properties.DefinitionString,
        `${logicalId} DefinitionString`,
      );
  }
  return copy;
}

interface CfnLintFinding {
  readonly Level: 'Error' | 'Warning' | 'Informational';
  readonly Rule: { readonly Id: string };
  readonly Filename: string;
  readonly Location: { readonly Path: readonly (string | number)[] };
  readonly Message: string;
}

/**
 * Runs cfn-lint on every file, in {@link LINT_REGIONS}, as two processes on halves of the files (it lints
 * one template after another; the machines have two cores). Fails with the way to install it when missing.
 */
async function cfnLint(files: readonly string[]): Promise<CfnLintFinding[]> {
  const half = Math.ceil(files.length / 2);
  return (
    await Promise.all([files.slice(0, half), files.slice(half)].filter((part) => part.length > 0).map(cfnLintProcess))
  ).flat();
}

async function cfnLintProcess(files: readonly string[]): Promise<CfnLintFinding[]> {
  const args = ['--regions', ...LINT_REGIONS, '--format', 'json', '--', ...files];
  const run = await promisify(execFile)('cfn-lint', args, { maxBuffer: 64 * 1024 * 1024 }).catch(
    (error: NodeJS.ErrnoException & { stdout?: string; code?: number | string }) => {
      if (error.code === 'ENOENT')
        throw new Error(
          'cfn-lint is not installed: `pip install cfn-lint` (AWS CloudFormation Linter, 1.x) and run the tests again',
        );
      // cfn-lint exits non-zero when it finds something; its JSON is still on stdout.
      return { stdout: error.stdout ?? '' };
    },
  );
  return JSON.parse(run.stdout || '[]') as CfnLintFinding[];
}

describe('cfn-lint (AWS CloudFormation Linter) on every template of the matrix', () => {
  it(
    `finds no error and no unexplained warning in ${LINT_REGIONS.join(', ')}`,
    async () => {
      const files = synthesized.map((s, i) => {
        const file = join(lintDir, `${i}-${s.name.replace(/[^a-z0-9]+/gi, '-')}.json`);
        writeFileSync(file, JSON.stringify(lintable(s)));
        return file;
      });
      const findings = await cfnLint(files);
      const unexplained = findings.filter(
        (f) => !ACCEPTED_FINDINGS.some((a) => a.rule === f.Rule.Id && a.path.test(f.Location.Path.join('/'))),
      );
      expect(
        unexplained.map(
          (f) => `${f.Level} ${f.Rule.Id} ${f.Filename.split('/').pop()} ${f.Location.Path.join('/')}: ${f.Message}`,
        ),
      ).toEqual([]);
    },
    CFN_LINT_BOUND_MILLIS,
  );
});
