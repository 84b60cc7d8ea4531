/**
 * `npm run bench:compare` refuses a command line it cannot run as the repository's other commands do: one
 * line on stderr, exit code 2, and nothing checked out.
 */
import { describe, expect, it } from 'vitest';
import { runTsxScript } from '../../fixtures/tsx-script';

const compare = (...args: string[]) => runTsxScript('bench/compare-builds.ts', ...args);

describe('tsx bench/compare-builds.ts', () => {
  it.each([
    [[], /^usage: npm run bench:compare -- --against <git revision>/],
    [['--against', 'HEAD', '--pairs', '0'], /^usage: npm run bench:compare -- --against <git revision>/],
    [
      ['--against', 'HEAD', '--interleaved', '--rounds', '0'],
      /^usage: npm run bench:compare -- --against <git revision>/,
    ],
    [
      ['--against', 'HEAD', '--node-flags=--single-threaded-gc'],
      /^usage: npm run bench:compare -- --against <git revision>/,
    ],
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
