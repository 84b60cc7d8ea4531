/**
 * Vitest global setup: makes sure the browser tests have their browser before any test runs (see
 * ./chromium.ts), and hands the result to them through `inject('chromium')`; builds the CLI bundle that
 * bin/autosave.js runs, once, before the tests that spawn the CLI start it in parallel.
 */
import type { TestProject } from 'vitest/node';
import { cliBundle } from '../../bin/cli-bundle.js';
import { ensureChromium, type ChromiumStatus } from './chromium';

declare module 'vitest' {
  export interface ProvidedContext {
    chromium: ChromiumStatus;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  await cliBundle();
  const chromium = ensureChromium();
  if (!chromium.available) process.stderr.write(`${chromium.reason}\n`);
  project.provide('chromium', chromium);
}
