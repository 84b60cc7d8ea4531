/**
 * The crash demo as it is run from this repository (`npm run demo`, a process of its own that starts and SIGKILLs
 * engine processes): it must exit 0 and print the proof — steps 1-5 not re-run, step 6 retried with key
 * `site-4412:welcome`, one welcome email in the outbox, the run SUCCEEDED.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { REPOSITORY_ROOT } from '../../../scripts/repository-root';

function runDemo(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // What `npm run demo` runs, without npm's own lines around it.
    const tsx = join(REPOSITORY_ROOT, 'node_modules', '.bin', 'tsx');
    const child = spawn(tsx, ['scripts/run-command.ts', 'demo'], {
      cwd: REPOSITORY_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('npm run demo', () => {
  it(
    'kills the engine after the welcome email, restarts it, and proves the email went out once',
    { timeout: 240_000 },
    async () => {
      const { code, stdout, stderr } = await runDemo();
      expect(stderr).toBe('');
      expect(stdout).toContain(
        '5. the engine died (signal SIGKILL, exit code none) with 1 welcome email in the outbox and its result not saved',
      );
      for (const step of [
        'verify-site',
        'create-accounts',
        'request-irb-document',
        'coordinator-approval',
        'provision-edc-access',
      ]) {
        expect(stdout).toMatch(new RegExp(`✔ step \\d ${step} ran once, not again after the restart`));
      }
      expect(stdout).toMatch(/✔ step 6 email-welcome-pack was retried after the restart with key site-4412:welcome/);
      expect(stdout).toContain('✔ one welcome email in the outbox (key site-4412:welcome)');
      expect(stdout).toContain('✔ the run SUCCEEDED');
      expect(stdout).not.toContain('✘');
      expect(code).toBe(0);
    },
  );
});
