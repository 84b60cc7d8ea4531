/**
 * What a Map's item source and sink fields (`ItemReader`, `ItemBatcher`, `ResultWriter`) become once
 * their expressions are evaluated, shared by both query languages: each evaluates the fields its own way
 * and hands the values here to be shaped.
 */
import type { MapItemBatcherSpec, MapItemReaderSpec, MapResultWriterSpec } from '../types';
import type { ErrorFactory } from './values';

type Json = Readonly<Record<string, unknown>>;
const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The object at `owner[field]`, or undefined when absent or not an object. */
export const objectField = (owner: Json, field: string): Json | undefined =>
  isObject(owner[field]) ? (owner[field] as Json) : undefined;

/** An evaluated `Parameters`/`Arguments` block as the call's arguments (`{}` when absent). */
export const argumentsOf = (value: unknown): Json => (isObject(value) ? value : {});

/**
 * A count field's value as an integer (undefined when absent), or the factory's error in AWS's words for
 * a `*Path` field: `The MaxItemsPath field refers to value "1.5" which is not a valid integer: $.MaxItems`.
 */
export function integerValue(value: unknown, field: string, fail: ErrorFactory, path?: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  const shown = typeof value === 'string' ? value : JSON.stringify(value);
  throw fail(
    `The ${field} field refers to value "${shown}" which is not a valid integer${path !== undefined ? `: ${path}` : ''}`,
  );
}

/** The reader spec of an `ItemReader` whose arguments and `MaxItems` are evaluated. */
export function itemReaderSpec(reader: Json, args: unknown, maxItems: number | undefined): MapItemReaderSpec {
  const config = objectField(reader, 'ReaderConfig') ?? {};
  const text = (field: string) => (typeof config[field] === 'string' ? { [field]: config[field] as string } : {});
  const { InputType, CSVHeaderLocation, CSVDelimiter } = {
    ...text('InputType'),
    ...text('CSVHeaderLocation'),
    ...text('CSVDelimiter'),
  } as Record<string, string | undefined>;
  return {
    resource: String(reader.Resource),
    args: argumentsOf(args),
    ...(InputType !== undefined ? { inputType: InputType } : {}),
    ...(CSVHeaderLocation !== undefined ? { csvHeaderLocation: CSVHeaderLocation } : {}),
    ...(Array.isArray(config.CSVHeaders) ? { csvHeaders: config.CSVHeaders as unknown[] } : {}),
    ...(CSVDelimiter !== undefined ? { csvDelimiter: CSVDelimiter } : {}),
    ...(maxItems !== undefined ? { maxItems } : {}),
  };
}

/** The batcher spec of an `ItemBatcher` whose fields are evaluated. */
export function itemBatcherSpec(
  maxItemsPerBatch: number | undefined,
  maxInputBytesPerBatch: number | undefined,
  batchInput: unknown,
): MapItemBatcherSpec {
  return {
    ...(maxItemsPerBatch !== undefined ? { maxItemsPerBatch } : {}),
    ...(maxInputBytesPerBatch !== undefined ? { maxInputBytesPerBatch } : {}),
    ...(batchInput !== undefined ? { batchInput } : {}),
  };
}

/** The writer spec of a `ResultWriter` whose arguments are evaluated. */
export function resultWriterSpec(writer: Json, args: unknown): MapResultWriterSpec {
  const config = objectField(writer, 'WriterConfig') ?? {};
  return {
    ...(typeof writer.Resource === 'string' ? { resource: writer.Resource } : {}),
    args: argumentsOf(args),
    ...(typeof config.Transformation === 'string' ? { transformation: config.Transformation } : {}),
    ...(typeof config.OutputType === 'string' ? { outputType: config.OutputType } : {}),
  };
}
