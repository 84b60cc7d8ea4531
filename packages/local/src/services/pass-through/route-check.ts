/**
 * Pass-through routes checked when the engine starts, not when a run first calls them: a service Step
 * Functions knows, an endpoint that is an http(s) URL. `--pass-through =`, `sns=notaurl`, `sns=ftp://x` and
 * unknown services were accepted and failed only at run time.
 */
import { isRoutableService } from '@autosave/engine';
import type { PassThroughRoute } from './sdk-pass-through';

/** A route that cannot work: `where` says which (the flag or the file), `service` which route. */
export class PassThroughRouteError extends Error {
  override readonly name = 'PassThroughRouteError';
}

/** Throws {@link PassThroughRouteError} for the first route that cannot work; `where` names its source. */
export function checkPassThroughRoutes(routes: Readonly<Record<string, PassThroughRoute>>, where: string): void {
  for (const [service, route] of Object.entries(routes)) {
    const refuse = (problem: string): never => {
      throw new PassThroughRouteError(`${where}: the pass-through route '${service}' ${problem}`);
    };
    if (service === '') refuse('names no service (write <service>[=<endpoint>], e.g. athena=http://127.0.0.1:4566)');
    if (!isRoutableService(service))
      refuse(
        'names no service Step Functions integrates with (the name its Task ARN uses: sns, events, athena, glue, ...)',
      );
    if (route.endpoint === undefined) continue;
    let url: URL | undefined;
    try {
      url = new URL(route.endpoint);
    } catch {
      url = undefined;
    }
    if (!url) refuse(`has the endpoint '${route.endpoint}', which is not a URL (e.g. http://127.0.0.1:4566)`);
    if (url!.protocol !== 'http:' && url!.protocol !== 'https:')
      refuse(`has the endpoint '${route.endpoint}': an endpoint is an http or https URL`);
  }
}
