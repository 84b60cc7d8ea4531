/**
 * Pass-through routes are checked when the engine starts (a service Step Functions knows, an http(s)
 * endpoint), a route to an emulator on this machine gets the region and credentials it needs, and a routed
 * service is never served by the local emulator instead: with its client missing, the Task fails naming it.
 */
import { describe, expect, it } from 'vitest';
import { jsonpath } from '../../packages/engine/test/support/engine-harness';
import { SdkPassThrough } from '../../packages/local/src/services/pass-through';
import {
  checkPassThroughRoutes,
  PassThroughRouteError,
} from '../../packages/local/src/services/pass-through/route-check';
import { emulatorDefaults } from '../../packages/local/src/services/pass-through/sdk-pass-through';
import { localServicesForTests } from './support/local-services';
import { recordedEngine } from './support/recorded-run';

describe('pass-through routes at start', () => {
  it.each([
    ['=', { '': { endpoint: '' } }, "the pass-through route '' names no service"],
    ['sns=notaurl', { sns: { endpoint: 'notaurl' } }, "has the endpoint 'notaurl', which is not a URL"],
    ['sns=ftp://x', { sns: { endpoint: 'ftp://x' } }, 'an endpoint is an http or https URL'],
    ['nosuchservice', { nosuchservice: {} }, 'names no service Step Functions integrates with'],
  ])('refuses --pass-through %s, naming the flag and the route', (_flag, routes, problem) => {
    expect(() => checkPassThroughRoutes(routes, '--pass-through')).toThrow(PassThroughRouteError);
    expect(() => checkPassThroughRoutes(routes, '--pass-through')).toThrow(
      new RegExp(`^--pass-through: .*${problem.replace(/[()'.]/g, '.')}`),
    );
  });

  it('takes the documented routes: athena to an emulator, glue and sns to AWS, events', () => {
    expect(() =>
      checkPassThroughRoutes(
        { athena: { endpoint: 'http://127.0.0.1:4566' }, glue: {}, sns: {}, events: {} },
        'integrations.json',
      ),
    ).not.toThrow();
  });

  it('gives a route to an emulator on this machine a region and test credentials when the environment has none', () => {
    expect(emulatorDefaults({ endpoint: 'http://127.0.0.1:4566' }, {})).toEqual({
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    expect(
      emulatorDefaults({ endpoint: 'http://localhost:4566' }, { AWS_REGION: 'eu-west-1', AWS_PROFILE: 'dev' }),
    ).toEqual({});
    expect(emulatorDefaults({ endpoint: 'http://127.0.0.1:4566', region: 'eu-west-2' }, {})).toEqual({
      region: 'eu-west-2',
    });
    expect(emulatorDefaults({}, {})).toEqual({});
  });
});

const functions: Record<string, (payload: any) => unknown> = {};
const services = localServicesForTests(functions);
const missingClient = new SdkPassThrough({
  routes: { sns: {} },
  load: async () => {
    throw new Error('Cannot find package');
  },
});
const engine = recordedEngine(functions, {
  engine: {
    ...services.engineOptions,
    integrations: { ...services.engineOptions.integrations, passThrough: missingClient },
  },
});

describe('routed clients at start', () => {
  it('names each routed service whose client cannot be loaded, and loads the ones that can', async () => {
    const passThrough = new SdkPassThrough({
      routes: { sns: {}, athena: { endpoint: 'http://127.0.0.1:4566' } },
      load: async (name) => {
        if (name === '@aws-sdk/client-sns') throw new Error('Cannot find package');
        return {
          AthenaClient: class {
            send() {
              return Promise.resolve({});
            }
          },
        };
      },
    });
    const missing = await passThrough.missingClients();
    expect(missing.map((m) => [m.name, m.service, m.packageName])).toEqual([
      ['PassThroughClientMissingError', 'sns', '@aws-sdk/client-sns'],
    ]);
  });
});

describe('a routed service the engine emulates', () => {
  it('is not served locally when its client is missing: sns:publish fails naming the package', async () => {
    const topicArn = (await services.sns.call('CreateTopic', { Name: 'routed' })).TopicArn as string;
    const run = await engine.run(
      jsonpath({
        Publish: {
          Type: 'Task',
          Resource: 'arn:aws:states:::sns:publish',
          Parameters: { TopicArn: topicArn, Message: 'hi' },
          End: true,
        },
      }),
      {},
    );
    expect(run.outcome).toMatchObject({ status: 'FAILED', error: 'Local.IntegrationNotServed' });
    expect((run.outcome as { cause: string }).cause).toBe(
      "Routing 'sns' to a real endpoint needs its AWS SDK v3 client: npm install @aws-sdk/client-sns",
    );
  });
});
