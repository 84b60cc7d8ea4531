/**
 * The local targets a user lets `http:invoke` call: `autosave local --allow-outbound` and the integrations
 * file's `outbound.allow` (docs/integrations.md), a malformed list refused naming the file.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '@autosave/workflow/config';
import { describe, expect, it } from 'vitest';
import { parseAllowOutboundFlag } from '../../src/cli/commands/local';
import { localIntegrations } from '../../src/services/local-integrations';
import type { LocalSqs } from '../../src/services/sqs/local-sqs';

const withFile = (content: unknown) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'autosave-outbound-'));
  writeFileSync(join(dataDir, 'integrations.json'), JSON.stringify(content));
  return () =>
    localIntegrations({
      dataDir,
      clock: systemClock,
      sqs: {} as LocalSqs,
      invokeLambda: async () => ({}) as never,
      startExecution: async () => undefined,
      modelProvider: 'scripted',
    });
};

describe('the local targets http:invoke may call', () => {
  it('--allow-outbound takes host or host:port, comma-separated', () => {
    expect(parseAllowOutboundFlag('127.0.0.1:8080, localhost,[::1]:9000,')).toEqual([
      '127.0.0.1:8080',
      'localhost',
      '[::1]:9000',
    ]);
  });

  it("reads the integrations file's outbound.allow", () => {
    expect(withFile({ outbound: { allow: ['127.0.0.1:8080'] } })().allowOutbound).toEqual(['127.0.0.1:8080']);
    expect(withFile({})().allowOutbound).toEqual([]);
  });

  it.each([[{ outbound: { allow: '127.0.0.1' } }], [{ outbound: { allow: [8080] } }], [{ outbound: { allow: [''] } }]])(
    'refuses outbound.allow %j, naming the file and the key',
    (content) => {
      expect(withFile(content)).toThrow(/integrations\.json: outbound\.allow must be a list of local targets/);
    },
  );
});
