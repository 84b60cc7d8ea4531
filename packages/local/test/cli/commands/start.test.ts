import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { looksLikePath, readRunInput } from '../../../src/cli/commands/start';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'autosave-start-input-'));
  await writeFile(join(dir, 'input.json'), '{"siteId": "S-1"}');
  await writeFile(join(dir, 'broken.json'), '{"siteId": ');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('start --input', () => {
  it('takes inline JSON as is', async () => {
    expect(await readRunInput('{"a": 1}', 'w')).toBe('{"a":1}');
    expect(await readRunInput('[1, 2]', 'w')).toBe('[1,2]');
  });

  it('reads a JSON file', async () => {
    expect(await readRunInput(join(dir, 'input.json'), 'w')).toBe('{"siteId":"S-1"}');
  });

  it('says a missing file does not exist instead of reporting a JSON parse error', async () => {
    await expect(readRunInput('/missing.json', 'w')).rejects.toThrow(/^--input file \/missing\.json does not exist$/);
    await expect(readRunInput(join(dir, 'nope.json'), 'w')).rejects.toThrow(/does not exist/);
    await expect(readRunInput('./no/such/input', 'w')).rejects.toThrow(/does not exist/);
  });

  it('says which file holds invalid JSON', async () => {
    await expect(readRunInput(join(dir, 'broken.json'), 'w')).rejects.toThrow(/broken\.json is not valid JSON/);
  });

  it('reports text that is neither JSON nor a path as invalid JSON', async () => {
    await expect(readRunInput('{not json', 'w')).rejects.toThrow(
      /^--input is neither valid JSON nor a readable JSON file/,
    );
  });

  it.each([
    ['./input', true],
    ['../input', true],
    ['/tmp/x', true],
    ['~/x', true],
    ['input.json', true],
    ['{"a":1}', false],
    ['plain', false],
  ])('%s looks like a path: %s', (value, expected) => expect(looksLikePath(value)).toBe(expected));
});
