import { SFNClient } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApprovalLinkSigner, ApprovalService, type ApprovalServiceOptions } from '@autosave/runtime/approvals';
import { RecordTable } from '@autosave/runtime/records';
import { startLocalAws, type LocalAws } from '../../../../test/fixtures/runtime/local-aws';

let aws: LocalAws;
beforeAll(async () => {
  aws = await startLocalAws();
});
afterAll(async () => aws.close());

const request = (taskToken: string) => ({
  workflow: 'clinical-trial-onboarding',
  executionArn: 'arn:aws:states:us-east-1:123456789012:execution:clinical-trial-onboarding:site-1',
  step: 'coordinator-approval',
  taskToken,
  timeoutSeconds: 3600,
  title: 'Approve site-1',
  approvers: ['coordinator@site-1.example.org'],
});

function service(notify: ApprovalServiceOptions['notify']): ApprovalService {
  return new ApprovalService({
    table: new RecordTable(aws.dynamodb, aws.table),
    signer: new ApprovalLinkSigner(['k']),
    sfn: new SFNClient({
      region: 'us-east-1',
      endpoint: 'http://127.0.0.1:9',
      credentials: { accessKeyId: 'x', secretAccessKey: 'y' },
    }),
    baseUrl: 'https://approvals.example.org',
    notify,
  });
}

describe('ApprovalService.request: the notice is a courtesy, the link is what counts', () => {
  it('issues the link (which the run history records) even when telling the approvers fails, and says so', async () => {
    const ses = Object.assign(
      new Error('Email address is not verified. The following identities failed the check: autosave@example.com'),
      { name: 'MessageRejected' },
    );
    const issued = await service(async () => Promise.reject(ses)).request(request('token-notify-fails'));
    expect(issued.url).toMatch(/^https:\/\/approvals\.example\.org\/approvals\/[\w-]+\?sig=v1\./);
    expect(issued.notification).toBe('failed');
  });

  it('reports a notice that went out as sent', async () => {
    const issued = await service(async () => undefined).request(request('token-notify-works'));
    expect(issued.notification).toBe('sent');
  });
});
