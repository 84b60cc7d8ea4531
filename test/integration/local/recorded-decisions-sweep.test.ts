/**
 * At boot, approval decisions recorded before the last stop but never delivered are swept to their runs
 * once: one sweep of the table, not one per copy of the boot code.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { exampleApp } from '../../fixtures/example-app';
import { eventually } from '../../fixtures/wait';

const sweeps = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../../packages/local/src/services/recorded-decisions', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../../packages/local/src/services/recorded-decisions')>();
  return {
    ...original,
    recordedDecisions: (...args: Parameters<typeof original.recordedDecisions>) => {
      const decisions = original.recordedDecisions(...args);
      return {
        ...decisions,
        redeliverAll: () => {
          sweeps.count += 1;
          return decisions.redeliverAll();
        },
      };
    },
  };
});

describe('the boot sweep of recorded approval decisions', () => {
  it('runs once per boot', async () => {
    const { startLocal } = await import('../../../packages/local/src/server');
    const dir = await mkdtemp(join(tmpdir(), 'autosave-sweep-'));
    const local = await startLocal({
      ...(await exampleApp()),
      port: 0,
      dataDir: dir,
      console: false,
      log: () => undefined,
    });
    try {
      await local.engine.whenIdle();
      // The sweep's module loads after the start (the runs caught in flight do not wait for it).
      await eventually('the boot sweep', () => sweeps.count || undefined);
      expect(sweeps.count).toBe(1);
    } finally {
      await local.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
