/**
 * A production install (npm install --omit=dev) has no IAM simulator: asking for it is a named error the
 * stack mode turns into "IAM is not enforced", never a crash.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

vi.mock('@cloud-copilot/iam-simulate', () => {
  throw Object.assign(new Error("Cannot find package '@cloud-copilot/iam-simulate'"), { code: 'ERR_MODULE_NOT_FOUND' });
});

describe('the IAM simulator, not installed', () => {
  it('is refused with IamSimulatorUnavailableError naming the package, and asked again on the next call', async () => {
    const { createIamEvaluator, IamSimulatorUnavailableError } = await import('../../src/cloud-assembly');
    await expect(createIamEvaluator()).rejects.toBeInstanceOf(IamSimulatorUnavailableError);
    await expect(createIamEvaluator()).rejects.toThrow(/@cloud-copilot\/iam-simulate is not installed/);
  });

  it("makes the stack mode's --enforce-iam fail with that error, which the boot turns into 'IAM is not enforced'", async () => {
    const { IamSimulatorUnavailableError } = await import('../../src/cloud-assembly');
    const { StackMode } = await import('../../src/stack');
    const dir = mkdtempSync(join(tmpdir(), 'autosave-no-simulator-'));
    const stack = new StackMode({
      dataDir: dir,
      region: 'us-east-1',
      account: '123456789012',
      endpoints: () => ({ url: '', dynamodb: '', s3: '', region: 'us-east-1', dataDir: dir }),
      nowMillis: () => 0,
    });
    try {
      await expect(stack.enforceIam()).rejects.toBeInstanceOf(IamSimulatorUnavailableError);
    } finally {
      await stack.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
