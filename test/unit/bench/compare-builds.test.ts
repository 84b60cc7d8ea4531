/**
 * `npm run bench:compare` refuses a command line it cannot run as the repository's other commands do: one
 * line on stderr, exit code 2, and nothing checked out.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '../../../scripts/repository-root';

function compare(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const tsx = join(REPOSITORY_ROOT, 'node_modules', '.bin', 'tsx');
  const r = spawnSync(tsx, ['bench/compare-builds.ts', ...args], {
    cwd: REPOSITORY_ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('tsx bench/compare-builds.ts', () => {
  it.each([
    [[], /^usage: npm run bench:compare -- --against <git revision>/],
    [['--against', 'HEAD', '--pairs', '0'], /^usage: npm run bench:compare -- --against <git revision>/],
    [['--against', 'no-such-revision'], /^bench:compare: no-such-revision is not a commit of this repository$/],
  ])(
    '%j exits 2 with one line on stderr',
    (args, message) => {
      const r = compare(...args);
      expect(r.stdout).toBe('');
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr.trimEnd()).toMatch(message);
      expect(r.code).toBe(2);
    },
    60_000,
  );
});
