/**
 * The renewal story with the runtime's real crash seam: the engine runs as a child process (`autosave local
 * --functions`), 60 contract-renewal runs are in flight, and the whole engine is SIGKILLed right after the
 * provider accepted one renewal email and before its step was recorded
 * (`AUTOSAVE_CRASH_POINT=after-act-before-complete@<key>`); every other run dies wherever it was. A new
 * engine on the same data resumes them all. Proof: every run SUCCEEDED, the outbox holds one email per
 * contract, and no email the provider had accepted before the crash was sent again after it.
 *
 * The functions module is the fault-functions fixture with no faults planned: the real tool-step code, and a
 * log of every send that reaches the provider (the outbox honours keys, so it alone could not tell).
 */
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeExecutionCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { describe, expect, it } from 'vitest';
import { CRASH_POINT_ENV, CrashPoint } from '@autosave/runtime/crash-points';
import { LIVE_ALIAS_NAME, LOCAL_ACCOUNT_ID, LOCAL_REGION } from '@autosave/workflow/config';
import { OutboxEmailProvider } from '@autosave/runtime/tools';
import { contractRenewal } from '../../../statemachines';
import { startEngineProcess, type EngineProcess } from './support/engine-process';
import { SEND_LOG_ENV } from '../workflows/fixtures/fault-functions';
import { contractIdsFrom, renewalInput, renewalKey, renewalRunName } from '../workflows/support/renewal-runs';
import { eventually, executionsWith, historyOf } from '../workflows/support/workflow-engine';
import { resendStartExecution } from '../local/sfn-helpers';
import { cleanupAfterAll } from '../../fixtures/cleanup';

const RUNS = 60;
/** ≈11 s alone (two engine boots); room for a loaded machine. */
const CRASH_DEADLINE_MILLIS = 150_000;
const FAULT_FUNCTIONS = new URL('../workflows/fixtures/fault-functions.ts', import.meta.url).pathname;
const STATE_MACHINE_ARN = `arn:aws:states:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:stateMachine:${contractRenewal.name}`;
const contractIds = contractIdsFrom(20_000, RUNS);
const crashKey = renewalKey(contractIds[RUNS / 2]);

const sfnAt = (url: string) =>
  new SFNClient({ endpoint: url, region: LOCAL_REGION, credentials: { accessKeyId: 'a', secretAccessKey: 'b' } });
const keysIn = async (file: string): Promise<string[]> =>
  (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean);

describe('the renewal story under an engine SIGKILL', () => {
  const cleanup = cleanupAfterAll();

  it(
    'resumes every run and never sends an accepted email again',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'autosave-renewal-crash-'));
      cleanup(() => rm(dir, { recursive: true, force: true }));
      const dataDir = join(dir, 'data');
      const logBefore = join(dir, 'sends-before.log');
      const logAfter = join(dir, 'sends-after.log');
      const quiet = { POWERTOOLS_METRICS_DISABLED: 'true' };

      const first: EngineProcess = await startEngineProcess({
        dataDir,
        functionsModule: FAULT_FUNCTIONS,
        env: {
          ...quiet,
          [CRASH_POINT_ENV]: `${CrashPoint.AfterActBeforeComplete}@${crashKey}`,
          [SEND_LOG_ENV]: logBefore,
        },
      });
      cleanup(() => first.kill());
      const exited =
        first.child.exitCode === null && first.child.signalCode === null
          ? once(first.child, 'exit')
          : Promise.resolve([first.child.exitCode, first.child.signalCode]);
      const sfn1 = sfnAt(first.url);
      // The engine may die while starts are still arriving: those not acknowledged are started again after.
      const started = await Promise.allSettled(
        contractIds.map((id) =>
          sfn1.send(
            new StartExecutionCommand({
              stateMachineArn: `${STATE_MACHINE_ARN}:${LIVE_ALIAS_NAME}`,
              name: renewalRunName(id),
              input: JSON.stringify(renewalInput(id)),
            }),
          ),
        ),
      );
      sfn1.destroy();
      const [, signal] = await Promise.race([
        exited,
        new Promise<never>((_, reject) =>
          setTimeout(
            () => reject(new Error(`the engine never reached the crash point:\n${first.output().slice(-3000)}`)),
            CRASH_DEADLINE_MILLIS / 3,
          ).unref(),
        ),
      ]);
      expect(signal).toBe('SIGKILL');

      // What the provider had accepted when the engine died: the crash key at least.
      const outbox = new OutboxEmailProvider(join(dataDir, 'outbox'));
      const acceptedBefore = new Set((await outbox.list()).map((e) => e.idempotencyKey));
      expect(acceptedBefore.has(crashKey)).toBe(true);

      const second = await startEngineProcess({
        dataDir,
        functionsModule: FAULT_FUNCTIONS,
        env: { ...quiet, [SEND_LOG_ENV]: logAfter },
      });
      cleanup(() => second.stop());
      const sfn = sfnAt(second.url);
      cleanup(async () => sfn.destroy());
      // Starts the dead engine never acknowledged are retried (same name and input: idempotent if it did start).
      const unacknowledged = contractIds.filter((_, i) => started[i].status === 'rejected');
      for (const id of unacknowledged) {
        await resendStartExecution(sfn, {
          stateMachineArn: `${STATE_MACHINE_ARN}:${LIVE_ALIAS_NAME}`,
          name: renewalRunName(id),
          input: JSON.stringify(renewalInput(id)),
        });
      }

      await eventually(
        'every run to close',
        async () => ((await executionsWith(sfn, STATE_MACHINE_ARN, 'RUNNING')).length === 0 ? true : undefined),
        { timeoutMillis: CRASH_DEADLINE_MILLIS - 60_000 },
      ).catch(async (error: Error) => {
        // Say where the runs still open stand, and what the engine said.
        const open = await executionsWith(sfn, STATE_MACHINE_ARN, 'RUNNING');
        const tails = await Promise.all(
          open.slice(0, 5).map(
            async (arn) =>
              `${arn}: ${(await historyOf(sfn, arn))
                .slice(-4)
                .map((e) => e.type)
                .join(' > ')}`,
          ),
        );
        throw new Error(
          `${error.message}; ${open.length} still RUNNING:\n${tails.join('\n')}\nengine output:\n${second.output().slice(-3000)}`,
        );
      });
      expect(await executionsWith(sfn, STATE_MACHINE_ARN, 'SUCCEEDED')).toHaveLength(RUNS);

      const emails = await outbox.list();
      expect(emails.map((e) => e.idempotencyKey).sort()).toEqual(contractIds.map(renewalKey).sort());
      // The property: after the crash, no key the provider had accepted reached the provider again, and no key twice.
      const sentAfter = await keysIn(logAfter);
      expect(sentAfter.filter((k) => acceptedBefore.has(k))).toEqual([]);
      expect(sentAfter.length).toBe(new Set(sentAfter).size);
      expect(new Set([...acceptedBefore, ...sentAfter]).size).toBe(RUNS);
      // Before the crash, too, each key reached the provider at most once.
      const sentBefore = await keysIn(logBefore);
      expect(sentBefore.length).toBe(new Set(sentBefore).size);

      // The run caught by the crash reports the email the provider accepted before it.
      const crashed = await sfn.send(
        new DescribeExecutionCommand({
          executionArn: `arn:aws:states:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:execution:${contractRenewal.name}:${renewalRunName(contractIds[RUNS / 2])}`,
        }),
      );
      const output = JSON.parse(crashed.output!) as { steps: Record<string, { messageId: string }> };
      expect(output.steps['send-renewal-email'].messageId).toBe(
        emails.find((e) => e.idempotencyKey === crashKey)!.messageId,
      );
    },
    CRASH_DEADLINE_MILLIS,
  );
});
