import { describe, expect, it } from 'vitest';
import { DEFAULT_LOCAL_ENDPOINT, resolveAwsTarget } from '../../src/cli/aws-clients';
import { LOCAL_CREDENTIALS } from '@autosave/workflow/config';

describe('resolveAwsTarget', () => {
  it('defaults to the local engine with dummy credentials when nothing is set', () => {
    expect(resolveAwsTarget('SFN', {})).toEqual({
      endpoint: DEFAULT_LOCAL_ENDPOINT,
      region: 'us-east-1',
      credentials: LOCAL_CREDENTIALS,
      description: `${DEFAULT_LOCAL_ENDPOINT} (local engine default)`,
    });
  });

  it.each([
    [
      '--endpoint wins over everything',
      { AWS_ENDPOINT_URL: 'http://127.0.0.1:4566', AWS_PROFILE: 'p' },
      'http://127.0.0.1:9999',
      'http://127.0.0.1:9999',
    ],
    [
      'the per-service variable wins over the general one',
      { AWS_ENDPOINT_URL: 'http://127.0.0.1:4566', AWS_ENDPOINT_URL_SFN: 'http://127.0.0.1:8083' },
      undefined,
      'http://127.0.0.1:8083',
    ],
    [
      'AWS_ENDPOINT_URL (LocalStack)',
      { AWS_ENDPOINT_URL: 'http://localhost:4566' },
      undefined,
      'http://localhost:4566',
    ],
    ['a profile means AWS itself', { AWS_PROFILE: 'prod', AWS_REGION: 'eu-west-1' }, undefined, undefined],
    ['a region alone means AWS itself', { AWS_REGION: 'eu-west-1' }, undefined, undefined],
  ])('%s', (_why, env, flag, endpoint) => {
    expect(resolveAwsTarget('SFN', env, flag).endpoint).toBe(endpoint);
  });

  it('uses configured credentials against a loopback endpoint, dummy ones only when none are configured', () => {
    expect(resolveAwsTarget('SQS', { AWS_ENDPOINT_URL_SQS: 'http://127.0.0.1:8083' }).credentials).toBe(
      LOCAL_CREDENTIALS,
    );
    expect(
      resolveAwsTarget('SQS', { AWS_ENDPOINT_URL_SQS: 'http://127.0.0.1:8083', AWS_ACCESS_KEY_ID: 'k' }).credentials,
    ).toBeUndefined();
    expect(resolveAwsTarget('SFN', { AWS_ENDPOINT_URL: 'https://states.example.com' }).credentials).toBeUndefined();
  });

  it('takes the region from AWS_REGION, then AWS_DEFAULT_REGION', () => {
    expect(resolveAwsTarget('SFN', { AWS_DEFAULT_REGION: 'ap-south-1' }).region).toBe('ap-south-1');
    expect(resolveAwsTarget('SFN', { AWS_REGION: 'eu-west-1', AWS_DEFAULT_REGION: 'ap-south-1' }).description).toBe(
      'AWS SFN in eu-west-1',
    );
  });
});
