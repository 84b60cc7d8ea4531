/**
 * A Distributed Map's item source: its `ItemReader` read from S3 as AWS reads it. `s3:getObject` reads one
 * object as a JSON array, JSON Lines or CSV rows; `s3:listObjectsV2` lists a bucket's objects. What goes
 * wrong while reading (the object or bucket missing, content that is not what `InputType` says, a negative
 * `MaxItems`) fails the Map Run with `States.ItemReaderFailed`, as AWS records it.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { StatesError } from '@autosave/workflow/errors';
import type { MapItemReaderSpec } from '../dataflow';
import { s3ErrorCause } from './aws-sdk-s3';

/** Most items a reader reads: AWS stops reading beyond 100,000,000 (a larger `MaxItems` reads them all). */
export const MAX_ITEM_READER_ITEMS = 100_000_000;

/** The reader failed: the Map Run fails with `States.ItemReaderFailed` and this message as its cause. */
export class ItemReaderFailedError extends Error {
  override readonly name = StatesError.ItemReaderFailed;
}

const GET_OBJECT = /^arn:aws[a-z-]*:states:::s3:getObject$/;
const LIST_OBJECTS_V2 = /^arn:aws[a-z-]*:states:::s3:listObjectsV2$/;

/** Whether the engine reads items from this `ItemReader.Resource`. */
export const isItemReaderResource = (resource: string): boolean =>
  GET_OBJECT.test(resource) || LIST_OBJECTS_V2.test(resource);

/** The `InputType`s of `s3:getObject` AWS takes (API reference, ItemReader ReaderConfig). */
export const ITEM_READER_INPUT_TYPES: readonly string[] = ['CSV', 'JSON', 'JSONL', 'MANIFEST', 'PARQUET'];

/** `ReaderConfig.CSVDelimiter` names and the character each stands for. */
const CSV_DELIMITERS: Readonly<Record<string, string>> = {
  COMMA: ',',
  PIPE: '|',
  SEMICOLON: ';',
  SPACE: ' ',
  TAB: '\t',
};

/** Reads the items of a Distributed Map's `ItemReader`; throws {@link ItemReaderFailedError}. */
export async function readMapItems(s3: S3Client | undefined, spec: MapItemReaderSpec): Promise<unknown[]> {
  if (spec.maxItems !== undefined && spec.maxItems < 0)
    throw new ItemReaderFailedError('field MaxItems must be positive');
  // 0 (or none) reads every item; AWS reads at most MAX_ITEM_READER_ITEMS.
  const limit = spec.maxItems ? Math.min(spec.maxItems, MAX_ITEM_READER_ITEMS) : MAX_ITEM_READER_ITEMS;
  if (!s3) throw new ItemReaderFailedError('No S3 client is configured on the local engine');
  const { GetObjectCommand, ListObjectsV2Command } = await import('@aws-sdk/client-s3');
  if (LIST_OBJECTS_V2.test(spec.resource)) {
    const items: unknown[] = [];
    let token: string | undefined;
    do {
      const page = await s3call(() =>
        s3.send(
          new ListObjectsV2Command({
            ...(spec.args as object),
            ...(token ? { ContinuationToken: token } : {}),
          } as never),
        ),
      );
      for (const o of page.Contents ?? []) {
        if (items.length >= limit) break;
        // AWS's item for an object: these five fields, LastModified in epoch seconds.
        items.push({
          Etag: o.ETag,
          Key: o.Key,
          LastModified: o.LastModified ? Math.floor(o.LastModified.getTime() / 1000) : undefined,
          Size: o.Size,
          StorageClass: o.StorageClass ?? 'STANDARD',
        });
      }
      token = page.IsTruncated && items.length < limit ? page.NextContinuationToken : undefined;
    } while (token);
    return items;
  }
  if (!GET_OBJECT.test(spec.resource))
    throw new ItemReaderFailedError(`The local engine does not read items from '${spec.resource}'`);
  const object = await s3call(() => s3.send(new GetObjectCommand(spec.args as never)));
  const text = (await object.Body?.transformToString('utf-8')) ?? '';
  switch (spec.inputType) {
    case 'JSON': {
      const parsed = parseJson(text);
      if (!Array.isArray(parsed)) throw new ItemReaderFailedError('Attempting to map over non-iterable node.');
      return parsed.slice(0, limit);
    }
    case 'JSONL':
      return text
        .split(/\r?\n/)
        .filter((line) => line.trim() !== '')
        .slice(0, limit)
        .map(parseJson);
    case 'CSV':
      return (await csvRows(text, spec)).slice(0, limit);
    default:
      // MANIFEST (an S3 inventory) and PARQUET: AWS reads them, the engine does not (yet).
      throw new ItemReaderFailedError(
        `The local engine does not read ItemReader InputType '${spec.inputType ?? ''}': serve the Map's items with a mock config, or read them as JSON, JSONL or CSV (docs/definitions.md)`,
      );
  }
}

/** An S3 call; its error fails the read with the cause AWS writes for an S3 error (see {@link s3ErrorCause}). */
async function s3call<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw new ItemReaderFailedError(s3ErrorCause(err), { cause: err });
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ItemReaderFailedError(`The object's content is not valid JSON: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

/**
 * CSV rows as items: one object per data row, its fields named by the headers (the first row, or the
 * given `CSVHeaders`), every value a string; a short row's missing fields are `""`, fields past the last
 * header are dropped, empty lines are skipped. Duplicate headers fail the read.
 */
async function csvRows(text: string, spec: MapItemReaderSpec): Promise<Record<string, string>[]> {
  const { parse } = await import('csv-parse/sync');
  let rows: string[][];
  try {
    rows = parse(text, {
      delimiter: CSV_DELIMITERS[spec.csvDelimiter ?? 'COMMA'] ?? ',',
      relax_column_count: true,
      skip_empty_lines: true,
    }) as string[][];
  } catch (err) {
    throw new ItemReaderFailedError(`The object's content is not valid CSV: ${(err as Error).message}`, { cause: err });
  }
  const headers = spec.csvHeaderLocation === 'GIVEN' ? (spec.csvHeaders ?? []).map(String) : (rows.shift() ?? []);
  if (new Set(headers).size !== headers.length)
    throw new ItemReaderFailedError('CSV headers cannot contain duplicates.');
  const order = javaHashMapOrder(headers);
  return rows.map((row) => Object.fromEntries(order.map((i) => [headers[i], row[i] ?? ''])));
}

/**
 * The order in which a `java.util.HashMap` of these distinct keys iterates them: by bucket (the spread
 * `String.hashCode` masked by the table size the map grows to at load factor 0.75), then by insertion.
 * AWS builds each CSV row as such a map, so a row's fields come out in this order (recorded: header row
 * `0,True,{}` gives `{"0":…,"{}":…,"True":…}`), not in column order.
 */
export function javaHashMapOrder(keys: readonly string[]): number[] {
  let capacity = 16;
  while (keys.length > capacity * 0.75) capacity *= 2;
  const bucketOf = (key: string): number => {
    let h = 0;
    for (let i = 0; i < key.length; i++) h = (Math.imul(h, 31) + key.charCodeAt(i)) | 0;
    return (h ^ (h >>> 16)) & (capacity - 1);
  };
  return keys
    .map((key, index) => ({ index, bucket: bucketOf(key) }))
    .sort((a, b) => a.bucket - b.bucket || a.index - b.index)
    .map((k) => k.index);
}
