/**
 * Activity tasks survive `kill -9` like every other wait: `autosave local` (virtual clock) is SIGKILLed
 * with two activity tasks taken by a worker and one still queued, and restarted on the same data
 * directory. The queued task is still handed out (once), a taken task's token still answers it, a taken
 * task's heartbeat timer set before the kill still fires after it, and no task goes to a second worker.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CreateActivityCommand,
  CreateStateMachineCommand,
  DescribeActivityCommand,
  DescribeExecutionCommand,
  GetActivityTaskCommand,
  GetExecutionHistoryCommand,
  SendTaskHeartbeatCommand,
  SendTaskSuccessCommand,
  SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { startEngineProcess, type EngineProcess } from './support/engine-process';
import { eventually } from '../../fixtures/wait';
import { cleanupAfterAll } from '../../fixtures/cleanup';

const HEARTBEAT_SECONDS = 60;
const client = (url: string) =>
  new SFNClient({
    endpoint: url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    maxAttempts: 1,
  });

async function advance(engine: EngineProcess, seconds: number): Promise<void> {
  const res = await fetch(`${engine.url}/_autosave/clock/advance`, {
    method: 'POST',
    body: JSON.stringify({ seconds }),
  });
  expect(res.status).toBe(200);
}

describe('activity tasks under SIGKILL', () => {
  const cleanup = cleanupAfterAll();

  it(
    'a queued task is still handed out once, a taken task keeps its token and its heartbeat timer',
    { timeout: 300_000 },
    async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'autosave-activities-kill-'));
      cleanup(() => rm(dataDir, { recursive: true, force: true }));
      const first = await startEngineProcess({ dataDir, virtualClock: true, startTimeoutMillis: 150_000 });
      cleanup(() => first.kill());
      let sfn = client(first.url);
      const { activityArn } = await sfn.send(new CreateActivityCommand({ name: 'survives-kill' }));
      const definition = {
        StartAt: 'Work',
        States: {
          Work: {
            Type: 'Task',
            Resource: activityArn,
            TimeoutSeconds: 3600,
            HeartbeatSeconds: HEARTBEAT_SECONDS,
            End: true,
          },
        },
      };
      const { stateMachineArn } = await sfn.send(
        new CreateStateMachineCommand({
          name: 'activity-kill',
          definition: JSON.stringify(definition),
          roleArn: 'arn:aws:iam::123456789012:role/local',
        }),
      );
      const runs: string[] = [];
      for (const n of [1, 2, 3])
        runs.push(
          (
            await sfn.send(
              new StartExecutionCommand({ stateMachineArn, name: `run-${n}`, input: JSON.stringify({ n }) }),
            )
          ).executionArn!,
        );
      const taken = [];
      for (const workerName of ['answers-after-kill', 'goes-silent'])
        taken.push(await sfn.send(new GetActivityTaskCommand({ activityArn, workerName })));
      expect(taken.map((t) => JSON.parse(t.input!).n)).toEqual([1, 2]);

      await first.kill();
      sfn.destroy();
      const second = await startEngineProcess({ dataDir, virtualClock: true, startTimeoutMillis: 150_000 });
      cleanup(() => second.kill());
      sfn = client(second.url);
      cleanup(async () => sfn.destroy());

      expect((await sfn.send(new DescribeActivityCommand({ activityArn }))).name).toBe('survives-kill');
      // The task queued before the kill is handed out now, and only it: the taken ones are not handed out again.
      const queued = await sfn.send(new GetActivityTaskCommand({ activityArn, workerName: 'after-kill' }));
      expect(JSON.parse(queued.input!)).toEqual({ n: 3 });

      // A token handed out before the kill still answers its task.
      await sfn.send(
        new SendTaskSuccessCommand({ taskToken: taken[0].taskToken, output: '{"answered":"after the kill"}' }),
      );
      const status = (executionArn: string) => sfn.send(new DescribeExecutionCommand({ executionArn }));
      await eventually('run-1 to succeed', async () =>
        (await status(runs[0])).status === 'SUCCEEDED' ? true : undefined,
      );

      // The silent worker's heartbeat timer, set before the kill, fires after it; the live worker's does not.
      await advance(second, HEARTBEAT_SECONDS / 2);
      await sfn.send(new SendTaskHeartbeatCommand({ taskToken: queued.taskToken }));
      await advance(second, HEARTBEAT_SECONDS / 2 + 1);
      await eventually('run-2 to time out', async () =>
        (await status(runs[1])).status === 'FAILED' ? true : undefined,
      );
      expect(await status(runs[1])).toMatchObject({ status: 'FAILED', error: 'States.Timeout' });
      expect((await status(runs[2])).status).toBe('RUNNING');
      await sfn.send(new SendTaskSuccessCommand({ taskToken: queued.taskToken, output: '{}' }));
      await eventually('run-3 to succeed', async () =>
        (await status(runs[2])).status === 'SUCCEEDED' ? true : undefined,
      );

      // Each task went to one worker: one ActivityStarted per run, with the worker that took it.
      const started = [];
      for (const executionArn of runs) {
        const { events } = await sfn.send(new GetExecutionHistoryCommand({ executionArn }));
        started.push(
          events!.filter((e) => e.type === 'ActivityStarted').map((e) => e.activityStartedEventDetails?.workerName),
        );
      }
      expect(started).toEqual([['answers-after-kill'], ['goes-silent'], ['after-kill']]);
      await second.stop();
    },
  );
});
