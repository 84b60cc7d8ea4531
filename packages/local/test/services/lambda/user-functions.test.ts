import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_USER_FUNCTION_TIMEOUT_SECONDS,
  loadUserFunctions,
  userFunctions,
} from '../../../src/services/lambda/user-functions';

describe('user functions (--functions <module>)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'autosave-user-fns-'));
    await writeFile(
      join(dir, 'named.mjs'),
      'export const greet = async (e) => ({ hi: e.name });\nexport const slow = { handler: async () => 1, timeoutSeconds: 900, memoryMb: 1024 };\n',
    );
    await writeFile(
      join(dir, 'table.mjs'),
      "export default { 'my-fn': async () => 'ok' };\nexport const helper = 42;\n",
    );
    await writeFile(join(dir, 'broken.mjs'), 'export const notAHandler = 42;\n');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('takes every named export as a function, with its own timeout and memory when given', async () => {
    const fns = await loadUserFunctions(join(dir, 'named.mjs'));
    expect(fns.map((f) => [f.name, f.timeoutSeconds, f.memoryMb])).toEqual([
      ['greet', DEFAULT_USER_FUNCTION_TIMEOUT_SECONDS, undefined],
      ['slow', 900, 1024],
    ]);
    const greet = await fns[0].load();
    expect(await greet({ name: 'site-4412' }, {} as never, () => {})).toEqual({ hi: 'site-4412' });
  });

  it('takes a default-exported object as the whole table', async () => {
    expect((await loadUserFunctions(join(dir, 'table.mjs'))).map((f) => f.name)).toEqual(['my-fn']);
  });

  it('refuses an export that is not a handler, naming it', async () => {
    await expect(loadUserFunctions(join(dir, 'broken.mjs'))).rejects.toMatchObject({
      name: 'UserFunctionsModuleError',
      message: expect.stringContaining("'notAHandler'"),
    });
    expect(() => userFunctions({ x: 'nope' })).toThrow(/'x' is not a Lambda handler/);
  });
});
