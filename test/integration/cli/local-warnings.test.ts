/**
 * `autosave local` (the command, as a user runs it) warns when a state machine is created or updated with
 * Task states whose integration the engine accepts but does not serve: one line per Task, naming the state
 * machine, the state and the resource, and how to serve it (pass-through, mock config, the functions
 * module). A machine the engine serves whole prints nothing.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CreateStateMachineCommand, SFNClient, UpdateStateMachineCommand } from '@aws-sdk/client-sfn';
import { startEngineProcess, type EngineProcess } from '../crash/support/engine-process';
import { cleanupAfterAll } from '../../fixtures/cleanup';

const ROLE = 'arn:aws:iam::123456789012:role/local';
const machine = (states: Record<string, object>) => JSON.stringify({ StartAt: Object.keys(states)[0], States: states });
const warningLines = (engine: EngineProcess) =>
  engine
    .output()
    .split('\n')
    .filter((l) => l.includes('warning:'));

describe('autosave local warns of Tasks it does not serve', () => {
  const cleanup = cleanupAfterAll();

  it(
    'one line per such Task when a machine is created or updated, naming the state, the resource and how to serve it',
    { timeout: 200_000 },
    async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'autosave-local-warnings-'));
      cleanup(() => rm(dataDir, { recursive: true, force: true }));
      const engine = await startEngineProcess({ dataDir, startTimeoutMillis: 150_000 });
      cleanup(() => engine.kill());
      const sfn = new SFNClient({
        endpoint: engine.url,
        region: 'us-east-1',
        credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
        maxAttempts: 1,
      });
      cleanup(async () => sfn.destroy());

      await sfn.send(
        new CreateStateMachineCommand({
          name: 'served-whole',
          definition: machine({ P: { Type: 'Pass', End: true } }),
          roleArn: ROLE,
        }),
      );
      const { stateMachineArn } = await sfn.send(
        new CreateStateMachineCommand({
          name: 'needs-glue',
          definition: machine({
            Crawl: {
              Type: 'Task',
              Resource: 'arn:aws:states:::aws-sdk:glue:startCrawler',
              Parameters: { Name: 'c' },
              End: true,
            },
          }),
          roleArn: ROLE,
        }),
      );
      // The line is printed once the answer went out: wait for it rather than race it.
      await expect.poll(() => warningLines(engine).length, { timeout: 10_000 }).toBe(1);
      const [line] = warningLines(engine);
      expect(line).toContain(stateMachineArn);
      expect(line).toContain("Task state 'Crawl'");
      expect(line).toContain('arn:aws:states:::aws-sdk:glue:startCrawler');
      expect(line).toContain('Local.IntegrationNotServed');
      expect(line).toContain('--pass-through glue[=<endpoint>]');
      expect(line).toContain('--mock-config');
      expect(line).toContain('--functions');
      expect(engine.output()).not.toMatch(/warning: \S+served-whole/);

      await sfn.send(
        new UpdateStateMachineCommand({
          stateMachineArn,
          definition: machine({
            Crawl: {
              Type: 'Task',
              Resource: 'arn:aws:states:::aws-sdk:glue:startCrawler',
              Parameters: { Name: 'c' },
              Next: 'Query',
            },
            Query: {
              Type: 'Task',
              Resource: 'arn:aws:states:::athena:startQueryExecution.sync',
              Parameters: {},
              End: true,
            },
          }),
        }),
      );
      await expect.poll(() => warningLines(engine).length, { timeout: 10_000 }).toBe(3);
      expect(warningLines(engine)[2]).toContain(
        "Task state 'Query' calls arn:aws:states:::athena:startQueryExecution.sync",
      );
      await engine.stop();
    },
  );
});
