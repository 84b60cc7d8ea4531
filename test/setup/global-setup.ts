/**
 * Vitest global setup: makes sure the browser tests have their browser before any test runs (see
 * ./chromium.ts), and hands the result to them through `inject('chromium')`.
 */
import type { TestProject } from 'vitest/node';
import { ensureChromium, type ChromiumStatus } from './chromium';

declare module 'vitest' {
  export interface ProvidedContext {
    chromium: ChromiumStatus;
  }
}

export default function setup(project: TestProject): void {
  const chromium = ensureChromium();
  if (!chromium.available) process.stderr.write(`${chromium.reason}\n`);
  project.provide('chromium', chromium);
}
