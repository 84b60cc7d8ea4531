/**
 * `autosave local` reads its mock config from `SFN_MOCK_CONFIG` (Step Functions Local's variable, which
 * LocalStack takes too) or `--mock-config <file>`; a file that does not load stops the start with the file
 * and the key at fault, instead of a local engine that refuses every test case later.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateStateMachineCommand,
  DescribeExecutionCommand,
  SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { afterEach, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../../packages/workflow/src/config';
import { startLocal, type LocalEngine } from '../../../packages/local/src/server';
import { run as localCommand } from '../../../packages/local/src/cli/commands/local';
import { eventually } from '../../fixtures/wait';
import { mockConfig, mockReturn } from '../../../packages/engine/src';

const CONFIG = {
  StateMachines: { Mocked: { TestCases: { Happy: { Call: 'Answer' } } } },
  MockedResponses: { Answer: { '0': { Return: { Payload: 'from the file' } } } },
};
const DEFINITION = {
  StartAt: 'Call',
  States: {
    Call: {
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke',
      Parameters: { FunctionName: 'nowhere' },
      OutputPath: '$.Payload',
      End: true,
    },
  },
};

/** Creates the machine `Mocked` at `url`, runs it on `#Happy` through the SDK, and describes the ended run. */
async function happyRun(url: string) {
  const sfn = new SFNClient({ endpoint: url, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  try {
    const { stateMachineArn } = await sfn.send(
      new CreateStateMachineCommand({
        name: 'Mocked',
        definition: JSON.stringify(DEFINITION),
        roleArn: 'arn:aws:iam::123456789012:role/r',
      }),
    );
    const { executionArn } = await sfn.send(
      new StartExecutionCommand({ stateMachineArn: `${stateMachineArn}#Happy`, input: '{}' }),
    );
    return await eventually('the mocked run to end', async () => {
      const d = await sfn.send(new DescribeExecutionCommand({ executionArn }));
      return d.status === 'RUNNING' ? undefined : d;
    });
  } finally {
    sfn.destroy();
  }
}

describe("the local engine's mock config file", () => {
  let local: LocalEngine | undefined;
  let dir: string | undefined;
  const saved = process.env.SFN_MOCK_CONFIG;
  afterEach(async () => {
    await local?.stop();
    local = undefined;
    if (dir) await rm(dir, { recursive: true, force: true });
    if (saved === undefined) delete process.env.SFN_MOCK_CONFIG;
    else process.env.SFN_MOCK_CONFIG = saved;
  });

  it('SFN_MOCK_CONFIG names the file: a start on <arn>#Happy through the SDK runs the mocked test case', async () => {
    dir = await mkdtemp(join(tmpdir(), 'autosave-mock-file-'));
    const file = join(dir, 'MockConfigFile.json');
    await writeFile(file, JSON.stringify(CONFIG));
    process.env.SFN_MOCK_CONFIG = file;
    local = await startLocal({
      port: 0,
      dataDir: join(dir, 'data'),
      deployWorkflows: false,
      console: false,
      log: () => {},
    });
    expect(await happyRun(local.url)).toMatchObject({ status: 'SUCCEEDED', output: '"from the file"' });
  });

  it('autosave local --mock-config with a file whose numbering has a gap exits 1, naming the file and the key', async () => {
    dir = await mkdtemp(join(tmpdir(), 'autosave-mock-file-'));
    const file = join(dir, 'MockConfigFile.json');
    await writeFile(
      file,
      JSON.stringify({ ...CONFIG, MockedResponses: { Answer: { '0': { Return: 1 }, '2': { Return: 2 } } } }),
    );
    const errors: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array) => (
      errors.push(String(chunk)),
      true
    )) as typeof process.stderr.write;
    let code: number;
    try {
      code = await localCommand(['--port', '0', '--data', join(dir, 'data'), '--mock-config', file]);
    } finally {
      process.stderr.write = write;
    }
    expect(code).toBe(1);
    expect(errors.join('')).toContain(
      `Invalid mock config ${file} at MockedResponses.Answer.2: the numbering has a gap`,
    );
  });

  it("the console marks a mocked run's test case and its mocked steps; /_autosave/mocked-run tells which numbers they took", async () => {
    dir = await mkdtemp(join(tmpdir(), 'autosave-mock-file-'));
    const file = join(dir, 'MockConfigFile.json');
    await writeFile(file, JSON.stringify(CONFIG));
    local = await startLocal({
      port: 0,
      dataDir: join(dir, 'data'),
      deployWorkflows: false,
      mockConfigFile: file,
      log: () => {},
    });
    const sfn = new SFNClient({ endpoint: local.url, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
    const { stateMachineArn } = await sfn.send(
      new CreateStateMachineCommand({
        name: 'Mocked',
        definition: JSON.stringify(DEFINITION),
        roleArn: 'arn:aws:iam::123456789012:role/r',
      }),
    );
    const { executionArn } = await sfn.send(
      new StartExecutionCommand({ stateMachineArn: `${stateMachineArn}#Happy`, input: '{}', name: 'mocked-run' }),
    );
    const { executionArn: plainArn } = await sfn.send(
      new StartExecutionCommand({ stateMachineArn, input: '{}', name: 'plain-run' }),
    );
    await eventually('both runs to end', async () => {
      const states = await Promise.all(
        [executionArn, plainArn].map((arn) => sfn.send(new DescribeExecutionCommand({ executionArn: arn }))),
      );
      return states.every((d) => d.status !== 'RUNNING') || undefined;
    });
    const view = await (
      await fetch(`${local.url}/_autosave/mocked-run?executionArn=${encodeURIComponent(executionArn!)}`)
    ).json();
    expect(view).toEqual({
      stateMachine: 'Mocked',
      testCase: 'Happy',
      states: { Call: { response: 'Answer', invocations: [0] } },
    });
    expect(
      (await fetch(`${local.url}/_autosave/mocked-run?executionArn=${encodeURIComponent(plainArn!)}`)).status,
    ).toBe(404);

    const page = await (await fetch(`${local.url}/runs/${encodeURIComponent(executionArn!)}`)).text();
    expect(page).toContain('data-mock-test-case="Happy"');
    expect(page).toMatch(/<tr data-step="Call" data-mocked="true">/);
    const plainPage = await (await fetch(`${local.url}/runs/${encodeURIComponent(plainArn!)}`)).text();
    expect(plainPage).not.toContain('data-mocked');
    expect(plainPage).not.toContain('data-mock-test-case');
    sfn.destroy();
  });

  it('startLocal({ mockConfig }) takes a config built in code, before SFN_MOCK_CONFIG', async () => {
    dir = await mkdtemp(join(tmpdir(), 'autosave-mock-file-'));
    process.env.SFN_MOCK_CONFIG = join(dir, 'absent.json');
    const mocks = mockConfig()
      .testCase('Mocked', 'Happy', { Call: 'Answer' })
      .response('Answer', mockReturn({ Payload: 'from code' }))
      .build();
    local = await startLocal({
      port: 0,
      dataDir: join(dir, 'data'),
      deployWorkflows: false,
      console: false,
      mockConfig: mocks,
      log: () => {},
    });
    expect(await happyRun(local.url)).toMatchObject({ status: 'SUCCEEDED', output: '"from code"' });
  });
});
