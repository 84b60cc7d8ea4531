/**
 * What the CLI says when its call did not reach the engine the user meant: a shell with AWS settings sends it to
 * AWS (where the SDK's own error reads as the engine's), an endpoint without a scheme is refused before any call.
 * No call leaves the machine: credentials are looked for only in files that do not exist, and the instance
 * metadata service is off, so the SDK fails before it sends anything.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main';
import { captureTerminal } from '../../src/cli/output';

const SETTINGS = [
  'AWS_ENDPOINT_URL',
  'AWS_ENDPOINT_URL_SFN',
  'AWS_PROFILE',
  'AWS_REGION',
  'AWS_DEFAULT_REGION',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
];
let saved: Record<string, string | undefined>;

beforeEach(() => {
  saved = Object.fromEntries(
    ['AWS_SHARED_CREDENTIALS_FILE', 'AWS_CONFIG_FILE', 'AWS_EC2_METADATA_DISABLED', ...SETTINGS].map((k) => [
      k,
      process.env[k],
    ]),
  );
  for (const k of SETTINGS) delete process.env[k];
  process.env.AWS_SHARED_CREDENTIALS_FILE = '/nonexistent/autosave-test/credentials';
  process.env.AWS_CONFIG_FILE = '/nonexistent/autosave-test/config';
  process.env.AWS_EC2_METADATA_DISABLED = 'true';
});
afterEach(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

async function autosave(...args: string[]): Promise<{ code: number; stderr: string }> {
  const out = captureTerminal();
  try {
    return { code: await main(args), stderr: out.stderr };
  } finally {
    out.release();
  }
}

describe('where the CLI sent its call', () => {
  it('says the call went to AWS because AWS_REGION is set, and how to reach the local engine instead', async () => {
    process.env.AWS_REGION = 'eu-west-1';
    const r = await autosave('runs');
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(
      /^autosave runs: CredentialsProviderError: .*\(this call went to AWS SFN in eu-west-1 because AWS_REGION is set; for the local engine pass --endpoint http:\/\/127\.0\.0\.1:8083\)$/m,
    );
  });

  it('names every AWS setting that sent it there', async () => {
    process.env.AWS_PROFILE = 'nobody-here';
    process.env.AWS_DEFAULT_REGION = 'us-west-2';
    expect((await autosave('approvals')).stderr).toContain('because AWS_PROFILE and AWS_DEFAULT_REGION are set;');
  });

  it('refuses an AWS_ENDPOINT_URL without a scheme, naming the variable, before any call', async () => {
    process.env.AWS_ENDPOINT_URL = 'localhost:8083';
    const r = await autosave('runs');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^autosave runs: AWS_ENDPOINT_URL 'localhost:8083' is not an http\(s\) URL: give it with its scheme, e\.g\. http:\/\/localhost:8083$/m,
    );
  });
});
