/**
 * The browser the e2e suite drives: Debian's `chromium` package, never a downloaded browser build. A fresh
 * machine does not have it, so the test run installs it (as `.ci/run` used to) when it may: as root, with
 * apt-get on the PATH. Otherwise it says, in one line, which command installs it, and the browser tests fail
 * with that line.
 */
import { accessSync, constants } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { delimiter, join } from 'node:path';

/** The Debian package and the executable it installs. */
export const CHROMIUM_PACKAGE = 'chromium';

/** What a user without root types. */
export const CHROMIUM_INSTALL_COMMAND = `sudo apt-get install -y ${CHROMIUM_PACKAGE}`;

/** Options of {@link ensureChromium}; the defaults are this process's. */
export interface EnsureChromiumOptions {
  /** Where executables are looked up (`chromium`, `apt-get`). @default process.env.PATH */
  readonly path?: string;
  /** Whether this user may install packages. @default process.getuid() === 0 */
  readonly isRoot?: boolean;
  /** Where apt-get's own output goes. @default process.stderr */
  readonly log?: (line: string) => void;
}

/** The browser found (or installed), or the one line that says how to get it. */
export type ChromiumStatus =
  | { readonly available: true; readonly executablePath: string; readonly installed: boolean }
  | { readonly available: false; readonly reason: string };

/** The first executable named `name` on `path`, if any. */
export function findExecutable(name: string, path: string): string | undefined {
  for (const dir of path.split(delimiter).filter(Boolean)) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Finds Debian's chromium; installs it with apt-get when missing and this user is root. */
export function ensureChromium(options: EnsureChromiumOptions = {}): ChromiumStatus {
  const path = options.path ?? process.env.PATH ?? '';
  const isRoot = options.isRoot ?? process.getuid?.() === 0;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const found = findExecutable(CHROMIUM_PACKAGE, path);
  if (found) return { available: true, executablePath: found, installed: false };

  const missing = `Chromium is missing for the browser tests: run \`${CHROMIUM_INSTALL_COMMAND}\` (Debian's package; npm test installs it itself when run as root)`;
  const aptGet = findExecutable('apt-get', path);
  if (!isRoot || !aptGet) return { available: false, reason: missing };

  log(`chromium is missing: installing Debian's package (apt-get install -y ${CHROMIUM_PACKAGE})`);
  const env = { ...process.env, PATH: path, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [
    ['update', '-qq'],
    ['install', '-y', '-qq', CHROMIUM_PACKAGE],
  ]) {
    const run = spawnSync(aptGet, args, { env, encoding: 'utf8' });
    if (run.status !== 0) {
      const output = `${run.stdout ?? ''}${run.stderr ?? ''}`.trim().split('\n').slice(-5).join(' | ');
      return {
        available: false,
        reason: `${missing}; apt-get ${args.join(' ')} failed (exit ${run.status ?? run.signal}): ${output}`,
      };
    }
  }
  const installed = findExecutable(CHROMIUM_PACKAGE, path);
  return installed
    ? { available: true, executablePath: installed, installed: true }
    : { available: false, reason: `${missing}; apt-get finished but no chromium is on the PATH` };
}
