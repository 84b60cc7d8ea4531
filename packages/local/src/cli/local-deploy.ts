/** The client side of `autosave deploy --local`: hands an assembly to a running engine started with `local --stack`. */

/** What the engine answers for a deploy (local/stack's StackDeployment on the wire). */
export interface LocalDeployAnswer {
  readonly stackName: string;
  readonly assemblyId: string;
  readonly changes: readonly {
    readonly logicalId: string;
    readonly type: string;
    readonly change: string;
    readonly physicalId?: string;
  }[];
  readonly notEmulated: readonly { readonly type: string; readonly count: number }[];
  readonly durationMillis: number;
}

/** The engine refused the deploy, or could not be reached. */
export class LocalDeployError extends Error {
  override readonly name = 'LocalDeployError';
}

/** POSTs the assembly directory to `<endpoint>/_autosave/stack/deploy` and waits for the update to finish. */
export async function deployToLocalEngine(
  endpoint: string,
  assemblyDir: string,
  stackName?: string,
): Promise<LocalDeployAnswer> {
  const base = endpoint.replace(/(?<!\/)\/+$/, '');
  let response: Response;
  try {
    response = await fetch(`${base}/_autosave/stack/deploy`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ assemblyDir, ...(stackName ? { stackName } : {}) }),
      signal: AbortSignal.timeout(10 * 60_000),
    });
  } catch (err) {
    throw new LocalDeployError(
      `cannot reach the engine at ${base} (${(err as Error).message}); start it with: npx autosave local --stack`,
      { cause: err },
    );
  }
  const body = (await response.json().catch(() => ({}))) as LocalDeployAnswer & { __type?: string; message?: string };
  if (!response.ok)
    throw new LocalDeployError(`${body.__type ?? response.status}: ${body.message ?? 'the engine refused the deploy'}`);
  return body;
}
