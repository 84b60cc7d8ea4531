import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CloudAssemblyError, assetOfResource, readCloudAssembly, stackOf } from '../../src/cloud-assembly';

const dir = mkdtempSync(join(tmpdir(), 'autosave-assembly-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function writeAssembly(): void {
  mkdirSync(join(dir, 'asset.abc123'), { recursive: true });
  writeFileSync(join(dir, 'asset.abc123', 'index.mjs'), 'export const handler = async () => 1;');
  writeFileSync(
    join(dir, 'manifest.json'),
    JSON.stringify({
      version: '55.0.0',
      artifacts: {
        'Demo.assets': { type: 'cdk:asset-manifest', properties: { file: 'Demo.assets.json' } },
        Demo: {
          type: 'aws:cloudformation:stack',
          environment: 'aws://unknown-account/unknown-region',
          properties: { templateFile: 'Demo.template.json' },
          dependencies: ['Demo.assets'],
        },
        Tree: { type: 'cdk:tree', properties: { file: 'tree.json' } },
      },
    }),
  );
  writeFileSync(
    join(dir, 'Demo.assets.json'),
    JSON.stringify({
      version: '55.0.0',
      files: {
        abc123: {
          displayName: 'Fn/Code',
          source: { path: 'asset.abc123', packaging: 'zip' },
          destinations: { d: { bucketName: 'b', objectKey: 'abc123.zip' } },
        },
      },
    }),
  );
  writeFileSync(
    join(dir, 'Demo.template.json'),
    JSON.stringify({
      Resources: {
        Fn: {
          Type: 'AWS::Lambda::Function',
          Properties: { Code: { S3Bucket: 'b', S3Key: 'abc123.zip' } },
          Metadata: { 'aws:asset:path': 'asset.abc123' },
        },
      },
    }),
  );
}

describe('readCloudAssembly', () => {
  writeAssembly();

  it('reads the stacks of manifest.json with their templates and file assets (paths made absolute)', () => {
    const assembly = readCloudAssembly(dir);
    expect(assembly.version).toBe('55.0.0');
    expect(assembly.stacks.map((s) => s.stackName)).toEqual(['Demo']);
    const stack = stackOf(assembly);
    expect(stack.templateFile).toBe(join(dir, 'Demo.template.json'));
    expect(stack.template.Resources.Fn.Type).toBe('AWS::Lambda::Function');
    expect(stack.assets.get('abc123')).toEqual({
      hash: 'abc123',
      displayName: 'Fn/Code',
      path: join(dir, 'asset.abc123'),
      packaging: 'zip',
      objectKeys: ['abc123.zip'],
    });
    expect(assetOfResource(stack, 'Fn')?.path).toBe(join(dir, 'asset.abc123'));
  });

  it('names what is missing: no manifest, an unknown stack', () => {
    expect(() => readCloudAssembly(join(dir, 'nope'))).toThrow(CloudAssemblyError);
    expect(() => stackOf(readCloudAssembly(dir), 'Other')).toThrow(/No stack "Other" .* \(stacks: Demo\)/);
  });
});
