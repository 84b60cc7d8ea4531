import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_TAG, SesEmailProvider, sendEmailTool } from '@autosave/runtime/tools';
import { sha256Hex } from '@autosave/runtime/records';

// A stand-in SES v2 endpoint (REST-JSON): records each SendEmail request.
let server: Server;
let endpoint: string;
const requests: { path: string; body: any }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      requests.push({ path: req.url ?? '', body: JSON.parse(body) });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ MessageId: `ses-${requests.length}` }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('SesEmailProvider', () => {
  it('passes the idempotency key as a header and a (hashed) message tag', async () => {
    const client = new SESv2Client({
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'y' },
    });
    const provider = new SesEmailProvider(client, 'noreply@autosave.example');
    const sent = await provider.send({ to: ['pi@site.example'], subject: 'Welcome', body: 'Hi' }, 'site-4412:welcome');
    expect(sent).toEqual({ messageId: 'ses-1', provider: 'ses', to: ['pi@site.example'], subject: 'Welcome' });
    const [request] = requests;
    expect(request.path).toBe('/v2/email/outbound-emails');
    expect(request.body.FromEmailAddress).toBe('noreply@autosave.example');
    expect(request.body.Content.Simple.Headers).toEqual([{ Name: IDEMPOTENCY_KEY_HEADER, Value: 'site-4412:welcome' }]);
    expect(request.body.EmailTags).toEqual([{ Name: IDEMPOTENCY_KEY_TAG, Value: sha256Hex('site-4412:welcome') }]);
  });

  it('offers no reconcile (SES cannot look a message up by key), so the tool has none', () => {
    const tool = sendEmailTool(new SesEmailProvider(new SESv2Client({ region: 'us-east-1' }), 'x@example.com'));
    expect(tool.reconcile).toBeUndefined();
  });
});
