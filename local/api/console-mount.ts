import type { HttpRequestHandler } from './server';

/** What the console needs to read runs: the engine's own Step Functions endpoint. */
export interface ConsoleMountOptions {
  readonly sfnEndpoint: string;
}

/**
 * THE CONSOLE HOOK: the console pages mount here. local/console/index.ts exports
 * `createConsoleHandler(options: ConsoleMountOptions): HttpRequestHandler` serving GET `/`, `/runs...`,
 * `/static...`; every request the API does not claim (not `POST /` with `X-Amz-Target`, not `/approvals/*`,
 * not `/_autosave/*`) reaches it. The module is loaded by path at run time so the engine starts without it.
 */
export async function loadConsoleHandler(options: ConsoleMountOptions): Promise<HttpRequestHandler | undefined> {
  const modulePath = '../console/index';
  let mod: { createConsoleHandler?: (o: ConsoleMountOptions) => HttpRequestHandler };
  try {
    mod = await import(/* @vite-ignore */ modulePath);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') return undefined;
    throw err;
  }
  return mod.createConsoleHandler?.(options);
}
