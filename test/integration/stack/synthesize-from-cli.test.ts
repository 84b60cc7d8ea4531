/**
 * The CLI runs as a JavaScript bundle (bin/autosave.js), and `local --stack`, `deploy --local` and
 * `rehearse` synthesize the app's TypeScript CDK sources in that process when their assembly is not
 * cached: the synthesis must load them (through tsx's loader) rather than fail on the `.ts` extension.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ASSEMBLY_CACHE_ENV } from '../../../packages/local/src/cli/stack-assembly';
import { REPOSITORY_ROOT as PROJECT_ROOT } from '../../../scripts/repository-root';
import { SYNTH_TIMEOUT_MILLIS } from './support/assemblies';

let cache: string | undefined;
afterAll(async () => {
  if (cache) await rm(cache, { recursive: true, force: true });
});

describe('autosave deploy --local with no cached assembly', () => {
  it(
    'synthesizes the app from the CLI bundle, then reports the unreachable engine in one line',
    async () => {
      cache = await mkdtemp(join(tmpdir(), 'autosave-assembly-cache-'));
      const child = spawn(
        process.execPath,
        ['bin/autosave.js', 'deploy', '--local', '--endpoint', 'http://127.0.0.1:9'],
        {
          cwd: PROJECT_ROOT,
          env: { ...process.env, [ASSEMBLY_CACHE_ENV]: cache },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d));
      child.stderr.on('data', (d: Buffer) => (stderr += d));
      const [code] = await once(child, 'exit');
      expect(stderr).not.toContain('Unknown file extension');
      expect(stdout).toMatch(/^assembly: synthesized now from sources [0-9a-f]{12} in \d+ ms$/m);
      expect((await readdir(cache)).filter((e) => /^[0-9a-f]{12}$/.test(e))).toHaveLength(1);
      expect(code).toBe(1);
      expect(
        stderr
          .trimEnd()
          .split('\n')
          .filter((l) => l.startsWith('autosave deploy:')),
      ).toHaveLength(1);
    },
    SYNTH_TIMEOUT_MILLIS,
  );
});
