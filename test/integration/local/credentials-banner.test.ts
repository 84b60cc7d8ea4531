/**
 * The engine checks no credentials, but an AWS SDK client (TestStateCommand from @aws-sdk/client-sfn, say) or the AWS
 * CLI refuses to send a call without some in the shell ("Could not load credentials from any providers"). The banner
 * of `autosave local` says to pass dummy ones, with the variables to set.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startLocal } from '@autosave/local';

describe("the local engine's banner", () => {
  it('says that a client needs credentials, any will do, and how to give dummy ones', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'autosave-banner-'));
    const lines: string[] = [];
    const local = await startLocal({ port: 0, dataDir, deployWorkflows: false, log: (line) => lines.push(line) });
    try {
      expect(lines.join('\n')).toMatch(
        /credentials +any: the engine checks none, but an SDK client or the AWS CLI needs some, e\.g\. AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local/,
      );
    } finally {
      await local.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
