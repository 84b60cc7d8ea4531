/** What the engine and the server use of an AWS SDK client. */
export interface SdkClientLike {
  send(command: never): Promise<unknown>;
  destroy(): void;
}

/**
 * An AWS SDK client that loads its package and is created on its first `send`. A client package is tens
 * of megabytes and a good part of a second to load; most local runs never call S3, so the engine process
 * should not pay for it at boot (a restart answers sooner, and the process stays smaller).
 */
export function lazyClient<C extends SdkClientLike>(create: () => Promise<C>): C {
  let client: Promise<C> | undefined;
  const lazy: SdkClientLike = {
    send: (command) => (client ??= create()).then((c) => c.send(command)),
    destroy: () =>
      void client?.then(
        (c) => c.destroy(),
        () => undefined,
      ),
  };
  // Only `send` and `destroy` are there: what the engine's integrations and the server's shutdown call.
  return lazy as C;
}
