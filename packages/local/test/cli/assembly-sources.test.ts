/**
 * A cached cloud assembly is named by a hash of the app's sources (cli/stack-assembly.ts): a change in any
 * folder the CDK app imports must be a new assembly, or `autosave local --stack` runs stale code. The
 * example app's own tools are in tools/ (they were in lib/ until issue 32).
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sourceHash } from '../../src/cli/stack-assembly';

let app: string | undefined;
afterEach(() => {
  if (app) rmSync(app, { recursive: true, force: true });
});

describe('the source hash that names a cached assembly', () => {
  it.each(['tools', 'statemachines', 'infra', 'lambdas'])(
    "changes when a file in the example app's %s/ changes",
    (folder) => {
      app = mkdtempSync(join(tmpdir(), 'autosave-sources-'));
      mkdirSync(join(app, folder));
      writeFileSync(join(app, folder, 'index.ts'), 'export const version = 1;\n');
      const before = sourceHash(app);
      writeFileSync(join(app, folder, 'index.ts'), 'export const version = 2;\n');
      expect(sourceHash(app)).not.toBe(before);
    },
  );
});
