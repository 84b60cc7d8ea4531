/**
 * kill -9 in the middle of `deploy --local`: the engine (a child process, as a user runs it) SIGKILLs
 * itself once the deploy has applied n resources (the `AUTOSAVE_DEPLOY_CRASH_AFTER` seam). Nothing is
 * lost: after a restart the runs that waited across the crash finish on their first versions, a rerun of
 * `deploy --local` completes the update, no Lambda version is published twice for the same code, and
 * the store says which assembly produced each resource.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DescribeExecutionCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { V1_SUBJECT_PREFIX, V2_FOOTER, V2_SUBJECT_PREFIX } from '../../../scripts/rehearsal/rehearsal';
import { LOCAL_CREDENTIALS } from '@autosave/workflow/config';
import { loadRunDetails, submitApprovalDecision } from '../../../packages/local/src/operations';
import { OutboxEmailProvider } from '@autosave/runtime/tools';
import { startEngineProcess, type EngineProcess } from './support/engine-process';
import { appAssemblies, SYNTH_TIMEOUT_MILLIS } from '../stack/support/assemblies';
import { eventually } from '../../fixtures/wait';

const PROJECT_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const ALIAS = 'arn:aws:states:us-east-1:123456789012:stateMachine:clinical-trial-onboarding:live';

let assemblies: { v1: string; v2: string };
let dir: string;
beforeAll(async () => {
  assemblies = await appAssemblies();
  dir = await mkdtemp(join(tmpdir(), 'autosave-deploy-kill-'));
}, SYNTH_TIMEOUT_MILLIS);
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Polls through the engine's restarts (requests to a dead engine fail and are tried again). */
const RESTART_POLL = { timeoutMillis: 120_000, intervalMillis: 100, retryProbeErrors: true } as const;

/** `autosave deploy --local` as a user runs it. */
async function deployCli(endpoint: string, app: string): Promise<{ code: number | null; out: string }> {
  const child = spawn(
    process.execPath,
    ['bin/autosave.js', 'deploy', '--local', '--endpoint', endpoint, '--app', app],
    { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  child.stderr.on('data', (d: Buffer) => (out += d));
  const [code] = await once(child, 'exit');
  return { code: code as number | null, out };
}

const stackOf = async (url: string) =>
  (await (await fetch(`${url}/_autosave/stack`)).json()) as {
    assemblyId: string;
    complete: boolean;
    resources: { logicalId: string; assemblyId: string; state: string }[];
    functions: { name: string; version: string; codeSha: string }[];
  };

describe('kill -9 during deploy --local', () => {
  it.each([10])(
    'after %i resources: a restart and a rerun complete the update, runs in flight finish on their first versions',
    async (crashAfter) => {
      const data = join(dir, `data-${crashAfter}`);
      let engine: EngineProcess | undefined = await startEngineProcess({
        dataDir: data,
        extraArgs: ['--app', assemblies.v1],
        env: { AUTOSAVE_DEPLOY_CRASH_AFTER: String(crashAfter) },
      });
      let sfn = new SFNClient({ endpoint: engine.url, region: 'us-east-1', credentials: LOCAL_CREDENTIALS });
      try {
        const before = await stackOf(engine.url);
        const runs = await Promise.all(
          [1, 2, 3].map(async (i) => {
            const siteId = `crash-${crashAfter}-${i}`;
            const input = { siteId, coordinatorEmail: `c@${siteId}.example.org`, siteName: siteId };
            return {
              siteId,
              arn: (
                await sfn.send(
                  new StartExecutionCommand({ stateMachineArn: ALIAS, name: siteId, input: JSON.stringify(input) }),
                )
              ).executionArn!,
            };
          }),
        );
        for (const r of runs)
          await eventually(
            `${r.siteId} waiting`,
            async () => (await loadRunDetails(sfn, r.arn)).approvals[0]?.url,
            RESTART_POLL,
          );

        const cut = await deployCli(engine.url, assemblies.v2);
        expect(cut.code, cut.out).not.toBe(0);
        // It killed itself (the seam): kill() only waits for the exit here.
        await engine.kill();
        expect(engine.child.signalCode).toBe('SIGKILL');
        expect(engine.output()).not.toContain('deploy of'); // (nothing printed a completed deploy)
        sfn.destroy();

        // Restarted as it was started, on its port (the approval links in flight name it, as a Function
        // URL on AWS stays the same); the cut-off deploy is on record as unfinished.
        const port = new URL(engine.url).port;
        engine = await startEngineProcess({ dataDir: data, extraArgs: ['--app', assemblies.v1, '--port', port] });
        sfn = new SFNClient({ endpoint: engine.url, region: 'us-east-1', credentials: LOCAL_CREDENTIALS });
        const rerun = await deployCli(engine.url, assemblies.v2);
        expect(rerun.code, rerun.out).toBe(0);
        const after = await stackOf(engine.url);
        expect(after.complete).toBe(true);
        expect(after.assemblyId).not.toBe(before.assemblyId);
        // Every resource in the stack now is the new assembly's, except what it left unchanged.
        expect(
          after.resources.filter(
            (r) => r.state === 'IN_STACK' && r.assemblyId !== after.assemblyId && r.assemblyId !== before.assemblyId,
          ),
        ).toEqual([]);
        // No code published twice as two versions.
        const versions = after.functions.filter((f) => f.version !== '$LATEST');
        const byCode = new Map<string, number>();
        for (const v of versions) byCode.set(`${v.name}/${v.codeSha}`, (byCode.get(`${v.name}/${v.codeSha}`) ?? 0) + 1);
        expect(
          [...byCode.values()].every((n) => n === 1),
          JSON.stringify(versions),
        ).toBe(true);

        // A run started now is on the new definition and the new bundle.
        const late = { siteId: `crash-${crashAfter}-late`, coordinatorEmail: 'c@late.example.org', siteName: 'late' };
        const lateArn = (
          await sfn.send(
            new StartExecutionCommand({ stateMachineArn: ALIAS, name: late.siteId, input: JSON.stringify(late) }),
          )
        ).executionArn!;
        for (const r of [...runs, { siteId: late.siteId, arn: lateArn }]) {
          const url = await eventually(
            `${r.siteId} waiting after the restart`,
            async () => (await loadRunDetails(sfn, r.arn)).approvals[0]?.url,
            RESTART_POLL,
          );
          await submitApprovalDecision(url, { approve: true });
        }
        const finished = async (arn: string) =>
          eventually(
            `${arn} closed`,
            async () => {
              const d = await sfn.send(new DescribeExecutionCommand({ executionArn: arn }));
              return d.status === 'RUNNING' ? undefined : d;
            },
            RESTART_POLL,
          );
        const outbox = () => new OutboxEmailProvider(join(data, 'outbox'));
        for (const r of runs) {
          const d = await finished(r.arn);
          expect(d.status).toBe('SUCCEEDED');
          expect(d.stateMachineVersionArn).toMatch(/:clinical-trial-onboarding:1$/);
          const [email] = (await outbox().list()).filter((m) => m.idempotencyKey === `${r.siteId}:welcome`);
          expect(email.subject.startsWith(V1_SUBJECT_PREFIX)).toBe(true);
          expect(email.body).not.toContain(V2_FOOTER);
        }
        expect((await finished(lateArn)).status).toBe('SUCCEEDED');
        const [lateEmail] = (await outbox().list()).filter((m) => m.idempotencyKey === `${late.siteId}:welcome`);
        expect(lateEmail.subject.startsWith(V2_SUBJECT_PREFIX)).toBe(true);
        expect(lateEmail.body).toContain(V2_FOOTER);
      } finally {
        sfn.destroy();
        await engine?.stop();
      }
    },
    240_000,
  );
});
