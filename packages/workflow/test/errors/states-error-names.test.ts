import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StatesError } from '@autosave/workflow/errors';

const ROOT = resolve(import.meta.dirname, '../../../..');
const DEFINED_IN = 'packages/workflow/src/errors/states-errors.ts';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    // Built output (dist/) and installed packages are not sources.
    entry.isDirectory()
      ? ['dist', 'node_modules'].includes(entry.name)
        ? []
        : sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

describe('the States.* error names', () => {
  it(`are written as string literals only in ${DEFINED_IN}; code names them through StatesError`, () => {
    const quoted = new RegExp(
      `['"\`](${Object.values(StatesError)
        .map((name) => name.replace('.', '\\.'))
        .join('|')})['"\`]`,
    );
    const offenders = ['packages', 'infra', 'statemachines']
      .flatMap((folder) => sourceFiles(join(ROOT, folder)))
      .map((file) => relative(ROOT, file))
      // The engine's own literals are being replaced with its kernel rewrite; it joins this check after.
      .filter((file) => file !== DEFINED_IN && !file.startsWith('packages/engine/src/'))
      // Tests check answers in AWS's own words.
      .filter((file) => !/^packages\/[^/]+\/test\//.test(file))
      .flatMap((file) =>
        readFileSync(join(ROOT, file), 'utf8')
          .split('\n')
          .map((line, i) => ({ line: line.trim(), at: `${file}:${i + 1}` }))
          // Prose in comments may name them; code may not.
          .filter(
            ({ line }) =>
              !line.startsWith('*') && !line.startsWith('//') && !line.startsWith('/*') && quoted.test(line),
          )
          .map(({ at, line }) => `${at}: ${line}`),
      );
    expect(offenders).toEqual([]);
  });
});
