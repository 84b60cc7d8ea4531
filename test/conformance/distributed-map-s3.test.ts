/**
 * A Distributed Map's item sources and sinks in S3, as AWS records them (localstack's AWS-validated
 * snapshots, tests/aws/services/stepfunctions/v2/scenarios/test_base_scenarios.snapshot.json and
 * v2/assign/test_assign_reference_variables.snapshot.json, named per case): ItemReader (s3:getObject as
 * JSON, JSON Lines or CSV; s3:listObjectsV2; ReaderConfig.MaxItems/MaxItemsPath), ItemBatcher and
 * ResultWriter, against a real local S3 (s3rver). Each case puts the objects the recorded test put.
 */
import { CreateBucketCommand, DeleteObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { EngineHarness, jsonata, jsonpath } from '../../packages/engine/test/support/engine-harness';
import { localS3ForTests } from './support/local-s3';
import { recordedEngine, runtimeCause } from './support/recorded-run';

const BUCKET = 'bucket-name';
const RESULT_BUCKET = 'result-bucket';
const s3 = localS3ForTests([BUCKET, RESULT_BUCKET]);
const engine = recordedEngine({}, { engine: s3.engineOptions });

const put = (Key: string, Body: string, Bucket = BUCKET) => s3.put(Bucket, Key, Body);
const read = async (Key: string, Bucket = RESULT_BUCKET) => JSON.parse(await s3.text(Bucket, Key));

const processor = {
  ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' },
  StartAt: 'PassItem',
  States: { PassItem: { Type: 'Pass', End: true } },
};
/** A definition with one distributed Map reading `reader` (JSONPath Parameters from the input's Bucket and Key). */
type Definition = { States: Record<string, Record<string, unknown>> };
const readerMap = (readerConfig: object, extra: object = {}): Definition =>
  jsonpath({
    MapState: {
      Type: 'Map',
      MaxConcurrency: 1,
      ItemReader: {
        ReaderConfig: readerConfig,
        Resource: 'arn:aws:states:::s3:getObject',
        Parameters: { 'Bucket.$': '$.Bucket', 'Key.$': '$.Key' },
      },
      ItemProcessor: processor,
      End: true,
      ...extra,
    },
  }) as Definition;
/** The run's output as the text AWS records (key order included). */
const outputText = (run: { outcome: object }) => JSON.stringify((run.outcome as { output?: unknown }).output);

const VERDICTS = [
  { verdict: 'true', statement_date: '6/11/2008', statement_source: 'speech' },
  { verdict: 'false', statement_date: '6/7/2022', statement_source: 'television' },
  { verdict: 'mostly-true', statement_date: '5/18/2016', statement_source: 'news' },
];
const READER_RUN = [
  'ExecutionStarted',
  'MapStateEntered',
  'MapStateStarted',
  'MapRunStarted',
  'MapRunSucceeded',
  'MapStateSucceeded',
  'MapStateExited',
  'ExecutionSucceeded',
];
const READER_FAILED = [
  'ExecutionStarted',
  'MapStateEntered',
  'MapStateStarted',
  'MapRunStarted',
  'MapRunFailed',
  'MapStateFailed',
  'ExecutionFailed',
];

describe('ItemReader s3:getObject, InputType JSON', () => {
  it('maps over the JSON array in the object; MapStateStarted has length 0 (test_map_item_reader_base_json)', async () => {
    await put('file.json', JSON.stringify(VERDICTS));
    const run = await engine.run(readerMap({ InputType: 'JSON' }), { Bucket: BUCKET, Key: 'file.json' });
    expect(run.types).toEqual(READER_RUN);
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output: VERDICTS });
    expect(run.events[2].mapStateStartedEventDetails).toEqual({ length: 0 });
    expect(run.events.map((e) => [e.id, e.previousEventId]).slice(0, 6)).toEqual([
      [1, 0],
      [2, 0],
      [3, 2],
      [4, 3],
      [5, 4],
      [6, 5],
    ]);
  });

  it('MaxItems reads the first items only (test_map_item_reader_base_json_max_items)', async () => {
    await put('file-3.json', JSON.stringify([VERDICTS[0], VERDICTS[0], VERDICTS[0]]));
    const run = await engine.run(readerMap({ InputType: 'JSON', MaxItems: 2 }), { Bucket: BUCKET, Key: 'file-3.json' });
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output: [VERDICTS[0], VERDICTS[0]] });
  });

  it('an object that is not a JSON list fails the map run with States.ItemReaderFailed (test_map_item_reader_json_no_json_list_object)', async () => {
    await put('object.json', JSON.stringify({ Hello: 'world' }));
    const run = await engine.run(readerMap({ InputType: 'JSON' }), { Bucket: BUCKET, Key: 'object.json' });
    expect(run.types).toEqual(READER_FAILED);
    const failure = { error: 'States.ItemReaderFailed', cause: 'Attempting to map over non-iterable node.' };
    expect(run.events[4].mapRunFailedEventDetails).toEqual(failure);
    expect(run.events[5]).not.toHaveProperty('mapStateFailedEventDetails');
    expect(run.outcome).toEqual({ status: 'FAILED', ...failure });
  });

  it('ItemsPath does not apply to the items an ItemReader reads (test_map_item_reader_base_json_with_items_path[INVALID_ITEMS_PATH])', async () => {
    await put('nested.json', JSON.stringify([['from-bucket-item-0']]));
    const def = jsonpath({
      LoadState: {
        Type: 'Pass',
        Parameters: { 'Bucket.$': '$.Bucket', 'Key.$': '$.Key', from_previous: ['from-previous-item-0'] },
        Next: 'MapState',
      },
      MapState: { ...readerMap({ InputType: 'JSON' }).States.MapState, ItemsPath: '$.no_such_path_in_bucket_result' },
    });
    const run = await engine.run(def, { Bucket: BUCKET, Key: 'nested.json', from_input_items: ['input-item-0'] });
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output: [['from-bucket-item-0']] });
  });

  it('JSONata: Arguments and a JSONata MaxItems (test_map_item_reader_base_json_max_items_jsonata)', async () => {
    await put('file.json', JSON.stringify(VERDICTS));
    const def = jsonata({
      MapState: {
        Type: 'Map',
        MaxConcurrency: 1,
        ItemReader: {
          ReaderConfig: { InputType: 'JSON', MaxItems: '{% $maxItems := 2 %}' },
          Resource: 'arn:aws:states:::s3:getObject',
          Arguments: { Bucket: '{% $states.input.Bucket %}', Key: '{% $states.input.Key %}' },
        },
        ItemProcessor: processor,
        End: true,
      },
    });
    const run = await engine.run(def, { Bucket: BUCKET, Key: 'file.json', MaxItems: 2 });
    expect(run.types).toEqual(READER_RUN);
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output: VERDICTS.slice(0, 2) });
  });

  it('MaxItemsPath to a variable holding the text "2" reads two items (test_reference_in_map_state_max_items_path[MAP_STATE_REFERENCE_IN_MAX_ITEMS_PATH])', async () => {
    await put(
      'file-4.json',
      JSON.stringify([...VERDICTS, { verdict: 'false', statement_date: '5/18/2024', statement_source: 'x' }]),
    );
    const def = jsonpath({
      Start: { Type: 'Pass', Assign: { maxItems: '2' }, Next: 'MapState' },
      MapState: readerMap({ InputType: 'JSON', MaxItemsPath: '$maxItems' }).States.MapState,
    });
    const run = await engine.run(def, { Bucket: BUCKET, Key: 'file-4.json' });
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output: VERDICTS.slice(0, 2) });
  });

  it("a missing object fails the map run with States.ItemReaderFailed and S3's message (the S3 error as test_s3_no_such_key words it)", async () => {
    const run = await engine.run(readerMap({ InputType: 'JSON' }), { Bucket: BUCKET, Key: 'no_such_key.json' });
    expect(run.types).toEqual(READER_FAILED);
    expect(run.outcome).toMatchObject({ status: 'FAILED', error: 'States.ItemReaderFailed' });
    expect((run.outcome as { cause: string }).cause).toMatch(
      /^The specified key does not exist\. \(Service: S3, Status Code: 404, Request ID: .+, Extended Request ID: .+\)$/,
    );
  });

  it.each(['MANIFEST', 'PARQUET'])(
    'InputType %s, which AWS reads and the engine does not: created, and the map run fails with States.ItemReaderFailed naming the ways to serve it',
    async (inputType) => {
      await put(`file.${inputType}`, 'x');
      const run = await engine.run(readerMap({ InputType: inputType }), { Bucket: BUCKET, Key: `file.${inputType}` });
      expect(run.types).toEqual(READER_FAILED);
      expect(run.outcome).toMatchObject({
        status: 'FAILED',
        error: 'States.ItemReaderFailed',
        cause: expect.stringContaining('mock config'),
      });
    },
  );

  it('a Catch on States.ItemReaderFailed takes the reader failure', async () => {
    const def = readerMap(
      { InputType: 'JSON' },
      { Catch: [{ ErrorEquals: ['States.ItemReaderFailed'], Next: 'Caught' }], Next: 'Caught' },
    );
    def.States.Caught = { Type: 'Pass', End: true };
    delete def.States.MapState.End;
    const run = await engine.run(def, { Bucket: BUCKET, Key: 'no_such_key.json' });
    expect(run.types).toEqual([
      'ExecutionStarted',
      'MapStateEntered',
      'MapStateStarted',
      'MapRunStarted',
      'MapRunFailed',
      'MapStateFailed',
      'MapStateExited',
      'PassStateEntered',
      'PassStateExited',
      'ExecutionSucceeded',
    ]);
    expect(run.outcome).toMatchObject({ status: 'SUCCEEDED', output: { Error: 'States.ItemReaderFailed' } });
  });
});

describe('ItemReader s3:getObject, InputType CSV', () => {
  const CSV = "Col1,Col2,Col3\nValue1,Value2,Value3\nValue4,Value5,Value6\n,,,\ntrue,1,'HelloWorld'\nNull,None,\n   \n";
  const BODY = "Value1,Value2,Value3\nValue4,Value5,Value6\n,,,\ntrue,1,'HelloWorld'\nNull,None,\n   \n";

  it('CSVHeaderLocation FIRST_ROW: one object per row, every value a string, short rows filled with "" (test_map_item_reader_base_csv_headers_first_line)', async () => {
    await put('file.csv', CSV);
    const run = await engine.run(readerMap({ InputType: 'CSV', CSVHeaderLocation: 'FIRST_ROW' }), {
      Bucket: BUCKET,
      Key: 'file.csv',
    });
    expect(run.types).toEqual(READER_RUN);
    expect(outputText(run)).toBe(
      '[{"Col1":"Value1","Col2":"Value2","Col3":"Value3"},{"Col1":"Value4","Col2":"Value5","Col3":"Value6"},{"Col1":"","Col2":"","Col3":""},{"Col1":"true","Col2":"1","Col3":"\'HelloWorld\'"},{"Col1":"Null","Col2":"None","Col3":""},{"Col1":"   ","Col2":"","Col3":""}]',
    );
  });

  it("a row's fields come in the order AWS records, not column order (test_map_item_reader_csv_headers_first_row_typed_headers)", async () => {
    await put('typed.csv', "0,True,{}\nValue4,Value5,Value6\n,,,\ntrue,1,'HelloWorld'\nNull,None,\n   \n");
    const run = await engine.run(readerMap({ InputType: 'CSV', CSVHeaderLocation: 'FIRST_ROW' }), {
      Bucket: BUCKET,
      Key: 'typed.csv',
    });
    expect(outputText(run)).toBe(
      '[{"0":"Value4","{}":"Value6","True":"Value5"},{"0":"","{}":"","True":""},{"0":"true","{}":"\'HelloWorld\'","True":"1"},{"0":"Null","{}":"","True":"None"},{"0":"   ","{}":"","True":""}]',
    );
  });

  it('a first row with an empty header names a field "" and fields past the headers are dropped (test_map_item_reader_csv_first_row_extra_fields)', async () => {
    await put('extra.csv', "H1,\nValue4,Value5,Value6\n,,,\ntrue,1,'HelloWorld'\nNull,None,\n   \n");
    const run = await engine.run(readerMap({ InputType: 'CSV', CSVHeaderLocation: 'FIRST_ROW' }), {
      Bucket: BUCKET,
      Key: 'extra.csv',
    });
    expect(outputText(run)).toBe(
      '[{"":"Value5","H1":"Value4"},{"":"","H1":""},{"":"1","H1":"true"},{"":"None","H1":"Null"},{"":"","H1":"   "}]',
    );
  });

  it('CSVHeaderLocation GIVEN names the fields by CSVHeaders (test_map_item_reader_base_csv_headers_decl)', async () => {
    await put('body.csv', BODY);
    const run = await engine.run(
      readerMap({ InputType: 'CSV', CSVHeaderLocation: 'GIVEN', CSVHeaders: ['H1', 'H2', 'H3'] }),
      { Bucket: BUCKET, Key: 'body.csv' },
    );
    expect(outputText(run)).toBe(
      '[{"H1":"Value1","H2":"Value2","H3":"Value3"},{"H1":"Value4","H2":"Value5","H3":"Value6"},{"H1":"","H2":"","H3":""},{"H1":"true","H2":"1","H3":"\'HelloWorld\'"},{"H1":"Null","H2":"None","H3":""},{"H1":"   ","H2":"","H3":""}]',
    );
  });

  it('fewer CSVHeaders than fields keeps only the named ones (test_map_item_reader_csv_headers_decl_extra_fields)', async () => {
    await put('body.csv', BODY);
    const run = await engine.run(readerMap({ InputType: 'CSV', CSVHeaderLocation: 'GIVEN', CSVHeaders: ['H1'] }), {
      Bucket: BUCKET,
      Key: 'body.csv',
    });
    expect(outputText(run)).toBe(
      '[{"H1":"Value1"},{"H1":"Value4"},{"H1":""},{"H1":"true"},{"H1":"Null"},{"H1":"   "}]',
    );
  });

  it('duplicate CSVHeaders fail the map run (test_map_item_reader_csv_headers_decl_duplicate_headers)', async () => {
    await put('body.csv', BODY);
    const run = await engine.run(
      readerMap({ InputType: 'CSV', CSVHeaderLocation: 'GIVEN', CSVHeaders: ['H1', 'H1', 'H3'] }),
      { Bucket: BUCKET, Key: 'body.csv' },
    );
    expect(run.types).toEqual(READER_FAILED);
    expect(run.outcome).toEqual({
      status: 'FAILED',
      error: 'States.ItemReaderFailed',
      cause: 'CSV headers cannot contain duplicates.',
    });
  });

  const ROWS = 'Col1,Col2\nValue1,Value2\nValue3,Value4\nValue5,Value6\nValue7,Value8\n';
  const ALL = [
    { Col1: 'Value1', Col2: 'Value2' },
    { Col1: 'Value3', Col2: 'Value4' },
    { Col1: 'Value5', Col2: 'Value6' },
    { Col1: 'Value7', Col2: 'Value8' },
  ];

  it.each([
    { maxItems: 0, output: ALL },
    { maxItems: 2, output: ALL.slice(0, 2) },
    { maxItems: 100_000_000, output: ALL },
  ])('MaxItems $maxItems (test_map_item_reader_csv_max_items[$maxItems])', async ({ maxItems, output }) => {
    await put('rows.csv', ROWS);
    const run = await engine.run(readerMap({ InputType: 'CSV', CSVHeaderLocation: 'FIRST_ROW', MaxItems: maxItems }), {
      Bucket: BUCKET,
      Key: 'rows.csv',
    });
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output });
  });

  const byPath = readerMap({ InputType: 'CSV', CSVHeaderLocation: 'FIRST_ROW', MaxItemsPath: '$.MaxItems' });
  it.each([
    { maxItems: 0, output: ALL },
    { maxItems: 2, output: ALL.slice(0, 2) },
    { maxItems: 100_000_000, output: ALL },
    { maxItems: 100_000_001, output: ALL },
  ])(
    'MaxItemsPath to $maxItems (test_map_item_reader_csv_max_items_paths[$maxItems])',
    async ({ maxItems, output }) => {
      await put('rows.csv', ROWS);
      const run = await engine.run(byPath, { Bucket: BUCKET, Key: 'rows.csv', MaxItems: maxItems });
      expect(run.types).toEqual(READER_RUN);
      expect(run.outcome).toEqual({ status: 'SUCCEEDED', output });
    },
  );

  it('MaxItemsPath to -1 fails the map run once started (test_map_item_reader_csv_max_items_paths[-1])', async () => {
    await put('rows.csv', ROWS);
    const run = await engine.run(byPath, { Bucket: BUCKET, Key: 'rows.csv', MaxItems: -1 });
    expect(run.types).toEqual(READER_FAILED);
    expect(run.outcome).toEqual({
      status: 'FAILED',
      error: 'States.ItemReaderFailed',
      cause: 'field MaxItems must be positive',
    });
  });

  it('MaxItemsPath to 1.5 fails the state after MapStateStarted, before the map run (test_map_item_reader_csv_max_items_paths[1.5])', async () => {
    await put('rows.csv', ROWS);
    const run = await engine.run(byPath, { Bucket: BUCKET, Key: 'rows.csv', MaxItems: 1.5 });
    expect(run.types).toEqual(['ExecutionStarted', 'MapStateEntered', 'MapStateStarted', 'ExecutionFailed']);
    expect(run.outcome).toEqual({
      status: 'FAILED',
      error: 'States.Runtime',
      cause: runtimeCause(
        'MapState',
        2,
        'The MaxItemsPath field refers to value "1.5" which is not a valid integer: $.MaxItems',
      ),
    });
  });
});

describe('ItemReader s3:getObject, InputType JSONL and CSVDelimiter (AWS ItemReader docs)', () => {
  it('JSONL: one item per non-empty line', async () => {
    await put('lines.jsonl', '{"a":1}\n\n[2]\n"three"\n');
    const run = await engine.run(readerMap({ InputType: 'JSONL' }), { Bucket: BUCKET, Key: 'lines.jsonl' });
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output: [{ a: 1 }, [2], 'three'] });
  });

  it('CSVDelimiter PIPE splits the fields at |', async () => {
    await put('pipes.csv', 'H1|H2\nv1|v,2\n');
    const run = await engine.run(
      readerMap({ InputType: 'CSV', CSVHeaderLocation: 'FIRST_ROW', CSVDelimiter: 'PIPE' }),
      { Bucket: BUCKET, Key: 'pipes.csv' },
    );
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output: [{ H1: 'v1', H2: 'v,2' }] });
  });
});

describe('ItemReader s3:listObjectsV2', () => {
  it("maps over the bucket's objects: Etag, Key, LastModified, Size, StorageClass (test_map_item_reader_base_list_objects_v2)", async () => {
    const bucket = 'listed-bucket';
    await startBucket(bucket);
    for (let i = 0; i < 3; i++) await put(`file_${i}.txt`, `${i}HelloWorld!`, bucket);
    const def = jsonpath({
      MapState: {
        Type: 'Map',
        MaxConcurrency: 1,
        ItemReader: { Resource: 'arn:aws:states:::s3:listObjectsV2', Parameters: { 'Bucket.$': '$.Bucket' } },
        ItemProcessor: processor,
        End: true,
      },
    });
    const run = await engine.run(def, { Bucket: bucket });
    expect(run.types).toEqual(READER_RUN);
    const output = (run.outcome as { output: Record<string, unknown>[] }).output;
    expect(output.map((o) => [o.Key, o.Size, o.StorageClass])).toEqual([
      ['file_0.txt', 12, 'STANDARD'],
      ['file_1.txt', 12, 'STANDARD'],
      ['file_2.txt', 12, 'STANDARD'],
    ]);
    expect(Object.keys(output[0]).sort()).toEqual(['Etag', 'Key', 'LastModified', 'Size', 'StorageClass']);
  });
});

describe('ItemBatcher', () => {
  it('MaxItemsPerBatchPath and MaxInputBytesPerBatchPath to variables holding text batch the items as {Items} (test_reference_in_map_state_max_items_path[MAP_STATE_REFERENCE_IN_MAX_PER_BATCH_PATH])', async () => {
    const four = [...VERDICTS, { verdict: 'false', statement_date: '5/18/2024', statement_source: 'x' }];
    await put('file-4.json', JSON.stringify(four));
    const def = jsonpath({
      Start: { Type: 'Pass', Assign: { maxItemsPerBatch: '2', maxBytesPerBatch: '15000' }, Next: 'BatchMapState' },
      BatchMapState: {
        ...readerMap({ InputType: 'JSON', MaxItems: 4 }).States.MapState,
        ItemBatcher: { MaxItemsPerBatchPath: '$maxItemsPerBatch', MaxInputBytesPerBatchPath: '$maxBytesPerBatch' },
      },
    });
    const run = await engine.run(def, { Bucket: BUCKET, Key: 'file-4.json' });
    expect(run.outcome).toEqual({
      status: 'SUCCEEDED',
      output: [{ Items: four.slice(0, 2) }, { Items: four.slice(2) }],
    });
  });

  it('JSONata: BatchInput is evaluated and comes before Items (test_map_item_batching_base_json_max_per_batch_jsonata)', async () => {
    await put('file.json', JSON.stringify(VERDICTS));
    const def = jsonata({
      BatchMapState: {
        Type: 'Map',
        ItemReader: {
          ReaderConfig: { InputType: 'JSON', MaxItems: 2 },
          Resource: 'arn:aws:states:::s3:getObject',
          Arguments: { Bucket: '{% $states.input.Bucket %}', Key: '{% $states.input.Key %}' },
        },
        ItemBatcher: {
          MaxItemsPerBatch: '{% $states.input.MaxItemsPerBatch %}',
          MaxInputBytesPerBatch: '{% $states.input.MaxInputBytesPerBatch %}',
          BatchInput: { BatchTimestamp: '{% $states.context.State.EnteredTime %}' },
        },
        ItemProcessor: { ...processor, StartAt: 'ProcessBatch', States: { ProcessBatch: { Type: 'Pass', End: true } } },
        End: true,
      },
    });
    const run = await engine.run(def, {
      Bucket: BUCKET,
      Key: 'file.json',
      MaxItemsPerBatch: 2,
      MaxInputBytesPerBatch: 150_000,
    });
    expect(run.types).toEqual(READER_RUN);
    const output = (run.outcome as { output: { BatchInput: { BatchTimestamp: string } }[] }).output;
    expect(output).toHaveLength(1);
    expect(Object.keys(output[0])).toEqual(['BatchInput', 'Items']);
    expect(output[0]).toEqual({
      BatchInput: { BatchTimestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
      Items: VERDICTS.slice(0, 2),
    });
  });

  it("batches the items of the state input too, without an ItemReader (MaxInputBytesPerBatch bounds a batch's JSON)", async () => {
    const def = jsonpath({
      MapState: { Type: 'Map', ItemBatcher: { MaxInputBytesPerBatch: 30 }, ItemProcessor: processor, End: true },
    });
    // {"Items":["aaaa","bbbb"]} is 25 bytes; a third item would make it 32.
    const run = await engine.run(def, ['aaaa', 'bbbb', 'cccc', 'dddd', 'eeee']);
    expect(run.outcome).toEqual({
      status: 'SUCCEEDED',
      output: [{ Items: ['aaaa', 'bbbb'] }, { Items: ['cccc', 'dddd'] }, { Items: ['eeee'] }],
    });
  });
});

describe('ResultWriter to S3', () => {
  it('writes the map run to <Prefix>/<run id>/manifest.json and outputs MapRunArn with ResultWriterDetails (test_map_state_result_writer)', async () => {
    const def = jsonpath({
      MapState: {
        Type: 'Map',
        ItemProcessor: {
          ...processor,
          StartAt: 'IteratorInner',
          States: { IteratorInner: { Type: 'Pass', End: true } },
        },
        ResultWriter: {
          Resource: 'arn:aws:states:::s3:putObject',
          Parameters: { Bucket: RESULT_BUCKET, Prefix: 'mapJobs' },
        },
        Label: 'TestMap',
        End: true,
      },
    });
    const run = await engine.run(def, ['Hello', 'World']);
    expect(run.types).toEqual(READER_RUN);
    expect(run.events[2].mapStateStartedEventDetails).toEqual({ length: 2 });
    const mapRunArn = (run.events[3].mapRunStartedEventDetails as { mapRunArn: string }).mapRunArn;
    const runId = mapRunArn.split(':').pop();
    expect(run.outcome).toEqual({
      status: 'SUCCEEDED',
      output: {
        MapRunArn: mapRunArn,
        ResultWriterDetails: { Bucket: RESULT_BUCKET, Key: `mapJobs/${runId}/manifest.json` },
      },
    });
    const manifest = await read(`mapJobs/${runId}/manifest.json`);
    expect(manifest).toMatchObject({
      DestinationBucket: RESULT_BUCKET,
      MapRunArn: mapRunArn,
      ResultFiles: { FAILED: [], PENDING: [] },
    });
    expect(manifest.ResultFiles.SUCCEEDED).toEqual([
      { Key: `mapJobs/${runId}/SUCCEEDED_0.json`, Size: expect.any(Number) },
    ]);
    const succeeded = await read(`mapJobs/${runId}/SUCCEEDED_0.json`);
    expect(
      succeeded.map((r: { Input: string; Output: string; Status: string }) => [r.Input, r.Output, r.Status]),
    ).toEqual([
      ['"Hello"', '"Hello"', 'SUCCEEDED'],
      ['"World"', '"World"', 'SUCCEEDED'],
    ]);
  });

  it("WriterConfig alone formats the output without writing: FLATTEN flattens the iterations' arrays (AWS ResultWriter docs)", async () => {
    const def = jsonpath({
      MapState: {
        Type: 'Map',
        ItemProcessor: processor,
        ResultWriter: { WriterConfig: { Transformation: 'FLATTEN', OutputType: 'JSON' } },
        End: true,
      },
    });
    const run = await engine.run(def, [[1, 2], [3], 4]);
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output: [1, 2, 3, 4] });
  });

  it('WriterConfig COMPACT and JSONL write the outputs alone, one line each (AWS ResultWriter docs)', async () => {
    const def = jsonpath({
      MapState: {
        Type: 'Map',
        ItemProcessor: processor,
        ResultWriter: {
          Resource: 'arn:aws:states:::s3:putObject',
          Parameters: { Bucket: RESULT_BUCKET, Prefix: 'compact' },
          WriterConfig: { Transformation: 'COMPACT', OutputType: 'JSONL' },
        },
        End: true,
      },
    });
    const run = await engine.run(def, [{ a: 1 }, 'b']);
    const { ResultWriterDetails } = (run.outcome as { output: { ResultWriterDetails: { Key: string } } }).output;
    const manifest = await read(ResultWriterDetails.Key);
    expect(await s3.text(RESULT_BUCKET, manifest.ResultFiles.SUCCEEDED[0].Key)).toBe('{"a":1}\n"b"');
  });

  it('a bucket that does not exist fails the map run with States.ResultWriterFailed', async () => {
    const def = jsonpath({
      MapState: {
        Type: 'Map',
        ItemProcessor: processor,
        ResultWriter: {
          Resource: 'arn:aws:states:::s3:putObject',
          Parameters: { Bucket: 'no-such-bucket', Prefix: 'p' },
        },
        End: true,
      },
    });
    const run = await engine.run(def, ['Hello']);
    expect(run.types).toEqual(READER_FAILED);
    expect(run.outcome).toMatchObject({ status: 'FAILED', error: 'States.ResultWriterFailed' });
  });
});

describe('a restart', () => {
  it("resumes a Map Run on the items it read, and writes its results (the read is committed with the Map's start, not repeated)", async () => {
    await put('restart.json', JSON.stringify([1, 2]));
    const h = await new EngineHarness({}, s3.engineOptions).start();
    let after: EngineHarness | undefined;
    try {
      const def = jsonpath({
        MapState: {
          ...readerMap({ InputType: 'JSON' }).States.MapState,
          ItemProcessor: { ...processor, StartAt: 'Hold', States: { Hold: { Type: 'Wait', Seconds: 60, End: true } } },
          ResultWriter: {
            Resource: 'arn:aws:states:::s3:putObject',
            Parameters: { Bucket: RESULT_BUCKET, Prefix: 'restart' },
          },
        },
      });
      const arn = await h.run(await h.machine(def), { Bucket: BUCKET, Key: 'restart.json' });
      expect((await h.describe(arn)).status).toBe('RUNNING');
      // Gone from S3: a second read would fail the Map Run.
      await s3.client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: 'restart.json' }));
      await h.engine.stop();
      after = await h.restart();
      for (let i = 0; i < 5 && (await after.describe(arn)).status === 'RUNNING'; i++) await after.clock.advance(61_000);
      const done = await after.describe(arn);
      expect(done.status).toBe('SUCCEEDED');
      const { ResultWriterDetails } = JSON.parse(done.output);
      const manifest = await read(ResultWriterDetails.Key);
      const succeeded = await read(manifest.ResultFiles.SUCCEEDED[0].Key);
      expect(succeeded.map((r: { Input: string }) => r.Input)).toEqual(['1', '2']);
    } finally {
      await after?.engine.stop();
      await h.close();
    }
  });
});

describe('definitions', () => {
  it.each(['ItemReader', 'ItemBatcher', 'ResultWriter'])('%s on an inline Map is refused', async (field) => {
    const value = {
      ItemReader: {
        Resource: 'arn:aws:states:::s3:getObject',
        ReaderConfig: { InputType: 'JSON' },
        Parameters: { Bucket: 'b', Key: 'k' },
      },
      ItemBatcher: { MaxItemsPerBatch: 2 },
      ResultWriter: { Resource: 'arn:aws:states:::s3:putObject', Parameters: { Bucket: 'b' } },
    }[field];
    const def = jsonpath({
      MapState: {
        Type: 'Map',
        [field]: value,
        ItemProcessor: { StartAt: 'P', States: { P: { Type: 'Pass', End: true } } },
        End: true,
      },
    });
    expect(await engine.create(def)).toMatchObject({ name: 'InvalidDefinition' });
  });

  it('an ItemReader resource the engine does not read is refused at creation', async () => {
    const def = jsonpath({
      MapState: {
        Type: 'Map',
        ItemReader: { Resource: 'arn:aws:states:::s3:headObject', Parameters: {} },
        ItemProcessor: processor,
        End: true,
      },
    });
    expect(await engine.create(def)).toMatchObject({
      name: 'InvalidDefinition',
      message: expect.stringContaining('ItemReader.Resource'),
    });
  });
});

async function startBucket(name: string): Promise<void> {
  await s3.client.send(new CreateBucketCommand({ Bucket: name }));
}
