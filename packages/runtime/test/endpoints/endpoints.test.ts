import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startFakeAwsJson } from '../../../../test/fixtures/runtime/fake-aws-json';
import {
  DEFAULT_APPROVAL_BASE_URL,
  DEFAULT_BUCKET_NAME,
  DEFAULT_TABLE_NAME,
  loadApprovalSecrets,
  loadRuntimeConfig,
} from '@autosave/runtime/endpoints';

describe('loadRuntimeConfig', () => {
  it('applies the documented local defaults', () => {
    expect(loadRuntimeConfig({})).toMatchObject({
      table: DEFAULT_TABLE_NAME,
      bucket: DEFAULT_BUCKET_NAME,
      dlqUrl: `${DEFAULT_APPROVAL_BASE_URL}/123456789012/autosave-dlq`,
      approvalBaseUrl: DEFAULT_APPROVAL_BASE_URL,
      modelProvider: 'scripted',
      emailProvider: 'outbox',
      outboxDir: join('.autosave', 'outbox'),
    });
  });

  it('reads every variable of docs/architecture.md §3', () => {
    const config = loadRuntimeConfig({
      AUTOSAVE_TABLE: 't',
      AUTOSAVE_BUCKET: 'b',
      AUTOSAVE_DLQ_URL: 'https://sqs.example/1/q',
      AUTOSAVE_APPROVAL_BASE_URL: 'https://approve.example/',
      AUTOSAVE_APPROVAL_SECRET_PARAMETER: '/autosave/secret',
      AUTOSAVE_MODEL_PROVIDER: 'bedrock',
      AUTOSAVE_MODEL_SCRIPT: 's.json',
      AUTOSAVE_EMAIL_PROVIDER: 'ses',
      AUTOSAVE_OUTBOX_DIR: '/tmp/o',
    });
    expect(config).toMatchObject({
      table: 't',
      bucket: 'b',
      dlqUrl: 'https://sqs.example/1/q',
      approvalBaseUrl: 'https://approve.example',
      approvalSecretParameter: '/autosave/secret',
      modelProvider: 'bedrock',
      modelScript: 's.json',
      emailProvider: 'ses',
      outboxDir: '/tmp/o',
    });
  });

  it('has no model script unless one is configured: no path is read from wherever the process runs', () => {
    expect(loadRuntimeConfig({}).modelScript).toBeUndefined();
  });

  it('derives the local DLQ URL from the SQS endpoint', () => {
    expect(loadRuntimeConfig({ AWS_ENDPOINT_URL_SQS: 'http://127.0.0.1:4000/' }).dlqUrl).toBe(
      'http://127.0.0.1:4000/123456789012/autosave-dlq',
    );
  });

  it('refuses an unknown provider name', () => {
    expect(() => loadRuntimeConfig({ AUTOSAVE_MODEL_PROVIDER: 'gpt' })).toThrow(/bedrock, scripted/);
  });
});

describe('loadApprovalSecrets', () => {
  it('reads literal secrets, newest first', async () => {
    expect(await loadApprovalSecrets({ ...loadRuntimeConfig({}), approvalSecret: 'new, old' })).toEqual(['new', 'old']);
  });

  it('reads the SSM SecureString named by AUTOSAVE_APPROVAL_SECRET_PARAMETER, with decryption', async () => {
    const ssm = await startFakeAwsJson({
      'AmazonSSM.GetParameter': (input) => ({
        Parameter: { Name: input.Name, Value: input.WithDecryption ? 'rotated,previous' : 'ciphertext' },
      }),
    });
    const saved = { ...process.env };
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_SSM: ssm.endpoint,
      AWS_ACCESS_KEY_ID: 'x',
      AWS_SECRET_ACCESS_KEY: 'y',
    });
    try {
      const config = loadRuntimeConfig({ AUTOSAVE_APPROVAL_SECRET_PARAMETER: '/autosave/approval-secret' });
      expect(await loadApprovalSecrets(config)).toEqual(['rotated', 'previous']);
      expect(ssm.calls[0].input).toEqual({ Name: '/autosave/approval-secret', WithDecryption: true });
    } finally {
      process.env = saved;
      await ssm.close();
    }
  });

  it('generates one local secret in the data directory and keeps it', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'autosave-secret-'));
    try {
      const config = loadRuntimeConfig({ AUTOSAVE_DATA_DIR: dataDir });
      const [first] = await loadApprovalSecrets(config);
      expect(first.length).toBeGreaterThanOrEqual(32);
      expect(await loadApprovalSecrets(config)).toEqual([first]);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
