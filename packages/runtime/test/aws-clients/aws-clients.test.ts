import { describe, expect, it } from 'vitest';
import { createS3Client } from '@autosave/runtime/aws-clients';

describe('createS3Client', () => {
  it('uses path-style addressing when an endpoint override is set, virtual-host style otherwise', async () => {
    expect(await createS3Client({ AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:1' }).config.forcePathStyle).toBe(true);
    expect(await createS3Client({}).config.forcePathStyle).toBe(false);
  });
});
