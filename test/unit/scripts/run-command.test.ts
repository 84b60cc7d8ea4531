/**
 * The repository's own commands (`npm run rehearse`, `npm run demo`) run from scripts/, outside the published CLI,
 * and fail as its commands do: one line on stderr naming the command, exit code 2 for a command line they cannot
 * understand.
 */
import { describe, expect, it } from 'vitest';
import { runTsxScript } from '../../fixtures/tsx-script';

/** `tsx scripts/run-command.ts <args>`, what the package.json scripts run. */
const runCommand = (...args: string[]) => runTsxScript('scripts/run-command.ts', ...args);

describe('tsx scripts/run-command.ts', () => {
  it.each([
    [
      ['rehearse', '--runs', '0'],
      /^autosave rehearse: --runs takes a positive whole number \(usage: npm run rehearse -- /,
    ],
    [['rehearse', '--endpoint', 'http://127.0.0.1:9'], /^autosave rehearse: Unknown option '--endpoint'/],
    [['demo', '--bogus'], /^autosave demo: Unknown option '--bogus'/],
    [['bogus'], /^usage: tsx scripts\/run-command\.ts <rehearse\|demo> \[options\]/],
  ])(
    '%j exits 2 with one line on stderr',
    (args, message) => {
      const r = runCommand(...args);
      expect(r.stdout).toBe('');
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(message);
      expect(r.code).toBe(2);
    },
    60_000,
  );

  it("prints each command's help with its npm run form", () => {
    const r = runCommand('rehearse', '--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('npm run rehearse -- --runs 100');
  }, 60_000);
});
