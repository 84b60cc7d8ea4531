/**
 * The `aws-sdk:s3` Task integration as AWS records it (localstack's AWS-validated snapshots:
 * v2/services/test_aws_sdk_task_service.snapshot.json test_s3_get_object / test_s3_put_object,
 * v2/error_handling/test_aws_sdk.snapshot.json test_no_such_bucket / test_s3_no_such_key), on a real local
 * S3 (s3rver). Each case puts the objects the recorded test put.
 */
import { describe, expect, it } from 'vitest';
import { jsonata, jsonpath } from '../../packages/engine/test/support/engine-harness';
import { localS3ForTests } from './support/local-s3';
import { recordedEngine } from './support/recorded-run';

const BUCKET = 'bucket-name';
const s3 = localS3ForTests([BUCKET]);
const engine = recordedEngine({}, { engine: s3.engineOptions });

const TASK_RUN = [
  'ExecutionStarted',
  'TaskStateEntered',
  'TaskScheduled',
  'TaskStarted',
  'TaskSucceeded',
  'TaskStateExited',
  'ExecutionSucceeded',
];
const S3_CAUSE = (message: string) =>
  new RegExp(
    `^${message.replace(/[.()]/g, '\\$&')} \\(Service: S3, Status Code: 404, Request ID: [^,]+, Extended Request ID: [^)]+\\)$`,
  );

describe('aws-sdk:s3:getObject', () => {
  it.each([
    ['str', 'text data', '"332eec544317a6d340b8e77da7fe54ad"'],
    ['empty_str', '', '"d41d8cd98f00b204e9800998ecf8427e"'],
    ['binary', 'binary data', '"e1a49b59e0c42e4fd3735ad644f25d57"'],
  ])('returns the object with its text as Body (test_s3_get_object[%s])', async (_id, body, etag) => {
    await s3.put(BUCKET, 'file_key', body);
    const def = jsonpath({
      S3GetObject: {
        Type: 'Task',
        Resource: 'arn:aws:states:::aws-sdk:s3:getObject',
        Parameters: { 'Bucket.$': '$.Bucket', 'Key.$': '$.Key' },
        End: true,
      },
    });
    const run = await engine.run(def, { Bucket: BUCKET, Key: 'file_key' });
    expect(run.types).toEqual(TASK_RUN);
    expect(run.events[2].taskScheduledEventDetails).toMatchObject({
      resource: 'getObject',
      resourceType: 'aws-sdk:s3',
      parameters: { Bucket: BUCKET, Key: 'file_key' },
    });
    const output = (run.outcome as { output: Record<string, unknown> }).output;
    expect(Object.keys(output)).toEqual([
      'AcceptRanges',
      'ContentLength',
      'ContentType',
      'ETag',
      'LastModified',
      'Metadata',
      'ServerSideEncryption',
      'Body',
    ]);
    expect(output).toMatchObject({
      AcceptRanges: 'bytes',
      ContentLength: Buffer.byteLength(body),
      ETag: etag,
      Metadata: {},
      ServerSideEncryption: 'AES256',
      Body: body,
    });
  });

  it("a missing key is S3.NoSuchKeyException with S3's words, caught by its name (test_s3_no_such_key)", async () => {
    const def = jsonata({
      StartState: {
        Type: 'Task',
        Resource: 'arn:aws:states:::aws-sdk:s3:getObject',
        Arguments: { Bucket: '{% $states.input.Bucket %}', Key: 'no_such_key.json' },
        Catch: [
          { ErrorEquals: ['S3.NoSuchKeyException'], Output: '{% $states.errorOutput %}', Next: 'NoSuchKeyState' },
        ],
        Next: 'TerminalState',
      },
      TerminalState: { Type: 'Succeed' },
      NoSuchKeyState: { Type: 'Fail' },
    });
    const run = await engine.run(def, { Bucket: BUCKET });
    expect(run.types).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      'TaskScheduled',
      'TaskStarted',
      'TaskFailed',
      'TaskStateExited',
      'FailStateEntered',
      'ExecutionFailed',
    ]);
    const failed = run.events[4].taskFailedEventDetails as { error: string; cause: string };
    expect(failed.error).toBe('S3.NoSuchKeyException');
    expect(failed.cause).toMatch(S3_CAUSE('The specified key does not exist.'));
  });
});

describe('aws-sdk:s3:putObject', () => {
  it.each([
    ['str', 'text data', '"text data"', 'KUmHvQ==', '"2b5df3712557f503a9977a8ea893b2c9"'],
    ['dict', { Dict: 'Value' }, '{"Dict":"Value"}', 'hnEfWw==', '"49e31cee5aec8faf3345893addb14346"'],
    ['list', ['List', 'Data'], '["List","Data"]', '1F2MPA==', '"6b23860357f6e63a0272b7f1143a663a"'],
    ['bool', false, 'false', 'K81oMA==', '"68934a3e9455fa72420237eb05902327"'],
    ['num', 0, '0', '9NvfIQ==', '"cfcd208495d565ef66e7dff9f98764da"'],
  ])(
    'stores the Body as its JSON, a string too, and answers ChecksumCRC32, ChecksumType, ETag, ServerSideEncryption (test_s3_put_object[%s])',
    async (id, body, stored, crc, etag) => {
      const def = jsonpath({
        S3PutObject: {
          Type: 'Task',
          Resource: 'arn:aws:states:::aws-sdk:s3:putObject',
          Parameters: { 'Bucket.$': '$.Bucket', 'Key.$': '$.Key', 'Body.$': '$.Body' },
          End: true,
        },
      });
      const run = await engine.run(def, { Bucket: BUCKET, Key: `file-key-${id}`, Body: body });
      expect(run.types).toEqual(TASK_RUN);
      expect(run.outcome).toEqual({
        status: 'SUCCEEDED',
        output: { ChecksumCRC32: crc, ChecksumType: 'FULL_OBJECT', ETag: etag, ServerSideEncryption: 'AES256' },
      });
      expect(await s3.text(BUCKET, `file-key-${id}`)).toBe(stored);
      expect((await s3.head(BUCKET, `file-key-${id}`)).ContentType).toBe('text/plain; charset=UTF-8');
    },
  );
});

describe('aws-sdk:s3 errors', () => {
  it('a bucket that does not exist is S3.NoSuchBucketException, which States.TaskFailed catches (test_no_such_bucket)', async () => {
    const def = jsonpath({
      CreateSecret: {
        Type: 'Task',
        Resource: 'arn:aws:states:::aws-sdk:s3:listObjects',
        Parameters: { 'Bucket.$': '$.Bucket' },
        Catch: [{ ErrorEquals: ['States.TaskFailed'], ResultPath: '$.TaskFailedError', Next: 'TaskFailedHandler' }],
        End: true,
      },
      TaskFailedHandler: { Type: 'Pass', End: true },
    });
    const run = await engine.run(def, { Bucket: 'someNonexistentBucketName' });
    expect(run.types).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      'TaskScheduled',
      'TaskStarted',
      'TaskFailed',
      'TaskStateExited',
      'PassStateEntered',
      'PassStateExited',
      'ExecutionSucceeded',
    ]);
    const output = (run.outcome as { output: { TaskFailedError: { Error: string; Cause: string } } }).output;
    expect(output.TaskFailedError.Error).toBe('S3.NoSuchBucketException');
    expect(output.TaskFailedError.Cause).toMatch(S3_CAUSE('The specified bucket does not exist'));
  });

  it('an S3 action AWS does not have is refused at creation (one it has but the engine does not run: unserved-integrations.test.ts)', async () => {
    const def = jsonpath({
      T: { Type: 'Task', Resource: 'arn:aws:states:::aws-sdk:s3:noSuchAction', Parameters: {}, End: true },
    });
    expect(await engine.create(def)).toMatchObject({ name: 'InvalidDefinition' });
  });
});

describe('aws-sdk:s3 copyObject, deleteObjects, getObjectAttributes', () => {
  it('copyObject copies the object and answers CopyObjectResult with its ETag', async () => {
    await s3.put(BUCKET, 'source.txt', 'copy me');
    const def = jsonata({
      Copy: {
        Type: 'Task',
        Resource: 'arn:aws:states:::aws-sdk:s3:copyObject',
        Arguments: { Bucket: BUCKET, CopySource: `${BUCKET}/source.txt`, Key: 'copy.txt' },
        End: true,
      },
    });
    const run = await engine.run(def);
    expect(run.outcome.status).toBe('SUCCEEDED');
    expect((run.outcome as { output: { CopyObjectResult: { ETag: string } } }).output.CopyObjectResult.ETag).toBe(
      (await s3.head(BUCKET, 'source.txt')).ETag,
    );
    expect(await s3.text(BUCKET, 'copy.txt')).toBe('copy me');
  });

  it('getObjectAttributes answers the attributes asked for: ETag without quotes, ObjectSize, StorageClass', async () => {
    await s3.put(BUCKET, 'attrs.txt', 'twelve bytes');
    const def = jsonata({
      Attrs: {
        Type: 'Task',
        Resource: 'arn:aws:states:::aws-sdk:s3:getObjectAttributes',
        Arguments: { Bucket: BUCKET, Key: 'attrs.txt', ObjectAttributes: ['ETag', 'ObjectSize', 'StorageClass'] },
        End: true,
      },
    });
    const run = await engine.run(def);
    const output = (run.outcome as { output: Record<string, unknown> }).output;
    expect(output).toMatchObject({
      ETag: String((await s3.head(BUCKET, 'attrs.txt')).ETag).replace(/"/g, ''),
      ObjectSize: 12,
      StorageClass: 'STANDARD',
    });
    expect(output.LastModified).toEqual(expect.any(String));
  });

  it('deleteObjects deletes each key and lists them as Deleted', async () => {
    await s3.put(BUCKET, 'a.txt', 'a');
    await s3.put(BUCKET, 'b.txt', 'b');
    const def = jsonata({
      Delete: {
        Type: 'Task',
        Resource: 'arn:aws:states:::aws-sdk:s3:deleteObjects',
        Arguments: { Bucket: BUCKET, Delete: { Objects: [{ Key: 'a.txt' }, { Key: 'b.txt' }] } },
        End: true,
      },
    });
    const run = await engine.run(def);
    const deleted = (run.outcome as { output: { Deleted: { Key: string }[] } }).output.Deleted.map((d) => d.Key).sort();
    expect(deleted).toEqual(['a.txt', 'b.txt']);
    await expect(s3.head(BUCKET, 'a.txt')).rejects.toThrow();
  });
});
