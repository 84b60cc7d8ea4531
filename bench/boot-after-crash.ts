/**
 * `npm run bench:boot [-- --runs 10000]`: how long the engine takes after a kill -9 to answer its first
 * request, with many runs in its store. Starts `autosave local` as its own process, fills the store with
 * runs paused in a one-day Wait, SIGKILLs it, starts it again on the same port, and prints the time from
 * spawn to the first answered request (and, for comparison, the same on an empty store).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CreateStateMachineCommand, ListExecutionsCommand, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { EngineSupervisor, freePort, restartProofSfn } from '../test/chaos/support';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const { values } = parseArgs({ options: { runs: { type: 'string', default: '10000' } } });
const RUNS = Number(values.runs);
const IN_FLIGHT = 50;

const dataDir = await mkdtemp(join(tmpdir(), 'autosave-boot-'));
const supervisor = new EngineSupervisor({ dataDir, port: await freePort() });
try {
  await supervisor.start();
  const sfn = restartProofSfn(supervisor.url);
  const definition = { StartAt: 'Pause', States: { Pause: { Type: 'Wait', Seconds: 86_400, End: true } } };
  const { stateMachineArn } = await sfn.send(
    new CreateStateMachineCommand({
      name: 'paused',
      definition: JSON.stringify(definition),
      roleArn: 'arn:aws:iam::123456789012:role/bench',
    }),
  );
  const began = Date.now();
  for (let i = 0; i < RUNS; i += IN_FLIGHT) {
    await Promise.all(
      Array.from({ length: Math.min(IN_FLIGHT, RUNS - i) }, (_, j) =>
        sfn.send(new StartExecutionCommand({ stateMachineArn, name: `paused-${i + j}`, input: '{}' })),
      ),
    );
  }
  console.log(`boot: ${RUNS} runs paused in a Wait in ${((Date.now() - began) / 1000).toFixed(1)} s`);
  while (supervisor.bootMillis.length < 1) await new Promise((r) => setTimeout(r, 10));
  const emptyBoot = supervisor.bootMillis[0];
  await supervisor.killAndRestart();
  await supervisor.ready();
  while (supervisor.bootMillis.length < 2) await new Promise((r) => setTimeout(r, 10));
  let running = 0;
  let nextToken: string | undefined;
  do {
    const page = await sfn.send(
      new ListExecutionsCommand({ stateMachineArn, statusFilter: 'RUNNING', maxResults: 1000, nextToken }),
    );
    running += page.executions?.length ?? 0;
    nextToken = page.nextToken;
  } while (nextToken);
  console.log(
    `boot: start to first answered request: ${emptyBoot} ms on an empty store (first start), ${supervisor.bootMillis[1]} ms after kill -9 with ${RUNS} runs in the store (${running} still RUNNING after it)`,
  );
  sfn.destroy();
} finally {
  await supervisor.stop();
  await rm(dataDir, { recursive: true, force: true });
}
