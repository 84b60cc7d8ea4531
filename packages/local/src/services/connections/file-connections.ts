/**
 * The EventBridge connections `http:invoke` Tasks name, read from a local JSON file (the engine has no
 * EventBridge connections, and their secrets belong to the user's machine): by connection ARN (or name),
 * in CreateConnection's own shape — `AuthorizationType` BASIC, API_KEY or OAUTH_CLIENT_CREDENTIALS and
 * its `AuthParameters`, with `InvocationHttpParameters` headers and query parameters added to every call.
 * OAuth is given as an `AccessToken` (no token exchange is made locally).
 *
 *     { "connections": { "arn:aws:events:us-east-1:123456789012:connection/Stripe/...": {
 *         "AuthorizationType": "API_KEY",
 *         "AuthParameters": { "ApiKeyAuthParameters": { "ApiKeyName": "Authorization", "ApiKeyValue": "Bearer sk_test_..." } } } } }
 *
 * The file is read at each call, so an edit needs no restart.
 */
import { readFile } from 'node:fs/promises';
import { ServiceFault, type ConnectionAuth, type HttpConnections } from '@autosave/engine';

type KeyValue = { readonly Key?: string; readonly Value?: string };

/** A connection as the file describes it. */
export interface LocalConnection {
  readonly AuthorizationType: 'BASIC' | 'API_KEY' | 'OAUTH_CLIENT_CREDENTIALS';
  readonly AuthParameters?: {
    readonly BasicAuthParameters?: { readonly Username: string; readonly Password: string };
    readonly ApiKeyAuthParameters?: { readonly ApiKeyName: string; readonly ApiKeyValue: string };
    readonly OAuthParameters?: { readonly AccessToken?: string };
    readonly InvocationHttpParameters?: {
      readonly HeaderParameters?: readonly KeyValue[];
      readonly QueryStringParameters?: readonly KeyValue[];
    };
  };
}

const pairs = (list: readonly KeyValue[] | undefined): Record<string, string> =>
  Object.fromEntries(
    (list ?? []).filter((p) => typeof p.Key === 'string').map((p) => [p.Key as string, String(p.Value ?? '')]),
  );

export class FileConnections implements HttpConnections {
  constructor(readonly file: string) {}

  async resolve(connectionArn: string): Promise<ConnectionAuth> {
    let connections: Record<string, LocalConnection>;
    try {
      connections =
        (JSON.parse(await readFile(this.file, 'utf8')) as { connections?: Record<string, LocalConnection> })
          .connections ?? {};
    } catch (err) {
      throw new ServiceFault(
        'ResourceNotFoundException',
        `Connection '${connectionArn}' is not described: the connections file ${this.file} could not be read (${(err as Error).message})`,
        400,
      );
    }
    const name = /connection\/([^/]+)/.exec(connectionArn)?.[1];
    const connection = connections[connectionArn] ?? (name !== undefined ? connections[name] : undefined);
    if (!connection)
      throw new ServiceFault(
        'ResourceNotFoundException',
        `Connection '${connectionArn}' is not described in ${this.file}`,
        400,
      );
    const p = connection.AuthParameters ?? {};
    const headers = pairs(p.InvocationHttpParameters?.HeaderParameters);
    switch (connection.AuthorizationType) {
      case 'BASIC': {
        const b = p.BasicAuthParameters;
        if (b) headers.Authorization = `Basic ${Buffer.from(`${b.Username}:${b.Password}`).toString('base64')}`;
        break;
      }
      case 'API_KEY':
        if (p.ApiKeyAuthParameters) headers[p.ApiKeyAuthParameters.ApiKeyName] = p.ApiKeyAuthParameters.ApiKeyValue;
        break;
      case 'OAUTH_CLIENT_CREDENTIALS':
        if (p.OAuthParameters?.AccessToken) headers.Authorization = `Bearer ${p.OAuthParameters.AccessToken}`;
        break;
    }
    return { headers, query: pairs(p.InvocationHttpParameters?.QueryStringParameters) };
  }
}
