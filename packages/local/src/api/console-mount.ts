import type { HttpRequestHandler } from './server';
import type { ConsoleServices } from '../console';

/** What the console needs to read runs: the engine's own Step Functions endpoint. */
export interface ConsoleMountOptions {
  readonly sfnEndpoint: string;
  /** The dead-letter queue the console lists. @default the console's own default */
  readonly dlqUrl?: () => string;
  /** What the engine runs (shown in every page's header). @default nothing shown */
  readonly engineLabel?: () => string;
  /**
   * The outbox the engine's functions write to. The engine never writes `process.env`, so the console
   * cannot find it there. @default the console's own default (`AUTOSAVE_OUTBOX_DIR` of this process)
   */
  readonly outboxDir?: string;
  /** The engine's emulated services the console shows (SNS, EventBridge, CloudWatch metrics). @default none */
  readonly services?: ConsoleServices;
}

/**
 * THE CONSOLE HOOK: the console pages (local/console) mount here. Every request the API does not claim
 * (not `POST /` with `X-Amz-Target`, not `/approvals/<id>`, not `/_autosave/*`) reaches this handler: GET `/`,
 * `/runs...`, `/approvals`, `/dlq`, `/outbox`, `/static...`.
 */
export function loadConsoleHandler(options: ConsoleMountOptions): HttpRequestHandler {
  // The console (its pages, the SDK clients it reads runs with) loads on its first request, not at start.
  let handler: Promise<HttpRequestHandler> | undefined;
  return async (req, res) => {
    handler ??= import('../console').then(({ createConsoleHandler }) =>
      createConsoleHandler({
        sfnEndpoint: options.sfnEndpoint,
        dlqUrl: options.dlqUrl,
        engineLabel: options.engineLabel,
        outboxDir: options.outboxDir,
        services: options.services,
      }),
    );
    return (await handler)(req, res);
  };
}
