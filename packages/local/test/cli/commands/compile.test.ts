import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { run } from '../../../src/cli/commands/compile';

const golden = (name: string) =>
  readFile(new URL(`../../../../../test/fixtures/asl/${name}.asl.json`, import.meta.url), 'utf8');

describe('autosave compile', () => {
  let out: string;
  let stdout: string;
  let stderr: string;

  beforeAll(async () => {
    out = await mkdtemp(join(tmpdir(), 'autosave-compile-'));
  });
  afterAll(async () => {
    await rm(out, { recursive: true, force: true });
  });

  const capture = () => {
    stdout = '';
    stderr = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
    vi.spyOn(console, 'log').mockImplementation((...a) => void (stdout += a.join(' ') + '\n'));
    vi.spyOn(console, 'error').mockImplementation((...a) => void (stderr += a.join(' ') + '\n'));
  };
  afterEach(() => vi.restoreAllMocks());

  it('prints one workflow as its compiled ASL', async () => {
    capture();
    expect(await run(['contract-renewal'])).toBe(0);
    expect(stdout).toBe(await golden('contract-renewal'));
  });

  it('prints every workflow keyed by name', async () => {
    capture();
    expect(await run([])).toBe(0);
    expect(Object.keys(JSON.parse(stdout))).toEqual([
      'clinical-trial-onboarding',
      'contract-renewal',
      'research-agent',
      'support-triage',
    ]);
  });

  it('writes <workflow>.asl.json files with --out', async () => {
    capture();
    expect(await run(['--out', out])).toBe(0);
    expect((await readdir(out)).sort()).toEqual([
      'clinical-trial-onboarding.asl.json',
      'contract-renewal.asl.json',
      'research-agent.asl.json',
      'support-triage.asl.json',
    ]);
    expect(await readFile(join(out, 'research-agent.asl.json'), 'utf8')).toBe(await golden('research-agent'));
  });

  it.each([[['no-such-workflow']], [['a', 'b']], [['--bogus']]])(
    'refuses %j with one line and exit code 2',
    async (args) => {
      capture();
      expect(await run(args)).toBe(2);
      expect(stdout).toBe('');
      expect(stderr.split('\n')[0]).toMatch(/^autosave compile: /);
    },
  );
});
