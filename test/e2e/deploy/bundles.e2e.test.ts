/**
 * What `cdk deploy` uploads actually runs: synthesizes the app with real esbuild bundling (as
 * `npm run synth` does), then loads every function's bundle the way the Lambda Node.js runtime does
 * (an ES module `index.mjs` exporting the handler) and invokes run-monitor's bundle with a real
 * EventBridge event shape (its Step Functions calls go to a stand-in AWS JSON endpoint). Catches what template tests cannot: ESM/CommonJS interop, a dependency
 * esbuild could not bundle, a wrong handler name.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAutosaveApp } from '../../../infra/create-app';
import { registeredFunctionSpecs, registeredWorkflowSpecs } from '../../../infra/registries';
import { functions } from '@autosave/runtime/handlers';
import { startFakeAwsJson, type FakeAwsJsonServer } from '../../fixtures/runtime/fake-aws-json';

type Handler = (event: unknown, context?: unknown) => Promise<unknown>;

let outdir: string;
let fake: FakeAwsJsonServer | undefined;
const savedEnv = { ...process.env };
/** Registry name -> the handler exported by its deployed bundle. */
const bundles = new Map<string, Handler>();
/** Registry name -> Lambda `Handler` setting. */
const handlerSettings = new Map<string, string>();

beforeAll(async () => {
  outdir = await mkdtemp(join(tmpdir(), 'autosave-bundles-'));
  const { app } = createAutosaveApp({
    workflows: registeredWorkflowSpecs(),
    functions: registeredFunctionSpecs(),
    app: { outdir, builtinCloudFormationValidation: false, context: { 'aws:cdk:enable-asset-metadata': true } },
  });
  app.synth();
  const template = JSON.parse(await readFile(join(outdir, 'Autosave.template.json'), 'utf8'));
  for (const resource of Object.values<any>(template.Resources)) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    const name = /^Autosave (.+)$/.exec(resource.Properties.Description)![1];
    handlerSettings.set(name, resource.Properties.Handler);
    const [file, exportName] = resource.Properties.Handler.split('.');
    const module = await import(pathToFileURL(join(outdir, resource.Metadata['aws:asset:path'], `${file}.mjs`)).href);
    bundles.set(name, module[exportName]);
  }
}, 180_000);

afterAll(async () => {
  process.env = savedEnv;
  await fake?.close();
  if (outdir) await rm(outdir, { recursive: true, force: true });
});

describe('the bundles cdk deploys', () => {
  it('one ES module per registered function, exporting the handler its Lambda setting names', () => {
    expect([...bundles.keys()].sort()).toEqual(functions.map((f) => f.name).sort());
    for (const [name, handler] of bundles) {
      expect(handlerSettings.get(name)).toBe('index.handler');
      expect(typeof handler, name).toBe('function');
    }
  });

  it('run-monitor, bundled, takes a closed-run event, reports its history size and leaves a succeeded run out of the dead-letter queue', async () => {
    fake = await startFakeAwsJson({
      'AWSStepFunctions.GetExecutionHistory': () => ({
        events: [{ id: 57, type: 'ExecutionSucceeded', timestamp: 1_764_496_800 }],
      }),
    });
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_SFN: fake.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'bundle-test',
      AWS_SECRET_ACCESS_KEY: 'bundle-test',
      AWS_MAX_ATTEMPTS: '1',
    });
    const event = {
      version: '0',
      'detail-type': 'Step Functions Execution Status Change',
      source: 'aws.states',
      detail: {
        executionArn: 'arn:aws:states:us-east-1:123456789012:execution:contract-renewal:bundle-smoke',
        stateMachineArn: 'arn:aws:states:us-east-1:123456789012:stateMachine:contract-renewal',
        name: 'bundle-smoke',
        status: 'SUCCEEDED',
      },
    };
    await expect(bundles.get('run-monitor')!(event)).resolves.toEqual({ deadLettered: false, historyEvents: 57 });
    expect(fake.calls.map((c) => c.target)).toEqual(['AWSStepFunctions.GetExecutionHistory']);
  });
});
