import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DEFAULT_PAYLOAD_EXPIRATION } from './deploy-options';
import { acknowledgeNag } from './nag';

/** The TTL attribute of the records table (docs/architecture.md §3). */
export const RECORD_TTL_ATTRIBUTE = 'expiration';
/** SQS's maximum retention: a dead letter must outlive a long weekend and then some. */
export const DLQ_RETENTION = Duration.days(14);

/** Options of {@link SharedResources}. */
export interface SharedResourcesProps {
  /** An existing records table (partition key `id`, string; TTL attribute `expiration`). @default a new table */
  readonly table?: dynamodb.ITable;
  /** An existing payload bucket. @default a new bucket (blocked public access, SSL only, objects expire) */
  readonly bucket?: s3.IBucket;
  /**
   * An existing dead-letter queue. Its visibility timeout must be at least the redrive function's timeout
   * (checked at synth when the queue is defined in this app). @default a new queue
   */
  readonly deadLetterQueue?: sqs.IQueue;
  /** An existing SNS topic for the alarms. @default a new topic */
  readonly alarmTopic?: sns.ITopic;
  /** When payload objects expire. @default {@link DEFAULT_PAYLOAD_EXPIRATION} */
  readonly payloadExpiration?: Duration;
  /**
   * Visibility timeout of the dead-letter queue: Lambda asks for at least six times the timeout of the
   * function consuming it (redrive), so a message is not handed out twice while being redriven.
   * @default SQS's 30 seconds
   */
  readonly deadLetterVisibilityTimeout?: Duration;
}

/**
 * Lets CloudWatch alarms of this account publish to `topic`. A topic policy replaces SNS's default one
 * whole, so the policy `enforceSSL` creates (a single Deny) would leave CloudWatch no grant and every
 * alarm notification would be dropped silently (AWS knowledge-centre: "Why didn't I receive an SNS
 * notification for my CloudWatch alarm trigger?").
 */
export function allowCloudWatchToPublish(topic: sns.ITopic): void {
  topic.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'CloudWatchAlarmsPublish',
      principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
      actions: ['sns:Publish'],
      resources: [topic.topicArn],
      conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(topic).account } },
    }),
  );
}

/** Lambda's advice for an SQS event source: visibility timeout at least six times the function timeout. */
export const SQS_VISIBILITY_PER_FUNCTION_TIMEOUT = 6;

/**
 * What every workflow shares: the records table (idempotency, recorded model calls, approvals), the
 * payload bucket, the dead-letter queue, the approval signing secret and the alarm topic.
 */
export class SharedResources extends Construct {
  readonly table: dynamodb.ITable;
  readonly bucket: s3.IBucket;
  readonly deadLetterQueue: sqs.IQueue;
  readonly approvalSecret: secretsmanager.Secret;
  /** The signing secret's name (fixed, so it is known at synth time). */
  readonly approvalSecretName: string;
  readonly alarmTopic: sns.ITopic;

  constructor(scope: Construct, id: string, props: SharedResourcesProps = {}) {
    super(scope, id);

    this.table =
      props.table ??
      new dynamodb.Table(this, 'Records', {
        partitionKey: { name: 'id', type: dynamodb.AttributeType.STRING },
        billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
        timeToLiveAttribute: RECORD_TTL_ATTRIBUTE,
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        encryption: dynamodb.TableEncryption.AWS_MANAGED,
        // The ledger is what keeps side effects single: never dropped by a stack change.
        removalPolicy: RemovalPolicy.RETAIN,
      });

    this.bucket = props.bucket ?? this.createBucket(props);
    this.deadLetterQueue = props.deadLetterQueue ?? this.createDeadLetterQueue(props);

    // A fixed name: the runtime reaches it through a Parameter Store reference path built from it.
    this.approvalSecretName = `${Stack.of(this).stackName}/approval-signing-key`;
    this.approvalSecret = new secretsmanager.Secret(this, 'ApprovalSigningSecret', {
      secretName: this.approvalSecretName,
      description: 'HMAC key that signs Autosave approval links (comma-separated list, newest first).',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
    });
    acknowledgeNag(
      this.approvalSecret,
      'AwsSolutions-SMG4',
      'Rotating the signing key invalidates every approval link in flight; rotate by hand by prepending a new ' +
        'key (the runtime verifies with every listed key, signs with the first) and dropping the old one after the longest approval timeout.',
    );

    this.alarmTopic = props.alarmTopic ?? new sns.Topic(this, 'Alarms', { enforceSSL: true });
    // A topic passed in gets the grant too when it is defined in this app (an imported topic's policy is
    // not ours to change: addToResourcePolicy does nothing there).
    allowCloudWatchToPublish(this.alarmTopic);
  }

  private createBucket(props: SharedResourcesProps): s3.Bucket {
    const bucket = new s3.Bucket(this, 'Payloads', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: s3.BucketEncryption.S3_MANAGED,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [
        {
          expiration: props.payloadExpiration ?? DEFAULT_PAYLOAD_EXPIRATION,
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    acknowledgeNag(
      bucket,
      'AwsSolutions-S1',
      'Payload objects are content-addressed and written only by the stack Lambdas under their own roles; ' +
        'access is audited through CloudTrail. A second bucket for server access logs adds cost without adding who-did-what.',
    );

    return bucket;
  }

  private createDeadLetterQueue(props: SharedResourcesProps): sqs.Queue {
    const queue = new sqs.Queue(this, 'DeadLetters', {
      retentionPeriod: DLQ_RETENTION,
      visibilityTimeout: props.deadLetterVisibilityTimeout,
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    const isDeadLetterQueue =
      'This queue IS the dead-letter queue of failed runs; messages stay until an operator redrives them.';
    acknowledgeNag(queue, 'AwsSolutions-SQS3', isDeadLetterQueue);
    acknowledgeNag(queue, 'Serverless-SQSRedrivePolicy', isDeadLetterQueue);

    return queue;
  }

  /**
   * The Parameter Store name that resolves to the signing secret (`AUTOSAVE_APPROVAL_SECRET_PARAMETER`):
   * the runtime reads one SSM SecureString, and Parameter Store serves Secrets Manager secrets under
   * `/aws/reference/secretsmanager/`, so CDK can generate the secret (it cannot create SecureStrings).
   */
  get approvalSecretParameterName(): string {
    return `/aws/reference/secretsmanager/${this.approvalSecretName}`;
  }
}
