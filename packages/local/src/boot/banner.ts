import { DEFAULT_LOCAL_PORT } from '@autosave/workflow/config';
import type { Workflow } from '@autosave/workflow';
import type { ControllableClock, LocalApiServer } from '../api/server';
import type { WorkflowDeployment } from '../services/deploy-workflows';
import type { LocalDynamoDbDoor } from '../services/dynamodb-door';
import type { LocalS3 } from '../services/s3';

/** Says what runs where (the deployments, the endpoints, the data) and how to start a run: once it all serves. */
export function logListening(boot: {
  readonly api: LocalApiServer;
  readonly virtualClock: ControllableClock | undefined;
  readonly dynamodb: LocalDynamoDbDoor;
  readonly s3: LocalS3;
  readonly dataDir: string;
  readonly deployments: readonly WorkflowDeployment[];
  readonly workflows: readonly Workflow[];
  readonly log: (line: string) => void;
}): void {
  const { api, virtualClock, dynamodb, s3, dataDir, deployments, workflows, log } = boot;
  for (const d of deployments) log(`  workflow ${d.workflow} (${d.change}) -> ${d.aliasArn}`);
  log(`Autosave local engine listening on ${api.url}${virtualClock ? ' (virtual clock)' : ''}`);
  log(`  Step Functions + SQS API  ${api.url}   (AWS_ENDPOINT_URL=${api.url})`);
  // SDK clients and the AWS CLI refuse to send a call without credentials in the shell; the engine checks none.
  log(
    '  credentials               any: the engine checks none, but an SDK client or the AWS CLI needs some, ' +
      'e.g. AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local',
  );
  log(`  console                   ${api.url}/`);
  log(`  DynamoDB                  ${dynamodb.endpoint}`);
  log(`  S3                        ${s3.endpoint}`);
  log(`  data                      ${dataDir}`);
  if (deployments.length > 0) {
    const first = deployments[0];
    const endpointFlag = api.port === DEFAULT_LOCAL_PORT ? '' : ` --endpoint ${api.url}`;
    log(`Try: npx autosave start ${first.workflow} --wait${endpointFlag}`);
    const input = JSON.stringify(workflows.find((w) => w.name === first.workflow)?.exampleInput ?? {});
    log(
      `  or: aws stepfunctions start-execution --endpoint-url ${api.url} --state-machine-arn ${first.aliasArn} --input '${input}'`,
    );
  }
}
