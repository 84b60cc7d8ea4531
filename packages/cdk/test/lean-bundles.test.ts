/**
 * Lean bundles: the app is synthesized with the real handlers bundled by esbuild, as `npm run deploy`
 * bundles them, and every asset is read back. No source map ships (inline or beside the code), and each
 * function's bundle holds exactly the AWS SDK clients that function uses. Sizes are compared with a
 * bundle of the same esbuild options that uses every client (relative, so neither machine speed nor a
 * dependency update of a few kilobytes moves the verdict).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AssetStaging } from 'aws-cdk-lib';
import { createAutosaveApp } from '../../../infra/create-app';
import { registeredFunctionSpecs, registeredWorkflowSpecs } from '../../../infra/registries';
import { fileURLToPath } from 'node:url';

/** The repository root (the reference bundle resolves our sources from it). */
const PROJECT_ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** One synthesized function asset: its files and the SDK clients its code contains. */
interface FunctionBundle {
  readonly name: string;
  readonly files: readonly { readonly name: string; readonly bytes: number; readonly text: string }[];
  readonly code: string;
}

/** Clients every SDK v3 bundle holds: the default credential chain's own (web identity, SSO, console login). */
const CREDENTIAL_CHAIN_CLIENTS = ['SSO', 'SSO OIDC', 'STS', 'Signin'];

/** The AWS services an SDK v3 bundle holds a client of (each client's runtime config names its `serviceId`), beside the credential chain's. */
function sdkServicesIn(code: string): string[] {
  const named = [...code.matchAll(/serviceId\?\?"([^"]+)"/g)].map((m) => m[1]);
  expect(named, 'the credential chain is bundled (the serviceId pattern still matches this SDK)').toEqual(
    expect.arrayContaining(CREDENTIAL_CHAIN_CLIENTS),
  );
  return [...new Set(named)].filter((s) => !CREDENTIAL_CHAIN_CLIENTS.includes(s)).sort();
}

let outdir: string;
let bundles: FunctionBundle[];

beforeAll(() => {
  outdir = mkdtempSync(join(tmpdir(), 'autosave-bundles-'));
  AssetStaging.clearAssetHashCache();
  const { app, stack } = createAutosaveApp({
    workflows: registeredWorkflowSpecs(),
    functions: registeredFunctionSpecs(),
    app: { outdir, builtinCloudFormationValidation: false, context: { 'aws:cdk:bundling-stacks': ['**'] } },
  });
  app.synth();
  const template = JSON.parse(readFileSync(join(outdir, `${stack.artifactId}.template.json`), 'utf8')) as {
    Resources: Record<string, any>;
  };
  bundles = Object.values(template.Resources)
    .filter((r) => r.Type === 'AWS::Lambda::Function')
    .map((r) => {
      // The asset's S3 key is `<hash>.zip`; the staged folder is `asset.<hash>`.
      const dir = join(outdir, `asset.${String(r.Properties.Code.S3Key).replace(/\.zip$/, '')}`);
      const files = readdirSync(dir).map((name) => ({
        name,
        bytes: statSync(join(dir, name)).size,
        text: readFileSync(join(dir, name), 'utf8'),
      }));
      return {
        name: String(r.Properties.Description).replace(/^Autosave /, ''),
        files,
        code: files.find((f) => f.name === 'index.mjs')!.text,
      };
    });
}, 180_000);
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('Lambda bundles: lean', () => {
  it('bundles every registered function', () => {
    expect(bundles.map((b) => b.name).sort()).toEqual(
      registeredFunctionSpecs()
        .map((f) => f.name)
        .sort(),
    );
  });

  it('ship no source map: none inline, none beside the code', () => {
    for (const b of bundles) {
      expect(
        b.files.map((f) => f.name),
        b.name,
      ).toEqual(['index.mjs']);
      expect(b.code.includes('sourceMappingURL=data:'), b.name).toBe(false);
    }
  });

  it.each([
    ['model-step', ['Bedrock Runtime', 'DynamoDB', 'S3']],
    ['tool-step', ['DynamoDB', 'S3', 'SESv2']],
    // One approval service issues links (and emails them) and takes decisions (SendTaskSuccess).
    ['approval-request', ['DynamoDB', 'SESv2', 'SFN', 'SSM']],
    ['approval-endpoint', ['DynamoDB', 'SESv2', 'SFN', 'SSM']],
    ['run-monitor', ['DynamoDB', 'SFN', 'SQS']],
    ['redrive', ['SFN']],
  ])('%s holds only the SDK clients its code uses: %j', (name, services) => {
    expect(sdkServicesIn(bundles.find((b) => b.name === name)!.code)).toEqual(services);
  });

  it('each bundle, its own code included, is smaller than the SDK clients alone of a bundle that holds them all', async () => {
    // The same esbuild options as packages/cdk/src/runtime-functions.ts, on a module that creates every client.
    const everything = await build({
      stdin: {
        contents: [
          "import * as c from './packages/runtime/src/aws-clients';",
          "import { loadApprovalSecrets } from './packages/runtime/src/endpoints';",
          'export const all = [c.createDynamoDbClient(), c.createS3Client(), c.createSqsClient(), c.createSfnClient(), c.createBedrockClient(), c.createSesClient(), loadApprovalSecrets];',
        ].join('\n'),
        resolveDir: PROJECT_ROOT,
        loader: 'ts',
      },
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node22',
      mainFields: ['module', 'main'],
      minify: true,
      write: false,
    });
    const reference = everything.outputFiles[0].contents.byteLength;
    expect(sdkServicesIn(everything.outputFiles[0].text)).toHaveLength(7);
    const sizes = Object.fromEntries(bundles.map((b) => [b.name, b.files[0].bytes]));
    console.log(`bundle bytes (every-client reference ${reference}):`, sizes);
    for (const [name, bytes] of Object.entries(sizes)) expect(bytes, name).toBeLessThan(reference);
  });
});
