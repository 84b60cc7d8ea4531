import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkTemplates, run } from '../../../src/cli/commands/deploy-check';
import { dropOldVersionGrants, synthAssembly } from '../../../../cdk/test/iam/code-changing-deploy';

let deployed: string;
let next: string;
let stranding: string;

beforeAll(() => {
  deployed = synthAssembly(1);
  next = synthAssembly(2);
  stranding = mkdtempSync(join(tmpdir(), 'autosave-stranding-'));
  cpSync(next, stranding, { recursive: true });
  dropOldVersionGrants(stranding);
});
afterAll(() => {
  for (const dir of [deployed, next, stranding]) rmSync(dir, { recursive: true, force: true });
});

describe('autosave deploy-check offline (template against template, IAM simulated)', () => {
  it('a code-changing deploy of the fixed stack publishes new versions and strands nothing', async () => {
    const impacts = await checkTemplates(deployed, next);
    expect(impacts.map((i) => i.stateMachine).sort()).toEqual([
      'clinical-trial-onboarding',
      'contract-renewal',
      'research-agent',
      'support-triage',
    ]);
    for (const i of impacts) {
      expect(i.publishesNewVersion, i.stateMachine).toBe(true);
      expect(i.stranded, i.stateMachine).toEqual([]);
    }
    expect(await run(['--from', deployed, '--to', next])).toBe(0);
  });

  it('refuses a template whose roles drop the old versions: names the stranded calls and exits 1', async () => {
    const impacts = await checkTemplates(deployed, stranding);
    const stranded = impacts.flatMap((i) => i.stranded);
    expect(stranded.length).toBeGreaterThan(0);
    expect(
      stranded.every(
        (s) =>
          s.request.action === 'lambda:InvokeFunction' &&
          /:1$/.test(s.request.resource) &&
          s.result === 'ImplicitlyDenied',
      ),
    ).toBe(true);
    expect(await run(['--from', deployed, '--to', stranding])).toBe(1);
  });
});
