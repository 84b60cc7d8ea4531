/**
 * The test run's browser setup on a machine without chromium: a PATH with no chromium on it and a fake
 * apt-get that logs what it was asked and "installs" a chromium executable the way the package would.
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CHROMIUM_INSTALL_COMMAND, ensureChromium } from '../../setup/chromium';

let bin: string;
let aptLog: string;

/** A fake apt-get: logs its arguments, and on `install` puts an executable `chromium` into the PATH dir. */
async function fakeAptGet(exitCode = 0): Promise<void> {
  const script = [
    '#!/bin/sh',
    `echo "$@" >> '${aptLog}'`,
    `if [ "$1" = install ]; then printf '#!/bin/sh\\n' > '${bin}/chromium'; /bin/chmod +x '${bin}/chromium'; fi`,
    exitCode ? `echo 'E: Unable to locate package chromium' >&2; exit ${exitCode}` : 'exit 0',
  ].join('\n');
  await writeFile(join(bin, 'apt-get'), `${script}\n`);
  await chmod(join(bin, 'apt-get'), 0o755);
}

const aptCalls = async () => (await readFile(aptLog, 'utf8').catch(() => '')).split('\n').filter(Boolean);
const quiet = () => undefined;

describe('ensureChromium', () => {
  beforeEach(async () => {
    bin = await mkdtemp(join(tmpdir(), 'autosave-fake-bin-'));
    aptLog = join(bin, 'apt-get.log');
  });
  afterEach(() => rm(bin, { recursive: true, force: true }));

  it('installs Debian chromium with apt-get when it is missing and the user is root', async () => {
    await fakeAptGet();
    const status = ensureChromium({ path: bin, isRoot: true, log: quiet });
    expect(status).toEqual({ available: true, executablePath: join(bin, 'chromium'), installed: true });
    expect(await aptCalls()).toEqual(['update -qq', 'install -y -qq chromium']);
  });

  it('does not install as a normal user: it names the command in one line', async () => {
    await fakeAptGet();
    const status = ensureChromium({ path: bin, isRoot: false, log: quiet });
    expect(status.available).toBe(false);
    if (status.available) return;
    expect(status.reason).toContain(CHROMIUM_INSTALL_COMMAND);
    expect(status.reason).not.toContain('\n');
    expect(await aptCalls()).toEqual([]);
  });

  it('names the command when there is no apt-get, even as root', () => {
    const status = ensureChromium({ path: bin, isRoot: true, log: quiet });
    expect(status).toEqual({ available: false, reason: expect.stringContaining(CHROMIUM_INSTALL_COMMAND) });
  });

  it('says what apt-get answered when the install fails', async () => {
    await fakeAptGet(100);
    const status = ensureChromium({ path: bin, isRoot: true, log: quiet });
    expect(status.available).toBe(false);
    if (status.available) return;
    expect(status.reason).toContain('apt-get update -qq failed (exit 100): E: Unable to locate package chromium');
  });

  it('leaves an installed chromium alone', async () => {
    await fakeAptGet();
    await writeFile(join(bin, 'chromium'), '#!/bin/sh\n');
    await chmod(join(bin, 'chromium'), 0o755);
    expect(ensureChromium({ path: bin, isRoot: true, log: quiet })).toEqual({
      available: true,
      executablePath: join(bin, 'chromium'),
      installed: false,
    });
    expect(await aptCalls()).toEqual([]);
  });
});
